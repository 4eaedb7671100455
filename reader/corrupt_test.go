package reader

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/rankeval/rankeval/internal/synth"
	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/readertest"
)

// TestCorruptInput damages good files in the ways data-lake files get
// damaged and checks the error: its sentinel, the file named, and the row
// group or row where there is one.
func TestCorruptInput(t *testing.T) {
	checkedMem(t)
	dir := t.TempDir()
	log := readertest.GenLog(5, 20000, 50)
	good := map[string][]byte{}
	for _, n := range []string{"log.parquet", "log.arrow", "log.arrows"} {
		name := filepath.Join(dir, "good-"+n)
		readertest.WriteLog(t, name, log, synth.Options{RowGroup: 5000, Batch: 5000})
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		good[filepath.Ext(n)] = b
	}
	pq := good[".parquet"]
	footerLen := int(binary.LittleEndian.Uint32(pq[len(pq)-8:]))
	mutate := func(src []byte, f func(b []byte) []byte) []byte {
		return f(bytes.Clone(src))
	}
	rec := nullRecord(memory.DefaultAllocator, "score")
	defer rec.Release()
	nulls := filepath.Join(dir, "nulls.parquet")
	readertest.WriteRecord(t, nulls, rec, 5)
	nullBytes, err := os.ReadFile(nulls)
	if err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name  string
		ext   string
		data  []byte
		cols  batch.Columns
		err   error
		where []string // the message must say each
	}{
		{"truncated Parquet", ".parquet", pq[:len(pq)/2], readertest.StdCols, batch.ErrFormat, nil},
		{"Parquet cut before its last byte", ".parquet", pq[:len(pq)-1], readertest.StdCols, batch.ErrFormat, nil},
		{"wrong trailing magic", ".parquet", mutate(pq, func(b []byte) []byte { copy(b[len(b)-4:], "PARX"); return b }), readertest.StdCols, batch.ErrFormat, nil},
		{"bad footer", ".parquet", mutate(pq, func(b []byte) []byte {
			m := b[len(b)-8-footerLen : len(b)-8]
			for i := range m {
				m[i] = 0xff
			}
			return b
		}), readertest.StdCols, batch.ErrFormat, nil},
		{"footer length past the start", ".parquet", mutate(pq, func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[len(b)-8:], uint32(len(b)))
			return b
		}), readertest.StdCols, batch.ErrFormat, nil},
		{"corrupt column chunk", ".parquet", mutate(pq, func(b []byte) []byte {
			// the second row group's pages sit past the middle of the data
			for i := len(b) * 2 / 5; i < len(b)*2/5+4000; i++ {
				b[i] ^= 0x5a
			}
			return b
		}), readertest.StdCols, batch.ErrFormat, []string{"row group"}},
		{"missing column", ".parquet", pq, batch.Columns{Query: "query_id", Score: "prediction", Label: "label"}, batch.ErrColumn,
			[]string{`"prediction"`, `"query_id", "doc_id", "score", "label"`}},
		{"wrong column type", ".parquet", pq, batch.Columns{Query: "query_id", Score: "doc_id", Label: "label"}, batch.ErrColumn,
			[]string{`"doc_id"`, "utf8"}},
		{"null in a required column", ".parquet", nullBytes, readertest.StdCols, batch.ErrValue, []string{"row group 1, row 2"}},
		{"truncated Arrow IPC file", ".arrow", good[".arrow"][:len(good[".arrow"])/2], readertest.StdCols, batch.ErrFormat, nil},
		{"Arrow IPC file with a bad footer", ".arrow", mutate(good[".arrow"], func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[len(b)-10:], 1<<30)
			return b
		}), readertest.StdCols, batch.ErrFormat, nil},
		{"truncated Arrow IPC stream", ".arrows", good[".arrows"][:len(good[".arrows"])*3/4], readertest.StdCols, batch.ErrFormat, []string{"record batch"}},
		{"Arrow IPC stream cut in its schema", ".arrows", good[".arrows"][:20], readertest.StdCols, batch.ErrFormat, nil},
		{"missing column in an IPC stream", ".arrows", good[".arrows"], batch.Columns{Query: "qid", Score: "score", Label: "label"}, batch.ErrColumn, []string{`"qid"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			name := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+c.ext)
			if err := os.WriteFile(name, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, dec := range []int{1, 2} {
				_, err := readAll(t, name, c.cols, batch.Options{Decoders: dec})
				if !errors.Is(err, c.err) {
					t.Fatalf("decoders=%d: err = %v, want %v", dec, err, c.err)
				}
				if dec == 1 {
					t.Log(err)
				}
				for _, s := range append([]string{name + ":"}, c.where...) {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("decoders=%d: error %q does not say %q", dec, err, s)
					}
				}
			}
		})
	}
}

// TestEmptyColumnar reads files with a schema and no rows.
func TestEmptyColumnar(t *testing.T) {
	checkedMem(t)
	dir := t.TempDir()
	for _, n := range []string{"e.parquet", "e.arrow", "e.arrows"} {
		name := filepath.Join(dir, n)
		readertest.WriteLog(t, name, nil, synth.Options{})
		rows, err := readAll(t, name, readertest.StdCols, batch.Options{})
		if err != nil || len(rows) != 0 {
			t.Errorf("%s: %d rows, err %v; want none and no error", n, len(rows), err)
		}
	}
}

// TestCloseEarly stops reading in the middle: Close must stop the decoders
// and release every record (checkedMem asserts it).
func TestCloseEarly(t *testing.T) {
	checkedMem(t)
	dir := t.TempDir()
	log := readertest.GenLog(2, 50000, 10)
	before := runtime.NumGoroutine()
	defer func() {
		// Nothing this package started outlives the test. The count may
		// briefly include a runtime goroutine running a cleanup or finalizer
		// (os.File, seen under -race in CI), so it gets a grace period; a
		// leaked decoder stays and fails.
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if after := runtime.NumGoroutine(); after > before {
			t.Errorf("%d goroutines before, %d after closing every reader:\n%s", before, after, allStacks())
		}
	}()
	for _, n := range []string{"c.parquet", "c.arrow", "c.arrows", "one-group.parquet", "c.jsonl.zst", "c.csv", "c.tsv.gz"} {
		name := filepath.Join(dir, n)
		opt := synth.Options{RowGroup: 2000, Batch: 2000}
		if strings.HasPrefix(n, "one-group") {
			opt.RowGroup = len(log) // one row group: columns decoded in parallel
		}
		readertest.WriteLog(t, name, log, opt)
		for _, dec := range []int{1, 2, 4} {
			r, err := Open(name, readertest.StdCols, batch.Options{BatchSize: 1000, Decoders: dec})
			if err != nil {
				t.Fatal(err)
			}
			if !r.Next() {
				t.Fatalf("%s: no batch: %v", n, r.Err())
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			// Close waits for the decoders: none may still work once it returns.
			if live := batch.LiveDecoders.Load(); live != 0 {
				t.Fatalf("%s decoders=%d: %d decoders still working after Close", n, dec, live)
			}
			if err := r.Close(); err != nil {
				t.Fatalf("second Close: %v", err)
			}
			if r.Next() {
				t.Fatalf("%s: Next after Close returned a batch", n)
			}
		}
	}
}

// TestColumnarFromPipe: an Arrow IPC stream reads from standard input; the
// formats whose footer is at the end say they need a regular file.
func TestColumnarFromPipe(t *testing.T) {
	checkedMem(t)
	dir := t.TempDir()
	log := readertest.GenLog(4, 3000, 10)
	for _, c := range []struct {
		name string
		err  error
	}{{"s.arrows", nil}, {"f.arrow", batch.ErrFormat}, {"p.parquet", batch.ErrFormat}} {
		t.Run(c.name, func(t *testing.T) {
			name := filepath.Join(dir, c.name)
			readertest.WriteLog(t, name, log, synth.Options{Batch: 700})
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
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
			rows, err := readAllAs(t, batch.Stdin, "<stdin>", readertest.StdCols, batch.Options{})
			if c.err != nil {
				if !errors.Is(err, c.err) || !strings.Contains(err.Error(), "<stdin>: ") || !strings.Contains(err.Error(), "regular file") {
					t.Fatalf("err = %v, want %v naming <stdin> and asking for a regular file", err, c.err)
				}
				return
			}
			if err != nil || len(rows) != len(log) {
				t.Fatalf("%d rows, err %v; want %d", len(rows), err, len(log))
			}
		})
	}
}

func allStacks() string {
	buf := make([]byte, 1<<20)
	return string(buf[:runtime.Stack(buf, true)])
}
