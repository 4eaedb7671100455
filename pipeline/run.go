package pipeline

import (
	"context"
	"fmt"
	"io"
	"math"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/stats"
)

// Run evaluates the inputs and returns the merged aggregate. The result is
// bit-identical for any worker count and any reader batch size.
func Run(ctx context.Context, cfg Config, inputs []Source) (*aggregate.Set, error) {
	res, err := Analyze(ctx, cfg, [][]Source{inputs})
	if err != nil {
		return nil, err
	}
	return res.Sys[0], nil
}

// RangeOf says where a metric's values lie.
func RangeOf(m metrics.Metric) aggregate.Range {
	switch m.Range() {
	case metrics.RangeSigned:
		return aggregate.RangeSigned
	case metrics.RangeOpen:
		return aggregate.RangeOpen
	}
	return aggregate.RangeUnit
}

// Analyze evaluates one log, or several logs of the same queries read in
// lockstep (one per system of cfg.Rules.Systems), with slices,
// comparisons, bootstrap and histograms as cfg asks. Every figure is
// bit-identical for any worker count and any reader batch size.
func Analyze(ctx context.Context, cfg Config, logs [][]Source) (*Result, error) {
	if len(logs) > 1 && len(logs) != cfg.systems() {
		return nil, fmt.Errorf("%d logs for %d systems", len(logs), cfg.systems())
	}
	if cfg.PerQuery.W != nil && cfg.PerQuery.Format == nil {
		return nil, fmt.Errorf("per-query output without a format")
	}
	if cfg.Unsorted.On {
		cfg.Unsorted.limitQuery(&cfg.Rules)
	}
	layout := cfg.Layout()
	workers := cfg.workers()
	pool := newQueryPool(&cfg, len(logs), workers)
	jobs := make(chan *query, max(workers, smallPool/2))
	var done chan *query
	if cfg.PerQuery.W != nil {
		done = make(chan *query, workers)
	}
	parts := make([]*aggregate.Analysis, workers)
	digests := make([]*aggregate.InputDigests, workers)
	units := make([]*Unit, workers)

	p := newProducer(&cfg, logs, pool, jobs)
	// progress outlives the group's context, which Wait cancels, so that
	// the final report is made
	stopProgress := p.startProgress(ctx)
	defer stopProgress(false)
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(workers + 2)
	// A query's error stops the producer but not the group: the workers
	// still evaluate the queries sent before it, one of which may fail
	// too and is then the error reported (first), and the producer's own
	// error comes after every query it sent. It is kept apart rather
	// than returned so that it does not cancel them either.
	pctx, stopProducer := context.WithCancel(ctx)
	defer stopProducer()
	first := &firstError{seq: math.MaxInt64, stop: stopProducer}
	var prodErr error
	g.Go(func() error {
		defer close(jobs)
		defer p.close()
		if cfg.Unsorted.On {
			prodErr = p.runUnsorted(pctx, logs)
		} else {
			prodErr = p.run(pctx)
		}
		return nil
	})
	var live atomic.Int32
	live.Store(int32(workers))
	for w := range workers {
		parts[w] = aggregate.NewAnalysis(layout)
		units[w] = cfg.Rules.NewUnit(p.where)
		wk := &worker{cfg: &cfg, unit: units[w], agg: parts[w], dropped: make([]int64, cfg.systems()),
			noScore: make([]int64, cfg.systems()), noLabel: make([]int64, cfg.systems())}
		if cfg.Analysis.Digests {
			digests[w] = aggregate.NewInputDigests(layout)
			wk.digests = digests[w]
		}
		g.Go(func() error {
			defer func() {
				// the last worker out closes the writer's channel
				if live.Add(-1) == 0 && done != nil {
					close(done)
				}
			}()
			return wk.run(ctx, jobs, pool, done, first)
		})
	}
	if done != nil {
		g.Go(func() error { return writeOrdered(ctx, cfg.PerQuery.W, done, pool) })
	}
	err := g.Wait()
	switch {
	case first.err != nil:
		return nil, first.err
	case prodErr != nil:
		return nil, prodErr
	case err != nil:
		return nil, err
	}
	stopProgress(true)
	total := aggregate.NewAnalysis(layout)
	for _, a := range parts {
		total.Merge(a)
	}
	// The judged queries absent from a TREC run (--complete) are in no
	// input's digest: a state, the digests' reader, refuses --complete.
	if cfg.Unseen != nil {
		q := newQuery(&cfg, len(logs))
		u := cfg.Rules.NewUnit(nil)
		for _, id := range cfg.Unseen() {
			u.Absent([]byte(id), &q.res)
			q.res.Hash = stats.QueryHash([]byte(id))
			if err := total.Add(&q.res); err != nil {
				return nil, fmt.Errorf("query %q: %w", id, err)
			}
		}
	}
	res := &Result{Analysis: total, SliceKeys: p.slices.keys}
	if cfg.Analysis.Digests {
		res.Digests = aggregate.NewInputDigests(layout)
		for _, d := range digests {
			res.Digests.Merge(d)
		}
	}
	if cfg.Rules.NoteBinaryLabels {
		seen, nonBinary := false, false
		for _, u := range units {
			s, nb := u.Labels()
			seen, nonBinary = seen || s, nonBinary || nb
		}
		res.BinaryLabels, res.GradedLabels = LabelVerdict(seen, nonBinary)
	}
	return res, nil
}

// worker evaluates queries into its own partial aggregate.
type worker struct {
	cfg     *Config
	unit    *Unit
	agg     *aggregate.Analysis
	dropped []int64 // per system, EvalSystems's
	// per system, the rows without a score or label (Unit.TakeMissing)
	noScore, noLabel []int64
	digests          *aggregate.InputDigests // nil unless Analysis.Digests
}

func (w *worker) run(ctx context.Context, jobs <-chan *query, pool *queryPool, done chan<- *query, first *firstError) error {
	for q := range jobs {
		if first.after(q.seq) {
			pool.put(q) // sent after a query that failed: the run fails anyway
			continue
		}
		if err := w.eval(q); err != nil {
			first.add(q.seq, err)
			pool.put(q)
			continue
		}
		if done == nil {
			pool.put(q)
			continue
		}
		q.line = w.cfg.PerQuery.Format(q.line[:0], q.ID, q.sliceKey, &q.res)
		select {
		case done <- q:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// firstError keeps the error of the first query, in the order the
// producer sent them, whose evaluation failed: which one fails first in
// time depends on the workers (a long query and a short one after it).
type firstError struct {
	mu   sync.Mutex
	seq  int64 // the failed query's; math.MaxInt64 while none has
	err  error
	stop context.CancelFunc // stops the producer
}

// add records the error err of query seq, and stops the producer.
func (f *firstError) add(seq int64, err error) {
	f.mu.Lock()
	if seq < f.seq {
		f.seq, f.err = seq, err
	}
	f.mu.Unlock()
	f.stop()
}

// after reports whether a query before seq has failed.
func (f *firstError) after(seq int64) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return seq > f.seq
}

// eval evaluates every system of q and adds it to the worker's aggregate.
func (w *worker) eval(q *query) error {
	res := &q.res
	res.Slice = q.slice
	if w.agg.L.NeedsHash() {
		res.Hash = stats.QueryHash(q.ID)
	}
	if err := w.unit.EvalSystems(q.groups(), res, w.dropped); err != nil {
		return err
	}
	for s, n := range w.dropped {
		w.agg.Sys[s].Dropped += n
		w.dropped[s] = 0
	}
	w.unit.TakeMissing(w.noScore, w.noLabel)
	for s := range w.noScore {
		w.agg.Sys[s].NoScore += w.noScore[s]
		w.agg.Sys[s].NoLabel += w.noLabel[s]
		w.noScore[s], w.noLabel[s] = 0, 0
	}
	if w.cfg.PerQuery.Only {
		return nil
	}
	if err := w.agg.Add(res); err != nil {
		return fmt.Errorf("%s: query %q: %w", w.unit.where(q.First), q.ID, err)
	}
	if w.digests != nil {
		in, _ := Unpack(q.First)
		w.digests.Add(in, q.ID, res)
	}
	return nil
}

// writeOrdered writes per-query lines in input order. At most poolSize
// queries exist, so a ring of that size holds every one that arrives early.
func writeOrdered(ctx context.Context, w io.Writer, done <-chan *query, pool *queryPool) error {
	poolSize := pool.size()
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
			pool.put(r)
			next++
		}
	}
	if err == nil {
		err = ctx.Err()
	}
	return err
}
