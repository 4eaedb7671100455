package reader

import (
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rankeval/rankeval/internal/synth"
	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/columnar"
	"github.com/rankeval/rankeval/reader/internal/readertest"
)

var (
	benchOnce  sync.Once
	benchDir   string
	benchFiles = map[string]synth.Options{
		"zstd.parquet":   {Codec: "zstd", RowGroup: 1 << 18},
		"snappy.parquet": {Codec: "snappy", RowGroup: 1 << 18},
		"plain.arrow":    {},
		"zstd.arrow":     {IPCCodec: "zstd"},
		"plain.arrows":   {},
		"log.jsonl.zst":  {},
	}
)

const benchRows = 1_000_000

// benchFile writes the 1M-row benchmark log (100 rows a query) in every
// format once per run.
func benchFile(b *testing.B, name string) string {
	benchOnce.Do(func() {
		d, err := os.MkdirTemp("", "rankeval-bench-")
		if err != nil {
			b.Fatal(err)
		}
		benchDir = d
		for n, opt := range benchFiles {
			if err := synth.Write(filepath.Join(d, n), synth.NewGenerator(1, benchRows, 100), -1, opt); err != nil {
				b.Fatal(err)
			}
		}
	})
	return filepath.Join(benchDir, name)
}

func benchRead(b *testing.B, name string) {
	for _, dec := range []int{1, 2} {
		b.Run("decoders="+strconv.Itoa(dec), func(b *testing.B) {
			path := benchFile(b, name)
			st, _ := os.Stat(path)
			b.SetBytes(st.Size())
			benchLoop(b, path, batch.Options{Decoders: dec})
		})
	}
}

// benchLoop reads path whole at every iteration and reports rows/s.
func benchLoop(b *testing.B, path string, opt batch.Options) {
	var rows int64
	for b.Loop() {
		r, err := Open(path, readertest.StdCols, opt)
		if err != nil {
			b.Fatal(err)
		}
		for r.Next() {
			rows += int64(r.Batch().N)
		}
		if err := r.Err(); err != nil {
			b.Fatal(err)
		}
		r.Close()
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkParquetRead(b *testing.B) { benchRead(b, "zstd.parquet") }

// BenchmarkParquetStrings reads the Parquet log with its columns decoded by
// the reader's own column sources and by pqarrow, one decoder each.
func BenchmarkParquetStrings(b *testing.B) {
	for _, own := range []bool{true, false} {
		b.Run(map[bool]string{true: "own", false: "pqarrow"}[own], func(b *testing.B) {
			path := benchFile(b, "zstd.parquet")
			columnar.ParquetOwnStrings = own
			defer func() { columnar.ParquetOwnStrings = true }()
			benchLoop(b, path, batch.Options{Decoders: 1})
		})
	}
}

func BenchmarkParquetSnappyRead(b *testing.B) { benchRead(b, "snappy.parquet") }

func BenchmarkArrowFileRead(b *testing.B) { benchRead(b, "plain.arrow") }

func BenchmarkArrowZstdRead(b *testing.B) { benchRead(b, "zstd.arrow") }

func BenchmarkArrowStreamRead(b *testing.B) { benchRead(b, "plain.arrows") }

// TestBytesRead: the columnar readers report the bytes they read, for
// progress.
func TestBytesRead(t *testing.T) {
	dir := t.TempDir()
	log := readertest.GenLog(1, 20000, 20)
	for _, n := range []string{"b.parquet", "b.arrow", "b.arrows"} {
		name := filepath.Join(dir, n)
		readertest.WriteLog(t, name, log, synth.Options{RowGroup: 4000, Batch: 4000})
		st, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		var got atomic.Int64
		if _, err := readAll(t, name, readertest.StdCols, batch.Options{BytesRead: &got}); err != nil {
			t.Fatal(err)
		}
		if g := got.Load(); g < st.Size()/2 || g > 2*st.Size() {
			t.Errorf("%s: %d bytes read reported for a file of %d", n, g, st.Size())
		}
	}
}
