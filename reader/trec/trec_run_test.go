package trec

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/readertest"
	"github.com/rankeval/rankeval/reader/internal/scan"
)

// runResult is everything a run reader gives: rows with their lines,
// what SkipUnjudged dropped, the error and which judged queries it saw.
type runResult struct {
	rows   []readertest.RowOut
	skip   SkipCount
	err    string
	unseen []string
}

// readRun reads a run with fresh qrels (their marks of the queries seen
// belong to one reading) and checks every batch's shape.
func readRun(t testing.TB, path, qrelsPath string, opt RunOptions) runResult {
	t.Helper()
	q, err := ReadQrels(qrelsPath)
	if err != nil {
		t.Fatal(err)
	}
	var res runResult
	opt.Skipped = &res.skip
	r, err := OpenRun(path, q, opt)
	if err != nil {
		return runResult{err: err.Error()}
	}
	defer r.Close()
	for r.Next() {
		b := r.Batch()
		if b.N == 0 || b.N > opt.BatchRows() || len(b.Doc.Off) != b.N+1 || len(b.Label) != b.N || len(b.Pos) != b.N {
			t.Fatalf("batch of %d rows, %d docs, %d labels, %d positions", b.N, len(b.Doc.Off)-1, len(b.Label), len(b.Pos))
		}
		for i := range b.N {
			res.rows = append(res.rows, readertest.RowOut{Q: string(b.Query.At(i)), D: string(b.Doc.At(i)), Score: b.Score[i], Label: b.Label[i], Pos: b.Pos[i]})
		}
	}
	if r.Err() != nil {
		res.err = r.Err().Error()
	}
	res.unseen = q.Unseen()
	return res
}

// sameRun compares two readings. Rows read before an error are not
// compared: a reader may stop at the error's batch or deliver the batches
// before it, and may have parsed lines past it.
func sameRun(a, b runResult) string {
	switch {
	case a.err != b.err:
		return fmt.Sprintf("error %q, want %q", a.err, b.err)
	case a.err != "":
		return ""
	case a.skip.Queries != b.skip.Queries || a.skip.Rows != b.skip.Rows:
		return fmt.Sprintf("skipped %d queries (%d rows), want %d (%d)", a.skip.Queries, a.skip.Rows, b.skip.Queries, b.skip.Rows)
	case len(a.rows) != len(b.rows):
		return fmt.Sprintf("%d rows, want %d", len(a.rows), len(b.rows))
	case fmt.Sprint(a.unseen) != fmt.Sprint(b.unseen):
		return fmt.Sprintf("unseen %v, want %v", a.unseen, b.unseen)
	}
	for i := range a.rows {
		x, y := a.rows[i], b.rows[i]
		if math.Float64bits(x.Score) != math.Float64bits(y.Score) {
			return fmt.Sprintf("row %d: score %v, want %v", i, x.Score, y.Score)
		}
		x.Score, y.Score = 0, 0
		if x != y {
			return fmt.Sprintf("row %d: %+v, want %+v", i, a.rows[i], b.rows[i])
		}
	}
	return ""
}

// withBlockSize sets the parallel reader's block size for one test.
func withBlockSize(t testing.TB, n int) {
	old := runBlockSize
	runBlockSize = n
	t.Cleanup(func() { runBlockSize = old })
}

// genRun writes a run of queries with and without judgments, in blocks of
// lines with the shapes TREC files take: tabs, CRLF, blank lines, a last
// line without a newline.
func genRun(seed uint64, queries int) (run, qrels string) {
	rng := rand.New(rand.NewPCG(seed, 1))
	var r, q strings.Builder
	for qi := range queries {
		qid := fmt.Sprint(300 + qi)
		judged := rng.IntN(4) != 0
		for d := range 1 + rng.IntN(40) {
			sep := " "
			if rng.IntN(10) == 0 {
				sep = "\t"
			}
			eol := "\n"
			if rng.IntN(10) == 0 {
				eol = "\r\n"
			}
			if rng.IntN(20) == 0 {
				r.WriteString("\n")
			}
			fmt.Fprintf(&r, "%s%sQ0%sdoc%d%s%d%s%.3f%srun%s", qid, sep, sep, d, sep, d+1, sep, rng.Float64()*10, sep, eol)
			if judged && rng.IntN(3) == 0 {
				fmt.Fprintf(&q, "%s 0 doc%d %d\n", qid, d, rng.IntN(3))
			}
		}
		if judged {
			fmt.Fprintf(&q, "%s 0 unretrieved%d 1\n", qid, qi)
		}
	}
	q.WriteString("999 0 never 1\n")
	return strings.TrimSuffix(r.String(), "\n"), q.String()
}

// TestRunBlocks checks that a run parsed in blocks on several goroutines
// gives what the serial reader gives, row for row with the same lines, the
// same skipped counts (a dropped query spanning blocks counts once) and the
// same queries seen, for blocks from a few lines to the default size.
func TestRunBlocks(t *testing.T) {
	dir := t.TempDir()
	run, qrels := genRun(7, 300)
	qp := readertest.WriteFileIn(t, dir, "qrels", []byte(qrels))
	inputs := map[string]string{
		"plain": readertest.WriteFileIn(t, dir, "run", []byte(run)),
		"gzip":  readertest.WriteFileIn(t, dir, "run.gz", readertest.GzipBytes([]byte(run))),
	}
	for name, rp := range inputs {
		for _, skip := range []bool{false, true} {
			for _, deferJoin := range []bool{false, true} {
				opt := RunOptions{SkipUnjudged: skip, DeferJoin: deferJoin, Options: batch.Options{BatchSize: 7, Decoders: 1}}
				want := readRun(t, rp, qp, opt)
				if want.err != "" || len(want.rows) < 1000 {
					t.Fatalf("serial read: %d rows, error %q", len(want.rows), want.err)
				}
				for _, block := range []int{64, 100, 1000, 4096, scan.ScanBuf} {
					for _, dec := range []int{2, 3} {
						for _, bs := range []int{1, 7, 8192} {
							t.Run(fmt.Sprintf("%s/skip=%v/defer=%v/block=%d/decoders=%d/batch=%d", name, skip, deferJoin, block, dec, bs), func(t *testing.T) {
								withBlockSize(t, block)
								o := opt
								o.Decoders, o.BatchSize = dec, bs
								if d := sameRun(readRun(t, rp, qp, o), want); d != "" {
									t.Fatal(d)
								}
							})
						}
					}
				}
			}
		}
	}
}

// TestRunBlocksErrors checks that a bad line stops the parallel reader at
// the same line, with the same message, as the serial one, wherever the
// block edges fall, and that a line longer than a block is named.
func TestRunBlocksErrors(t *testing.T) {
	dir := t.TempDir()
	run, qrels := genRun(11, 60)
	qp := readertest.WriteFileIn(t, dir, "qrels", []byte(qrels))
	lines := strings.Split(run, "\n")
	bad := map[string]string{
		"five fields": "301 Q0 doc1 1 0.5",
		"bad score":   "301 Q0 doc1 1 high run",
		"nine fields": "301 Q0 doc1 1 0.5 run a b c",
	}
	gz := readertest.GzipBytes([]byte(run))
	for what, line := range bad {
		for _, at := range []int{0, 1, len(lines) / 2, len(lines) - 1} {
			data := strings.Join(append(append(append([]string{}, lines[:at]...), line), lines[at:]...), "\n")
			rp := readertest.WriteFileIn(t, dir, "run", []byte(data))
			want := readRun(t, rp, qp, RunOptions{Options: batch.Options{Decoders: 1}})
			if !strings.Contains(want.err, fmt.Sprintf(":%d: ", at+1)) {
				t.Fatalf("%s at line %d: serial error %q", what, at+1, want.err)
			}
			for _, block := range []int{64, 1000} {
				t.Run(fmt.Sprintf("%s/line=%d/block=%d", what, at+1, block), func(t *testing.T) {
					withBlockSize(t, block)
					if d := sameRun(readRun(t, rp, qp, RunOptions{Options: batch.Options{Decoders: 2, BatchSize: 5}}), want); d != "" {
						t.Fatal(d)
					}
				})
			}
		}
	}
	t.Run("truncated gzip", func(t *testing.T) {
		rp := readertest.WriteFileIn(t, dir, "cut.gz", gz[:len(gz)*2/3])
		want := readRun(t, rp, qp, RunOptions{Options: batch.Options{Decoders: 1}})
		if !strings.Contains(want.err, "truncated") {
			t.Fatalf("serial error %q", want.err)
		}
		withBlockSize(t, scan.ScanBuf) // the scanner's own buffer: the same lines before the error
		if d := sameRun(readRun(t, rp, qp, RunOptions{Options: batch.Options{Decoders: 2}}), want); d != "" {
			t.Fatal(d)
		}
	})
	t.Run("line longer than a block", func(t *testing.T) {
		withBlockSize(t, 64)
		long := "301 Q0 " + strings.Repeat("d", 60) + " 1 0.5 run"
		rp := readertest.WriteFileIn(t, dir, "long", []byte(strings.Join([]string{lines[0], lines[1], long, lines[2]}, "\n")))
		got := readRun(t, rp, qp, RunOptions{Options: batch.Options{Decoders: 2}})
		if !strings.HasSuffix(got.err, ":3: line longer than 64 bytes: malformed input") || len(got.rows) != 2 {
			t.Fatalf("%d rows, error %q", len(got.rows), got.err)
		}
	})
}

// TestRunRefuseNul: under RefuseNul (the drop-in's) a NUL byte anywhere
// in a run is an error naming its line, read serially or in blocks
// wherever their edges fall: trec_eval 9.0.8 segfaults and 10.0 aborts
// on one in a field, and both stop reading at one that starts a line.
// Without it a NUL is a byte of its field.
func TestRunRefuseNul(t *testing.T) {
	dir := t.TempDir()
	qp := readertest.WriteFileIn(t, dir, "qrels", []byte("301 0 a 1\n301 0 c 0\n"))
	cases := []struct {
		name, run string
		rows      int    // rows read without RefuseNul
		err       string // under RefuseNul
	}{
		{"in a docno", "301 Q0 a 1 3 r\n301 Q0 b\x00x 2 2 r\n301 Q0 c 3 1 r\n", 3, ":7: a NUL byte"},
		{"starting a line", "301 Q0 a 1 3 r\n\x00301 Q0 b 2 2 r\n", 2, ":7: a NUL byte"},
		{"in the run tag", "301 Q0 a 1 3 r\x00s\n", 1, ":6: a NUL byte"},
		{"after the last newline", "301 Q0 a 1 3 r\n301 Q0 c 3 1 r\n\x00", -1, ":8: a NUL byte"},
		{"in the last line, without a newline", "301 Q0 a 1 3 r\n301 Q0 c 3 1 r\x00", 2, ":7: a NUL byte"},
	}
	for _, c := range cases {
		// the NUL lands at every place in a 64-byte block
		rp := readertest.WriteFileIn(t, dir, "run", []byte(strings.Repeat("301 Q0 z 9 0 r\n", 5)+c.run))
		for _, dec := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/decoders=%d", c.name, dec), func(t *testing.T) {
				withBlockSize(t, 64)
				got := readRun(t, rp, qp, RunOptions{Options: batch.Options{Decoders: dec}, RefuseNul: true})
				if !strings.Contains(got.err, c.err) || !strings.Contains(got.err, "a NUL byte") {
					t.Fatalf("RefuseNul: error %q, want %q", got.err, c.err)
				}
				got = readRun(t, rp, qp, RunOptions{Options: batch.Options{Decoders: dec}})
				if c.rows < 0 {
					if got.err == "" {
						t.Fatalf("without RefuseNul: %d rows, want the NUL's line refused", len(got.rows))
					}
					return
				}
				if got.err != "" || len(got.rows) != 5+c.rows {
					t.Fatalf("without RefuseNul: %d rows, error %q; want %d", len(got.rows), got.err, 5+c.rows)
				}
			})
		}
	}
}

// TestRunBlocksClose closes a parallel reader at every point of a read and
// checks that its goroutines end.
func TestRunBlocksClose(t *testing.T) {
	withBlockSize(t, 256)
	dir := t.TempDir()
	run, qrels := genRun(3, 200)
	rp, qp := readertest.WriteFileIn(t, dir, "run", []byte(run)), readertest.WriteFileIn(t, dir, "qrels", []byte(qrels))
	q, err := ReadQrels(qp)
	if err != nil {
		t.Fatal(err)
	}
	for stopAt := range 40 {
		r, err := OpenRun(rp, q, RunOptions{Options: batch.Options{Decoders: 3, BatchSize: 4}})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < stopAt && r.Next(); i++ {
		}
		r.Close() // waits for the goroutines: a leak would hang here
		if r.Next() {
			t.Fatal("Next after Close")
		}
	}
}

// FuzzRunBlocks: any run reads the same in blocks on several goroutines as
// serially, unless a line is longer than the fuzzer's small block.
func FuzzRunBlocks(f *testing.F) {
	f.Add([]byte("1 Q0 a 1 0.5 sys\n1 Q0 b 2 0.25 sys\n2 Q0 a 1 1 s\n"), uint8(20))
	f.Add([]byte("1 Q0 a 1 NaN sys\n\n2 Q0 x 1 -Infinity s\r\n3 Q0 x 1 1 s"), uint8(7))
	dir := f.TempDir()
	qp := readertest.WriteFileIn(f, dir, "q.txt", []byte("1 0 a 1\n2 0 x 0\n"))
	f.Fuzz(func(t *testing.T, data []byte, block uint8) {
		if bytes.HasPrefix(data, scan.MagicGzip) || bytes.HasPrefix(data, scan.MagicZstd[:1]) {
			t.Skip("compressed input: FuzzDetect covers decompression")
		}
		p := readertest.WriteFile(t, "run", data)
		want := readRun(t, p, qp, RunOptions{SkipUnjudged: true, Options: batch.Options{BatchSize: 3, Decoders: 1}})
		withBlockSize(t, 16+int(block))
		got := readRun(t, p, qp, RunOptions{SkipUnjudged: true, Options: batch.Options{BatchSize: 3, Decoders: 2}})
		if strings.Contains(got.err, "line longer than") {
			return
		}
		if d := sameRun(got, want); d != "" {
			t.Fatal(d)
		}
	})
}

// TestSkipCountMerge: the counts of runs read apart (the systems of
// --system) unite: an id dropped by two runs counts once, rows add up.
func TestSkipCountMerge(t *testing.T) {
	var a, b, total SkipCount
	for i := range 200 {
		a.add([][]byte{fmt.Appendf(nil, "q%d", i)}, 2)
		b.add([][]byte{fmt.Appendf(nil, "q%d", i+100)}, 3)
	}
	total.Merge(&a)
	total.Merge(&b)
	if total.Queries != 300 || total.Rows != 1000 {
		t.Fatalf("%d queries, %d rows; want 300, 1000", total.Queries, total.Rows)
	}
}
