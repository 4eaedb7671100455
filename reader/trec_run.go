package reader

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"sync"
)

// RunOptions tune a TREC run reader.
type RunOptions struct {
	Options
	// SkipUnjudged drops the rows of queries the qrels do not judge
	// (trec_eval and gdeval ignore them); they are counted in Skipped.
	SkipUnjudged bool
	// Skipped, when set, receives the number of queries and rows dropped.
	// It is complete once the reader has returned its last batch.
	Skipped *SkipCount
	// DeferJoin leaves every label 0 for the caller to join later with
	// Qrels.Join (the pipeline does so in its workers, where the run's
	// doc ids are hashed anyway).
	DeferJoin bool
}

// SkipCount counts what SkipUnjudged dropped.
type SkipCount struct{ Queries, Rows int64 }

// OpenRun opens a TREC run (`qid Q0 docno rank score runid`, plain, gzip or
// zstd) and joins each row's label from the qrels: an unjudged document has
// label 0. The rank column is ignored, as trec_eval ignores it.
//
// A regular file is parsed by Options.Decoders goroutines (default
// GOMAXPROCS, at most maxRunDecoders), one block of lines each in turn, and
// its batches are returned in file order; with one decoder, or from
// standard input or a pipe, lines are parsed as they are read.
func OpenRun(name string, qrels *Qrels, opt RunOptions) (Reader, error) {
	f, display, err := openLocal(name)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(opt.source(f), 1<<16)
	// An empty run (0 bytes, or a compressed stream of nothing) has no
	// rows, which is not an error (SPEC §8).
	head, _ := br.Peek(4)
	src, closeDec, err := decompress(display, br, head)
	if err != nil {
		f.Close()
		return nil, err
	}
	closeAll := func() error {
		closeDec()
		if f == os.Stdin {
			return nil
		}
		return f.Close()
	}
	if k := min(decoders(opt.Options), maxRunDecoders); k > 1 && isRegular(f) {
		return startRunBlocks(display, src, closeAll, qrels, opt, k), nil
	}
	r := &trecRun{sc: newFieldScanner(display, src), bs: opt.batchSize(), close: closeAll}
	r.st.qrels, r.st.opt = qrels, opt
	r.own.Source = display
	r.own.Query.Reset()
	r.own.Doc.Reset()
	r.b = &r.own
	return r, nil
}

// isRegular reports whether f is a regular file. Close waits for the
// splitter's read to return, which a pipe or a terminal may hold up
// indefinitely, so those are parsed as they are read.
func isRegular(f *os.File) bool {
	st, err := f.Stat()
	return f != os.Stdin && err == nil && st.Mode().IsRegular()
}

// trecRun parses a run as it reads it, on the caller's goroutine.
type trecRun struct {
	sc *fieldScanner
	st runState
	bs int
	target
	err   error
	close func() error
}

func (r *trecRun) Err() error { return r.err }

func (r *trecRun) Close() error {
	if r.close == nil {
		return nil
	}
	c := r.close
	r.close = nil
	return c()
}

func (r *trecRun) Next() bool { r.fillOwn(); return r.rows() }

func (r *trecRun) NextInto(b *Batch) bool { r.fillInto(b); return r.rows() }

func (r *trecRun) rows() bool {
	if r.err != nil {
		return false
	}
	r.err = r.st.parse(r.sc, r.b, r.bs)
	if s := r.st.opt.Skipped; s != nil {
		s.Queries += r.st.skipQ
		s.Rows += r.st.skipRows
		r.st.skipQ, r.st.skipRows = 0, 0
	}
	if r.err == nil {
		r.err = r.sc.err
	}
	return r.err == nil && r.b.N > 0
}

// runState is what parsing carries from one run line to the next: the
// query of the previous line, so that the qrels map is consulted and the
// join table built once per query, not per line, and what SkipUnjudged
// dropped.
type runState struct {
	qrels   *Qrels
	opt     RunOptions
	lastQ   []byte
	lastQn  int // query number in the qrels, -1 when not judged
	lastHas bool
	table   docTable
	// queries and rows dropped; firstQ is the first query since forget
	// and skipFirst whether it was dropped (the parallel reader needs
	// them to count once a dropped query that spans two blocks)
	skipQ, skipRows int64
	firstQ          []byte
	skipFirst       bool
	rows            bool // a line was parsed since forget
}

// forget makes the next line start a new query, as at a block's start.
func (st *runState) forget() {
	st.lastHas, st.rows, st.skipFirst = false, false, false
	st.skipQ, st.skipRows = 0, 0
}

// dropped reports whether SkipUnjudged drops the current query.
func (st *runState) dropped() bool { return st.opt.SkipUnjudged && st.lastQn < 0 }

// parse appends rows to b from sc's lines until b holds bs rows or the
// lines run out; sc.err then tells whether reading failed.
func (st *runState) parse(sc *fieldScanner, b *Batch, bs int) error {
	name := b.Source
	q := st.qrels
	for b.N < bs && sc.next() {
		if sc.k != 6 {
			return fmt.Errorf("%s:%d: a run line has 6 fields (qid Q0 docno rank score runid), found %d: %w", name, sc.n, sc.fields(), ErrSyntax)
		}
		qid, doc, sf := sc.field(0), sc.field(2), sc.field(4)
		score, ok := parseNumber(sf)
		if !ok {
			return fmt.Errorf("%s:%d: score %q is not a number: %w", name, sc.n, sf, ErrValue)
		}
		if !st.lastHas || !bytes.Equal(qid, st.lastQ) {
			st.lastQ = append(st.lastQ[:0], qid...)
			st.lastHas = true
			st.lastQn = -1
			if qn, ok := q.index[string(qid)]; ok {
				st.lastQn = int(qn)
				q.seen[qn].Store(true)
				if !st.opt.DeferJoin {
					lo, hi := q.start[qn], q.start[qn+1]
					st.table.reset(hi - lo)
					for k := lo; k < hi; k++ {
						st.table.insert(q, lo, k)
					}
				}
			} else if st.opt.SkipUnjudged {
				st.skipQ++
			}
			if !st.rows {
				st.firstQ = append(st.firstQ[:0], qid...)
				st.skipFirst = st.dropped()
				st.rows = true
			}
		}
		var label float64
		if st.lastQn >= 0 {
			if !st.opt.DeferJoin {
				if j := st.table.find(q, q.start[st.lastQn], doc); j >= 0 {
					label = q.labels[j]
				}
			}
		} else if st.opt.SkipUnjudged {
			st.skipRows++
			continue
		}
		b.Query.Append(qid)
		b.Doc.Append(doc)
		b.Score = append(b.Score, score)
		b.Label = append(b.Label, label)
		b.Pos = append(b.Pos, sc.n)
		b.N++
	}
	return nil
}

// runBlocks parses a run file in blocks of whole lines on several
// goroutines: a splitter reads blocks in turn and hands block i to decoder
// i mod k, and Next takes the batches back in the same turn, so they come
// in file order and every message names the same line as a serial read
// would. A run's lines cost more to parse than the rest of the work on
// them, so one goroutine parsing was the stage the others waited on.
//
// Ownership: a batch returned by Batch belongs to its decoder again at the
// next call to Next; Close stops every goroutine and waits for them.
type runBlocks struct {
	name   string
	ws     []*blockDecoder
	stop   chan struct{}
	wg     sync.WaitGroup
	closed bool

	cur     *Batch
	curW    *blockDecoder
	blk     int // block being consumed
	skipped *SkipCount
	// the query of the last row of the blocks consumed, and whether
	// SkipUnjudged dropped it, to count a query that spans blocks once
	lastQ    []byte
	lastSkip bool
	err      error
	done     bool
}

// runBlock is a stretch of whole lines of the run, with the number of
// lines before it. err, when set, follows its lines: a read error or a
// line too long for a block. eof marks the end of the input.
type runBlock struct {
	buf  []byte // len: the lines; cap: runBlockSize+scanSlack
	base int64
	err  error
	eof  bool
}

type blockDecoder struct {
	in   chan *runBlock
	out  chan blockItem
	free chan *Batch
}

// blockItem is a batch, or an error, or the end of a block (b nil) with
// what SkipUnjudged dropped in it, which may be the end of the input.
type blockItem struct {
	b         *Batch
	err       error
	eof       bool
	skip      SkipCount
	firstQ    []byte // first and last query of the block; nil: no lines
	lastQ     []byte
	skipFirst bool // SkipUnjudged dropped the first query, the last
	skipLast  bool
}

// maxRunDecoders bounds the goroutines parsing one run, and the 2 MiB of
// blocks each holds: eight parse faster than one goroutine can group the
// rows they return.
const maxRunDecoders = 8

// runBlockSize is the size of a block, and so the longest line (a
// variable for the tests).
var runBlockSize = scanBuf

func startRunBlocks(name string, src io.Reader, closeSrc func() error, qrels *Qrels, opt RunOptions, k int) *runBlocks {
	r := &runBlocks{name: name, stop: make(chan struct{}), skipped: opt.Skipped}
	blocks := make(chan *runBlock, 2*k)
	for range 2 * k {
		blocks <- &runBlock{buf: make([]byte, 0, runBlockSize+scanSlack)}
	}
	for range k {
		w := &blockDecoder{in: make(chan *runBlock, 1), out: make(chan blockItem, batchesPerDecoder), free: make(chan *Batch, batchesPerDecoder)}
		for range batchesPerDecoder {
			b := &Batch{Source: name}
			b.Query.Reset()
			b.Doc.Reset()
			w.free <- b
		}
		r.ws = append(r.ws, w)
	}
	r.wg.Add(k + 1)
	go r.split(src, closeSrc, blocks)
	for _, w := range r.ws {
		st := &runState{qrels: qrels, opt: opt}
		go r.decode(w, st, blocks, opt.batchSize())
	}
	return r
}

// split reads the input a block at a time, each block ending at its last
// newline, the rest of the line carried into the next block.
func (r *runBlocks) split(src io.Reader, closeSrc func() error, blocks chan *runBlock) {
	defer r.wg.Done()
	defer closeSrc()
	var carry []byte
	var base int64
	for i := 0; ; i++ {
		var blk *runBlock
		select {
		case blk = <-blocks:
		case <-r.stop:
			return
		}
		blk.base, blk.err, blk.eof = base, nil, false
		buf := append(blk.buf[:0], carry...)
		var rerr error
		eof := false
		for len(buf) < runBlockSize {
			n, err := src.Read(buf[len(buf):runBlockSize])
			buf = buf[:len(buf)+n]
			if err == io.EOF {
				eof = true
				break
			}
			if err != nil {
				rerr = err
				break
			}
		}
		end := bytes.LastIndexByte(buf, '\n') + 1
		carry = append(carry[:0], buf[end:]...)
		switch {
		case rerr != nil:
			buf = buf[:end]
			blk.err = readError(r.name, base+int64(bytes.Count(buf, []byte{'\n'}))+1, rerr)
		case eof && end < len(buf):
			buf = append(buf, '\n') // a last line without a newline: the slack has room
			carry = carry[:0]
			blk.eof = true
		case eof:
			blk.eof = true
		case end == 0:
			buf = buf[:0]
			blk.err = fmt.Errorf("%s:%d: line longer than %s: %w", r.name, base+1, sizeName(runBlockSize), ErrSyntax)
		default:
			buf = buf[:end]
		}
		base += int64(bytes.Count(buf, []byte{'\n'}))
		blk.buf = buf
		select {
		case r.ws[i%len(r.ws)].in <- blk:
		case <-r.stop:
			return
		}
		if blk.err != nil || blk.eof {
			return
		}
	}
}

// decode parses the blocks the splitter hands this decoder, in batches
// of at most bs rows that never span two blocks.
func (r *runBlocks) decode(w *blockDecoder, st *runState, blocks chan<- *runBlock, bs int) {
	defer r.wg.Done()
	send := func(it blockItem) bool {
		select {
		case w.out <- it:
			return true
		case <-r.stop:
			return false
		}
	}
	sc := &fieldScanner{name: r.name}
	for {
		var blk *runBlock
		select {
		case blk = <-w.in:
		case <-r.stop:
			return
		}
		sc.scanLines(blk.buf, blk.base)
		st.forget()
		end := blockItem{}
		for sc.p < sc.end {
			var b *Batch
			select {
			case b = <-w.free:
			case <-r.stop:
				return
			}
			b.Reset()
			if err := st.parse(sc, b, bs); err != nil {
				w.free <- b
				send(blockItem{err: err})
				return
			}
			if b.N == 0 {
				w.free <- b
				break
			}
			if !send(blockItem{b: b}) {
				return
			}
		}
		if st.rows && st.opt.SkipUnjudged {
			end.skip = SkipCount{Queries: st.skipQ, Rows: st.skipRows}
			end.firstQ, end.lastQ = bytes.Clone(st.firstQ), bytes.Clone(st.lastQ)
			end.skipFirst, end.skipLast = st.skipFirst, st.dropped()
		}
		switch {
		case blk.err != nil:
			send(blockItem{err: blk.err})
			return
		case blk.eof:
			end.eof = true
			send(end)
			return
		}
		blocks <- blk // never blocks: there are as many places as blocks
		if !send(end) {
			return
		}
	}
}

func (r *runBlocks) Batch() *Batch { return r.cur }
func (r *runBlocks) Err() error    { return r.err }

func (r *runBlocks) Next() bool {
	if r.closed {
		return false
	}
	if r.cur != nil {
		r.curW.free <- r.cur // never blocks: the batch came from there
		r.cur, r.curW = nil, nil
	}
	for r.err == nil && !r.done {
		w := r.ws[r.blk%len(r.ws)]
		it := <-w.out
		switch {
		case it.err != nil:
			r.err = it.err
		case it.b == nil: // end of a block, or of the input
			r.endBlock(it)
			r.blk++
			r.done = it.eof
		default:
			r.cur, r.curW = it.b, w
			return true
		}
	}
	return false
}

// endBlock adds what SkipUnjudged dropped in a block, counting once a
// dropped query that continues from the block before.
func (r *runBlocks) endBlock(it blockItem) {
	if r.skipped == nil || it.firstQ == nil {
		return
	}
	r.skipped.Queries += it.skip.Queries
	r.skipped.Rows += it.skip.Rows
	if it.skipFirst && r.lastSkip && bytes.Equal(it.firstQ, r.lastQ) {
		r.skipped.Queries--
	}
	r.lastQ, r.lastSkip = it.lastQ, it.skipLast
}

// Close stops the goroutines and waits for them; the splitter closes the
// input as it stops.
func (r *runBlocks) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	close(r.stop)
	r.wg.Wait()
	r.cur = nil
	return nil
}

// sizeName writes a buffer size for a message: "1 MiB", or bytes.
func sizeName(n int) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
