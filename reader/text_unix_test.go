//go:build unix

package reader

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/readertest"
)

// TestTextPipe: JSON lines, CSV and TSV from a named pipe are parsed in
// blocks on several goroutines like a file; closing the reader while the
// writer holds the pipe open and writes nothing returns at once (the
// splitter, stuck in its read, ends when the read returns).
func TestTextPipe(t *testing.T) {
	for _, f := range []struct {
		name     string
		data     string
		setBlock func(testing.TB, int)
	}{
		{"jsonl", genJSONL(5, 2000), withJSONLBlock},
		{"csv", genDelimited(5, 2000, ','), withCSVBlock},
		{"tsv", genDelimited(5, 2000, '\t'), withCSVBlock},
	} {
		t.Run(f.name, func(t *testing.T) { testPipe(t, f.name, f.data, f.setBlock) })
	}
}

func testPipe(t *testing.T, name, data string, withBlock func(testing.TB, int)) {
	dir := t.TempDir()
	want := readJSONL(t, readertest.WriteFileIn(t, dir, "log."+name, []byte(data)), batch.Options{Decoders: 1})
	if want.err != "" || len(want.rows) != 2000 {
		t.Fatalf("from a file: %d rows, error %q", len(want.rows), want.err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	t.Run("read to the end", func(t *testing.T) {
		go func() {
			f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err == nil {
				f.WriteString(data)
				f.Close()
			}
		}()
		withBlock(t, 4096)
		if d := sameJSONL(readJSONL(t, fifo, batch.Options{Decoders: 4, BatchSize: 7}), want); d != "" {
			t.Fatal(d)
		}
	})
	t.Run("close while the writer stalls", func(t *testing.T) {
		release := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err != nil {
				return
			}
			f.WriteString(data[:len(data)/2])
			<-release // hold the pipe open, writing nothing
			f.Close()
		}()
		withBlock(t, 4096)
		r, err := Open(fifo, readertest.TestCols, batch.Options{Decoders: 2})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Next() {
			t.Fatal(r.Err())
		}
		closed := make(chan struct{})
		go func() { r.Close(); close(closed) }()
		select {
		case <-closed:
		case <-time.After(10 * time.Second):
			t.Fatal("Close waits for a read of a pipe the writer holds open")
		}
		close(release)
		<-done
	})
}
