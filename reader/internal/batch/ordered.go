package batch

import (
	"errors"
	"sync"
	"sync/atomic"
)

// This file holds the ordered parallel decoder every reader that decodes on
// several goroutines is built on (Parquet and Arrow IPC units, blocks of
// lines of JSONL and TREC runs). A producer hands units out in turn, unit i
// to decoder i mod k; Next takes the decoders' batches back in the same
// turn, so they come in input order and results do not depend on the
// number of decoders, and the first error in input order is the one
// reported. Each decoder owns BatchesPerDecoder batches and holds at most
// two units not yet decoded (one waiting, one being decoded), which bounds
// memory whatever the input's size.
//
// Ownership: a batch returned by Batch belongs to its decoder again at the
// next call to Next. (It is not a Filler: handing the caller the decoder's
// buffers in exchange for its own measured no faster than the pipeline's
// copy, and took 10 MB more, the buffers of both sides growing.) The
// goroutines stop once Next has returned false, or at Close, which waits
// for them (but see OrderedConfig.detach).

// BatchesPerDecoder bounds memory: a decoder goroutine owns this many
// batches, one of which the consumer may hold, so it runs at most two
// batches ahead of the consumer.
const BatchesPerDecoder = 3

// UnitDecoder decodes units for one goroutine of an ordered decoder. Each
// goroutine has its own, so it may keep state from unit to unit.
type UnitDecoder[U, E any] interface {
	// Decode decodes unit u into batches taken from out and handed back to
	// it, and returns what the consumer learns once it has taken the unit's
	// last batch. It returns ErrNoUnit when there is no unit u (the end of
	// a stream), ErrStopped when out says the reader was closed.
	Decode(u U, out *BatchOut[E]) (E, error)
	// Close releases what the decoder holds, when its goroutine ends.
	Close()
}

// OrderedConfig is what a reader gives StartOrdered besides its decoders.
type OrderedConfig[U, E any] struct {
	// Produce hands out the units in input order through emit, which
	// returns false once the reader is closed; produce then returns at once.
	// Its error (a read error after the last whole unit) is reported after
	// every unit emitted before it.
	Produce func(emit func(U) bool) error
	// Shape gives every batch its columns, source and locator.
	Shape *Batch
	// Hooks run by Next on the consumer's goroutine, in input order:
	// begin before the first batch of the seq-th unit, batch on each batch
	// before it is handed on, end after the unit's last batch. Any may be
	// nil.
	Begin func(seq int)
	Batch func(b *Batch)
	End   func(seq int, e E)
	// After runs in Close once every goroutine has stopped (closing what
	// the decoders shared).
	After func() error
	// Detach lets Close return without waiting for the producer, which
	// ends at its next emit: a read from a pipe or a terminal cannot be
	// interrupted and may never return.
	Detach bool
}

// ErrNoUnit is a decoder's answer for a unit past the end of a stream.
var ErrNoUnit = errors.New("no such unit")

var ErrStopped = errors.New("reader closed")

// LiveDecoders counts the goroutines of ordered decoders that have not
// finished their work, for the tests that Close waits for them (a goroutine
// can still exist for a moment after its last deferred call, so counting
// goroutines cannot tell). A detached producer is not counted.
var LiveDecoders atomic.Int32

type Ordered[U, E any] struct {
	cfg    OrderedConfig[U, E]
	ws     []*orderedWorker[U, E]
	stop   chan struct{}
	wg     sync.WaitGroup
	halted bool // stop is closed and the goroutines have ended
	closed bool

	cur   *Batch
	curW  *orderedWorker[U, E]
	seq   int  // unit being consumed
	begun bool // begin has run for unit seq
	err   error
	done  bool
}

type orderedWorker[U, E any] struct {
	in  chan unitMsg[U]
	out BatchOut[E]
	dec UnitDecoder[U, E]
}

// unitMsg is a unit, or the end of the units (last), with the error that
// ended them.
type unitMsg[U any] struct {
	u    U
	last bool
	err  error
}

// orderedItem is a batch, the end of a unit (end, with what the decoder
// returned for it), the end of the input (eof) or an error.
type orderedItem[E any] struct {
	b   *Batch
	end bool
	e   E
	err error
	eof bool
}

// BatchOut is a decoder's side of the batches it hands on.
type BatchOut[E any] struct {
	out   chan orderedItem[E]
	free  chan *Batch
	stop  <-chan struct{}
	shape *Batch
}

// Get returns an empty batch of the decoder's, waiting for the consumer to
// give one back; nil once the reader is closed.
func (o *BatchOut[E]) Get() *Batch {
	select {
	case b := <-o.free:
		b.ResetLike(o.shape)
		return b
	case <-o.stop:
		return nil
	}
}

// Put hands b on; false once the reader is closed.
func (o *BatchOut[E]) Put(b *Batch) bool { return o.send(orderedItem[E]{b: b}) }

// Drop gives back a batch get returned that is not handed on.
func (o *BatchOut[E]) Drop(b *Batch) { o.free <- b }

func (o *BatchOut[E]) send(it orderedItem[E]) bool {
	select {
	case o.out <- it:
		return true
	case <-o.stop:
		return false
	}
}

// StartOrdered starts the producer and one goroutine a decoder.
func StartOrdered[U, E any](cfg OrderedConfig[U, E], decs []UnitDecoder[U, E]) *Ordered[U, E] {
	o := &Ordered[U, E]{cfg: cfg, stop: make(chan struct{})}
	for _, d := range decs {
		w := &orderedWorker[U, E]{in: make(chan unitMsg[U], 1), dec: d, out: BatchOut[E]{
			out: make(chan orderedItem[E], BatchesPerDecoder), free: make(chan *Batch, BatchesPerDecoder),
			stop: o.stop, shape: cfg.Shape}}
		for range BatchesPerDecoder {
			w.out.free <- new(Batch)
		}
		o.ws = append(o.ws, w)
	}
	if !cfg.Detach {
		o.wg.Add(1)
		LiveDecoders.Add(1)
	}
	go o.Produce()
	for _, w := range o.ws {
		o.wg.Add(1)
		LiveDecoders.Add(1)
		go o.work(w)
	}
	return o
}

func (o *Ordered[U, E]) Produce() {
	if !o.cfg.Detach {
		defer o.wg.Done()
		defer LiveDecoders.Add(-1) // before Done: once Close returns it is 0
	}
	i := 0
	send := func(m unitMsg[U]) bool {
		select {
		case o.ws[i%len(o.ws)].in <- m:
			i++
			return true
		case <-o.stop:
			return false
		}
	}
	err := o.cfg.Produce(func(u U) bool { return send(unitMsg[U]{u: u}) })
	send(unitMsg[U]{last: true, err: err})
}

func (o *Ordered[U, E]) work(w *orderedWorker[U, E]) {
	defer o.wg.Done()
	defer LiveDecoders.Add(-1)
	defer w.dec.Close()
	for {
		var m unitMsg[U]
		select {
		case m = <-w.in:
		case <-o.stop:
			return
		}
		if m.last {
			w.out.send(orderedItem[E]{eof: true, err: m.err})
			return
		}
		e, err := w.dec.Decode(m.u, &w.out)
		switch {
		case errors.Is(err, ErrStopped):
			return
		case errors.Is(err, ErrNoUnit):
			w.out.send(orderedItem[E]{eof: true})
			return
		case err != nil:
			w.out.send(orderedItem[E]{err: err})
			return
		}
		if !w.out.send(orderedItem[E]{end: true, e: e}) {
			return
		}
	}
}

func (o *Ordered[U, E]) decodesAhead() {}

func (o *Ordered[U, E]) Batch() *Batch { return o.cur }

func (o *Ordered[U, E]) Err() error { return o.err }

func (o *Ordered[U, E]) Next() bool {
	if o.halted {
		return false // the decoders are gone: nothing may wait on them
	}
	if o.cur != nil {
		o.curW.out.Drop(o.cur)
		o.cur, o.curW = nil, nil
	}
	for o.err == nil && !o.done {
		if !o.begun && o.cfg.Begin != nil {
			o.cfg.Begin(o.seq)
		}
		o.begun = true
		w := o.ws[o.seq%len(o.ws)]
		it := <-w.out.out
		switch {
		case it.err != nil:
			o.err = it.err
		case it.eof:
			o.done = true
		case it.end:
			if o.cfg.End != nil {
				o.cfg.End(o.seq, it.e)
			}
			o.seq++
			o.begun = false
		default:
			if o.cfg.Batch != nil {
				o.cfg.Batch(it.b)
			}
			o.cur, o.curW = it.b, w
			return true
		}
	}
	o.halt() // at the end or the first error, whether or not Close follows
	return false
}

// halt stops the goroutines and waits for them.
func (o *Ordered[U, E]) halt() {
	if !o.halted {
		o.halted = true
		close(o.stop)
		o.wg.Wait()
	}
}

// Close stops the goroutines and waits for them, so none outlives the
// reader and everything they hold is released when it returns.
func (o *Ordered[U, E]) Close() error {
	if o.closed {
		return nil
	}
	o.closed = true
	o.halt()
	o.cur, o.curW = nil, nil
	if o.cfg.After != nil {
		return o.cfg.After()
	}
	return nil
}
