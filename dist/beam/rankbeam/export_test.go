package rankbeam

// SetChunkRows sets the rows a part's count table holds before its cells
// are emitted, and returns the function that restores it.
func SetChunkRows(n int64) (restore func()) {
	old := chunkRows
	chunkRows = n
	return func() { chunkRows = old }
}
