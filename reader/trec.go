package reader

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Qrels holds every judgment of a TREC qrels file (`qid iter docno label`).
// It is held in memory, compactly: per query one buffer of sorted docnos,
// their offsets and labels, about 12 bytes a judgment plus the docno itself.
// After loading it is only read, except for the marks Seen sets, which the
// single run reader makes.
type Qrels struct {
	Name    string
	queries map[string]*judged
	order   []string // query ids in file order
	n       int
}

type judged struct {
	docs   Strings // sorted byte-wise
	labels []float64
	seen   bool
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

	type entry struct {
		doc   string
		label float64
		line  int64
	}
	building := map[string][]entry{}
	q := &Qrels{Name: name, queries: map[string]*judged{}}
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
		label, err := strconv.ParseFloat(string(fields[3]), 64)
		if err != nil || label != label {
			return nil, fmt.Errorf("%s:%d: label %q is not a number: %w", name, sc.n, fields[3], ErrValue)
		}
		// A negative judgment is judged non-relevant: trec_eval never counts
		// it relevant and gives it gain 0, which is what 0 gets here.
		label = max(label, 0)
		qid := string(fields[0])
		if _, ok := building[qid]; !ok {
			q.order = append(q.order, qid)
		}
		building[qid] = append(building[qid], entry{string(fields[2]), label, sc.n})
		q.n++
	}
	if sc.err != nil {
		return nil, sc.err
	}
	for qid, es := range building {
		slices.SortStableFunc(es, func(a, b entry) int {
			if c := strings.Compare(a.doc, b.doc); c != 0 { // byte-wise, as bytes.Compare
				return c
			}
			return int(a.line - b.line)
		})
		j := &judged{labels: make([]float64, 0, len(es))}
		j.docs.Reset()
		for i, e := range es {
			if i > 0 && es[i-1].doc == e.doc {
				return nil, fmt.Errorf("%s:%d: docno %q judged twice for query %q (first at line %d): %w", name, e.line, e.doc, qid, es[i-1].line, ErrValue)
			}
			j.docs.Append([]byte(e.doc))
			j.labels = append(j.labels, e.label)
		}
		q.queries[qid] = j
	}
	return q, nil
}

// Judgments returns the number of judgments loaded.
func (q *Qrels) Judgments() int { return q.n }

// Judged returns the labels of every judged document of a query, or nil
// when the qrels do not judge it.
func (q *Qrels) Judged(qid []byte) []float64 {
	if j, ok := q.queries[string(qid)]; ok {
		return j.labels
	}
	return nil
}

func (q *Qrels) lookup(qid []byte) *judged { return q.queries[string(qid)] }

// Unseen lists, in qrels order, the judged queries no run row has named.
func (q *Qrels) Unseen() []string {
	var out []string
	for _, qid := range q.order {
		if !q.queries[qid].seen {
			out = append(out, qid)
		}
	}
	return out
}

// label returns the judgment of doc, or 0 for an unjudged document.
func (j *judged) label(doc []byte) float64 {
	n := len(j.labels)
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if bytes.Compare(j.docs.At(m), doc) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < n && bytes.Equal(j.docs.At(lo), doc) {
		return j.labels[lo]
	}
	return 0
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
	var f *os.File
	display := name
	if name == Stdin {
		f, display = os.Stdin, "<stdin>"
	} else {
		var err error
		if f, err = os.Open(name); err != nil {
			return nil, err
		}
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
	// the query of the previous row and its judgments, so the map is
	// consulted once per query, not per row
	lastQ   []byte
	lastJ   *judged
	lastHas bool
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
		if !r.lastHas || !bytes.Equal(f[0], r.lastQ) {
			r.lastQ = append(r.lastQ[:0], f[0]...)
			r.lastJ = r.qrels.lookup(f[0])
			r.lastHas = true
			if r.lastJ != nil {
				r.lastJ.seen = true
			} else if r.opt.SkipUnjudged && r.opt.Skipped != nil {
				r.opt.Skipped.Queries++
			}
		}
		var label float64
		if r.lastJ != nil {
			label = r.lastJ.label(f[2])
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

// splitFields splits on ASCII white space without allocating.
func splitFields(s []byte, out [][]byte) [][]byte {
	i := 0
	for i < len(s) {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		j := i
		for j < len(s) && !isSpace(s[j]) {
			j++
		}
		if j > i {
			out = append(out, s[i:j])
		}
		i = j
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
	s.line = bytes.TrimRight(line, "\r\n")
	return true
}
