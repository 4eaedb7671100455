package reader

import (
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rankeval/rankeval/internal/synth"
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
			var rows int64
			for b.Loop() {
				r, err := Open(path, stdCols, Options{Decoders: dec})
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
		})
	}
}

func BenchmarkParquetRead(b *testing.B)       { benchRead(b, "zstd.parquet") }
func BenchmarkParquetSnappyRead(b *testing.B) { benchRead(b, "snappy.parquet") }
func BenchmarkArrowFileRead(b *testing.B)     { benchRead(b, "plain.arrow") }
func BenchmarkArrowZstdRead(b *testing.B)     { benchRead(b, "zstd.arrow") }
func BenchmarkArrowStreamRead(b *testing.B)   { benchRead(b, "plain.arrows") }

// TestBytesRead: the columnar readers report the bytes they read, for
// progress.
func TestBytesRead(t *testing.T) {
	dir := t.TempDir()
	log := genLog(1, 20000, 20)
	for _, n := range []string{"b.parquet", "b.arrow", "b.arrows"} {
		name := filepath.Join(dir, n)
		writeLog(t, name, log, synth.Options{RowGroup: 4000, Batch: 4000})
		st, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		var got atomic.Int64
		if _, err := readAll(t, name, stdCols, Options{BytesRead: &got}); err != nil {
			t.Fatal(err)
		}
		if g := got.Load(); g < st.Size()/2 || g > 2*st.Size() {
			t.Errorf("%s: %d bytes read reported for a file of %d", n, g, st.Size())
		}
	}
}
