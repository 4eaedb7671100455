package reader

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"math/bits"
	"os"
	"runtime"
	"sync"
)

// Qrels holds every judgment of a TREC qrels file (`qid iter docno label`)
// in memory, compactly: the docnos of all judgments in one buffer, grouped
// by query, with an offset and a label each (about 16 bytes a judgment plus
// the docno itself). After loading it is only read, except for the marks
// of which queries a run named, which the single run reader makes.
type Qrels struct {
	Name   string
	index  map[string]int32 // query id -> query number, in file order
	order  []string         // query ids in file order
	start  []int            // judgments of query q: [start[q], start[q+1])
	docs   []byte
	off    []int64 // docno of judgment j: docs[off[j]:off[j+1]]
	labels []float64
	seen   []bool
}

// ReadQrels loads a qrels file (plain, gzip or zstd). A docno judged twice
// for one query is an error, as in trec_eval.
func ReadQrels(name string) (*Qrels, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<16)
	head, _ := br.Peek(4)
	src, closeDec, err := decompress(name, br, head)
	if err != nil {
		return nil, err
	}
	defer closeDec()

	// Pass 1 keeps the judgments in file order, in flat arrays: no
	// allocation per judgment. For a plain file, its size over the mean
	// line length of its first 64 KiB sizes them closely, sparing the
	// copies and the peak memory of repeated growth.
	q := &Qrels{Name: name, index: map[string]int32{}}
	est, docLen := 0, 0
	if st, err := f.Stat(); err == nil && len(head) > 0 && head[0] != magicGzip[0] && head[0] != magicZstd[0] {
		sample, _ := br.Peek(br.Size())
		if lines := bytes.Count(sample, []byte{'\n'}); lines > 0 {
			est = int(min(st.Size()*int64(lines)/int64(len(sample))*11/10+16, 1<<28))
			docLen = max(len(sample)/lines-6, 4) // a line less its qid, iter and label
		}
	}
	var (
		docs   = make([]byte, 0, est*docLen)
		off    = append(make([]int64, 0, est+1), 0)
		labels = make([]float64, 0, est)
		qOf    = make([]int32, 0, est)
		lineOf = make([]uint32, 0, est) // for the duplicate message only: 4 bytes suffice
		sorted = true                   // each query's judgments contiguous, queries in order
	)
	sc := newLineScanner(name, src)
	var fields [][]byte
	for sc.next() {
		fields = splitFields(sc.line, fields[:0])
		if len(fields) == 0 {
			continue
		}
		if len(fields) != 4 {
			return nil, fmt.Errorf("%s:%d: a qrels line has 4 fields (qid iter docno label), found %d: %w", name, sc.n, len(fields), ErrSyntax)
		}
		label, ok := parseNumber(fields[3])
		if !ok || label != label || math.IsInf(label, 0) {
			return nil, fmt.Errorf("%s:%d: label %q is not a number: %w", name, sc.n, fields[3], ErrValue)
		}
		// qrels come grouped by query: the map only sees a query's first line
		qn := int32(len(q.order) - 1)
		if len(q.order) == 0 || string(fields[0]) != q.order[qn] {
			var ok bool
			qn, ok = q.index[string(fields[0])]
			if !ok {
				qn = int32(len(q.order))
				q.index[string(fields[0])] = qn
				q.order = append(q.order, string(fields[0]))
			} else {
				sorted = false
			}
		}
		docs = append(docs, fields[2]...)
		off = append(off, int64(len(docs)))
		// A negative judgment is judged non-relevant: trec_eval never counts
		// it relevant and gives it gain 0, which is what 0 gets here.
		labels = append(labels, max(label, 0))
		qOf = append(qOf, qn)
		lineOf = append(lineOf, uint32(min(sc.n, math.MaxUint32)))
	}
	if sc.err != nil {
		return nil, sc.err
	}

	// Group by query with a counting sort, which keeps file order within a
	// query, then copy into query order.
	nq := len(q.order)
	q.start = make([]int, nq+1)
	for _, qn := range qOf {
		q.start[qn+1]++
	}
	for i := range nq {
		q.start[i+1] += q.start[i]
	}
	perm := make([]int32, len(qOf))
	if sorted {
		// the usual qrels file, grouped by query: nothing to move
		for j := range perm {
			perm[j] = int32(j)
		}
		q.docs, q.off, q.labels = docs, off, labels
	} else {
		next := append([]int(nil), q.start[:nq]...)
		for j, qn := range qOf {
			perm[next[qn]] = int32(j)
			next[qn]++
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
	qOf = nil
	q.seen = make([]bool, nq)

	// trec_eval refuses a docno judged twice for a query. Queries are
	// independent, so the check is split among the CPUs by query number,
	// and the lowest query with a duplicate is reported whatever the split.
	parts := min(runtime.GOMAXPROCS(0), max(len(q.labels)/(1<<18), 1))
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
						errs[w] = fmt.Errorf("%s:%d: docno %q judged twice for query %q (first at line %d): %w",
							name, lineOf[perm[k]], q.doc(k), q.order[qn], lineOf[perm[prev]], ErrValue)
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

func (q *Qrels) doc(k int) []byte { return q.docs[q.off[k]:q.off[k+1]] }

// Judgments returns the number of judgments loaded.
func (q *Qrels) Judgments() int { return len(q.labels) }

// Judged returns the labels of every judged document of a query, or nil
// when the qrels do not judge it.
func (q *Qrels) Judged(qid []byte) []float64 {
	if qn, ok := q.index[string(qid)]; ok {
		return q.labels[q.start[qn]:q.start[qn+1]]
	}
	return nil
}

// Unseen lists, in qrels order, the judged queries no run row has named.
func (q *Qrels) Unseen() []string {
	var out []string
	for qn, qid := range q.order {
		if !q.seen[qn] {
			out = append(out, qid)
		}
	}
	return out
}

// docTable is an open-addressing hash set of the judgments of one query,
// built when a run reaches the query and reused for the next, so the join
// costs a hash per run row and the qrels keep no per-query index.
type docTable struct {
	seed  maphash.Seed
	slots []int32 // judgment index - lo + 1; 0 = empty
	mask  uint64
}

func (t *docTable) reset(n int) {
	if t.slots == nil {
		t.seed = maphash.MakeSeed()
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
	for h := maphash.Bytes(t.seed, d) & t.mask; ; h = (h + 1) & t.mask {
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

// find returns the judgment of docno d among a query's, or -1.
func (t *docTable) find(q *Qrels, lo int, d []byte) int {
	for h := maphash.Bytes(t.seed, d) & t.mask; ; h = (h + 1) & t.mask {
		s := t.slots[h]
		if s == 0 {
			return -1
		}
		if j := lo + int(s) - 1; bytes.Equal(q.doc(j), d) {
			return j
		}
	}
}

// RunOptions tune a TREC run reader.
type RunOptions struct {
	Options
	// SkipUnjudged drops the rows of queries the qrels do not judge
	// (trec_eval and gdeval ignore them); they are counted in Skipped.
	SkipUnjudged bool
	// Skipped, when set, receives the number of queries and rows dropped.
	Skipped *SkipCount
}

// SkipCount counts what SkipUnjudged dropped.
type SkipCount struct{ Queries, Rows int64 }

// OpenRun opens a TREC run (`qid Q0 docno rank score runid`, plain, gzip or
// zstd) and joins each row's label from the qrels: an unjudged document has
// label 0. The rank column is ignored, as trec_eval ignores it.
func OpenRun(name string, qrels *Qrels, opt RunOptions) (Reader, error) {
	f, display, err := openLocal(name)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(opt.source(f), 1<<16)
	head, _ := br.Peek(4)
	if len(head) == 0 {
		f.Close()
		return nil, fmt.Errorf("%s: the run is empty (0 bytes): %w", display, ErrEmpty)
	}
	src, closeDec, err := decompress(display, br, head)
	if err != nil {
		f.Close()
		return nil, err
	}
	r := &trecRun{sc: newLineScanner(display, src), qrels: qrels, opt: opt, bs: opt.batchSize(),
		close: func() error {
			closeDec()
			if f == os.Stdin {
				return nil
			}
			return f.Close()
		}}
	r.b.Source = display
	r.b.Query.Reset()
	r.b.Doc.Reset()
	return r, nil
}

type trecRun struct {
	sc     *lineScanner
	qrels  *Qrels
	opt    RunOptions
	bs     int
	b      Batch
	err    error
	close  func() error
	fields [][]byte
	// the query of the previous row: the qrels map is consulted and the
	// join table built once per query, not per row
	lastQ   []byte
	lastQn  int // query number in the qrels, -1 when not judged
	lastHas bool
	table   docTable
}

func (r *trecRun) Batch() *Batch { return &r.b }
func (r *trecRun) Err() error    { return r.err }

func (r *trecRun) Close() error {
	if r.close == nil {
		return nil
	}
	c := r.close
	r.close = nil
	return c()
}

func (r *trecRun) Next() bool {
	if r.err != nil {
		return false
	}
	r.b.Reset()
	name := r.b.Source
	for r.b.N < r.bs && r.sc.next() {
		r.fields = splitFields(r.sc.line, r.fields[:0])
		f := r.fields
		if len(f) == 0 {
			continue
		}
		if len(f) != 6 {
			r.err = fmt.Errorf("%s:%d: a run line has 6 fields (qid Q0 docno rank score runid), found %d: %w", name, r.sc.n, len(f), ErrSyntax)
			return false
		}
		score, ok := parseNumber(f[4])
		if !ok {
			r.err = fmt.Errorf("%s:%d: score %q is not a number: %w", name, r.sc.n, f[4], ErrValue)
			return false
		}
		q := r.qrels
		if !r.lastHas || !bytes.Equal(f[0], r.lastQ) {
			r.lastQ = append(r.lastQ[:0], f[0]...)
			r.lastHas = true
			r.lastQn = -1
			if qn, ok := q.index[string(f[0])]; ok {
				r.lastQn = int(qn)
				q.seen[qn] = true
				lo, hi := q.start[qn], q.start[qn+1]
				r.table.reset(hi - lo)
				for k := lo; k < hi; k++ {
					r.table.insert(q, lo, k)
				}
			} else if r.opt.SkipUnjudged && r.opt.Skipped != nil {
				r.opt.Skipped.Queries++
			}
		}
		var label float64
		if r.lastQn >= 0 {
			if j := r.table.find(q, q.start[r.lastQn], f[2]); j >= 0 {
				label = q.labels[j]
			}
		} else if r.opt.SkipUnjudged {
			if r.opt.Skipped != nil {
				r.opt.Skipped.Rows++
			}
			continue
		}
		r.b.Query.Append(f[0])
		r.b.Doc.Append(f[2])
		r.b.Score = append(r.b.Score, score)
		r.b.Label = append(r.b.Label, label)
		r.b.Pos = append(r.b.Pos, r.sc.n)
		r.b.N++
	}
	if r.sc.err != nil {
		r.err = r.sc.err
		return false
	}
	return r.b.N > 0
}

// fieldSep marks the bytes C's isspace accepts (space, \t, \n, \v, \f,
// \r): the separators of trec_eval's sscanf-based parsing.
var fieldSep = [256]bool{' ': true, '\t': true, '\n': true, '\v': true, '\f': true, '\r': true}

const (
	ones = 0x0101010101010101
	high = 0x8080808080808080
)

// splitFields splits on white space without allocating. Splitting was the
// largest cost of reading a run, so a field's end is found eight bytes at
// a time: the lowest flagged byte of (x - 0x21…) &^ x & 0x80… is the first
// byte below '!' (borrows only flag bytes above it), and only such a byte
// can be a separator.
func splitFields(s []byte, out [][]byte) [][]byte {
	i, n := 0, len(s)
	for i < n {
		if fieldSep[s[i]] {
			i++
			continue
		}
		j := i + 1
	scan:
		for {
			for j+8 <= n {
				x := binary.LittleEndian.Uint64(s[j:])
				if m := (x - 0x21*ones) &^ x & high; m != 0 {
					j += bits.TrailingZeros64(m) >> 3
					break
				}
				j += 8
			}
			for ; j < n; j++ {
				if s[j] < '!' {
					break
				}
			}
			if j >= n || fieldSep[s[j]] {
				break scan
			}
			j++ // a control byte that is not white space belongs to the field
		}
		out = append(out, s[i:j])
		i = j + 1
	}
	return out
}

// lineScanner yields lines with their 1-based numbers and turns a read
// failure into an error naming the file and line.
type lineScanner struct {
	name string
	br   *bufio.Reader
	line []byte
	n    int64
	err  error
}

func newLineScanner(name string, r io.Reader) *lineScanner {
	return &lineScanner{name: name, br: bufio.NewReaderSize(r, 1<<20)}
}

func (s *lineScanner) next() bool {
	if s.err != nil {
		return false
	}
	line, err := s.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		s.err = fmt.Errorf("%s:%d: line longer than 1 MiB: %w", s.name, s.n+1, ErrSyntax)
		return false
	}
	if err != nil && err != io.EOF {
		s.err = readError(s.name, s.n+1, err)
		return false
	}
	if len(line) == 0 && err == io.EOF {
		return false
	}
	s.n++
	for len(line) > 0 && (line[len(line)-1] == '\n' || line[len(line)-1] == '\r') {
		line = line[:len(line)-1]
	}
	s.line = line
	return true
}
