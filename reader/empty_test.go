package reader

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/klauspost/compress/zstd"
	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/readertest"
	"github.com/rankeval/rankeval/reader/trec"
)

// memObject is an object of a store held in memory.
type memObject struct{ *bytes.Reader }

func (m memObject) Stream() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(m.bytes())), nil
}

func (m memObject) Close() error { return nil }

func (m memObject) bytes() []byte {
	b := make([]byte, m.Size())
	m.ReadAt(b, 0)
	return b
}

func newMemObject(b []byte) memObject { return memObject{bytes.NewReader(b)} }

// zstdFrameOf compresses b into one full frame even when b is empty, as the
// zstd command does (klauspost's writer writes nothing for no input unless
// asked).
func zstdFrameOf(b []byte) []byte {
	var buf bytes.Buffer
	w, _ := zstd.NewWriter(&buf, zstd.WithZeroFrames(true))
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// noRows checks that r has no rows and no error, at once.
func noRows(t *testing.T, r batch.Reader) {
	t.Helper()
	defer r.Close()
	if r.Next() {
		t.Fatalf("Next returned a batch of %d rows", r.Batch().N)
	}
	if err := r.Err(); err != nil {
		t.Fatalf("Err = %v", err)
	}
	if r.Next() {
		t.Fatal("Next returned a batch after the end")
	}
}

// TestEmptyInputs: an input with no rows is zero rows, not an error (SPEC
// §8), in every format and compression.
func TestEmptyInputs(t *testing.T) {
	checkedMem(t)
	dir := t.TempDir()
	empty := readertest.TypesRecord(memory.DefaultAllocator)
	defer empty.Release()
	none := empty.NewSlice(0, 0)
	defer none.Release()

	files := map[string][]byte{
		"zero.jsonl":         nil,
		"zero.jsonl.gz":      nil, // a failed export named by its intent: still no rows
		"zero.jsonl.zst":     nil,
		"blank.jsonl":        []byte("\n \n\r\n\t\n"),
		"gzip-of-nothing":    readertest.GzipBytes(nil),
		"gzip-of-blanks":     readertest.GzipBytes([]byte("\n\n")),
		"zstd-of-nothing":    zstdFrameOf(nil),
		"zstd-no-frame":      readertest.ZstdBytes(nil),
		"zstd-of-blanks":     zstdFrameOf([]byte("\n\n")),
		"gzip-two-empty-mem": append(readertest.GzipBytes(nil), readertest.GzipBytes(nil)...),
	}
	for name, data := range files {
		readertest.WriteFileIn(t, dir, name, data)
	}
	// columnar files with no rows: no unit at all, and one empty unit
	for _, n := range []string{"none.parquet", "none.arrow", "none.arrows"} {
		readertest.WriteRecord(t, filepath.Join(dir, n), none, 4)
		files[n] = nil
	}
	for _, n := range []string{"emptyunit.arrow", "emptyunit.arrows"} {
		writeEmptyUnit(t, filepath.Join(dir, n), none)
		files[n] = nil
	}
	{
		name := filepath.Join(dir, "emptygroup.parquet")
		f, err := os.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		fw, err := pqarrow.NewFileWriter(none.Schema(), f, parquet.NewWriterProperties(), pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
		if err != nil {
			t.Fatal(err)
		}
		if err := fw.Write(none); err != nil { // one row group of 0 rows
			t.Fatal(err)
		}
		if err := fw.Close(); err != nil {
			t.Fatal(err)
		}
		files["emptygroup.parquet"] = nil
	}
	colsFor := func(name string) batch.Columns {
		switch filepath.Ext(name) {
		case ".parquet", ".arrow", ".arrows":
			return batch.Columns{Query: "q_str", Doc: "d_str", Score: "s_f64", Label: "l_i32", Rank: "r_i32"}
		}
		return readertest.TestCols
	}
	for name := range files {
		p := filepath.Join(dir, name)
		for _, dec := range []int{1, 2} {
			t.Run(name, func(t *testing.T) {
				r, err := Open(p, colsFor(name), batch.Options{Decoders: dec})
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				noRows(t, r)
			})
		}
		t.Run(name+"/object", func(t *testing.T) {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			r, err := OpenObject("s3://b/"+name, newMemObject(b), colsFor(name), batch.Options{})
			if err != nil {
				t.Fatalf("OpenObject: %v", err)
			}
			noRows(t, r)
		})
	}

	for name, data := range map[string][]byte{"zero": nil, "gzip-of-nothing": readertest.GzipBytes(nil), "blank": []byte("\n\n")} {
		t.Run("stdin/"+name, func(t *testing.T) {
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			go func() {
				pw.Write(data)
				pw.Close()
			}()
			old := os.Stdin
			os.Stdin = pr
			defer func() { os.Stdin = old; pr.Close() }()
			r, err := Open(batch.Stdin, readertest.TestCols, batch.Options{})
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			noRows(t, r)
		})
	}

	// A TREC run with no lines has no rows either.
	qrels, err := trec.ReadQrels(readertest.WriteFileIn(t, dir, "qrels", []byte("q1 0 d1 1\n")))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"zero": nil, "blank": []byte("\n\n"), "gzip-of-nothing": readertest.GzipBytes(nil)} {
		p := readertest.WriteFileIn(t, dir, "run-"+name, data)
		for _, dec := range []int{1, 2} {
			t.Run("run/"+name, func(t *testing.T) {
				r, err := trec.OpenRun(p, qrels, trec.RunOptions{Options: batch.Options{Decoders: dec}})
				if err != nil {
					t.Fatalf("OpenRun: %v", err)
				}
				noRows(t, r)
			})
		}
	}
}

// writeEmptyUnit writes an Arrow IPC file or stream (by name) holding one
// record batch of no rows.
func writeEmptyUnit(t *testing.T, name string, none arrow.RecordBatch) {
	t.Helper()
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var w interface {
		Write(arrow.RecordBatch) error
		Close() error
	}
	if filepath.Ext(name) == ".arrow" {
		if w, err = ipc.NewFileWriter(f, ipc.WithSchema(none.Schema())); err != nil {
			t.Fatal(err)
		}
	} else {
		w = ipc.NewWriter(f, ipc.WithSchema(none.Schema()))
	}
	if err := w.Write(none); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}
