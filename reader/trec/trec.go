// Package trec reads the TREC files trec_eval reads: runs (qid Q0 docno
// rank score tag), joined with their qrels as they are read; qrels, parsed
// in parallel pieces for large plain files; run tags; the preferences of
// -R prefs and qrels_prefs (ReadPrefs) and the judgment groups of -R
// qrels_jg (ReadJudgmentGroups), on the text lines of OpenTextLines. Both
// the pipeline and the trec_eval drop-in read TREC input through it.
package trec

import (
	"bufio"
	"bytes"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/rankeval/rankeval/internal/idhash"
	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/scan"
)

// Qrels holds every judgment of a TREC qrels file (`qid iter docno label`)
// in memory, compactly: the docnos of all judgments in one buffer, grouped
// by query, with an offset and a label each (about 16 bytes a judgment plus
// the docno itself). After loading it is only read, except for the marks
// of which queries a run named, which run readers set atomically.
type Qrels struct {
	Name   string
	index  map[string]int32 // query id -> query number, in file order
	order  []string         // query ids in file order
	start  []int            // judgments of query q: [start[q], start[q+1])
	docs   []byte
	off    []int64 // docno of judgment j: docs[off[j]:off[j+1]]
	labels []float64
	seen   []atomic.Bool // set by the run readers, possibly several at once
	// dups holds, read under QrelsFormat.Strict, each query's first
	// docno judged twice (Duplicate): its two judgments, counted from the
	// query's first
	dups map[int32][2]int
}

// ReadQrels loads a qrels file (plain, gzip or zstd). A docno judged twice
// for one query is an error, as in trec_eval.
func ReadQrels(name string) (*Qrels, error) {
	return ReadQrelsAs(name, QrelsFormat{})
}

// ReadQrelsComments is ReadQrels skipping comment lines, those whose first
// field starts with '#', as trec_eval 10.0 does.
func ReadQrelsComments(name string) (*Qrels, error) {
	return ReadQrelsAs(name, QrelsFormat{Comments: true})
}

// QrelsFormat is how a qrels file's lines read.
type QrelsFormat struct {
	// Comments skips the lines whose first field starts with '#'
	// (trec_eval 10.0).
	Comments bool
	// Atol reads each label as trec_eval's atol does (AtolLabel), not as
	// a number.
	Atol bool
	// Strict reads lines as trec_eval's own reader of judgments does (the
	// drop-in): a blank line is an error, as trec_eval stops at it (a
	// malformed line); with Comments, a comment is a line that starts
	// with '#' (a '#' after blanks starts a judgment's query id) and the
	// line after a comment is a judgment whatever it starts with, as
	// trec_eval 10.0 skips one comment and then reads a judgment; a
	// comment ending the file (where trec_eval crashes) and a NUL byte
	// (where it stops reading or runs past its arrays) are errors. A
	// docno judged twice for a query is kept, not refused: trec_eval
	// refuses it only in a query it evaluates (Duplicate).
	Strict bool
}

// ReadQrelsAs is ReadQrels reading lines as f says.
func ReadQrelsAs(name string, f QrelsFormat) (*Qrels, error) {
	return readQrels(name, runtime.GOMAXPROCS(0), f)
}

// readQrels reads a large plain file in up to parts pieces at once.
func readQrels(name string, parts int, format QrelsFormat) (*Qrels, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<16)
	head, _ := br.Peek(4)
	// read before a zstd decoder's goroutine starts reading into br's buffer
	plain := scan.Compression(head) == ""
	src, closeDec, err := scan.Decompress(name, br, head)
	if err != nil {
		return nil, err
	}
	defer closeDec()

	// Pass 1 keeps the judgments in file order, in flat arrays: no
	// allocation per judgment. For a plain file, its size over the mean
	// line length of its first 64 KiB sizes them closely, sparing the
	// copies and the peak memory of repeated growth.
	q := &Qrels{Name: name}
	est, docLen := 0, 0
	var size int64
	if st, err := f.Stat(); err == nil && plain {
		size = st.Size()
		sample, _ := br.Peek(br.Size())
		if lines := bytes.Count(sample, []byte{'\n'}); lines > 0 {
			est = int(min(size*int64(lines)/int64(len(sample))*11/10+16, 1<<28))
			docLen = max(len(sample)/lines-6, 4) // a line less its qid, iter and label
		}
	}
	// A large plain file is parsed in pieces at once, one per CPU, each
	// starting where a query starts. The pieces fill their shares of
	// arrays sized for the whole file and then move down to join the
	// first: the only extra memory is the room a piece left unused.
	var cuts []int64
	if plain {
		cuts = qrelsCuts(f, size, min(parts, int(size/max(qrelsMinSplit/2, 1))))
	}
	var seg *qrelsSegment
	if len(cuts) > 0 {
		seg, err = parseQrelsParts(f, br, name, size, cuts, est, docLen, format)
	} else {
		seg = newQrelsArrays(est, docLen, 1).part(0, 0, est, 0, est*docLen)
		_, err = parseQrels(name, src, 0, seg, format)
	}
	if err != nil {
		return nil, err
	}
	q.index, q.order = seg.index, seg.order
	docs, off, labels, sorted := seg.docs, seg.off, seg.labels, seg.sorted

	// Group by query with a counting sort, which keeps file order within a
	// query, then copy into query order.
	nq := len(q.order)
	q.start = make([]int, nq+1)
	for _, r := range seg.runs {
		q.start[r.qn+1] += int(r.n)
	}
	for i := range nq {
		q.start[i+1] += q.start[i]
	}
	if sorted {
		// the usual qrels file, grouped by query: nothing to move
		q.docs, q.off, q.labels = docs, off, labels
	} else {
		perm := make([]int32, len(labels))
		next := append([]int(nil), q.start[:nq]...)
		j := int32(0)
		for _, r := range seg.runs {
			for range r.n {
				perm[next[r.qn]] = j
				next[r.qn]++
				j++
			}
		}
		q.docs = make([]byte, 0, len(docs))
		q.off = make([]int64, 1, len(off))
		q.labels = make([]float64, len(labels))
		for k, j := range perm {
			q.docs = append(q.docs, docs[off[j]:off[j+1]]...)
			q.off = append(q.off, int64(len(q.docs)))
			q.labels[k] = labels[j]
		}
	}
	q.seen = make([]atomic.Bool, nq)

	// trec_eval refuses a docno judged twice for a query. Queries are
	// independent, so the check is split among the CPUs by query number,
	// and the lowest query with a duplicate is reported whatever the split;
	// under Strict every query's first is kept, for Duplicate.
	parts = min(parts, max(len(q.labels)/(1<<18), 1))
	// per CPU, in query order: the first duplicate of each query (of the
	// first query with one, unless Strict)
	found := make([][]qrelsDup, parts)
	var wg sync.WaitGroup
	for w := range parts {
		wg.Go(func() {
			var t docTable
			for qn := int32(w * nq / parts); qn < int32((w+1)*nq/parts); qn++ {
				lo, hi := q.start[qn], q.start[qn+1]
				t.reset(hi - lo)
				for k := lo; k < hi; k++ {
					if prev := t.insert(q, lo, k); prev >= 0 {
						found[w] = append(found[w], qrelsDup{qn, [2]int{prev - lo, k - lo}})
						if !format.Strict {
							return
						}
						break
					}
				}
			}
		})
	}
	wg.Wait()
	for _, ds := range found {
		for _, d := range ds {
			if !format.Strict {
				return nil, q.duplicateError(d.qn, d.at)
			}
			if q.dups == nil {
				q.dups = map[int32][2]int{}
			}
			q.dups[d.qn] = d.at
		}
	}
	return q, nil
}

// Duplicate is the error of the first docno judged twice for query qid
// (its file and lines), when the qrels were read under
// QrelsFormat.Strict, which keeps such a query; nil when there is none.
// (Read otherwise, such qrels are refused.)
func (q *Qrels) Duplicate(qid string) error {
	qn, ok := q.index[qid]
	if !ok {
		return nil
	}
	if at, ok := q.dups[qn]; ok {
		return q.duplicateError(qn, at)
	}
	return nil
}

// qrelsDup is a docno judged twice for query qn: its judgments at[0] <
// at[1], counted from the query's first.
type qrelsDup struct {
	qn int32
	at [2]int
}

// duplicateError is the error of judgments at of query qn, which judge
// one docno, with their lines.
func (q *Qrels) duplicateError(qn int32, at [2]int) error {
	first, again := qrelsLines(q.Name, q.order[qn], at[0], at[1])
	return batch.ParseErrorf(q.Name, again, "docno %q judged twice for query %q (first at line %d): %w", q.doc(q.start[qn]+at[1]), q.order[qn], first, batch.ErrValue)
}

// parseQrels is pass 1 over a stretch of a qrels file whose first line is
// line base+1: the judgments in file order, appended to g's flat arrays.
// It returns the number of lines in the stretch.
func parseQrels(name string, r io.Reader, base int64, g *qrelsSegment, f QrelsFormat) (int64, error) {
	sc := scan.NewFieldScanner(name, r)
	sc.Comments, sc.Strict, sc.Nuls = f.Comments, f.Strict, f.Strict
	sc.N = base
	qn, n := int32(-1), int32(0) // the run of lines being read: n of query qn
	last := make([]byte, 0, 64)  // query qn's id, with room for equalShort
	for sc.Next() {
		if sc.K != 4 {
			return 0, batch.ParseErrorf(name, sc.N, "a qrels line has 4 fields (qid iter docno label), found %d: %w", sc.Fields(), batch.ErrSyntax)
		}
		qid, doc, lab := sc.Field(0), sc.Field(2), sc.Field(3)
		var label float64
		ok := true
		if f.Atol {
			label = AtolLabel(lab)
		} else {
			label, ok = ParseLabel(lab)
		}
		if !ok {
			return 0, batch.ParseErrorf(name, sc.N, "label %q is not a number: %w", lab, batch.ErrValue)
		}
		// qrels come grouped by query: the map only sees a query's first line
		switch {
		case qn < 0 || !batch.EqualShort(qid, last):
			last = append(last[:0], qid...)
			if n > 0 {
				g.runs = append(g.runs, qrelsRun{qn, n})
			}
			var ok bool
			qn, ok = g.index[string(qid)]
			if !ok {
				qn = int32(len(g.order))
				g.index[string(qid)] = qn
				g.order = append(g.order, string(qid))
			} else {
				g.sorted = false
			}
			n = 0
		case n == math.MaxInt32:
			g.runs = append(g.runs, qrelsRun{qn, n})
			n = 0
		}
		n++
		g.docs = batch.AppendShort(g.docs, doc)
		g.off = append(g.off, int64(len(g.docs)))
		// A negative judgment (trec_eval: in the pool but unjudged) is
		// never relevant and has gain 0, so ParseLabel keeps it as 0; as
		// -0.0, which equals 0 everywhere, so that bpref can still tell it
		// from a judged non-relevant document (metrics.List.Judged).
		g.labels = append(g.labels, label)
	}
	if n > 0 {
		g.runs = append(g.runs, qrelsRun{qn, n})
	}
	return sc.N - base, sc.Err
}

// qrelsLines finds the lines of judgments a and b (a < b) of query qid,
// counted in file order, by reading the file again: only a duplicate's
// message needs them, so the judgments keep no line numbers. Parsing
// succeeded, so every line is well formed.
func qrelsLines(name, qid string, a, b int) (la, lb int64) {
	f, err := os.Open(name)
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<16)
	head, _ := br.Peek(4)
	src, closeDec, err := scan.Decompress(name, br, head)
	if err != nil {
		return 0, 0
	}
	defer closeDec()
	sc := scan.NewFieldScanner(name, src)
	for n := 0; sc.Next(); {
		if string(sc.Field(0)) != qid {
			continue
		}
		if n == a {
			la = sc.N
		}
		if n == b {
			return la, sc.N
		}
		n++
	}
	return la, 0
}

func (q *Qrels) doc(k int) []byte { return q.docs[q.off[k]:q.off[k+1]] }

// Judgments returns the number of judgments loaded.
func (q *Qrels) Judgments() int { return len(q.labels) }

// Queries returns the number of judged queries.
func (q *Qrels) Queries() int { return len(q.order) }

// Judged returns the labels of every judged document of a query, or nil
// when the qrels do not judge it.
func (q *Qrels) Judged(qid []byte) []float64 {
	if qn, ok := q.index[string(qid)]; ok {
		return q.labels[q.start[qn]:q.start[qn+1]]
	}
	return nil
}

// Join sets label[i], and judged[i] to true when judged is not nil, for
// every judged document of query qid that find places at row i (find
// returns -1 for a document the run did not retrieve); other rows are left
// alone. It only reads the qrels.
func (q *Qrels) Join(qid []byte, label []float64, judged []bool, find func(doc []byte) int) {
	qn, ok := q.index[string(qid)]
	if !ok {
		return
	}
	for k := q.start[qn]; k < q.start[qn+1]; k++ {
		if i := find(q.doc(k)); i >= 0 {
			label[i] = q.labels[k]
			if judged != nil {
				judged[i] = true
			}
		}
	}
}

// Unseen lists, in qrels order, the judged queries no run row has named.
func (q *Qrels) Unseen() []string {
	var out []string
	for qn, qid := range q.order {
		if !q.seen[qn].Load() {
			out = append(out, qid)
		}
	}
	return out
}

// docTable is an open-addressing hash set of the judgments of one query,
// built when a run reaches the query and reused for the next, so the join
// costs a hash per run row and the qrels keep no per-query index.
type docTable struct {
	ids   idhash.Hasher
	slots []int32 // judgment index - lo + 1; 0 = empty
	mask  uint64
}

func (t *docTable) reset(n int) {
	if t.slots == nil {
		t.ids = idhash.New()
	}
	load := 4 // a quarter full, as pipeline's docSet: fewer collisions
	if n > 1<<16 {
		load = 2 // beyond any cache: no more memory for nothing
	}
	size := 16
	for size < load*n {
		size <<= 1
	}
	if cap(t.slots) < size {
		t.slots = make([]int32, size)
	} else {
		t.slots = t.slots[:size]
		clear(t.slots)
	}
	t.mask = uint64(size - 1)
}

// insert adds judgment k of a query whose judgments start at lo; it
// returns an earlier judgment with the same docno, or -1.
func (t *docTable) insert(q *Qrels, lo, k int) int {
	d := q.doc(k)
	for h := t.hash(d) & t.mask; ; h = (h + 1) & t.mask {
		s := t.slots[h]
		if s == 0 {
			t.slots[h] = int32(k - lo + 1)
			return -1
		}
		if j := lo + int(s) - 1; bytes.Equal(q.doc(j), d) {
			return j
		}
	}
}

func (t *docTable) hash(d []byte) uint64 {
	h, ok := t.ids.Short(d)
	if !ok {
		h = t.ids.Hash(d)
	}
	return h
}

// find returns the judgment of docno d among a query's, or -1.
func (t *docTable) find(q *Qrels, lo int, d []byte) int {
	for h := t.hash(d) & t.mask; ; h = (h + 1) & t.mask {
		s := t.slots[h]
		if s == 0 {
			return -1
		}
		if j := lo + int(s) - 1; bytes.Equal(q.doc(j), d) {
			return j
		}
	}
}

// Positive returns the number of judgments with a label above 0, over
// every query: trec_eval's total num_rel under -c, whatever -l is.
func (q *Qrels) Positive() int {
	n := 0
	for _, l := range q.labels {
		if l > 0 {
			n++
		}
	}
	return n
}

// IDs lists the judged queries, in qrels order.
func (q *Qrels) IDs() []string { return slices.Clone(q.order) }
