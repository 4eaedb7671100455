package pipeline

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rankeval/rankeval/reader"
)

// sourceTable names every input of a run for messages: the reader's name and
// Locate of each. Every input has its entry from the start, so the table
// never grows while workers read it; the producer fills an entry in when
// its input opens, before any query of that input is sent.
type sourceTable []reader.Batch

func (s sourceTable) where(v uint64) string {
	in, pos := Unpack(v)
	if in >= len(s) {
		return fmt.Sprintf("input #%d:%d", in, pos) // damaged data, named all the same
	}
	return s[in].WherePos(pos)
}

// name records the name and Locate of input si once its reader has a
// batch.
func (s sourceTable) name(si int, b *reader.Batch) {
	s[si] = reader.Batch{Source: b.Source, Locate: b.Locate}
}

// producer reads the inputs in order and groups rows into queries: from
// one log, or from several logs in lockstep, one grouper each.
type producer struct {
	cfg  *Config
	pool *queryPool // the producer takes from it, and returns a query it does not send
	jobs chan<- *query
	logs []*grouper
	srcs sourceTable
	// where is srcs.where, made once: a method value passed per query
	// would be allocated per query
	where Where
	taker *Taker
	seq   int64

	slices sliceIndex

	rows, queries atomic.Int64 // for progress
	note          atomic.Pointer[progressNote]
}

// progressNote is Progress.Note with the bytes read when it was set.
type progressNote struct {
	text  string
	bytes int64
}

func newProducer(cfg *Config, logs [][]Source, pool *queryPool, jobs chan<- *query) *producer {
	p := &producer{cfg: cfg, pool: pool, jobs: jobs}
	// Every input has its entry before any grouper starts, so the table
	// never grows while workers read it.
	for _, in := range logs {
		for _, src := range in {
			p.srcs = append(p.srcs, reader.Batch{Source: src.Name})
		}
	}
	p.where = p.srcs.where
	p.taker = cfg.Rules.NewTaker(p.where)
	base := 0
	for _, in := range logs {
		gr := &grouper{take: p.taker, srcs: p.srcs, note: p.setNote, inputs: in, base: base,
			sorted: cfg.Analysis.MissingZero && len(logs) > 1, hint: len(logs) == 1}
		gr.asc.on = true
		for _, src := range in {
			gr.asc.on = gr.asc.on && src.Reread
		}
		base += len(in)
		p.logs = append(p.logs, gr)
	}
	p.slices = newSliceIndex(cfg, p.where)
	return p
}

func (p *producer) close() {
	for _, gr := range p.logs {
		gr.close()
		gr.seen.release()
	}
}

// startProgress reports progress until the returned function is called,
// which waits for the reporter to stop and, for a run that succeeded,
// reports once more, as done.
func (p *producer) startProgress(ctx context.Context) func(ok bool) {
	pc := &p.cfg.Progress
	if pc.Report == nil {
		return func(bool) {}
	}
	every := pc.Every
	if every <= 0 {
		every = time.Second
	}
	start := time.Now()
	snap := func(done bool) Progress {
		pr := Progress{Rows: p.rows.Load(), Queries: p.queries.Load(), TotalBytes: pc.TotalBytes, Elapsed: time.Since(start), Done: done}
		if pc.BytesRead != nil {
			pr.Bytes = pc.BytesRead.Load()
		}
		if n := p.note.Load(); n != nil {
			pr.Note, pr.Bytes = n.text, n.bytes
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
				pc.Report(snap(false))
			case <-stop:
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	var once sync.Once
	return func(ok bool) {
		once.Do(func() {
			close(stop)
			<-stopped
			if ok {
				pc.Report(snap(true))
			}
		})
	}
}

// setNote says what a stalled-looking run is doing (nil: nothing).
func (p *producer) setNote(text string) {
	if text == "" {
		p.note.Store(nil)
		return
	}
	n := &progressNote{text: text}
	if br := p.cfg.Progress.BytesRead; br != nil {
		n.bytes = br.Load()
	}
	p.note.Store(n)
}

func (p *producer) take(ctx context.Context) (*query, error) {
	select {
	case q := <-p.pool.free:
		q.reset()
		return q, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (p *producer) emit(ctx context.Context, q *query) error {
	q.seq = p.seq
	p.seq++
	p.rows.Add(int64(q.N()))
	p.queries.Add(1)
	if err := p.pool.acquire(ctx, q); err != nil {
		return err
	}
	select {
	case p.jobs <- q:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// run groups the queries of one log, or of several in lockstep.
func (p *producer) run(ctx context.Context) error {
	if len(p.logs) > 1 {
		return p.lockstep(ctx)
	}
	gr := p.logs[0]
	for {
		q, err := p.take(ctx)
		if err != nil {
			return err
		}
		ok, err := gr.fill(&q.Group)
		if err != nil || !ok {
			p.pool.put(q)
			return err
		}
		if err := p.send(ctx, q); err != nil {
			return err
		}
	}
}

// send hands on a query of one log: its slice, then the workers. A query
// it cannot send goes back to the pool.
func (p *producer) send(ctx context.Context, q *query) error {
	q.present[0] = true
	if err := p.slices.assign(q); err != nil {
		p.pool.put(q)
		return err
	}
	return p.emit(ctx, q)
}
