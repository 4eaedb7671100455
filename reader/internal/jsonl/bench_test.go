package jsonl_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/jsonl"
	"github.com/rankeval/rankeval/reader/internal/readertest"
)

func BenchmarkJSONL(b *testing.B) {
	data := readertest.BenchLog(200_000)
	if f := os.Getenv("RANKEVAL_BENCH_FILE"); f != "" {
		var err error
		if data, err = os.ReadFile(f); err != nil {
			b.Fatal(err)
		}
	}
	cols := batch.Columns{Query: "query_id", Score: "score", Label: "label"}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	rows := 0
	for range b.N {
		j := jsonl.New("bench", bytes.NewReader(data), io.NopCloser(nil), cols, batch.Options{})
		for j.Next() {
			rows += j.Batch().N
		}
		if j.Err() != nil {
			b.Fatal(j.Err())
		}
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkJSONLWide parses click-shaped lines (scripts/genclicks: eleven
// fields, of which four are read) on one goroutine: the field scanner's
// speed, without the splitter and the hand-over between goroutines.
func BenchmarkJSONLWide(b *testing.B) {
	var data bytes.Buffer
	for i := range 50_000 {
		fmt.Fprintf(&data, `{"ts":"2026-03-01T00:%02d:%02d.%03dZ","query_id":"q%08d","market":"en-US","device":"mobile","doc_id":"d%09d",`+
			`"position":%d,"title":"best cheap wireless charger %d fast shipping","score":%.6f,"clicked":%v,"dwell_ms":%d,"label":%d}`+"\n",
			i/6000%60, i/100%60, i%1000, i/10, i*7919%50000000, i%10+1, i%97, float64(i%977)/977, i%3 == 0, i*31%120000, i%5)
	}
	lines := bytes.SplitAfter(data.Bytes(), []byte("\n"))
	j := jsonl.NewParser("bench", readertest.TestCols, batch.Options{})
	j.B = readertest.TestCols.Shape("bench")
	b.SetBytes(int64(data.Len()))
	b.ResetTimer()
	for range b.N {
		j.B.Reset()
		for _, l := range lines[:len(lines)-1] {
			if j.B.N == 8192 {
				j.B.Reset()
			}
			j.Line++
			if err := j.Parse(l[:len(l)-1]); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N*(len(lines)-1))/b.Elapsed().Seconds(), "rows/s")
}
