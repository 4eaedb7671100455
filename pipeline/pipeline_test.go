package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/reader"
	"github.com/rankeval/rankeval/reader/trec"
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

func (m *memReader) Err() error { return m.err }

func (m *memReader) Close() error { return nil }

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
type judgedOnly struct{ q *trec.Qrels }

func (j judgedOnly) Judged(query []byte) []float64 { return j.q.Judged(query) }

func (j judgedOnly) Join([]byte, []float64, []bool, func(doc []byte) int) {}

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

// TestPerQueryOnly: with PerQuery.Only the records are the same and the
// queries are not aggregated (rankeval trec_eval sums the records).
func TestPerQueryOnly(t *testing.T) {
	ms := mustMetrics(t, "map,ndcg@10,p@5")
	in := sources(2, map[string][]memRow{"mem": {{"a", 2, 1}, {"a", 1, 0}, {"b", 1, 1}}}, "mem")
	var want, got bytes.Buffer
	all, err := Run(context.Background(), Config{Rules: Rules{Metrics: ms}, Workers: 2, PerQuery: jsonLines(&want, ms)}, in)
	if err != nil || all.Queries != 2 {
		t.Fatalf("%v, %d queries", err, all.Queries)
	}
	pq := jsonLines(&got, ms)
	pq.Only = true
	none, err := Run(context.Background(), Config{Rules: Rules{Metrics: ms}, Workers: 2, PerQuery: pq}, in)
	if err != nil || none.Queries != 0 || got.String() != want.String() {
		t.Fatalf("%v, %d queries aggregated; records\n%s\nwant\n%s", err, none.Queries, got.String(), want.String())
	}
}

func TestPerQueryWriteErrorFails(t *testing.T) {
	_, err := Run(context.Background(), Config{Rules: Rules{Metrics: mustMetrics(t, "map")}, Workers: 3, PerQuery: jsonLines(&failWriter{}, mustMetrics(t, "map"))},
		sources(7, map[string][]memRow{"a": manyRows(500, 5)}, "a"))
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("err = %v", err)
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

// TestJoinInWorkers checks that labels joined in the workers (Rules.Qrels,
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
		q, err := trec.ReadQrels(qrelsPath)
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
			return trec.OpenRun(runPath, q, trec.RunOptions{Options: reader.Options{BatchSize: bs}, DeferJoin: deferJoin})
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

// TestQueryPool: a query holding more than the pool's small bytes takes
// its bytes, and at least a (2×workers+2)th, of the room for large queries
// from emit until it is put back, and comes back without its buffers; a
// small query takes nothing and keeps them. Sorted, the room is
// (2×workers+2) × --max-group-bytes; under --unsorted a quarter of
// --mem-limit, so that large queries in flight together stay within it.
func TestQueryPool(t *testing.T) {
	const rowBytes = 3*8 + evalRowBytes // label, position, score
	for _, c := range []struct {
		name               string
		unsorted           Unsorted
		room, least, small int64
		rows               []int // each emitted and held
		weights            []int64
		blocked            bool // the last query waits for the room
	}{
		{"sorted", Unsorted{}, 6 * DefaultMaxGroupBytes, DefaultMaxGroupBytes, smallBytes,
			[]int{100, smallBytes / rowBytes, smallBytes/rowBytes + 1, 3 * smallBytes / rowBytes}, []int64{0, 0, DefaultMaxGroupBytes, DefaultMaxGroupBytes}, false},
		{"unsorted", Unsorted{On: true, MemLimit: 16 << 20}, 4 << 20, (4 << 20) / 6, 16 << 10,
			[]int{100, (16 << 10) / rowBytes, 1000, (3 << 20) / rowBytes, (1 << 20) / rowBytes}, []int64{0, 0, (4 << 20) / 6, (3 << 20) / rowBytes * rowBytes}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := Config{Rules: Rules{Metrics: mustMetrics(t, "map"), Options: metrics.DefaultOptions()}, Unsorted: c.unsorted}
			pool := newQueryPool(&cfg, 1, 2)
			if pool.size() != smallPool || pool.room != c.room || pool.least != c.least || pool.small != c.small {
				t.Fatalf("pool of %d, room %d, least %d, small %d; want %d, %d, %d, %d", pool.size(), pool.room, pool.least, pool.small, smallPool, c.room, c.least, c.small)
			}
			jobs := make(chan *query, 8)
			p := newProducer(&cfg, nil, pool, jobs)
			var held []*query
			var taken int64
			for k, rows := range c.rows {
				q, err := p.take(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				for i := range rows {
					q.Label = append(q.Label, float64(i%2))
					q.Score = append(q.Score, float64(i))
					q.Where = append(q.Where, uint64(i))
				}
				if k == len(c.weights) {
					// no room left for this one: emit waits, until cancelled
					ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
					err := p.emit(ctx, q)
					cancel()
					if !c.blocked || !errors.Is(err, context.DeadlineExceeded) {
						t.Fatalf("query of %d bytes with %d of %d taken: %v", q.bytes(), taken, pool.room, err)
					}
					break
				}
				if err := p.emit(context.Background(), q); err != nil {
					t.Fatal(err)
				}
				if got := <-jobs; got != q || q.weight != c.weights[k] {
					t.Fatalf("%d rows, %d bytes: weight %d, want %d", rows, q.bytes(), q.weight, c.weights[k])
				}
				taken += q.weight
				held = append(held, q)
			}
			for k, q := range held {
				pool.put(q)
				if q.weight != 0 {
					t.Fatal("the weight was not given back")
				}
				if kept := cap(q.Label) >= c.rows[k]; kept != (c.weights[k] == 0) {
					t.Fatalf("%d rows: label capacity %d after put", c.rows[k], cap(q.Label))
				}
			}
			if !pool.big.TryAcquire(pool.room) {
				t.Fatal("the room was not given back whole")
			}
		})
	}
}

// TestLargeQueries: queries over the pool's small bytes, among small ones, give the
// same per-query output and means for any worker count and batch size.
func TestLargeQueries(t *testing.T) {
	var rows []memRow
	for q := range 40 {
		n := 30
		if q%4 == 1 {
			n = smallBytes/40 + 500*q
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

// TestFirstErrorInInputOrder: when several queries fail, the run reports
// the first in input order whatever the workers and their timing: a long
// query that fails (no relevant row under --empty error) before a short
// one that fails too, which another worker finishes first.
func TestFirstErrorInInputOrder(t *testing.T) {
	var rows []memRow
	for d := range 20_000 {
		rows = append(rows, memRow{"q1", float64(d % 97), 0})
	}
	for _, q := range []string{"q2", "q3", "q4"} {
		rows = append(rows, memRow{q, 1, 0})
	}
	o := metrics.DefaultOptions()
	o.Empty = metrics.EmptyError
	for _, w := range []int{2, 4} {
		for _, perQuery := range []bool{false, true} {
			t.Run(fmt.Sprintf("workers%d/perquery%v", w, perQuery), func(t *testing.T) {
				for range 10 {
					ms := mustMetrics(t, "map")
					cfg := Config{Rules: Rules{Metrics: ms, Options: o}, Workers: w}
					if perQuery {
						cfg.PerQuery = jsonLines(io.Discard, ms)
					}
					_, err := Run(context.Background(), cfg, sources(4096, map[string][]memRow{"a": rows}, "a"))
					if !errors.Is(err, ErrEmptyQuery) || !strings.Contains(err.Error(), `a:1: query "q1"`) {
						t.Fatalf("err = %v, want q1's (row 1)", err)
					}
				}
			})
		}
	}
}

// TestInputDigests: with Analysis.Digests each input's digest counts the
// queries whose first row it holds (q2 starts in a, continues in b), and
// does not depend on the batch size or the workers; the same rows read as
// one input give the sum of the two; without the flag there are none.
func TestInputDigests(t *testing.T) {
	files := map[string][]memRow{
		"a":    {{"q1", 3, 1}, {"q1", 2, 0}, {"q2", 1, 0}},
		"b":    {{"q2", 5, 1}, {"q3", 2, 0}, {"q3", 1, 1}},
		"both": {{"q1", 3, 1}, {"q1", 2, 0}, {"q2", 1, 0}, {"q2", 5, 1}, {"q3", 2, 0}, {"q3", 1, 1}},
	}
	ms := mustMetrics(t, "rr,p@1")
	analyze := func(bs, workers int, digests bool, order ...string) *Result {
		t.Helper()
		cfg := Config{Rules: Rules{Metrics: ms, Options: metrics.DefaultOptions()}, Workers: workers, Analysis: Analysis{Digests: digests}}
		res, err := Analyze(context.Background(), cfg, [][]Source{sources(bs, files, order...)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	want := analyze(10, 1, true, "a", "b").Digests
	if len(want.D) != 2 || want.D[0].IsZero() || want.D[1].IsZero() || want.D[0] == want.D[1] {
		t.Fatalf("digests %v: want two inputs' apart", want.D)
	}
	for _, bs := range []int{1, 2} {
		for _, w := range []int{1, 3} {
			if got := analyze(bs, w, true, "a", "b").Digests; !slices.Equal(got.D, want.D) {
				t.Errorf("batch %d, %d workers: digests %v, want %v", bs, w, got.D, want.D)
			}
		}
	}
	one := analyze(2, 3, true, "both").Digests
	sum := aggregate.NewInputDigests(&aggregate.Layout{})
	sum.Merge(&aggregate.InputDigests{D: want.D[:1]})
	sum.Merge(&aggregate.InputDigests{D: want.D[1:]})
	if len(one.D) != 1 || one.D[0] != sum.D[0] {
		t.Errorf("one input: %v, want the sum of a's and b's %v", one.D, sum.D)
	}
	if res := analyze(10, 2, false, "a", "b"); res.Digests != nil {
		t.Errorf("digests without Analysis.Digests: %v", res.Digests.D)
	}
}
