package trec

import (
	"bufio"
	"bytes"
	"io"

	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/scan"
)

// RunOptions tune a TREC run reader.
type RunOptions struct {
	batch.Options
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
	// Comments skips comment lines, those whose first field starts with
	// '#', as trec_eval 10.0 does.
	Comments bool
	// ExtraFields accepts lines with fields after the sixth, which are
	// ignored, as trec_eval ignores them.
	ExtraFields bool
	// RefuseNul makes a NUL byte an error, as QrelsFormat.Strict does in
	// a qrels file: trec_eval crashes on a run that holds one (9.0.8
	// segfaults, 10.0 aborts in malloc), or stops reading it there.
	RefuseNul bool
}

// SkipCount counts what SkipUnjudged dropped: Queries distinct query ids,
// however their lines are spread over the run (a shuffled run, read once
// as a stream, holds a query in many stretches), and their Rows. It keeps
// the dropped ids to count each once: a set as large as the run's
// unjudged queries, not its lines.
// One run's reader owns one: runs read at once (the systems of --system)
// count apart, and Merge unites their counts.
type SkipCount struct {
	Queries, Rows int64
	ids           map[string]struct{}
}

// Merge adds o's rows and the ids o dropped that c did not.
func (c *SkipCount) Merge(o *SkipCount) {
	ids := make([][]byte, 0, len(o.ids))
	for id := range o.ids {
		ids = append(ids, []byte(id))
	}
	c.add(ids, o.Rows)
}

// Add counts the rows dropped and the ids among ids not seen before.
func (c *SkipCount) add(ids [][]byte, rows int64) {
	if c.ids == nil {
		c.ids = map[string]struct{}{}
	}
	for _, id := range ids {
		if _, ok := c.ids[string(id)]; !ok {
			c.ids[string(id)] = struct{}{}
		}
	}
	c.Queries = int64(len(c.ids))
	c.Rows += rows
}

// OpenRun opens a TREC run (`qid Q0 docno rank score runid`, plain, gzip or
// zstd) and joins each row's label from the qrels: an unjudged document has
// label 0. The rank column is ignored, as trec_eval ignores it. With nil
// qrels every row comes with label 0, for a caller whose judgments are
// not a qrels file (trec_eval's prefs and qrels_jg formats).
//
// A regular file is parsed by Options.Decoders goroutines (default
// GOMAXPROCS, at most scan.MaxLineDecoders), one block of lines each in turn, and
// its batches are returned in file order; with one decoder, or from
// standard input or a pipe, lines are parsed as they are read.
func OpenRun(name string, qrels *Qrels, opt RunOptions) (batch.Reader, error) {
	f, display, err := scan.OpenLocal(name)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(opt.Source(f), 1<<16)
	// An empty run (0 bytes, or a compressed stream of nothing) has no
	// rows, which is not an error (SPEC §8).
	head, _ := br.Peek(4)
	src, closeDec, err := scan.Decompress(display, br, head)
	closeSrc := scan.InputCloser(f)
	if err != nil {
		closeSrc()
		return nil, err
	}
	closeAll := func() error {
		closeDec()
		return closeSrc()
	}
	if k := min(batch.Decoders(opt.Options), scan.MaxLineDecoders); k > 1 && scan.IsRegular(f) {
		return startRunBlocks(display, src, closeAll, qrels, opt, k), nil
	}
	r := &trecRun{sc: scan.NewFieldScanner(display, src), bs: opt.BatchRows(), close: closeAll}
	r.sc.Comments, r.sc.Nuls = opt.Comments, opt.RefuseNul
	r.st.qrels, r.st.opt = qrels, opt
	r.Own.Source = display
	r.Own.Query.Reset()
	r.Own.Doc.Reset()
	r.B = &r.Own
	return r, nil
}

// trecRun parses a run as it reads it, on the caller's goroutine.
type trecRun struct {
	sc *scan.FieldScanner
	st runState
	bs int
	batch.Target
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

func (r *trecRun) Next() bool { r.FillOwn(); return r.rows() }

func (r *trecRun) NextInto(b *batch.Batch) bool { r.FillInto(b); return r.rows() }

func (r *trecRun) rows() bool {
	if r.err != nil {
		return false
	}
	r.err = r.st.parse(r.sc, r.B, r.bs)
	if s := r.st.opt.Skipped; s != nil {
		s.add(r.st.skipIDs, r.st.skipRows)
		r.st.skipIDs, r.st.skipRows = r.st.skipIDs[:0], 0
	}
	if r.err == nil {
		r.err = r.sc.Err
	}
	return r.err == nil && r.B.N > 0
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
	// the ids of the stretches of lines dropped (an id more than once
	// when its lines are not together), and the rows dropped
	skipIDs  [][]byte
	skipRows int64
}

// forget makes the next line start a new query, as at a block's start.
func (st *runState) forget() {
	st.lastHas = false
	st.skipIDs, st.skipRows = nil, 0
}

// Parse appends rows to b from sc's lines until b holds bs rows or the
// lines run out; sc.err then tells whether reading failed.
func (st *runState) parse(sc *scan.FieldScanner, b *batch.Batch, bs int) error {
	name := b.Source
	q := st.qrels
	for b.N < bs && sc.Next() {
		if sc.K != 6 && !(sc.K > 6 && st.opt.ExtraFields) {
			return batch.ParseErrorf(name, sc.N, "a run line has 6 fields (qid Q0 docno rank score runid), found %d: %w", sc.Fields(), batch.ErrSyntax)
		}
		qid, doc, sf := sc.Field(0), sc.Field(2), sc.Field(4)
		score, ok := scan.ParseNumber(sf)
		if !ok {
			return batch.ParseErrorf(name, sc.N, "score %q is not a number: %w", sf, batch.ErrValue)
		}
		if !st.lastHas || !batch.EqualShort(qid, st.lastQ) {
			if st.lastQ == nil {
				st.lastQ = make([]byte, 0, 64) // room for equalShort's words
			}
			st.lastQ = append(st.lastQ[:0], qid...)
			st.lastHas = true
			st.lastQn = -1
			var qn int32
			ok := false
			if q != nil {
				qn, ok = q.index[string(qid)]
			}
			if ok {
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
				st.skipIDs = append(st.skipIDs, bytes.Clone(qid))
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
		b.Pos = append(b.Pos, sc.N)
		b.N++
	}
	return nil
}

// The parallel run reader: the run is cut into blocks of whole lines
// (scan.LineSplitter) and parsed by an ordered decoder, a block at a time on
// each of its goroutines, so batches come in file order and every message
// names the same line as a serial read would. A run's lines cost more to
// parse than the rest of the work on them, so one goroutine parsing was the
// stage the others waited on.

// runBlockEnd is what SkipUnjudged dropped in a block, for the consumer to
// add up.
type runBlockEnd struct {
	skipIDs  [][]byte
	skipRows int64
}

// runBlockSize is the longest line a block grows to hold (a variable for
// the tests).
var runBlockSize = scan.ScanBuf

// runBlockRead is the size a block is read at: the separator mask's pass
// over a block, then the parse of its lines, read it twice, and a block
// that fits the core's cache with the rest of the parse's data is read
// from there the second time (1 MiB blocks: 2.5% more CPU for the whole
// of rankeval trec_eval -m all_trec).
const runBlockRead = 128 << 10

func startRunBlocks(name string, src io.Reader, closeSrc func() error, qrels *Qrels, opt RunOptions, k int) batch.Reader {
	split := scan.NewLineSplitter(name, src, closeSrc, min(runBlockRead, runBlockSize), runBlockSize, k)
	decs := make([]batch.UnitDecoder[*scan.LineBlock, runBlockEnd], k)
	for w := range decs {
		decs[w] = &runDecoder{st: &runState{qrels: qrels, opt: opt}, sc: &scan.FieldScanner{Name: name, Comments: opt.Comments, Nuls: opt.RefuseNul}, split: split, bs: opt.BatchRows()}
	}
	shape := &batch.Batch{Source: name}
	return batch.StartOrdered(batch.OrderedConfig[*scan.LineBlock, runBlockEnd]{Produce: split.Produce, Shape: shape,
		End: func(_ int, e runBlockEnd) {
			if opt.Skipped != nil {
				opt.Skipped.add(e.skipIDs, e.skipRows)
			}
		}}, decs)
}

// runDecoder parses blocks of a run for one decoder goroutine.
type runDecoder struct {
	st    *runState
	sc    *scan.FieldScanner
	split *scan.LineSplitter
	bs    int
}

func (d *runDecoder) Close() {}

// Decode parses a block in batches of at most bs rows that never span two
// blocks.
func (d *runDecoder) Decode(blk *scan.LineBlock, out *batch.BatchOut[runBlockEnd]) (runBlockEnd, error) {
	defer d.split.Recycle(blk)
	st, sc := d.st, d.sc
	sc.ScanLines(blk.Buf, blk.Base)
	st.forget()
	for sc.P < sc.End {
		b := out.Get()
		if b == nil {
			return runBlockEnd{}, batch.ErrStopped
		}
		err := st.parse(sc, b, d.bs)
		if err == nil {
			err = sc.Err // a NUL byte (RefuseNul)
		}
		if err != nil {
			out.Drop(b)
			return runBlockEnd{}, err
		}
		if b.N == 0 {
			out.Drop(b)
			break
		}
		if !out.Put(b) {
			return runBlockEnd{}, batch.ErrStopped
		}
	}
	return runBlockEnd{skipIDs: st.skipIDs, skipRows: st.skipRows}, nil
}
