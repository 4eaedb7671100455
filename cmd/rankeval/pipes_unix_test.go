//go:build unix

package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/rankeval/rankeval/internal/vectors"
)

// pipeWays gives an input's bytes to the command by a path that names a
// pipe, as a user's shell does: /dev/fd/N (what <(zcat log.gz) expands to)
// and a named FIFO. Each returns the path and a cleanup.
var pipeWays = []struct {
	name string
	open func(t *testing.T, data []byte) string
}{
	{"dev-fd", func(t *testing.T, data []byte) string {
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		go func() { pw.Write(data); pw.Close() }()
		t.Cleanup(func() { pr.Close() })
		return fmt.Sprintf("/dev/fd/%d", pr.Fd())
	}},
	{"fifo", func(t *testing.T, data []byte) string {
		p := filepath.Join(t.TempDir(), "fifo")
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skip("no named pipes here:", err)
		}
		go func() {
			if f, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
				f.Write(data)
				f.Close()
			}
		}()
		// a writer left waiting (the command failed before opening the
		// FIFO) is released by opening the read end
		t.Cleanup(func() {
			if f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
		})
		return p
	}},
}

// TestPipeInputsReadOnce: an input named by a path that is a pipe is read
// once, as "-" is, never opened again when query ids stop ascending
// (a second open took rows from the live stream, and a FIFO hung).
func TestPipeInputsReadOnce(t *testing.T) {
	dir := t.TempDir()
	// ids ascend, then one comes back: the grouper would read the input
	// again to find where it began
	var reap strings.Builder
	for q := range 300 {
		for d := range 4 {
			fmt.Fprintf(&reap, `{"query_id":"q%04d","doc_id":"d%d","score":%d,"label":%d}`+"\n", q, d, d, d%2)
		}
	}
	fmt.Fprintf(&reap, `{"query_id":"q0005","doc_id":"x","score":1,"label":1}`+"\n")
	for q := 300; q < 320; q++ {
		fmt.Fprintf(&reap, `{"query_id":"q%04d","doc_id":"d0","score":1,"label":1}`+"\n", q)
	}
	// a shuffled log, for --unsorted
	lines := strings.Split(strings.TrimSuffix(genLines(2000, 7), "\n"), "\n")
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	shuffled := []byte(strings.Join(lines, "\n") + "\n")
	file := filepath.Join(dir, "shuffled.jsonl")
	if err := os.WriteFile(file, shuffled, 0o644); err != nil {
		t.Fatal(err)
	}
	code, want, stderr := cli(t, "--unsorted", "--format", "json", "-m", "map,ndcg@10", file)
	if code != 0 {
		t.Fatalf("from the file: exit %d: %s", code, stderr)
	}
	want = strings.ReplaceAll(want, file, "IN")

	for _, w := range pipeWays {
		t.Run(w.name+"/reappearing id", func(t *testing.T) {
			p := w.open(t, []byte(reap.String()))
			code, _, stderr := cli(t, "-m", "map", p)
			if want := p + `:1201: query id "q0005" reappears; its rows began earlier`; code != 1 || !strings.Contains(stderr, want) {
				t.Fatalf("exit %d, stderr %q; want exit 1 and %q", code, stderr, want)
			}
		})
		t.Run(w.name+"/unsorted", func(t *testing.T) {
			p := w.open(t, shuffled)
			code, got, stderr := cli(t, "--unsorted", "--format", "json", "-m", "map,ndcg@10", p)
			if got = strings.ReplaceAll(got, p, "IN"); code != 0 || got != want {
				t.Fatalf("exit %d, stderr %q\ngot  %s\nwant %s", code, stderr, got, want)
			}
		})
	}
}

// genLines is a small log of ascending query ids with ties and graded
// labels, as JSON lines.
func genLines(rows int, seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 5))
	var b strings.Builder
	for n, q := 0, 0; n < rows; q++ {
		for d := range 1 + r.IntN(30) {
			fmt.Fprintf(&b, `{"query_id":"q%d","doc_id":"d%d","score":%d,"label":%d}`+"\n", q, d, r.IntN(5), r.IntN(3))
			if n++; n == rows {
				break
			}
		}
	}
	return b.String()
}

// TestTrecEvalRunFromPipe: the drop-in reads a run twice (the runid is
// its last line's tag; a shuffled run is read again grouped by query).
// Under 10.0, which reads a run from standard input, a run named by a
// pipe's path is copied to a file first and gives what the file gives
// (read twice from the pipe it printed num_q 2051 and another map, or
// hung on a FIFO); 9.0.8, which cannot, refuses it as trec_eval 9.0.8
// does.
func TestTrecEvalRunFromPipe(t *testing.T) {
	td := filepath.Join(vectors.TestdataDir(t), "reference", "trec_a")
	run, err := os.ReadFile(filepath.Join(td, "run.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(run), "\n"), "\n")
	rand.New(rand.NewPCG(3, 4)).Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	shuffled := []byte(strings.Join(lines, "\n") + "\n")
	file := filepath.Join(t.TempDir(), "run.txt")
	if err := os.WriteFile(file, shuffled, 0o644); err != nil {
		t.Fatal(err)
	}
	qrels := filepath.Join(td, "qrels.txt")
	_, want, _ := cli(t, "trec_eval", "-q", "-c", "-m", "all_trec", qrels, file)
	if !strings.Contains(want, "num_q                 \tall\t") {
		t.Fatalf("no summary from the file: %.300s", want)
	}
	for _, w := range pipeWays {
		t.Run(w.name, func(t *testing.T) {
			p := w.open(t, shuffled)
			code, out, stderr := cli(t, "trec_eval", "-q", "-c", "-m", "all_trec", qrels, p)
			if code != 0 || out != want {
				t.Fatalf("exit %d, stderr %q:\n%s", code, stderr, vectors.FirstDiff(want, out))
			}
		})
		t.Run(w.name+"/a bad line", func(t *testing.T) {
			// messages name the pipe, not the file it was copied to
			p := w.open(t, []byte("401 Q0 d1 1 2.5 tag\n401 Q0 d2 2\n"))
			code, _, stderr := cli(t, "trec_eval", "-c", qrels, p)
			if want := p + ":2: a run line has 6 fields"; code != 1 || !strings.Contains(stderr, want) || strings.Contains(stderr, "rankeval-trec_eval-run-") {
				t.Fatalf("exit %d, stderr %q; want exit 1 and %q", code, stderr, want)
			}
		})
		t.Run(w.name+"/9.0.8", func(t *testing.T) {
			p := w.open(t, shuffled)
			code, out, stderr := cli(t, "trec_eval", "--release", "9.0.8", "-q", qrels, p)
			if want := "Cannot read results file '" + p + "'"; code != 1 || out != "" || !strings.Contains(stderr, want) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 1 and %q", code, out, stderr, want)
			}
		})
	}
}
