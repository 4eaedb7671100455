package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/reader"
)

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
