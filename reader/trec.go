package reader

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/rankeval/rankeval/internal/idhash"
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
	// with '#' (a '#' after blanks starts a judgment's query id), and a
	// comment right after another, or at the file's end, is an error, as
	// trec_eval 10.0 reads the one as a judgment past its array and
	// crashes at the other.
	Strict bool
}

// ReadQrelsAs is ReadQrels reading lines as f says.
func ReadQrelsAs(name string, f QrelsFormat) (*Qrels, error) {
	return readQrels(name, runtime.GOMAXPROCS(0), f)
}

// readQrels reads a large plain file in up to parts pieces at once.
func readQrels(name string, parts int, comments QrelsFormat) (*Qrels, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<16)
	head, _ := br.Peek(4)
	// read before a zstd decoder's goroutine starts reading into br's buffer
	plain := compression(head) == ""
	src, closeDec, err := decompress(name, br, head)
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
		seg, err = parseQrelsParts(f, br, name, size, cuts, est, docLen, comments)
	} else {
		seg = newQrelsArrays(est, docLen, 1).part(0, 0, est, 0, est*docLen)
		_, err = parseQrels(name, src, 0, seg, comments)
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
	// and the lowest query with a duplicate is reported whatever the split.
	parts = min(parts, max(len(q.labels)/(1<<18), 1))
	errs := make([]error, parts)
	var wg sync.WaitGroup
	for w := range parts {
		wg.Go(func() {
			var t docTable
			for qn := w * nq / parts; qn < (w+1)*nq/parts; qn++ {
				lo, hi := q.start[qn], q.start[qn+1]
				t.reset(hi - lo)
				for k := lo; k < hi; k++ {
					if prev := t.insert(q, lo, k); prev >= 0 {
						first, again := qrelsLines(name, q.order[qn], prev-lo, k-lo)
						errs[w] = fmt.Errorf("%s:%d: docno %q judged twice for query %q (first at line %d): %w",
							name, again, q.doc(k), q.order[qn], first, ErrValue)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return q, nil
}

// qrelsSegment is pass 1's result for a stretch of a qrels file.
type qrelsSegment struct {
	index  map[string]int32 // query id -> query number in this stretch
	order  []string
	docs   []byte
	off    []int64 // off[0] is 0, where this stretch's docs start
	labels []float64
	runs   []qrelsRun // the queries of the judgments, in file order
	sorted bool       // each query's judgments contiguous, queries in order
}

// qrelsRun is a run of consecutive judgments of one query: the counting
// sort needs no query number per judgment, and a qrels file grouped by
// query has one run a query.
type qrelsRun struct{ qn, n int32 }

// qrelsArrays are the flat arrays of pass 1, sized for a whole file.
type qrelsArrays struct {
	docs   []byte
	off    []int64
	labels []float64
}

func newQrelsArrays(n, docLen, parts int) qrelsArrays {
	return qrelsArrays{
		docs:   make([]byte, n*docLen),
		off:    make([]int64, n+parts), // each part has a leading 0
		labels: make([]float64, n),
	}
}

// part returns an empty segment whose arrays append into a's: judgments
// [from, to), docno bytes [dfrom, dto). Its docno offsets, which start
// with a 0, take entries [from+k, to+k+1) of off, k the number of parts
// before it. Appending past its room moves a segment's array elsewhere,
// which joinQrels notices.
func (a qrelsArrays) part(k, from, to, dfrom, dto int) *qrelsSegment {
	return &qrelsSegment{
		index:  map[string]int32{},
		docs:   a.docs[dfrom:dfrom:dto],
		off:    append(a.off[from+k:from+k:to+k+1], 0),
		labels: a.labels[from:from:to],
		sorted: true,
	}
}

// joinQrels appends s1 to s0: query numbers of s1 continue s0's, its
// docno offsets follow s0's docnos. Arrays still in place in a only move
// down; an array that outgrew its room is copied.
func joinQrels(a qrelsArrays, s0, s1 *qrelsSegment) *qrelsSegment {
	base := int64(len(s0.docs))
	for i := range s1.off {
		s1.off[i] += base
	}
	s0.docs = joinInto(a.docs, s0.docs, s1.docs)
	s0.off = joinInto(a.off, s0.off, s1.off[1:])
	s0.labels = joinInto(a.labels, s0.labels, s1.labels)
	remap := make([]int32, len(s1.order))
	for k, id := range s1.order {
		qn, ok := s0.index[id]
		if !ok {
			qn = int32(len(s0.order))
			s0.index[id] = qn
			s0.order = append(s0.order, id)
		} else {
			s0.sorted = false // the query has judgments in both halves
		}
		remap[k] = qn
	}
	for _, r := range s1.runs {
		s0.runs = append(s0.runs, qrelsRun{remap[r.qn], r.n})
	}
	s0.sorted = s0.sorted && s1.sorted
	return s0
}

// joinInto returns x followed by y. When x still starts all and has not
// been moved, y is moved down right after it inside all (copy handles the
// overlap); otherwise they are appended.
func joinInto[T any](all, x, y []T) []T {
	if len(x) > 0 && len(all) > 0 && unsafe.SliceData(x) == unsafe.SliceData(all) && len(x)+len(y) <= len(all) {
		n := copy(all[len(x):], y)
		return all[:len(x)+n]
	}
	return append(x, y...)
}

// qrelsMinSplit is the size from which a plain qrels file is parsed in
// pieces, each at least half that (a variable for the tests).
var qrelsMinSplit int64 = 16 << 20

// qrelsCuts returns where pieces 2..n of a plain qrels file start, each at
// the first line past its share of the file whose query differs from the
// line before; none when the file is too small to split.
func qrelsCuts(f *os.File, size int64, n int) []int64 {
	if size < qrelsMinSplit || n < 2 {
		return nil
	}
	var cuts []int64
	for i := 1; i < n; i++ {
		at := qrelsCut(f, size*int64(i)/int64(n), size)
		if at > 0 && (len(cuts) == 0 || at > cuts[len(cuts)-1]) {
			cuts = append(cuts, at)
		}
	}
	return cuts
}

// qrelsCut returns the start of the first line past from whose query
// differs from the line before; 0 when there is none near.
func qrelsCut(f *os.File, from, size int64) int64 {
	br := bufio.NewReaderSize(io.NewSectionReader(f, from, size-from), 1<<16)
	line, err := br.ReadSlice('\n') // the rest of the line from falls in
	if err != nil {
		return 0
	}
	pos := from + int64(len(line))
	// a cut is a line of judgments after one of another query: never next
	// to a blank or comment line, whose checks (Strict) read the line
	// before
	var prev []byte // the query of the line before, when it is one
	var fs [][]byte
	for pos < from+8<<20 { // give up past a query of 8 MiB
		line, err := br.ReadSlice('\n')
		if err != nil && (err != io.EOF || len(line) == 0) {
			return 0
		}
		fs = splitFields(line, fs[:0])
		if len(fs) == 0 || line[0] == '#' || fs[0][0] == '#' {
			prev = prev[:0]
		} else {
			if len(prev) > 0 && !bytes.Equal(fs[0], prev) {
				return pos
			}
			prev = append(prev[:0], fs[0]...)
		}
		pos += int64(len(line))
	}
	return 0
}

// parseQrelsParts parses the pieces of a plain qrels file that start at 0
// and at each cut on as many goroutines, and joins them. A piece numbers
// its lines from 1; one with an error is parsed again from its true first
// line, the lines before it counted, to name the line.
func parseQrelsParts(f *os.File, br *bufio.Reader, name string, size int64, cuts []int64, est, docLen int, comments QrelsFormat) (*qrelsSegment, error) {
	n := len(cuts) + 1
	all := newQrelsArrays(est, docLen, n)
	edges := append(append([]int64{0}, cuts...), size)
	segs := make([]*qrelsSegment, n)
	lines := make([]int64, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		k0, k1 := int(int64(est)*edges[i]/size), int(int64(est)*edges[i+1]/size)
		if i == n-1 {
			k1 = est
		}
		segs[i] = all.part(i, k0, k1, k0*docLen, k1*docLen)
		wg.Go(func() {
			var r io.Reader = io.NewSectionReader(f, edges[i], edges[i+1]-edges[i])
			if i == 0 {
				r = io.LimitReader(br, edges[1]) // the buffered start
			}
			lines[i], errs[i] = parseQrels(name, r, 0, segs[i], comments)
		})
	}
	wg.Wait()
	var base int64
	for i := range n {
		if errs[i] != nil {
			if i > 0 {
				_, errs[i] = parseQrels(name, io.NewSectionReader(f, edges[i], edges[i+1]-edges[i]), base, newQrelsArrays(0, 0, 1).part(0, 0, 0, 0, 0), comments)
			}
			return nil, errs[i]
		}
		if i > 0 {
			segs[0] = joinQrels(all, segs[0], segs[i])
		}
		base += lines[i]
	}
	return segs[0], nil
}

// parseQrels is pass 1 over a stretch of a qrels file whose first line is
// line base+1: the judgments in file order, appended to g's flat arrays.
// It returns the number of lines in the stretch.
func parseQrels(name string, r io.Reader, base int64, g *qrelsSegment, f QrelsFormat) (int64, error) {
	sc := newFieldScanner(name, r)
	sc.comments, sc.strict = f.Comments, f.Strict
	sc.n = base
	qn, n := int32(-1), int32(0) // the run of lines being read: n of query qn
	last := make([]byte, 0, 64)  // query qn's id, with room for equalShort
	for sc.next() {
		if sc.k != 4 {
			return 0, fmt.Errorf("%s:%d: a qrels line has 4 fields (qid iter docno label), found %d: %w", name, sc.n, sc.fields(), ErrSyntax)
		}
		qid, doc, lab := sc.field(0), sc.field(2), sc.field(3)
		var label float64
		ok := true
		if f.Atol {
			label = AtolLabel(lab)
		} else {
			label, ok = ParseLabel(lab)
		}
		if !ok {
			return 0, fmt.Errorf("%s:%d: label %q is not a number: %w", name, sc.n, lab, ErrValue)
		}
		// qrels come grouped by query: the map only sees a query's first line
		switch {
		case qn < 0 || !equalShort(qid, last):
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
		g.docs = appendShort(g.docs, doc)
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
	return sc.n - base, sc.err
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
	src, closeDec, err := decompress(name, br, head)
	if err != nil {
		return 0, 0
	}
	defer closeDec()
	sc := newFieldScanner(name, src)
	for n := 0; sc.next(); {
		if string(sc.field(0)) != qid {
			continue
		}
		if n == a {
			la = sc.n
		}
		if n == b {
			return la, sc.n
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
	size := 16
	for size < 2*n {
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

// fieldSep marks the bytes C's isspace accepts (space, \t, \n, \v, \f,
// \r): the separators of trec_eval's sscanf-based parsing.
var fieldSep = [256]bool{' ': true, '\t': true, '\n': true, '\v': true, '\f': true, '\r': true}

const (
	ones = 0x0101010101010101
	high = 0x8080808080808080
)

// splitFields splits a line on white space without allocating. It finds
// where a query starts in a qrels file and counts the fields of a bad line
// for its error message; the readers themselves use fieldScanner.
func splitFields(s []byte, out [][]byte) [][]byte {
	for i := 0; i < len(s); {
		for i < len(s) && fieldSep[s[i]] {
			i++
		}
		j := i
		for j < len(s) && !fieldSep[s[j]] {
			j++
		}
		if j > i {
			out = append(out, s[i:j])
		}
		i = j
	}
	return out
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
