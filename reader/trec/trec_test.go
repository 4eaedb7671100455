package trec

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/readertest"
	"github.com/rankeval/rankeval/reader/internal/scan"
)

func TestQrels(t *testing.T) {
	// query 1 resumes after query 2: the loader must regroup
	path := readertest.WriteFile(t, "q.txt", []byte("1 0 b 2\n1 0 a 0\n\n2 0 c 1\n1 0 z -1\n"))
	q, err := ReadQrels(path)
	if err != nil {
		t.Fatal(err)
	}
	if q.Judgments() != 4 {
		t.Fatalf("judgments %d", q.Judgments())
	}
	if got := q.Judged([]byte("1")); len(got) != 3 || got[0] != 2 || got[1] != 0 || got[2] != 0 {
		t.Fatalf("judged(1) = %v, want file order with the negative label as 0", got)
	}
	if got := q.Judged([]byte("2")); len(got) != 1 || got[0] != 1 {
		t.Fatalf("judged(2) = %v", got)
	}
	if q.Judged([]byte("3")) != nil {
		t.Fatal("query 3 is not judged")
	}
	if u := q.Unseen(); len(u) != 2 || u[0] != "1" || u[1] != "2" {
		t.Fatalf("unseen %v", u)
	}
}

func TestQrelsErrors(t *testing.T) {
	tests := []struct {
		name, data string
		want       error
		msg        string
	}{
		{"duplicate", "1 0 a 1\n1 0 b 0\n1 0 a 2\n", batch.ErrValue, `:3: docno "a" judged twice for query "1" (first at line 1)`},
		{"three fields", "1 0 a\n", batch.ErrSyntax, ":1: a qrels line has 4 fields"},
		{"bad label", "1 0 a x\n", batch.ErrValue, `:1: label "x" is not a number`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadQrels(readertest.WriteFile(t, "q.txt", []byte(tc.data)))
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v, want %v containing %q", err, tc.want, tc.msg)
			}
		})
	}
}

func TestRunJoin(t *testing.T) {
	q, err := ReadQrels(readertest.WriteFile(t, "q.txt", []byte("1 0 a 1\n1 0 b 3\n2 0 c 1\n")))
	if err != nil {
		t.Fatal(err)
	}
	run := "1 Q0 b 1 0.5 sys\n1 Q0 x 2 0.25 sys\n3 Q0 a 1 9 sys\n2\tQ0\tc\t1\t-1e2\tsys\r\n"
	for _, skip := range []bool{false, true} {
		var cnt SkipCount
		r, err := OpenRun(readertest.WriteFile(t, "run.txt.gz", readertest.GzipBytes([]byte(run))), q, RunOptions{SkipUnjudged: skip, Skipped: &cnt, Options: batch.Options{BatchSize: 2}})
		if err != nil {
			t.Fatal(err)
		}
		rows, err := readertest.ReadAllRows(t, r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		want := []readertest.RowOut{{Q: "1", D: "b", Score: 0.5, Label: 3, Rank: 0, Pos: 1}, {Q: "1", D: "x", Score: 0.25, Label: 0, Rank: 0, Pos: 2}, {Q: "3", D: "a", Score: 9, Label: 0, Rank: 0, Pos: 3}, {Q: "2", D: "c", Score: -100, Label: 1, Rank: 0, Pos: 4}}
		if skip {
			want = append(want[:2], want[3])
			if cnt.Queries != 1 || cnt.Rows != 1 {
				t.Fatalf("skipped %+v", cnt)
			}
		}
		if len(rows) != len(want) {
			t.Fatalf("skip=%v: rows %+v", skip, rows)
		}
		for i := range rows {
			if rows[i] != want[i] {
				t.Fatalf("skip=%v row %d: %+v, want %+v", skip, i, rows[i], want[i])
			}
		}
	}
}

func TestRunErrors(t *testing.T) {
	q, _ := ReadQrels(readertest.WriteFile(t, "q.txt", []byte("1 0 a 1\n")))
	tests := []struct {
		name, data string
		want       error
		msg        string
	}{
		{"five fields", "1 Q0 a 1 0.5\n", batch.ErrSyntax, ":1: a run line has 6 fields"},
		{"bad score", "1 Q0 a 1 0.5 s\n1 Q0 b 2 high s\n", batch.ErrValue, `:2: score "high" is not a number`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := OpenRun(readertest.WriteFile(t, "run.txt", []byte(tc.data)), q, RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			_, err = readertest.ReadAllRows(t, r)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v, want %v containing %q", err, tc.want, tc.msg)
			}
		})
	}
}

// FuzzTrecRun: arbitrary run bytes never panic and errors name the file.
func FuzzTrecRun(f *testing.F) {
	f.Add([]byte("1 Q0 a 1 0.5 sys\n1 Q0 b 2 0.25 sys\n"))
	f.Add([]byte("1 Q0 a 1 NaN sys\n\n2 Q0 x 1 -Infinity s\n"))
	dir := f.TempDir()
	q, err := ReadQrels(readertest.WriteFileIn(f, dir, "q.txt", []byte("1 0 a 1\n2 0 x 0\n")))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := readertest.WriteFile(t, "run", data)
		r, err := OpenRun(p, q, RunOptions{Options: batch.Options{BatchSize: 3}})
		if err != nil {
			return
		}
		defer r.Close()
		for r.Next() {
			b := r.Batch()
			if len(b.Doc.Off) != b.N+1 || len(b.Label) != b.N {
				t.Fatalf("inconsistent batch")
			}
		}
		if err := r.Err(); err != nil && !strings.Contains(err.Error(), p) {
			t.Fatalf("error without file name: %v", err)
		}
	})
}

// FuzzQrels: arbitrary qrels text never panics. Compressed inputs are left
// to FuzzDetect: qrels are held in memory, and the fuzzer finds zstd inputs
// of a few KB that expand to gigabytes of judgments, which only measures
// the machine.
func FuzzQrels(f *testing.F) {
	f.Add([]byte("1 0 a 1\n1 0 b 0\n"))
	f.Add([]byte("1 0 a 1\n1 0 a 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if bytes.HasPrefix(data, scan.MagicGzip) || bytes.HasPrefix(data, scan.MagicZstd[:1]) {
			t.Skip("compressed input: FuzzDetect covers decompression")
		}
		p := readertest.WriteFile(t, "qrels", data)
		if _, err := ReadQrels(p); err != nil && !strings.Contains(err.Error(), p) {
			t.Fatalf("error without file name: %v", err)
		}
	})
}

// BenchmarkQrelsMemory reports the heap a loaded qrels file keeps per
// judgment (the README quotes it per million judgments).
func BenchmarkQrelsMemory(b *testing.B) {
	var sb strings.Builder
	const n = 1_000_000
	for i := range n {
		fmt.Fprintf(&sb, "%d 0 clueweb12-%04d-%02d-%05d %d\n", 100+i/1000, i%7919, i%97, i, i%3)
	}
	path := readertest.WriteFileIn(b, b.TempDir(), "qrels.txt", []byte(sb.String()))
	for range b.N {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		q, err := ReadQrels(path)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "bytes/judgment")
		runtime.KeepAlive(q)
	}
}

// BenchmarkTrecRun reads a generated run joined with its qrels, reporting
// run lines/s, serially (1 decoder) and in blocks on several goroutines.
func BenchmarkTrecRun(b *testing.B) {
	var run, qrels strings.Builder
	const queries, depth = 500, 1000
	for q := range queries {
		for d := range depth {
			fmt.Fprintf(&run, "%d Q0 clueweb12-%07d %d %.4f runname\n", 100+q, d, d+1, float64(depth-d)/7)
			if d%3 == 0 {
				fmt.Fprintf(&qrels, "%d 0 clueweb12-%07d %d\n", 100+q, d, d%4)
			}
		}
	}
	dir := b.TempDir()
	rp := readertest.WriteFileIn(b, dir, "run", []byte(run.String()))
	q, err := ReadQrels(readertest.WriteFileIn(b, dir, "qrels", []byte(qrels.String())))
	if err != nil {
		b.Fatal(err)
	}
	for _, dec := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("decoders=%d", dec), func(b *testing.B) {
			b.SetBytes(int64(run.Len()))
			for range b.N {
				r, err := OpenRun(rp, q, RunOptions{Options: batch.Options{Decoders: dec}})
				if err != nil {
					b.Fatal(err)
				}
				for r.Next() {
				}
				if r.Err() != nil {
					b.Fatal(r.Err())
				}
				r.Close()
			}
			b.ReportMetric(float64(queries*depth*b.N)/b.Elapsed().Seconds(), "lines/s")
		})
	}
}

func TestSplitFields(t *testing.T) {
	cases := map[string]int{
		"":                                     0,
		"   ":                                  0,
		"q1 Q0 doc1 1 0.5 run":                 6,
		"\tq1\t\tQ0 doc1\v1\f0.5\r run  ":      6,
		"a_field_longer_than_eight_bytes b":    2,
		"ctl\x01inside\x00field other\x7fx":    2,
		"é ünïcødé\xff\x80 x":                  3,
		"12345678 12345678\t1234567890123456 ": 3,
		"x":                                    1,
		"        y":                            1,
	}
	for line, want := range cases {
		t.Run(strconv.Quote(line), func(t *testing.T) {
			// bytes.Fields splits these lines (no U+0085 or U+00A0) as
			// C's isspace does
			got, fields := scan.SplitFields([]byte(line), nil), bytes.Fields([]byte(line))
			if len(got) != want || !equalFields(got, fields) {
				t.Fatalf("got %q, want %d fields %q", got, want, fields)
			}
		})
	}
}

func equalFields(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// TestQrelsDuplicateSplit: the duplicate check runs in parallel on large
// qrels; the error must still name the first query with a duplicate.
func TestQrelsDuplicateSplit(t *testing.T) {
	var sb strings.Builder
	const queries, per = 600, 1000 // 600k judgments: several parts
	for q := range queries {
		for d := range per {
			doc := d
			if (q == 250 || q == 590) && d == per-1 {
				doc = 3 // judged twice
			}
			fmt.Fprintf(&sb, "%d 0 doc%d %d\n", q, doc, d%2)
		}
	}
	_, err := ReadQrels(readertest.WriteFile(t, "q.txt", []byte(sb.String())))
	want := fmt.Sprintf(`:%d: docno "doc3" judged twice for query "250" (first at line %d)`, 250*per+per, 250*per+4)
	if !errors.Is(err, batch.ErrValue) || !strings.Contains(fmt.Sprint(err), want) {
		t.Fatalf("err = %v, want %q", err, want)
	}
}

// TestQrelsDuplicateFirst: whether the duplicates are found as each
// query is read (a file grouped by query) or by the check after (a query
// whose judgments come back later), in one piece or several, the error
// names the first query, in file order, with a docno judged twice.
func TestQrelsDuplicateFirst(t *testing.T) {
	gen := func(dupAt map[int]int, tail string) string {
		var sb strings.Builder
		for q := range 300 {
			for d := range 50 {
				doc := d
				if at, ok := dupAt[q]; ok && d == at {
					doc = 0
				}
				fmt.Fprintf(&sb, "%d 0 doc%d-%d %d\n", q, q, doc, d%3)
			}
		}
		return sb.String() + tail
	}
	cases := []struct{ name, data, want string }{
		{"early and late", gen(map[int]int{40: 7, 250: 3}, ""), `:2008: docno "doc40-0" judged twice for query "40" (first at line 2001)`},
		{"late only", gen(map[int]int{250: 3}, ""), `:12504: docno "doc250-0" judged twice for query "250" (first at line 12501)`},
		// query 5's judgments come back at the end with a docno it had:
		// query 5 is before query 200, whose duplicate is within its lines
		{"a query come back", gen(map[int]int{200: 9}, "5 0 doc5-3 1\n"), `:15001: docno "doc5-3" judged twice for query "5" (first at line 254)`},
		{"come back without one", gen(map[int]int{200: 9}, "5 0 doc5-new 1\n"), `:10010: docno "doc200-0" judged twice for query "200" (first at line 10001)`},
	}
	for _, c := range cases {
		path := readertest.WriteFile(t, "q.txt", []byte(c.data))
		for _, parts := range []int{1, 2, 3} {
			t.Run(fmt.Sprintf("%s/parts=%d", c.name, parts), func(t *testing.T) {
				old := qrelsMinSplit
				qrelsMinSplit = 1
				defer func() { qrelsMinSplit = old }()
				_, err := readQrels(path, parts, QrelsFormat{})
				if !errors.Is(err, batch.ErrValue) || !strings.Contains(fmt.Sprint(err), c.want) {
					t.Fatalf("err = %v, want %q", err, c.want)
				}
			})
		}
	}
}

// TestQrelsStrictDuplicates: read as trec_eval's reader reads them
// (Strict), qrels with a docno judged twice load, every judgment kept
// (Positive counts both, as trec_eval -c's num_rel does), and Duplicate
// gives each such query's error, with the lines the plain reading
// refuses, and nil for the others; in one piece or several.
func TestQrelsStrictDuplicates(t *testing.T) {
	var sb strings.Builder
	const queries, per = 600, 1000 // 600k judgments: the check in several parts
	for q := range queries {
		for d := range per {
			doc := d
			if (q == 250 || q == 590) && d == per-1 {
				doc = 3 // judged twice
			}
			fmt.Fprintf(&sb, "%d 0 doc%d %d\n", q, doc, d%2)
		}
	}
	path := readertest.WriteFile(t, "q.txt", []byte(sb.String()))
	for _, parts := range []int{1, 4} {
		t.Run(fmt.Sprintf("parts=%d", parts), func(t *testing.T) {
			q, err := readQrels(path, parts, QrelsFormat{Strict: true})
			if err != nil {
				t.Fatal(err)
			}
			if q.Judgments() != queries*per || q.Positive() != queries*per/2 {
				t.Fatalf("%d judgments, %d above 0; want %d and %d", q.Judgments(), q.Positive(), queries*per, queries*per/2)
			}
			for _, qn := range []int{250, 590} {
				want := fmt.Sprintf(`:%d: docno "doc3" judged twice for query "%d" (first at line %d)`, qn*per+per, qn, qn*per+4)
				if err := q.Duplicate(strconv.Itoa(qn)); !errors.Is(err, batch.ErrValue) || !strings.Contains(fmt.Sprint(err), want) {
					t.Errorf("query %d: err = %v, want %q", qn, err, want)
				}
			}
			for _, id := range []string{"0", "249", "251", "599", "nope"} {
				if err := q.Duplicate(id); err != nil {
					t.Errorf("query %s: %v", id, err)
				}
			}
		})
	}
}

// TestQrelsSplit loads qrels in 2, 3 and 5 pieces (the threshold lowered)
// and in one piece: the same judgments, order and errors, line numbers included.
func TestQrelsSplit(t *testing.T) {
	var sorted, mixed strings.Builder
	for q := range 300 {
		for d := range 50 {
			fmt.Fprintf(&sorted, "%d 0 doc%d-%d %d\n", q, q, d, d%3)
			if d == 10 {
				sorted.WriteString("\n") // blank lines count as lines
			}
		}
	}
	for i := range 15000 { // queries interleaved: nothing is grouped
		fmt.Fprintf(&mixed, "%d 0 doc%d %d\n", i%300, i, i%2)
	}
	// docnos whose length changes half way, so that one half outgrows the
	// room the first 64 KiB suggested
	var shortFirst, longFirst strings.Builder
	for q := range 300 {
		for d := range 50 {
			short, long := fmt.Sprintf("d%d", d), fmt.Sprintf("document-%040d", q*50+d)
			if q < 150 {
				fmt.Fprintf(&shortFirst, "%d 0 %s 1\n", q, short)
				fmt.Fprintf(&longFirst, "%d 0 %s 1\n", q, long)
			} else {
				fmt.Fprintf(&shortFirst, "%d 0 %s 1\n", q, long)
				fmt.Fprintf(&longFirst, "%d 0 %s 1\n", q, short)
			}
		}
	}
	lines := strings.SplitAfter(sorted.String(), "\n")
	bad := func(at int, line string) string {
		l := slices.Clone(lines)
		l[at] = line
		return strings.Join(l, "")
	}
	cases := map[string]string{
		"sorted":                     sorted.String(),
		"interleaved":                mixed.String(),
		"one query spans the middle": strings.Join(lines[:len(lines)/2], "") + "7 0 extra 1\n" + strings.Join(lines[len(lines)/2:], ""),
		"bad label late":             bad(len(lines)*3/4, "5 0 x y\n"),
		"bad line early":             bad(len(lines)/4, "5 0 x\n"),
		"duplicate late":             bad(len(lines)*3/4, "250 0 doc250-0 1\n"),
		"short docnos first":         shortFirst.String(),
		"long docnos first":          longFirst.String(),
	}
	for name, data := range cases {
		path := readertest.WriteFile(t, "q.txt", []byte(data))
		whole, errWhole := readQrels(path, 1, QrelsFormat{})
		for _, parts := range []int{2, 3, 5} {
			t.Run(fmt.Sprintf("%s/parts=%d", name, parts), func(t *testing.T) {
				old := qrelsMinSplit
				qrelsMinSplit = 1
				defer func() { qrelsMinSplit = old }()
				f, _ := os.Open(path)
				cuts := qrelsCuts(f, int64(len(data)), parts)
				f.Close()
				if len(cuts) != parts-1 {
					t.Fatalf("cuts %v for %d parts", cuts, parts)
				}
				split, errSplit := readQrels(path, parts, QrelsFormat{})
				if fmt.Sprint(errWhole) != fmt.Sprint(errSplit) {
					t.Fatalf("errors differ:\n whole: %v\n parts: %v", errWhole, errSplit)
				}
				if errWhole != nil {
					return
				}
				if !slices.Equal(whole.order, split.order) || !slices.Equal(whole.start, split.start) ||
					!bytes.Equal(whole.docs, split.docs) || !slices.Equal(whole.off, split.off) || !slices.Equal(whole.labels, split.labels) {
					t.Fatal("judgments differ")
				}
			})
		}
	}
}

// TestQrelsSplitStrict: read as trec_eval reads lines (Strict, with 10.0's
// comments), a file in pieces gives what it gives whole: the cuts fall
// between two judgments, never next to a comment, so a comment's checks
// (the line before it) see the whole file's lines.
func TestQrelsSplitStrict(t *testing.T) {
	var sb strings.Builder
	line := 0
	for q := range 300 {
		for d := range 50 {
			line++
			if line%37 == 0 || line%3 == 1 && line > 9000 { // comments, often where a query starts; many late
				sb.WriteString("# a comment\n")
			}
			fmt.Fprintf(&sb, "%d 0 doc%d %d\n", q, d, d%3)
		}
	}
	lines := strings.SplitAfter(sb.String(), "\n")
	with := func(at int, l string) string {
		c := slices.Clone(lines)
		c = slices.Insert(c, at, l)
		return strings.Join(c, "")
	}
	cases := map[string]string{
		"comments":          sb.String(),
		"a blank line late": with(len(lines)*3/4, "\n"),
		"two comments late": with(len(lines)*2/3, "# one\n# two\n"),
		"a comment last":    sb.String() + "# end\n",
	}
	f := QrelsFormat{Comments: true, Strict: true, Atol: true}
	for name, data := range cases {
		path := readertest.WriteFile(t, "q.txt", []byte(data))
		whole, errWhole := readQrels(path, 1, f)
		for _, parts := range []int{2, 3, 5} {
			t.Run(fmt.Sprintf("%s/parts=%d", name, parts), func(t *testing.T) {
				old := qrelsMinSplit
				qrelsMinSplit = 1
				defer func() { qrelsMinSplit = old }()
				split, errSplit := readQrels(path, parts, f)
				if fmt.Sprint(errWhole) != fmt.Sprint(errSplit) {
					t.Fatalf("errors differ:\n whole: %v\n parts: %v", errWhole, errSplit)
				}
				if name != "comments" {
					if errWhole == nil || !errors.Is(errWhole, batch.ErrSyntax) {
						t.Fatalf("no error: %v", errWhole)
					}
					return
				}
				if errWhole != nil || whole.Judgments() != 15000 || !slices.Equal(whole.labels, split.labels) || !bytes.Equal(whole.docs, split.docs) {
					t.Fatalf("judgments differ (%v)", errWhole)
				}
			})
		}
	}
}
