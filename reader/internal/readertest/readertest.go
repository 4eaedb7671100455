// Package readertest holds the helpers the reader packages' tests share:
// files written to a test's directory, gzip and zstd bytes, a log to read,
// and rows read back from any Reader in one comparable shape.
package readertest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/rankeval/rankeval/reader/internal/batch"
)

// BenchLog makes n rows of a typical click log line.
func BenchLog(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, `{"query_id":"q%07d","doc_id":"d%d","score":%.6f,"label":%d}`+"\n", i/50, i%50, float64(i%977)/977-0.3, i%5)
	}
	return b.Bytes()
}

// SetForTest sets *v to n until the test ends.
func SetForTest(t testing.TB, v *int, n int) {
	old := *v
	*v = n
	t.Cleanup(func() { *v = old })
}

var TestCols = batch.Columns{Query: "query_id", Doc: "doc_id", Score: "score", Label: "label"}

type RowOut struct {
	Q, D         string
	Score, Label float64
	Rank         int64
	Pos          int64
}

func ReadAllRows(t testing.TB, r batch.Reader) ([]RowOut, error) {
	t.Helper()
	var out []RowOut
	for r.Next() {
		b := r.Batch()
		for i := 0; i < b.N; i++ {
			ro := RowOut{Q: string(b.Query.At(i)), Label: b.Label[i], Pos: b.Pos[i]}
			if len(b.Doc.Off) > 1 {
				ro.D = string(b.Doc.At(i))
			}
			if len(b.Score) > 0 {
				ro.Score = b.Score[i]
			}
			if b.Rank != nil {
				ro.Rank = b.Rank[i]
			}
			out = append(out, ro)
		}
	}
	return out, r.Err()
}

func WriteFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	return WriteFileIn(t, t.TempDir(), name, data)
}

func WriteFileIn(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func GzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func ZstdBytes(b []byte) []byte {
	var buf bytes.Buffer
	w, _ := zstd.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// WriteParquet writes rec to w as one Parquet file. pqarrow's writer
// closes w when it is an io.Closer; writeRecord hides its Close.
func WriteParquet(t testing.TB, w io.Writer, rec arrow.RecordBatch, aprops pqarrow.ArrowWriterProperties, props ...parquet.WriterProperty) {
	t.Helper()
	fw, err := pqarrow.NewFileWriter(rec.Schema(), w, parquet.NewWriterProperties(props...), aprops)
	if err != nil {
		t.Fatal(err)
	}
	if err := fw.WriteBuffered(rec); err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
}

// SkippableFrame is a zstd skippable frame: magic 0x184D2A5n (n = id),
// little-endian, then the payload's size, then the payload.
func SkippableFrame(id byte, payload []byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, 0x184D2A50|uint32(id&0xf))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(payload)))
	return append(b, payload...)
}

func Concat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
