//go:build unix

package trec

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/readertest"
)

// TestRunPipeReadSerially: a run read from a named pipe is parsed as it is
// read, with no goroutines whose Close would wait on the pipe, and still
// gives every row.
func TestRunPipeReadSerially(t *testing.T) {
	dir := t.TempDir()
	run, qrels := genRun(5, 50)
	want := readRun(t, readertest.WriteFileIn(t, dir, "run", []byte(run)), readertest.WriteFileIn(t, dir, "qrels", []byte(qrels)), RunOptions{Options: batch.Options{Decoders: 1}})
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			f.WriteString(run)
			f.Close()
		}
	}()
	q, err := ReadQrels(filepath.Join(dir, "qrels"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := OpenRun(fifo, q, RunOptions{Options: batch.Options{Decoders: 4}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, ok := r.(*trecRun); !ok {
		t.Fatalf("a pipe is read by %T, want the serial reader", r)
	}
	rows, err := readertest.ReadAllRows(t, r)
	if err != nil || len(rows) != len(want.rows) {
		t.Fatalf("%d rows, want %d (error %v)", len(rows), len(want.rows), err)
	}
}
