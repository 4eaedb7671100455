// Package pipeline owns grouping and concurrency: it reads inputs in order,
// groups contiguous rows of one query, validates each row, and hands whole
// queries to a pool of workers that evaluate them and keep their own partial
// aggregates, merged once at the end. Every goroutine of a run is started and
// stopped here.
package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/reader"
)

// Sentinel errors, matched with errors.Is. Bad row values wrap
// reader.ErrValue wherever they are found.
var (
	ErrReappear      = errors.New("query id reappears after its group ended")
	ErrGroupTooLarge = errors.New("query group larger than --max-group-rows")
	ErrEmptyQuery    = errors.New("query has no relevant row")
	ErrDuplicateDoc  = errors.New("document id repeated within a query")
)

// Source is one input, opened when the pipeline reaches it so that only one
// file is open at a time.
type Source struct {
	Name string
	Open func() (reader.Reader, error)
}

// Config is everything a run needs besides its inputs.
type Config struct {
	Metrics []metrics.Metric
	Options metrics.Options
	// Workers evaluating queries (default GOMAXPROCS).
	Workers int
	// MaxGroupRows makes a larger query an error instead of an
	// out-of-memory (default 1,000,000).
	MaxGroupRows int
	// PerQuery, when set, receives one record per query, in input order:
	// by default a JSON object with its id and every metric (null where
	// undefined).
	PerQuery io.Writer
	// FormatQuery, when set, replaces the JSON per-query record. It is
	// called from several workers at once.
	FormatQuery func(b, id []byte, vals []float64) []byte
	// ScoreFloat32 rounds scores to float32 as they are read, so ties fall
	// where a tool storing 32-bit scores (trec_eval) sees them.
	ScoreFloat32 bool
	// Judged, when set, gives the labels of every judged document of a
	// query (a qrels file), from which R and the ideal rankings come. It is
	// called from several workers at once and must only read.
	Judged func(query []byte) []float64
	// Missing, when set, is called after the inputs are read and returns
	// how many more queries count with value 0 for every metric but the
	// correlations (judged queries absent from a run, trec_eval's -c).
	Missing func() int
	// Progress, when set, is called every ProgressEvery (default 1 s) from a
	// goroutine of the run, and once more when the run ends.
	Progress      func(Progress)
	ProgressEvery time.Duration
	// BytesRead counts input bytes as the readers consume them (give the
	// same counter to reader.Options) and TotalBytes is their sum when
	// known (0 otherwise); both only feed Progress.
	BytesRead  *atomic.Int64
	TotalBytes int64
	// OnQuery, when set, is called from the producer after each query is
	// grouped (for progress reporting); it must be cheap.
	OnQuery func(rows int)
}

func (c *Config) workers() int {
	if c.Workers > 0 {
		return c.Workers
	}
	return runtime.GOMAXPROCS(0)
}

func (c *Config) maxGroupRows() int {
	if c.MaxGroupRows > 0 {
		return c.MaxGroupRows
	}
	return 1_000_000
}

// query is one group of rows on its way through the pool. Queries are
// recycled through a free list, so their buffers grow to the largest group
// they have held and are then reused: memory is the pool size times the
// largest group, whatever the number of queries.
// Progress is a snapshot of a run's advance, for people and logs.
type Progress struct {
	Rows, Queries     int64
	Bytes, TotalBytes int64 // input bytes read, and their total (0 = unknown)
	Elapsed           time.Duration
	Done              bool
}

type query struct {
	seq   int64
	id    []byte
	src   int   // index of the source of its first row
	pos   int64 // position of its first row
	score []float64
	label []float64
	rank  []int64
	doc   reader.Strings
	docs  [][]byte
	where []uint64 // source and position of each row (packed), for messages about a row
	vals  []float64
	empty bool
	line  []byte // per-query JSON, when asked for
}

func (q *query) n() int { return len(q.label) }

func (q *query) reset() {
	q.id = q.id[:0]
	q.score = q.score[:0]
	q.label = q.label[:0]
	q.rank = q.rank[:0]
	q.where = q.where[:0]
	q.doc.Reset()
}

// Run evaluates the inputs and returns the merged aggregate. The result is
// bit-identical for any worker count and any reader batch size.
func Run(ctx context.Context, cfg Config, inputs []Source) (*aggregate.Set, error) {
	workers := cfg.workers()
	poolSize := 2*workers + 2
	free := make(chan *query, poolSize)
	for range poolSize {
		free <- &query{vals: make([]float64, len(cfg.Metrics))}
	}
	jobs := make(chan *query, workers)
	var done chan *query
	if cfg.PerQuery != nil {
		done = make(chan *query, workers)
	}
	parts := make([]*aggregate.Set, workers)

	p := &producer{cfg: &cfg, free: free, jobs: jobs, needMax: metrics.NeedsMaxGrade(cfg.Metrics)}
	// progress outlives the group's context, which Wait cancels, so that
	// the final report is made
	stopProgress := p.startProgress(ctx)
	defer stopProgress()
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(workers + 2)
	g.Go(func() error {
		defer close(jobs)
		return p.run(ctx, inputs)
	})
	var live atomic.Int32
	live.Store(int32(workers))
	for w := range workers {
		parts[w] = aggregate.NewSet(len(cfg.Metrics))
		g.Go(func() error {
			defer func() {
				// the last worker out closes the writer's channel
				if live.Add(-1) == 0 && done != nil {
					close(done)
				}
			}()
			return work(ctx, &cfg, p, jobs, free, done, parts[w])
		})
	}
	if done != nil {
		g.Go(func() error { return writeOrdered(ctx, cfg.PerQuery, done, free, poolSize) })
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	stopProgress()
	total := aggregate.NewSet(len(cfg.Metrics))
	for _, s := range parts {
		total.Merge(s)
	}
	if cfg.Missing != nil {
		zeros := make([]float64, len(cfg.Metrics))
		for i, m := range cfg.Metrics {
			if isCorrelation(m) {
				zeros[i] = math.NaN()
			}
		}
		for range cfg.Missing() {
			total.AddQuery(0, zeros, false)
		}
	}
	return total, nil
}

func isCorrelation(m metrics.Metric) bool {
	return m.Kind == metrics.KindKendall || m.Kind == metrics.KindSpearman
}

// sendFree returns q to the free list; the list has room for every query.
func sendFree(free chan<- *query, q *query) { free <- q }

func work(ctx context.Context, cfg *Config, p *producer, jobs <-chan *query, free, done chan<- *query, agg *aggregate.Set) error {
	ev := metrics.NewEvaluator(cfg.Metrics, cfg.Options)
	dedup := newDocSet()
	var l metrics.List
	for q := range jobs {
		l = metrics.List{Label: q.label}
		if len(q.score) > 0 {
			l.Score = q.score
		}
		if len(q.rank) > 0 {
			l.Rank = q.rank
		}
		if len(q.doc.Off) > 1 {
			q.docs = q.docs[:0]
			for i := 0; i+1 < len(q.doc.Off); i++ {
				q.docs = append(q.docs, q.doc.At(i))
			}
			l.Doc = q.docs
			if dup, first := dedup.firstDuplicate(q.docs); dup >= 0 {
				err := fmt.Errorf("%s: document %q appears twice in query %q (first at %s): %w",
					p.wherePacked(q.where[dup]), q.docs[dup], q.id, p.wherePacked(q.where[first]), ErrDuplicateDoc)
				sendFree(free, q)
				return err
			}
		}
		if cfg.Judged != nil {
			l.Judged = cfg.Judged(q.id)
		}
		q.empty = ev.Eval(&l, q.vals)
		if q.empty && cfg.Options.Empty == metrics.EmptyError {
			err := fmt.Errorf("%s: query %q has no relevant row (--empty error): %w", p.where(q.src, q.pos), q.id, ErrEmptyQuery)
			sendFree(free, q)
			return err
		}
		agg.AddQuery(q.n(), q.vals, q.empty)
		if done == nil {
			sendFree(free, q)
			continue
		}
		if cfg.FormatQuery != nil {
			q.line = cfg.FormatQuery(q.line[:0], q.id, q.vals)
		} else {
			q.line = appendQueryLine(q.line[:0], q.id, cfg.Metrics, q.vals, q.empty)
		}
		select {
		case done <- q:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// writeOrdered writes per-query lines in input order. At most poolSize
// queries exist, so a ring of that size holds every one that arrives early.
func writeOrdered(ctx context.Context, w io.Writer, done <-chan *query, free chan<- *query, poolSize int) error {
	ring := make([]*query, poolSize)
	next := int64(0)
	var err error
	for q := range done {
		ring[q.seq%int64(poolSize)] = q
		for {
			slot := next % int64(poolSize)
			r := ring[slot]
			if r == nil || r.seq != next {
				break
			}
			if err == nil {
				if _, werr := w.Write(r.line); werr != nil {
					err = fmt.Errorf("writing per-query output: %w", werr)
				}
			}
			ring[slot] = nil
			sendFree(free, r)
			next++
		}
	}
	if err == nil {
		err = ctx.Err()
	}
	return err
}

// appendQueryLine writes a query's JSON record. An empty query's metrics
// are undefined for that query and written as null, whatever value the
// empty-query policy gives them in the means; Kendall and Spearman do not
// depend on relevance and are written as computed.
func appendQueryLine(b, id []byte, ms []metrics.Metric, vals []float64, empty bool) []byte {
	b = append(b, `{"query_id":`...)
	b = AppendJSONString(b, id)
	for i, m := range ms {
		b = append(b, ',')
		b = AppendJSONString(b, []byte(m.Name))
		b = append(b, ':')
		if empty && !isCorrelation(m) {
			b = append(b, "null"...)
		} else {
			b = AppendJSONFloat(b, vals[i])
		}
	}
	return append(b, '}', '\n')
}

// producer reads the inputs in order and groups rows into queries.
type producer struct {
	cfg     *Config
	free    <-chan *query
	jobs    chan<- *query
	needMax bool
	seen    seenSet
	srcs    []reader.Batch // Source and Locate of each input, for messages
	seq     int64

	rows, queries atomic.Int64 // for progress
}

// startProgress reports progress until the returned function is called,
// which reports once more, as done, and waits for the reporter to stop.
func (p *producer) startProgress(ctx context.Context) func() {
	cfg := p.cfg
	if cfg.Progress == nil {
		return func() {}
	}
	every := cfg.ProgressEvery
	if every <= 0 {
		every = time.Second
	}
	start := time.Now()
	snap := func(done bool) Progress {
		pr := Progress{Rows: p.rows.Load(), Queries: p.queries.Load(), TotalBytes: cfg.TotalBytes, Elapsed: time.Since(start), Done: done}
		if cfg.BytesRead != nil {
			pr.Bytes = cfg.BytesRead.Load()
		}
		return pr
	}
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				cfg.Progress(snap(false))
			case <-stop:
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(stop)
			<-stopped
			if ctx.Err() == nil {
				cfg.Progress(snap(true))
			}
		})
	}
}

func (p *producer) where(src int, pos int64) string { return p.srcs[src].WherePos(pos) }

// pack keeps a row's source and position in one word: 24 bits of source
// index, 40 of position (a trillion lines a file).
func pack(src int, pos int64) uint64 { return uint64(src)<<40 | uint64(pos) }

func (p *producer) wherePacked(v uint64) string { return p.where(int(v>>40), int64(v&(1<<40-1))) }

func (p *producer) take(ctx context.Context) (*query, error) {
	select {
	case q := <-p.free:
		q.reset()
		return q, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (p *producer) emit(ctx context.Context, q *query) error {
	q.seq = p.seq
	p.seq++
	p.rows.Add(int64(q.n()))
	p.queries.Add(1)
	if p.cfg.OnQuery != nil {
		p.cfg.OnQuery(q.n())
	}
	select {
	case p.jobs <- q:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *producer) run(ctx context.Context, inputs []Source) error {
	cur, err := p.take(ctx)
	if err != nil {
		return err
	}
	for si, in := range inputs {
		p.srcs = append(p.srcs, reader.Batch{Source: in.Name})
		r, err := in.Open()
		if err != nil {
			return err
		}
		cur, err = p.readAll(ctx, si, r, cur)
		cerr := r.Close()
		if err != nil {
			return err
		}
		if cerr != nil {
			return fmt.Errorf("%s: %w", in.Name, cerr)
		}
	}
	if cur.n() > 0 {
		return p.emit(ctx, cur)
	}
	return nil
}

func (p *producer) readAll(ctx context.Context, si int, r reader.Reader, cur *query) (*query, error) {
	first := true
	maxRows := p.cfg.maxGroupRows()
	for r.Next() {
		b := r.Batch()
		if first {
			p.srcs[si] = reader.Batch{Source: b.Source, Locate: b.Locate}
			first = false
		}
		for i := 0; i < b.N; {
			id := b.Query.At(i)
			// the run of rows of this batch that belong to one query
			j := i + 1
			for j < b.N && bytes.Equal(b.Query.At(j), id) {
				j++
			}
			if cur.n() > 0 && !bytes.Equal(id, cur.id) {
				if err := p.emit(ctx, cur); err != nil {
					return cur, err
				}
				var err error
				if cur, err = p.take(ctx); err != nil {
					return cur, err
				}
			}
			if cur.n() == 0 {
				cur.id = append(cur.id[:0], id...)
				cur.src, cur.pos = si, b.Pos[i]
				if prev, ok := p.seen.insert(id, pack(si, b.Pos[i])); !ok {
					return cur, fmt.Errorf("%s: query id %q reappears; its rows began at %s and another query's rows came between (sort the input by query id): %w",
						b.Where(i), id, p.wherePacked(prev), ErrReappear)
				}
			}
			if err := p.validate(b, i, j); err != nil {
				return cur, err
			}
			if cur.n()+(j-i) > maxRows {
				return cur, fmt.Errorf("%s: query %q has more than %d rows (--max-group-rows): %w", p.where(cur.src, cur.pos), id, maxRows, ErrGroupTooLarge)
			}
			p.appendRows(cur, si, b, i, j)
			i = j
		}
	}
	return cur, r.Err()
}

func (p *producer) appendRows(q *query, si int, b *reader.Batch, i, j int) {
	q.label = append(q.label, b.Label[i:j]...)
	for _, pos := range b.Pos[i:j] {
		q.where = append(q.where, pack(si, pos))
	}
	if len(b.Score) > 0 {
		if p.cfg.ScoreFloat32 {
			for _, s := range b.Score[i:j] {
				q.score = append(q.score, float64(float32(s)))
			}
		} else {
			q.score = append(q.score, b.Score[i:j]...)
		}
	}
	if b.Rank != nil {
		q.rank = append(q.rank, b.Rank[i:j]...)
	}
	if len(b.Doc.Off) > 1 {
		q.doc.Buf = append(q.doc.Buf, b.Doc.Buf[b.Doc.Off[i]:b.Doc.Off[j]]...)
		base := int32(len(q.doc.Buf)) - b.Doc.Off[j]
		for k := i + 1; k <= j; k++ {
			q.doc.Off = append(q.doc.Off, b.Doc.Off[k]+base)
		}
	}
}

// validate checks rows [i, j) of b against SPEC §1: finite scores,
// non-negative labels, labels within the maximum grade when ERR needs it,
// ranks from 1.
func (p *producer) validate(b *reader.Batch, i, j int) error {
	o := &p.cfg.Options
	for k := i; k < j; k++ {
		if len(b.Score) > 0 {
			if s := b.Score[k]; math.IsNaN(s) || math.IsInf(s, 0) {
				return fmt.Errorf("%s: score is %v; scores must be finite numbers: %w", b.Where(k), s, reader.ErrValue)
			}
		}
		l := b.Label[k]
		if math.IsNaN(l) || l < 0 || math.IsInf(l, 0) {
			return fmt.Errorf("%s: label is %v; labels must be finite numbers >= 0: %w", b.Where(k), l, reader.ErrValue)
		}
		if p.needMax && l > o.MaxGrade {
			return fmt.Errorf("%s: label %v is above the maximum grade %v that ERR uses (set --max-grade): %w", b.Where(k), l, o.MaxGrade, reader.ErrValue)
		}
		if b.Rank != nil && b.Rank[k] < 1 {
			return fmt.Errorf("%s: rank is %d; ranks start at 1: %w", b.Where(k), b.Rank[k], reader.ErrValue)
		}
	}
	return nil
}
