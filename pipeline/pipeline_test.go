package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/reader"
	"github.com/rankeval/rankeval/summary"
)

// memReader serves rows from memory in batches of a chosen size.
type memReader struct {
	name string
	rows []memRow
	bs   int
	i    int
	b    reader.Batch
	err  error // returned after the rows
}

type memRow struct {
	q            string
	score, label float64
}

func (m *memReader) Next() bool {
	m.b.Reset()
	m.b.Source = m.name
	for m.i < len(m.rows) && m.b.N < m.bs {
		r := m.rows[m.i]
		m.b.Query.Append([]byte(r.q))
		m.b.Score = append(m.b.Score, r.score)
		m.b.Label = append(m.b.Label, r.label)
		m.b.Pos = append(m.b.Pos, int64(m.i+1))
		m.b.N++
		m.i++
	}
	return m.b.N > 0
}
func (m *memReader) Batch() *reader.Batch { return &m.b }
func (m *memReader) Err() error           { return m.err }
func (m *memReader) Close() error         { return nil }

func sources(bs int, files map[string][]memRow, order ...string) []Source {
	var out []Source
	for _, name := range order {
		rows := files[name]
		out = append(out, Source{Name: name, Reread: true, Open: func() (reader.Reader, error) {
			r := &memReader{name: name, rows: rows, bs: bs}
			r.b.Query.Reset()
			r.b.Doc.Reset()
			return r, nil
		}})
	}
	return out
}

func mustMetrics(t *testing.T, s string) []metrics.Metric {
	t.Helper()
	ms, err := metrics.ParseList(s)
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

func TestGroupsSpanBatchesAndFiles(t *testing.T) {
	files := map[string][]memRow{
		"a": {{"q1", 3, 1}, {"q1", 2, 0}, {"q2", 1, 0}},
		"b": {{"q2", 5, 1}, {"q3", 2, 0}, {"q3", 1, 1}},
	}
	for _, bs := range []int{1, 2, 10} {
		for _, w := range []int{1, 3} {
			t.Run(fmt.Sprintf("batch%d/workers%d", bs, w), func(t *testing.T) {
				var pq bytes.Buffer
				set, err := Run(context.Background(), Config{Rules: Rules{Metrics: mustMetrics(t, "rr,p@1"), Options: metrics.DefaultOptions()}, Workers: w, PerQuery: jsonLines(&pq, mustMetrics(t, "rr,p@1"))},
					sources(bs, files, "a", "b"))
				if err != nil {
					t.Fatal(err)
				}
				if set.Queries != 3 || set.Rows != 6 {
					t.Fatalf("queries %d rows %d", set.Queries, set.Rows)
				}
				// q1: relevant first (rr 1); q2: the relevant row from file b scores 5 (rr 1); q3: relevant second (rr 1/2)
				if got := set.Stats[0].Summary().Mean; math.Abs(got-2.5/3) > 1e-15 {
					t.Fatalf("mrr = %v", got)
				}
				want := `{"query_id":"q1","rr":1,"p@1":1}` + "\n" + `{"query_id":"q2","rr":1,"p@1":1}` + "\n" + `{"query_id":"q3","rr":0.5,"p@1":0}` + "\n"
				if pq.String() != want {
					t.Fatalf("per-query:\n%s\nwant\n%s", pq.String(), want)
				}
			})
		}
	}
}

func TestReappearAcrossFiles(t *testing.T) {
	files := map[string][]memRow{
		"a": {{"q1", 3, 1}, {"q2", 2, 0}},
		"b": {{"q3", 5, 1}, {"q1", 1, 0}},
	}
	_, err := Run(context.Background(), Config{Rules: Rules{Metrics: mustMetrics(t, "map"), Options: metrics.DefaultOptions()}, Workers: 2}, sources(1, files, "a", "b"))
	if !errors.Is(err, ErrReappear) {
		t.Fatalf("err = %v", err)
	}
	if !strings.HasPrefix(err.Error(), "b:2: ") || !strings.Contains(err.Error(), "began at a:1") {
		t.Fatalf("message %q must name both positions", err)
	}
}

func TestReaderErrorStopsRun(t *testing.T) {
	boom := errors.New("boom")
	src := []Source{{Name: "x", Open: func() (reader.Reader, error) {
		r := &memReader{name: "x", rows: []memRow{{"q", 1, 1}}, bs: 1, err: boom}
		r.b.Query.Reset()
		return r, nil
	}}}
	if _, err := Run(context.Background(), Config{Rules: Rules{Metrics: mustMetrics(t, "map")}, Workers: 2}, src); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
}

// manyRows makes n queries of k rows.
func manyRows(n, k int) []memRow {
	rows := make([]memRow, 0, n*k)
	for q := range n {
		for d := range k {
			rows = append(rows, memRow{fmt.Sprintf("q%d", q), float64((q*7 + d*13) % 11), float64(d % 3)})
		}
	}
	return rows
}

func TestCancelStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	cfg := Config{Rules: Rules{Metrics: mustMetrics(t, "map")}, Workers: 2}
	src := sources(64, map[string][]memRow{"a": manyRows(10_000, 10)}, "a")
	open := src[0].Open
	src[0].Open = func() (reader.Reader, error) {
		r, err := open()
		// cancel once 100 batches are read, well before the end
		return &cancelAfter{Reader: r, n: &n, cancel: cancel}, err
	}
	_, err := Run(ctx, cfg, src)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

// cancelAfter cancels the run when its 100th batch is read.
type cancelAfter struct {
	reader.Reader
	n      *int
	cancel func()
}

func (c *cancelAfter) Next() bool {
	if *c.n++; *c.n == 100 {
		c.cancel()
	}
	return c.Reader.Next()
}

// judgedOnly gives a run's qrels for R and the ideal rankings when the
// reader has joined the labels already.
type judgedOnly struct{ q *reader.Qrels }

func (j judgedOnly) Judged(query []byte) []float64                { return j.q.Judged(query) }
func (j judgedOnly) Join([]byte, []float64, func(doc []byte) int) {}

// jsonLines asks for rankeval's per-query JSON records of ms on w.
func jsonLines(w io.Writer, ms []metrics.Metric) PerQuery {
	run := &summary.Run{Metrics: ms}
	return PerQuery{W: w, Format: run.QueryFormat("json")}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n++; f.n > 3 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

func TestPerQueryWriteErrorFails(t *testing.T) {
	_, err := Run(context.Background(), Config{Rules: Rules{Metrics: mustMetrics(t, "map")}, Workers: 3, PerQuery: jsonLines(&failWriter{}, mustMetrics(t, "map"))},
		sources(7, map[string][]memRow{"a": manyRows(500, 5)}, "a"))
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("err = %v", err)
	}
}

func TestSeenSetGrows(t *testing.T) {
	var s seenSet
	defer s.release()
	for i := range 100_000 {
		if !s.insert([]byte(fmt.Sprint(i))) {
			t.Fatalf("%d reported as seen", i)
		}
	}
	for _, i := range []int{0, 4242, 99_999} {
		if s.insert([]byte(fmt.Sprint(i))) {
			t.Fatalf("%d not reported as seen", i)
		}
	}
	// 100,000 hashes fit in 2^17 slots at 76%; the table runs up to 97%
	if s.n != 100_000 || len(s.slots) != 1<<17 {
		t.Fatalf("%d ids in %d slots, want 100000 in %d", s.n, len(s.slots), 1<<17)
	}
}

// TestSeenHashCollisions makes every query id share one hash: the seen set
// then flags every new group, and reading the inputs again must clear the
// false alarms, give the same result as without collisions, and still catch
// and place a real reappearance.
func TestSeenHashCollisions(t *testing.T) {
	files := map[string][]memRow{
		"a": manyRows(300, 4),
		"b": manyRows(200, 3),
	}
	for i := range files["b"] { // other ids than a's
		files["b"][i].q = "b" + files["b"][i].q
	}
	cfg := Config{Rules: Rules{Metrics: mustMetrics(t, "map,ndcg@3"), Options: metrics.DefaultOptions()}, Workers: 2}
	var want, got bytes.Buffer
	cfg.PerQuery = jsonLines(&want, cfg.Rules.Metrics)
	if _, err := Run(context.Background(), cfg, sources(7, files, "a", "b")); err != nil {
		t.Fatal(err)
	}
	old := seenHash
	seenHash = func(maphash.Seed, []byte) uint64 { return 42 }
	defer func() { seenHash = old }()
	cfg.PerQuery = jsonLines(&got, cfg.Rules.Metrics)
	set, err := Run(context.Background(), cfg, sources(7, files, "a", "b"))
	if err != nil {
		t.Fatal(err)
	}
	if set.Queries != 500 || got.String() != want.String() {
		t.Fatalf("with colliding hashes: %d queries, per-query output equal: %v", set.Queries, got.String() == want.String())
	}
	cfg.PerQuery = PerQuery{}

	files["c"] = []memRow{{"x", 1, 1}, {files["b"][5].q, 2, 1}}
	_, err = Run(context.Background(), cfg, sources(7, files, "a", "b", "c"))
	if !errors.Is(err, ErrReappear) || !strings.HasPrefix(err.Error(), "c:2: ") || !strings.Contains(err.Error(), "began at b:4") {
		t.Fatalf("err = %v, want a reappearance at c:2 that began at b:4", err)
	}

	// An input that cannot be read twice: the error cannot say where.
	srcs := sources(7, files, "a", "b", "c")
	srcs[0].Reread = false
	_, err = Run(context.Background(), cfg, srcs)
	if !errors.Is(err, ErrReappear) || !strings.Contains(err.Error(), "began earlier") {
		t.Fatalf("err = %v, want a reappearance whose start is not named", err)
	}
}

func BenchmarkPipeline(b *testing.B) {
	rows := manyRows(20_000, 50)
	ms, _ := metrics.ParseList("map,mrr,ndcg@10,err@10,p@10,r@10")
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers%d", w), func(b *testing.B) {
			for range b.N {
				if _, err := Run(context.Background(), Config{Rules: Rules{Metrics: ms, Options: metrics.DefaultOptions()}, Workers: w},
					sources(8192, map[string][]memRow{"a": rows}, "a")); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(rows)*b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

func TestProgressReports(t *testing.T) {
	var got []Progress
	var bytes atomic.Int64
	bytes.Store(42)
	cfg := Config{Rules: Rules{Metrics: mustMetrics(t, "map")}, Workers: 2, Progress: Reporting{Every: time.Millisecond, BytesRead: &bytes, TotalBytes: 100, Report: func(p Progress) { got = append(got, p) }}}
	if _, err := Run(context.Background(), cfg, sources(64, map[string][]memRow{"a": manyRows(2000, 10)}, "a")); err != nil {
		t.Fatal(err)
	}
	last := got[len(got)-1]
	if !last.Done || last.Rows != 20_000 || last.Queries != 2000 || last.Bytes != 42 || last.TotalBytes != 100 {
		t.Fatalf("final progress %+v", last)
	}
	for _, p := range got[:len(got)-1] {
		if p.Done || p.Rows > last.Rows {
			t.Fatalf("intermediate progress %+v", p)
		}
	}
}

func TestKeepFirst(t *testing.T) {
	tests := []struct {
		docs, want string // one letter a row; '.' = no doc id
	}{
		{"xxaba", "xab"},
		{"abc", "abc"},
		{"aaaa", "a"},
		{"..a.a", "..a."},
		{"abcabcd", "abcd"},
	}
	for _, tc := range tests {
		t.Run(tc.docs, func(t *testing.T) {
			q := &Group{}
			var docs [][]byte
			q.XScore = make([][]float64, 1)
			for i, c := range tc.docs {
				d := []byte{byte(c)}
				if c == '.' {
					d = nil
				}
				docs = append(docs, d)
				q.Label = append(q.Label, float64(i))
				q.Score = append(q.Score, float64(10*i))
				q.Where = append(q.Where, uint64(i))
				q.XScore[0] = append(q.XScore[0], float64(20*i)) // a second system's score column
			}
			dropped := newDocSet().keepFirst(q, &docs)
			var got []byte
			for _, d := range docs {
				if len(d) == 0 {
					got = append(got, '.')
				} else {
					got = append(got, d[0])
				}
			}
			if string(got) != tc.want || dropped != len(tc.docs)-len(tc.want) || len(q.XScore[0]) != len(docs) {
				t.Fatalf("kept %s (dropped %d), want %s", got, dropped, tc.want)
			}
			for k := range docs {
				if q.Score[k] != 10*q.Label[k] || q.XScore[0][k] != 20*q.Label[k] || q.Where[k] != uint64(q.Label[k]) {
					t.Fatalf("row %d columns out of step: label %v score %v where %v", k, q.Label[k], q.Score[k], q.Where[k])
				}
			}
		})
	}
}

// interleave returns the rows with queries out of order but each query's
// rows in their original relative order: blocks of queries are dealt out
// round-robin, one row at a time.
func interleave(rows []memRow) []memRow {
	var groups [][]memRow
	for i := 0; i < len(rows); {
		j := i
		for j < len(rows) && rows[j].q == rows[i].q {
			j++
		}
		groups = append(groups, rows[i:j])
		i = j
	}
	var out []memRow
	for len(out) < len(rows) {
		for g := range groups {
			if len(groups[g]) > 0 {
				out = append(out, groups[g][0])
				groups[g] = groups[g][1:]
			}
		}
	}
	return out
}

func TestUnsortedMatchesSorted(t *testing.T) {
	rows := manyRows(3000, 12)
	// ties within queries make input order matter
	for i := range rows {
		rows[i].score = float64(int(rows[i].score) % 3)
	}
	ms := mustMetrics(t, "map,ndcg@5,err@10,p@3,kendall")
	sorted, err := Run(context.Background(), Config{Rules: Rules{Metrics: ms, Options: metrics.DefaultOptions()}, Workers: 2},
		sources(100, map[string][]memRow{"a": rows}, "a"))
	if err != nil {
		t.Fatal(err)
	}
	shuffled := interleave(rows)
	for _, limit := range []int64{1 << 14, 1 << 20, DefaultMemLimit} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			tmp := t.TempDir()
			var made []string
			cfg := Config{Rules: Rules{Metrics: ms, Options: metrics.DefaultOptions()}, Workers: 3, Unsorted: Unsorted{On: true, TmpDir: tmp, MemLimit: limit, OnSpillDir: func(dir string, m bool) {
				if m {
					made = append(made, dir)
				}
			}}}
			got, err := Run(context.Background(), cfg, sources(77, map[string][]memRow{"a": shuffled[:len(shuffled)/2], "b": shuffled[len(shuffled)/2:]}, "a", "b"))
			if err != nil {
				t.Fatal(err)
			}
			if got.Rows != sorted.Rows || got.Queries != sorted.Queries {
				t.Fatalf("rows %d queries %d, want %d %d", got.Rows, got.Queries, sorted.Rows, sorted.Queries)
			}
			for i := range ms {
				if g, w := got.Stats[i].Summary(), sorted.Stats[i].Summary(); g != w {
					t.Fatalf("%s: %+v, sorted %+v", ms[i].Name, g, w)
				}
			}
			if len(made) != 1 {
				t.Fatalf("spill dirs %v", made)
			}
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Fatalf("left in the temp dir: %v", left)
			}
		})
	}
}

func TestUnsortedErrorCleansUp(t *testing.T) {
	rows := manyRows(500, 4)
	rows[1500].label = -1
	tmp := t.TempDir()
	_, err := Run(context.Background(), Config{Rules: Rules{Metrics: mustMetrics(t, "map")}, Unsorted: Unsorted{On: true, TmpDir: tmp, MemLimit: 1 << 14}},
		sources(64, map[string][]memRow{"a": interleave(rows)}, "a"))
	if !errors.Is(err, reader.ErrValue) {
		t.Fatalf("err = %v", err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("left in the temp dir: %v", left)
	}
}

func TestReadAhead(t *testing.T) {
	rows := manyRows(300, 7)
	boom := errors.New("boom")
	t.Run("same rows, then the reader's error", func(t *testing.T) {
		inner := &memReader{name: "a", rows: rows, bs: 50, err: boom}
		inner.b.Query.Reset()
		ra := newReadAhead(inner)
		var got []memRow
		for ra.Next() {
			b := ra.Batch()
			for i := 0; i < b.N; i++ {
				got = append(got, memRow{string(b.Query.At(i)), b.Score[i], b.Label[i]})
				if b.Pos[i] != int64(len(got)) {
					t.Fatalf("row %d: pos %d", len(got), b.Pos[i])
				}
			}
		}
		if !errors.Is(ra.Err(), boom) {
			t.Fatalf("err = %v", ra.Err())
		}
		if len(got) != len(rows) {
			t.Fatalf("%d rows, want %d", len(got), len(rows))
		}
		for i := range rows {
			if got[i] != rows[i] {
				t.Fatalf("row %d: %+v, want %+v", i, got[i], rows[i])
			}
		}
		ra.Close()
	})
	t.Run("close midway stops the goroutine", func(t *testing.T) {
		inner := &memReader{name: "a", rows: rows, bs: 10}
		inner.b.Query.Reset()
		ra := newReadAhead(inner)
		ra.Next()
		if err := ra.Close(); err != nil {
			t.Fatal(err)
		}
		select {
		case <-ra.done:
		default:
			t.Fatal("goroutine still running after Close")
		}
	})
}

func BenchmarkSeenSet(b *testing.B) {
	ids := make([][]byte, 1_000_000)
	for i := range ids {
		ids[i] = fmt.Appendf(nil, "query-%d", i)
	}
	for b.Loop() {
		var s seenSet
		for _, id := range ids {
			if !s.insert(id) {
				b.Fatal("false hit")
			}
		}
		b.ReportMetric(float64(len(s.slots)*8)/float64(len(ids)), "bytes/id")
		s.release()
	}
	b.ReportMetric(float64(b.N*len(ids))/b.Elapsed().Seconds(), "ids/s")
}

// TestReappearProgressNote: while the inputs are read again, to index the
// query ids before the end of their ascent and then to place a query id
// that came back, progress says so.
func TestReappearProgressNote(t *testing.T) {
	files := map[string][]memRow{"a": {{"q1", 3, 1}, {"q2", 2, 0}, {"q1", 1, 0}}}
	srcs := sources(1, files, "a")
	opens := 0
	open := srcs[0].Open
	srcs[0].Open = func() (reader.Reader, error) {
		if opens++; opens > 1 {
			time.Sleep(100 * time.Millisecond) // a slow second read
		}
		return open()
	}
	var mu sync.Mutex
	var notes []string
	cfg := Config{Rules: Rules{Metrics: mustMetrics(t, "map"), Options: metrics.DefaultOptions()}, Workers: 1, Progress: Reporting{Every: 5 * time.Millisecond, Report: func(p Progress) {
		mu.Lock()
		defer mu.Unlock()
		if p.Note != "" {
			notes = append(notes, p.Note)
		}
	}}}
	if _, err := Run(context.Background(), cfg, srcs); !errors.Is(err, ErrReappear) {
		t.Fatalf("err = %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{
		"query ids stopped ascending at a:3: reading the input again to index the ids before it",
		`query id "q1" came back at a:3: reading the input again to find where its rows began`,
	}
	notes = slices.Compact(notes)
	if !slices.Equal(notes, want) {
		t.Fatalf("notes %q, want %q", notes, want)
	}
}

// TestJoinInWorkers checks that labels joined in the workers (Config.Join,
// as the CLI reads TREC runs) give what the run reader's own join gives,
// per query and with --dedup first dropping repeated documents.
func TestJoinInWorkers(t *testing.T) {
	dir := t.TempDir()
	var run, qrels strings.Builder
	for q := range 40 {
		for d := range 60 {
			doc := d
			if q%5 == 0 && d%17 == 3 {
				doc = d - 1 // a repeated docno: dropped under --dedup first
			}
			fmt.Fprintf(&run, "%d Q0 doc%d %d %d.5 run\n", q, doc, d+1, (d*7919+q)%50)
			if (d+q)%3 == 0 {
				fmt.Fprintf(&qrels, "%d 0 doc%d %d\n", q, d, (d+q)%4)
			}
		}
		fmt.Fprintf(&qrels, "%d 0 unretrieved%d 2\n", q, q)
	}
	runPath, qrelsPath := dir+"/run", dir+"/qrels"
	os.WriteFile(runPath, []byte(run.String()), 0o644)
	os.WriteFile(qrelsPath, []byte(qrels.String()), 0o644)
	evaluate := func(deferJoin bool, workers, bs int) string {
		q, err := reader.ReadQrels(qrelsPath)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		cfg := Config{Rules: Rules{Metrics: mustMetrics(t, "map,ndcg@10,err@5,p@5,recall@20,mrr"), Options: metrics.DefaultOptions(), DedupFirst: true}, Workers: workers}
		cfg.PerQuery = jsonLines(&out, cfg.Rules.Metrics)
		// the reader joins the labels, or (deferJoin) the workers do; the
		// qrels give R and the ideal rankings either way
		cfg.Rules.Qrels = q
		if !deferJoin {
			cfg.Rules.Qrels = judgedOnly{q}
		}
		src := Source{Name: runPath, Open: func() (reader.Reader, error) {
			return reader.OpenRun(runPath, q, reader.RunOptions{Options: reader.Options{BatchSize: bs}, DeferJoin: deferJoin})
		}}
		if _, err := Run(context.Background(), cfg, []Source{src}); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	want := evaluate(false, 1, 8192)
	if !strings.Contains(want, `"map":0.`) {
		t.Fatalf("no map values: the test data judge nothing?\n%.300s", want)
	}
	for _, c := range []struct{ workers, bs int }{{1, 8192}, {3, 7}, {2, 100}} {
		t.Run(fmt.Sprintf("workers%d/batch%d", c.workers, c.bs), func(t *testing.T) {
			if got := evaluate(true, c.workers, c.bs); got != want {
				t.Fatalf("joined in the workers:\n%.500s\nby the reader:\n%.500s", got, want)
			}
		})
	}
}

// TestCopyBatch: the read-ahead's copy of a reader's batch has every
// column, whatever the spare held before.
func TestCopyBatch(t *testing.T) {
	src := &reader.Batch{Source: "in", N: 2, Score: []float64{1, 2}, Label: []float64{0, 3},
		Rank: []int64{1, 2}, Pos: []int64{7, 8}, Extra: make([]reader.Strings, 2), ExtraScore: [][]float64{{4, 5}}}
	for _, s := range []*reader.Strings{&src.Query, &src.Doc, &src.Extra[0], &src.Extra[1]} {
		s.Reset()
		s.Append([]byte("x"))
		s.Append([]byte("yz"))
	}
	for name, dst := range map[string]*reader.Batch{
		"empty spare": {},
		"spare with other columns": {N: 9, Rank: nil, Extra: make([]reader.Strings, 5), ExtraScore: make([][]float64, 3),
			Score: []float64{9, 9, 9}, Pos: []int64{1}},
	} {
		t.Run(name, func(t *testing.T) {
			copyBatch(dst, src)
			if !reflect.DeepEqual(dst, src) {
				t.Fatalf("copy\n%+v\nwant\n%+v", dst, src)
			}
			src.Extra[1].Buf[0] = 'q'
			if dst.Extra[1].Buf[0] != 'x' {
				t.Fatal("the copy shares memory with the source")
			}
			src.Extra[1].Buf[0] = 'x'
		})
	}
}

// TestValidateRows: the quick pass over a run of rows lets no bad value
// through, wherever it sits, and the error names the first bad row.
func TestValidateRows(t *testing.T) {
	ms, err := metrics.ParseList("ndcg@10,err@10")
	if err != nil {
		t.Fatal(err)
	}
	v := &Rules{Metrics: ms, Options: metrics.DefaultOptions(), Systems: []string{"a", "b"}}
	bad := []struct {
		name string
		set  func(b *reader.Batch, k int)
		want string
	}{
		{"NaN score", func(b *reader.Batch, k int) { b.Score[k] = math.NaN() }, "score is NaN"},
		{"infinite score", func(b *reader.Batch, k int) { b.Score[k] = math.Inf(-1) }, "score is -Inf"},
		{"infinite second score", func(b *reader.Batch, k int) { b.ExtraScore[0][k] = math.Inf(1) }, "score of b is +Inf"},
		{"NaN label", func(b *reader.Batch, k int) { b.Label[k] = math.NaN() }, "label is NaN"},
		{"negative label", func(b *reader.Batch, k int) { b.Label[k] = -0.5 }, "label is -0.5"},
		{"label above the maximum grade", func(b *reader.Batch, k int) { b.Label[k] = 4.5 }, "label 4.5 is above the maximum grade 4"},
		{"rank 0", func(b *reader.Batch, k int) { b.Rank[k] = 0 }, "rank is 0"},
	}
	const n = 9
	fresh := func() *reader.Batch {
		b := &reader.Batch{Source: "in", N: n}
		for k := range n {
			b.Score = append(b.Score, float64(k)/3)
			b.Label = append(b.Label, float64(k%5))
			b.Rank = append(b.Rank, int64(k+1))
			b.Pos = append(b.Pos, int64(k+1))
		}
		b.ExtraScore = [][]float64{slices.Clone(b.Score)}
		return b
	}
	if err := v.Validate(fresh(), 0, n); err != nil {
		t.Fatalf("valid rows: %v", err)
	}
	b := fresh()
	b.Label[3] = -0.0 // -0 is a valid label
	if err := v.Validate(b, 0, n); err != nil {
		t.Fatalf("label -0: %v", err)
	}
	for _, c := range bad {
		for _, k := range []int{0, 4, n - 1} {
			t.Run(fmt.Sprintf("%s/row %d", c.name, k+1), func(t *testing.T) {
				b := fresh()
				c.set(b, k)
				err := v.Validate(b, 0, n)
				if want := fmt.Sprintf("in:%d: %s", k+1, c.want); err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("err = %v, want %q", err, want)
				}
				if !errors.Is(err, reader.ErrValue) {
					t.Errorf("err = %v, want reader.ErrValue", err)
				}
				// rows before the bad one pass
				if err := v.Validate(b, 0, k); err != nil {
					t.Errorf("rows before the bad one: %v", err)
				}
			})
		}
	}
}

// BenchmarkValidate checks a batch of 64Ki valid rows (two score columns).
func BenchmarkValidate(b *testing.B) {
	ms, err := metrics.ParseList("ndcg@10,err@10")
	if err != nil {
		b.Fatal(err)
	}
	v := &Rules{Metrics: ms, Options: metrics.DefaultOptions()}
	const n = 1 << 16
	bt := &reader.Batch{Source: "in", N: n}
	for k := range n {
		bt.Score = append(bt.Score, float64(k)/3)
		bt.Label = append(bt.Label, float64(k%5))
		bt.Pos = append(bt.Pos, int64(k+1))
	}
	for b.Loop() {
		// runs of 100 rows, as the grouper validates a query at a time
		for i := 0; i < n; i += 100 {
			if err := v.Validate(bt, i, min(i+100, n)); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "rows/s")
}

// TestAscent: the ascent lasts while ids ascend in byte order or in
// shortlex order, and ends at the first id that ascends in neither.
func TestAscent(t *testing.T) {
	for _, c := range []struct {
		name string
		ids  []string
		ends int // index of the id that ends the ascent; -1: never
	}{
		{"byte order", []string{"a", "ab", "b", "ba", "c"}, -1},
		{"padded integers", []string{"q0000009", "q0000010", "q0000011"}, -1},
		{"integers", []string{"8", "9", "10", "11", "100"}, -1},
		{"uuids", []string{"0f1e", "3a2b", "9c8d", "ffff"}, -1},
		{"a repeat", []string{"a", "b", "b"}, 2},
		{"a step down", []string{"a", "c", "b"}, 2},
		{"both orders end", []string{"9", "10", "1a", "9"}, 3}, // shortlex, then neither
		{"shortlex outlasts byte order", []string{"b", "ab", "c"}, 2},
		{"empty id first", []string{"", "a", "b"}, -1},
		{"empty id again", []string{"", "a", ""}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := ascent{on: true}
			for k, id := range c.ids {
				want := c.ends < 0 || k < c.ends
				if got := a.next([]byte(id)); got != want {
					t.Fatalf("id %d (%q): next = %v, want %v", k, id, got, want)
				}
				if !want {
					return
				}
			}
		})
	}
}

// TestReappearAfterAscent: a query id from before the end of the ascent
// that comes back later is caught and both positions named, when the ascent
// ends in the same input, in a later one, or never starts (standard input).
func TestReappearAfterAscent(t *testing.T) {
	files := map[string][]memRow{
		"a": {{"q1", 3, 1}, {"q2", 2, 0}, {"q3", 1, 0}, {"q0", 1, 1}, {"q4", 1, 0}, {"q2", 1, 0}},
		"b": {{"q1", 3, 1}, {"q2", 2, 0}, {"q3", 1, 0}},
		"c": {{"q0", 1, 1}, {"q5", 1, 0}, {"q2", 1, 0}},
	}
	for _, c := range []struct {
		name   string
		order  []string
		reread bool
		want   string
	}{
		{"ends in the same input", []string{"a"}, true, "a:6: "},
		{"ends in a later input", []string{"b", "c"}, true, "c:3: "},
		{"standard input", []string{"b", "c"}, false, "c:3: "},
	} {
		for _, bs := range []int{1, 2, 100} {
			t.Run(fmt.Sprintf("%s/batch=%d", c.name, bs), func(t *testing.T) {
				srcs := sources(bs, files, c.order...)
				for k := range srcs {
					srcs[k].Reread = c.reread
				}
				_, err := Run(context.Background(), Config{Rules: Rules{Metrics: mustMetrics(t, "map"), Options: metrics.DefaultOptions()}, Workers: 2}, srcs)
				if !errors.Is(err, ErrReappear) {
					t.Fatalf("err = %v", err)
				}
				if !strings.HasPrefix(err.Error(), c.want+`query id "q2"`) {
					t.Fatalf("message %q must start %q", err, c.want)
				}
				if c.reread && !strings.Contains(err.Error(), "began at "+c.order[0]+":2") {
					t.Fatalf("message %q must name where q2 began", err)
				}
			})
		}
	}
}

// TestAscentSparesSeenSet: a log sorted by query id never fills the seen
// set; one that stops ascending has every id so far in it.
func TestAscentSparesSeenSet(t *testing.T) {
	var sorted, broken []memRow
	for q := range 500 {
		for d := range 3 {
			sorted = append(sorted, memRow{fmt.Sprintf("q%04d", q), float64(d), float64(d % 2)})
			broken = append(broken, memRow{fmt.Sprintf("q%04d", (q+250)%500), float64(d), float64(d % 2)})
		}
	}
	files := map[string][]memRow{"sorted": sorted, "broken": broken}
	for _, c := range []struct {
		name    string
		indexed int // ids in the seen set at the end
	}{{"sorted", 0}, {"broken", 500}} {
		t.Run(c.name, func(t *testing.T) {
			cfg := Config{Rules: Rules{Metrics: mustMetrics(t, "map"), Options: metrics.DefaultOptions()}, Workers: 1}
			p := newProducer(&cfg, [][]Source{sources(7, files, c.name)}, nil, nil)
			defer p.close()
			gr := p.logs[0]
			var g Group
			groups := 0
			for {
				ok, err := gr.fill(&g)
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					break
				}
				groups++
			}
			if groups != 500 || gr.seen.n != c.indexed {
				t.Fatalf("%d groups, %d ids in the seen set; want 500 and %d", groups, gr.seen.n, c.indexed)
			}
		})
	}
}

// TestQueryPool: a query over smallRows rows holds a token from emit until
// it is put back; one whose buffers grew past twice that comes back without
// them, and a small query keeps them.
func TestQueryPool(t *testing.T) {
	cfg := Config{Rules: Rules{Metrics: mustMetrics(t, "map"), Options: metrics.DefaultOptions()}}
	pool := newQueryPool(&cfg, 1, 2)
	if pool.size() != smallPool || cap(pool.big) != 6 {
		t.Fatalf("pool of %d with %d tokens; want %d and 6", pool.size(), cap(pool.big), smallPool)
	}
	jobs := make(chan *query, 4)
	p := newProducer(&cfg, nil, pool, jobs)
	for _, c := range []struct {
		rows        int
		token, trim bool
	}{{100, false, false}, {smallRows, false, false}, {smallRows + 1, true, false}, {3 * smallRows, true, true}} {
		t.Run(fmt.Sprint(c.rows), func(t *testing.T) {
			q, err := p.take(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for i := range c.rows {
				q.Label = append(q.Label, float64(i%2))
				q.Score = append(q.Score, float64(i))
			}
			if err := p.emit(context.Background(), q); err != nil {
				t.Fatal(err)
			}
			if got := <-jobs; got != q || q.big != c.token || len(pool.big) != map[bool]int{false: 0, true: 1}[c.token] {
				t.Fatalf("big %v with %d tokens out; want %v", q.big, len(pool.big), c.token)
			}
			pool.put(q)
			if len(pool.big) != 0 || q.big {
				t.Fatal("the token was not given back")
			}
			if kept := cap(q.Label) >= c.rows; kept == c.trim {
				t.Fatalf("%d rows: label capacity %d after put", c.rows, cap(q.Label))
			}
		})
	}
}

// TestLargeQueries: queries over smallRows rows, among small ones, give the
// same per-query output and means for any worker count and batch size.
func TestLargeQueries(t *testing.T) {
	var rows []memRow
	for q := range 40 {
		n := 30
		if q%4 == 1 {
			n = smallRows + 500*q
		}
		for d := range n {
			rows = append(rows, memRow{fmt.Sprintf("q%03d", q), float64((d*7919+q)%1000) / 7, float64(d % 3)})
		}
	}
	files := map[string][]memRow{"a": rows}
	var want string
	for _, w := range []int{1, 2, 5} {
		for _, bs := range []int{1000, 7777} {
			var out bytes.Buffer
			set, err := Run(context.Background(), Config{Rules: Rules{Metrics: mustMetrics(t, "map,ndcg@10"), Options: metrics.DefaultOptions()}, Workers: w, PerQuery: jsonLines(&out, mustMetrics(t, "map,ndcg@10"))}, sources(bs, files, "a"))
			if err != nil {
				t.Fatal(err)
			}
			enc, err := set.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			got := out.String() + string(enc)
			if strings.Count(out.String(), "\n") != 40 {
				t.Fatalf("workers %d: %d per-query lines", w, strings.Count(out.String(), "\n"))
			}
			if want == "" {
				want = got
			} else if got != want {
				t.Fatalf("workers %d, batch %d: output differs", w, bs)
			}
		}
	}
}
