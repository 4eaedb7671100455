package reader

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"testing"
)

// benchLog makes n rows of a typical click log line.
func benchLog(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, `{"query_id":"q%07d","doc_id":"d%d","score":%.6f,"label":%d}`+"\n", i/50, i%50, float64(i%977)/977-0.3, i%5)
	}
	return b.Bytes()
}

func BenchmarkJSONL(b *testing.B) {
	data := benchLog(200_000)
	if f := os.Getenv("RANKEVAL_BENCH_FILE"); f != "" {
		var err error
		if data, err = os.ReadFile(f); err != nil {
			b.Fatal(err)
		}
	}
	cols := Columns{Query: "query_id", Score: "score", Label: "label"}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	rows := 0
	for range b.N {
		j := newJSONL("bench", bytes.NewReader(data), io.NopCloser(nil), cols, Options{})
		for j.Next() {
			rows += j.Batch().N
		}
		if j.Err() != nil {
			b.Fatal(j.Err())
		}
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}
