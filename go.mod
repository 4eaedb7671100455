module github.com/rankeval/rankeval

go 1.26.0

require (
	github.com/apache/arrow-go/v18 v18.8.0 // indirect
	github.com/klauspost/compress v1.20.3 // indirect
	golang.org/x/sync v0.24.0 // indirect
)
