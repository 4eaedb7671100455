package reader

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/readertest"
)

// TestOpenDetectsCompression checks the format comes from the bytes: every
// file is named .txt.
func TestOpenDetectsCompression(t *testing.T) {
	plain := readertest.BenchLog(20_000)
	want, err := readertest.ParseString(t, string(plain), readertest.TestCols, 4096)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"plain": plain, "gzip": readertest.GzipBytes(plain), "zstd": readertest.ZstdBytes(plain)} {
		t.Run(name, func(t *testing.T) {
			r, err := Open(readertest.WriteFile(t, "log.txt", data), readertest.TestCols, batch.Options{BatchSize: 999})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			got, err := readertest.ReadAllRows(t, r)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) || got[len(got)-1] != want[len(want)-1] || got[0] != want[0] {
				t.Fatalf("got %d rows, want %d", len(got), len(want))
			}
		})
	}
}

func TestOpenTruncated(t *testing.T) {
	plain := readertest.BenchLog(20_000)
	for name, data := range map[string][]byte{"gzip": readertest.GzipBytes(plain), "zstd": readertest.ZstdBytes(plain)} {
		t.Run(name, func(t *testing.T) {
			path := readertest.WriteFile(t, "log.jsonl", data[:len(data)*2/3])
			r, err := Open(path, readertest.TestCols, batch.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			rows, err := readertest.ReadAllRows(t, r)
			if !errors.Is(err, batch.ErrCompression) {
				t.Fatalf("err = %v after %d rows, want ErrCompression", err, len(rows))
			}
			if !strings.HasPrefix(err.Error(), path+":") {
				t.Fatalf("message %q does not name the file and line", err)
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	t.Run("missing file", func(t *testing.T) {
		_, err := Open(filepath.Join(t.TempDir(), "nope.jsonl"), readertest.TestCols, batch.Options{})
		if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "nope.jsonl") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("directory", func(t *testing.T) {
		_, err := Open(t.TempDir(), readertest.TestCols, batch.Options{})
		if !errors.Is(err, batch.ErrFormat) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("no score and no rank", func(t *testing.T) {
		_, err := Open("x", batch.Columns{Query: "q", Label: "l"}, batch.Options{})
		if !errors.Is(err, batch.ErrColumn) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("empty file has no rows", func(t *testing.T) {
		r, err := Open(readertest.WriteFile(t, "e.jsonl", nil), readertest.TestCols, batch.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if rows, err := readertest.ReadAllRows(t, r); err != nil || len(rows) != 0 {
			t.Fatalf("rows %d err %v", len(rows), err)
		}
	})
	t.Run("blank lines only have no rows", func(t *testing.T) {
		r, err := Open(readertest.WriteFile(t, "e.jsonl", []byte("\n \n")), readertest.TestCols, batch.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if rows, err := readertest.ReadAllRows(t, r); err != nil || len(rows) != 0 {
			t.Fatalf("rows %d err %v", len(rows), err)
		}
	})
}

// FuzzDetect opens arbitrary bytes as a file: magic-byte detection and the
// decompressors must fail cleanly, never panic.
func FuzzDetect(f *testing.F) {
	f.Add([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0})
	f.Add(readertest.ZstdBytes([]byte(`{"query_id":"q","doc_id":"d","score":1,"label":1}`)))
	f.Add(readertest.GzipBytes([]byte(`{"query_id":"q","doc_id":"d","score":1,"label":1}`)))
	// inputs with no rows, and text of no format read (which Expand's
	// check and Open must agree on)
	f.Add([]byte{})
	f.Add(readertest.GzipBytes(nil))
	f.Add(zstdFrameOf(nil))
	f.Add([]byte("\n \r\n"))
	f.Add([]byte("# README\nabout the data\n"))
	f.Add(readertest.GzipBytes([]byte("# README\n")))
	f.Add([]byte("\n\n[{\"query_id\":\"q\"}]"))
	f.Add([]byte("q1 Q0 d1 1 0.5 run\n"))
	f.Add([]byte("\xef\xbb\xbf{\"query_id\":\"q\",\"doc_id\":\"d\",\"score\":1,\"label\":1}"))
	f.Add([]byte("\xef\xbb\xbfq,d,s\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "in")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		stray, serr := sniffFile(p)
		if serr != nil {
			t.Fatal(serr)
		}
		r, err := Open(p, readertest.TestCols, batch.Options{BatchSize: 2})
		if stray != nil && !errors.Is(err, batch.ErrFormat) {
			t.Fatalf("Expand finds no known format in a directory, Open says %v", err)
		}
		if err != nil {
			if !strings.Contains(err.Error(), p) {
				t.Fatalf("error without file name: %v", err)
			}
			return
		}
		defer r.Close()
		for r.Next() {
		}
		if err := r.Err(); err != nil && !strings.Contains(err.Error(), p) {
			t.Fatalf("error without file name: %v", err)
		}
	})
}
