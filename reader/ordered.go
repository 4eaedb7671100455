package reader

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
// reported. Each decoder owns batchesPerDecoder batches and holds at most
// two units not yet decoded (one waiting, one being decoded), which bounds
// memory whatever the input's size.
//
// Ownership: a batch returned by Batch belongs to its decoder again at the
// next call to Next. (It is not a Filler: handing the caller the decoder's
// buffers in exchange for its own measured no faster than the pipeline's
// copy, and took 10 MB more, the buffers of both sides growing.) The
// goroutines stop once Next has returned false, or at Close, which waits
// for them (but see orderedConfig.detach).

// batchesPerDecoder bounds memory: a decoder goroutine owns this many
// batches, one of which the consumer may hold, so it runs at most two
// batches ahead of the consumer.
const batchesPerDecoder = 3

// unitDecoder decodes units for one goroutine of an ordered decoder. Each
// goroutine has its own, so it may keep state from unit to unit.
type unitDecoder[U, E any] interface {
	// decode decodes unit u into batches taken from out and handed back to
	// it, and returns what the consumer learns once it has taken the unit's
	// last batch. It returns errNoUnit when there is no unit u (the end of
	// a stream), errStopped when out says the reader was closed.
	decode(u U, out *batchOut[E]) (E, error)
	// close releases what the decoder holds, when its goroutine ends.
	close()
}

// orderedConfig is what a reader gives startOrdered besides its decoders.
type orderedConfig[U, E any] struct {
	// produce hands out the units in input order through emit, which
	// returns false once the reader is closed; produce then returns at once.
	// Its error (a read error after the last whole unit) is reported after
	// every unit emitted before it.
	produce func(emit func(U) bool) error
	// shape gives every batch its columns, source and locator.
	shape *Batch
	// Hooks run by Next on the consumer's goroutine, in input order:
	// begin before the first batch of the seq-th unit, batch on each batch
	// before it is handed on, end after the unit's last batch. Any may be
	// nil.
	begin func(seq int)
	batch func(b *Batch)
	end   func(seq int, e E)
	// after runs in Close once every goroutine has stopped (closing what
	// the decoders shared).
	after func() error
	// detach lets Close return without waiting for the producer, which
	// ends at its next emit: a read from a pipe or a terminal cannot be
	// interrupted and may never return.
	detach bool
}

// errNoUnit is a decoder's answer for a unit past the end of a stream.
var errNoUnit = errors.New("no such unit")

var errStopped = errors.New("reader closed")

// liveDecoders counts the goroutines of ordered decoders that have not
// finished their work, for the tests that Close waits for them (a goroutine
// can still exist for a moment after its last deferred call, so counting
// goroutines cannot tell). A detached producer is not counted.
var liveDecoders atomic.Int32

type ordered[U, E any] struct {
	cfg    orderedConfig[U, E]
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
	out batchOut[E]
	dec unitDecoder[U, E]
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

// batchOut is a decoder's side of the batches it hands on.
type batchOut[E any] struct {
	out   chan orderedItem[E]
	free  chan *Batch
	stop  <-chan struct{}
	shape *Batch
}

// get returns an empty batch of the decoder's, waiting for the consumer to
// give one back; nil once the reader is closed.
func (o *batchOut[E]) get() *Batch {
	select {
	case b := <-o.free:
		b.ResetLike(o.shape)
		return b
	case <-o.stop:
		return nil
	}
}

// put hands b on; false once the reader is closed.
func (o *batchOut[E]) put(b *Batch) bool { return o.send(orderedItem[E]{b: b}) }

// drop gives back a batch get returned that is not handed on.
func (o *batchOut[E]) drop(b *Batch) { o.free <- b } // never blocks: it came from there

func (o *batchOut[E]) send(it orderedItem[E]) bool {
	select {
	case o.out <- it:
		return true
	case <-o.stop:
		return false
	}
}

// startOrdered starts the producer and one goroutine a decoder.
func startOrdered[U, E any](cfg orderedConfig[U, E], decs []unitDecoder[U, E]) *ordered[U, E] {
	o := &ordered[U, E]{cfg: cfg, stop: make(chan struct{})}
	for _, d := range decs {
		w := &orderedWorker[U, E]{in: make(chan unitMsg[U], 1), dec: d, out: batchOut[E]{
			out: make(chan orderedItem[E], batchesPerDecoder), free: make(chan *Batch, batchesPerDecoder),
			stop: o.stop, shape: cfg.shape}}
		for range batchesPerDecoder {
			w.out.free <- new(Batch)
		}
		o.ws = append(o.ws, w)
	}
	if !cfg.detach {
		o.wg.Add(1)
		liveDecoders.Add(1)
	}
	go o.produce()
	for _, w := range o.ws {
		o.wg.Add(1)
		liveDecoders.Add(1)
		go o.work(w)
	}
	return o
}

func (o *ordered[U, E]) produce() {
	if !o.cfg.detach {
		defer o.wg.Done()
		defer liveDecoders.Add(-1) // before Done: once Close returns it is 0
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
	err := o.cfg.produce(func(u U) bool { return send(unitMsg[U]{u: u}) })
	send(unitMsg[U]{last: true, err: err})
}

func (o *ordered[U, E]) work(w *orderedWorker[U, E]) {
	defer o.wg.Done()
	defer liveDecoders.Add(-1)
	defer w.dec.close()
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
		e, err := w.dec.decode(m.u, &w.out)
		switch {
		case errors.Is(err, errStopped):
			return
		case errors.Is(err, errNoUnit):
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

func (o *ordered[U, E]) decodesAhead() {}

func (o *ordered[U, E]) Batch() *Batch { return o.cur }
func (o *ordered[U, E]) Err() error    { return o.err }

func (o *ordered[U, E]) Next() bool {
	if o.halted {
		return false // the decoders are gone: nothing may wait on them
	}
	if o.cur != nil {
		o.curW.out.drop(o.cur)
		o.cur, o.curW = nil, nil
	}
	for o.err == nil && !o.done {
		if !o.begun && o.cfg.begin != nil {
			o.cfg.begin(o.seq)
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
			if o.cfg.end != nil {
				o.cfg.end(o.seq, it.e)
			}
			o.seq++
			o.begun = false
		default:
			if o.cfg.batch != nil {
				o.cfg.batch(it.b)
			}
			o.cur, o.curW = it.b, w
			return true
		}
	}
	o.halt() // at the end or the first error, whether or not Close follows
	return false
}

// halt stops the goroutines and waits for them.
func (o *ordered[U, E]) halt() {
	if !o.halted {
		o.halted = true
		close(o.stop)
		o.wg.Wait()
	}
}

// Close stops the goroutines and waits for them, so none outlives the
// reader and everything they hold is released when it returns.
func (o *ordered[U, E]) Close() error {
	if o.closed {
		return nil
	}
	o.closed = true
	o.halt()
	o.cur, o.curW = nil, nil
	if o.cfg.after != nil {
		return o.cfg.after()
	}
	return nil
}
