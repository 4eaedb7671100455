package trec

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"sync"
	"unsafe"

	"github.com/rankeval/rankeval/reader/internal/scan"
)

// A large plain qrels file is loaded in pieces at once (readQrels): where
// the pieces are cut (qrelsCuts, between two judgment lines of different
// queries), their parse on as many goroutines into shares of arrays sized
// for the whole file (parseQrelsParts, qrelsArrays), and the join that
// moves them together (joinQrels).

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
		fs = scan.SplitFields(line, fs[:0])
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
