package metrics

import (
	"cmp"
	"math"
	"slices"

	"github.com/rankeval/rankeval/internal/pmath"
)

// Evaluator computes a fixed metric list query after query. Its scratch
// buffers grow to the largest list seen and are then reused, so Eval does
// not allocate in the steady state. An Evaluator is not safe for concurrent
// use; give each worker its own.
type Evaluator struct {
	ms []Metric
	o  Options
	// split, when some metric has conventions of its own, evaluates each
	// set of conventions apart; the fields below are then unused
	split *split

	invG    float64 // 2^-G, so that R_i = (2^y - 1) * invG
	ranked  bool    // some metric needs the ranking (all but the correlations)
	ideal   bool    // some metric needs the ideal ranking (ndcg, nerr)
	corr    bool    // some metric is a correlation
	corrCut bool    // some correlation cuts the list, so it needs the sorted order
	wantERR bool    // the ERR sums (and their DP under TiesAverage) are needed
	own     bool    // some metric is computed apart (trecm.go)
	clicks  bool    // some metric is a click metric (clicks.go)
	ips     bool    // some metric is an IPS estimate: the click weight is kept
	ipsDCG  bool    // some IPS estimate is discounted
	pair    bool    // some metric compares two rankings (similarity.go)
	nRanked int     // the rows of the ranking last evaluated (AppendRanking)

	ents  []ent
	sorts sortScratch // the radix sort's scratch
	y     []float64   // labels in ranked order
	tie   []bool      // tie[p]: position p is tied with p-1 (TiesAverage only)
	iy    []float64   // ideal labels, descending
	disc  []float64   // disc[p] = 1/log2(p+2), the DCG discount of 0-based position p
	xs    []float64   // 1 - R_i of the rows of one tied group
	gs    []float64   // one tied group's labels in ascending order
	mdp   []float64   // M_t of the ERR DP
	pos   []int       // per metric: its cut position in the ranking (0 = nothing)
	ipos  []int       // per metric: its cut position in the ideal ranking
	cuts  []int
	icuts []int
	snap  []acc
	isnap []acc
	pts   []pt
	ky    []float64
	ktmp  []float64
	ip    []iprecCut
	par   []trecParam // per metric: its Param, read
	rels  bool        // some metric reads trec_eval's ranked judgments (trecrels.go)
	tr    trecRels
	gt    []relGain // a gain table (trecgain.go), its sort's scratch
	gtmp  []relGain
	gl    []float64  // the table's gains by judgment, from relUnjudged
	lg    []float64  // lg[k] = log2(k)
	pws   []powTable // the powers of rbp's persistences (trecrels.go)
	gp    []int32    // positions gaining under a gain table (gainPos), from 0
	gpOK  bool       // gp is the table's
	// the gain table built last is for this Param, in this query (gtOK)
	gtFor string
	gtOK  bool
	st    []Judgment // per rank: the row's judgment, nil when every row is judged (rankedRows)
	rpos  []int32    // the positions of the relevant rows, from 0 (rankedRows)
	rb    []bool     // per rank: the row is relevant (relRow)
	jc    []uint8    // per rank: judgedRow | relevantRow (rankedRows)
	stBuf []Judgment
	cgs   []clickGroup
	// each item's 1-based rank in the two rankings compared, 0 for none
	// (similarity.go)
	posA, posB []int32
	// the click weight of the query last evaluated, and its clicks clipped
	// (ClickWeight)
	weight  float64
	clipped int
}

// ent is one row in the sort that builds the ranking. key orders the rows
// best first whether they come by score or by rank, so one integer
// comparison does the work of either.
type ent struct {
	key uint64
	i   int32 // input index: makes the unstable sort stable
}

func cmpEnt(a, b ent) int {
	switch {
	case a.key < b.key:
		return -1
	case a.key > b.key:
		return 1
	}
	return cmp.Compare(a.i, b.i)
}

func sameKey(a, b ent) bool { return a.key == b.key }

// scoreKey maps a score to a key that sorts ascending as the score
// descends (the usual sign-flip trick on IEEE bits).
func scoreKey(f float64) uint64 {
	if f == 0 {
		f = 0 // -0 must tie with +0
	}
	b := math.Float64bits(f)
	if b>>63 != 0 {
		b = ^b
	} else {
		b |= 1 << 63
	}
	return ^b
}

// rankKey maps a rank to a key that sorts as the rank does.
func rankKey(r int64) uint64 { return uint64(r) ^ 1<<63 }

// acc holds the running sums of a sweep down a ranking; a snapshot taken at
// a cut position answers every metric cut there. Under TiesAverage each sum
// is already an expectation.
type acc struct {
	rel float64 // relevant rows so far
	cg  float64
	dcg float64
	ap  float64 // Σ b_i·prec_i, not yet divided by R
	rr  float64
	hit float64
	err float64
}

// NewEvaluator returns an Evaluator for ms under o. ms is copied. A
// metric with conventions of its own (Metric.Conv: a measure named in
// ir_measures' syntax) is computed under them (split.go).
func NewEvaluator(ms []Metric, o Options) *Evaluator {
	if s := newSplit(ms, o); s != nil {
		return &Evaluator{ms: slices.Clone(ms), o: o, split: s}
	}
	return newEvaluator(ms, o)
}

// newEvaluator returns an Evaluator for ms, all under o.
func newEvaluator(ms []Metric, o Options) *Evaluator {
	e := &Evaluator{ms: slices.Clone(ms), o: o, invG: pmath.Exp2(-o.MaxGrade)}
	for _, m := range ms {
		nd := families[m.Kind].needs
		if nd&needScores != 0 {
			e.corr = true
			e.corrCut = e.corrCut || m.K > 0
			continue
		}
		e.ranked = true
		e.own = e.own || nd&needOwn != 0
		e.clicks = e.clicks || nd&needClicks != 0
		e.ips = e.ips || nd&needProp != 0
		e.ipsDCG = e.ipsDCG || m.Kind == KindIPSDCG || m.Kind == KindSNIPSDCG
		e.ideal = e.ideal || nd&needIdeal != 0
		e.pair = e.pair || nd&needPair != 0
		e.wantERR = e.wantERR || nd&needERR != 0
	}
	e.par = make([]trecParam, len(ms))
	for j, m := range ms {
		p, err := readParam(m)
		if err != nil {
			panic("metrics: " + err.Error() + " (CheckParam first)")
		}
		e.par[j] = p
		e.rels = e.rels || families[m.Kind].needs&needRels != 0
	}
	e.pos = make([]int, len(ms))
	e.ipos = make([]int, len(ms))
	e.snap = make([]acc, len(ms))
	e.isnap = make([]acc, len(ms))
	return e
}

func (e *Evaluator) rel(y float64) bool { return e.o.Relevant(y) }

// countRel counts the relevant labels among judged (a query's R); under
// qrels (negative) a negative judgment is never relevant, whatever the
// threshold. The count is taken without a branch on the label, which a
// query's random mix of grades mispredicted.
func (e *Evaluator) countRel(judged []float64, negative bool) int {
	n := 0
	if !e.o.HasThreshold {
		for _, v := range judged {
			if v > 0 { // never a negative judgment, -0
				n++
			}
		}
		return n
	}
	thr := e.o.RelThreshold
	for _, v := range judged {
		if v >= thr {
			n++
		}
	}
	if negative && thr <= 0 {
		for _, v := range judged {
			if negativeJudgment(v) {
				n--
			}
		}
	}
	return n
}

// relRow reports whether row i of l is relevant: its label passes the
// threshold, but for a row the qrels do not judge, or judge negatively,
// which is relevant only when trec_eval's codes for them (-1, -2) pass it
// (at a threshold of -1 or less, which trec_eval's -l allows).
func (e *Evaluator) relRow(l *List, i int32) bool {
	if l.Status != nil {
		switch l.Status[i] {
		case Unjudged:
			return e.rel(relNonpool)
		case JudgedOut:
			return e.rel(relUnjudged)
		}
	}
	return e.rel(l.Label[i])
}

// grow returns s resized to n, reallocating only when its capacity is short.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/4)
	}
	return s[:n]
}

// cutAt is the number of ranked rows a cutoff k covers in a list of n.
func cutAt(k, n int) int {
	if k == 0 || k > n {
		return n
	}
	return k
}

// Absent writes into out (one value per metric) the values of a query a
// run lacks (--complete, --missing zero), whose judgments are judged (nil
// when none are known): each metric's Missing, but num_rel, which is the
// query's R whether a run ranks it or not, counted as for a ranked query,
// as trec_eval -c counts it.
func (e *Evaluator) Absent(judged []float64, out []float64) {
	if e.split != nil {
		e.split.absent(judged, out)
		return
	}
	for j, m := range e.ms {
		out[j] = m.Missing()
		if m.Kind == KindNumRel && judged != nil {
			out[j] = float64(e.countRel(judged, true))
		}
	}
}

// Eval writes one value per metric into out (len(out) == len(ms));
// math.NaN() means undefined (left out of means). It reports whether the
// query is empty (R = 0). Under EmptySkip every non-correlation metric of an
// empty query is NaN; EmptyZero -> 0; EmptyOne -> 1; under EmptyError values
// are unspecified (caller fails the run). kendall/spearman ignore the empty
// policy.
func (e *Evaluator) Eval(l *List, out []float64) (empty bool) {
	if e.split != nil {
		return e.split.eval(l, out)
	}
	n := len(l.Label)
	judged := l.Label
	if l.Judged != nil {
		judged = l.Judged
	}
	nRel := e.countRel(judged, l.Judged != nil)
	empty = nRel == 0
	skip := empty && !e.o.NoEmpty // the empty-query policy gives the values
	work := e.ranked && !skip
	apart := e.own || e.clicks || e.pair // metrics computed apart, whether the query is empty or not
	if work || e.corr || apart {
		e.order(l, work || e.corrCut || apart)
	}
	if e.corr {
		e.correlations(l, out)
	}
	if !e.ranked {
		return empty
	}
	if work || apart {
		n = e.keep(l, n)
	}
	e.nRanked = n
	if e.pair {
		for j, m := range e.ms {
			if m.Pair() {
				out[j] = math.NaN() // Similarity's, for a candidate
			}
		}
	}
	broken := apart // the whole ranking's ties are broken: the sweep need not again
	if apart {
		e.breakTies(l, n) // they read the whole ranking
	}
	if e.own {
		e.rankedRows(l, n)
		e.ownValues(l, n, nRel, judged, out)
	}
	if e.clicks {
		e.clickValues(l, n, out)
	}
	if skip {
		v := emptyValue(e.o.Empty)
		for j, m := range e.ms {
			if m.FollowsEmpty() && !((m.Kind == KindIPrec || m.Kind == Kind11pt) && n == 0) { // ownValues has it
				out[j] = v
				if m.Geometric() {
					out[j] = geoTerm(v)
				}
			}
		}
		return empty
	}

	e.cuts, e.icuts = e.cuts[:0], e.icuts[:0]
	var lims, ilims sweepLims
	for j, m := range e.ms {
		f := &families[m.Kind]
		if f.needs&(needScores|needOwn|needClicks|needPair) != 0 {
			continue
		}
		p := cutAt(m.K, n)
		if f.cut == cutAtR {
			p = min(nRel, n)
		}
		e.pos[j] = p
		if p > 0 {
			e.cuts = append(e.cuts, p)
		}
		lims.need(f.needs, p)
		if f.needs&needIdeal != 0 {
			ip := cutAt(m.K, len(judged))
			e.ipos[j] = ip
			if ip > 0 {
				e.icuts = append(e.icuts, ip)
			}
			ilims.need(f.needs, ip)
		}
	}
	slices.Sort(e.cuts)
	e.cuts = slices.Compact(e.cuts)
	slices.Sort(e.icuts)
	e.icuts = slices.Compact(e.icuts)
	e.growDisc(max(n, len(judged)))

	if len(e.cuts) > 0 {
		lim := e.cuts[len(e.cuts)-1]
		if !broken {
			e.breakTies(l, lim)
		}
		if !e.own { // else rankedRows has
			e.y, e.rb = grow(e.y, n), grow(e.rb, n)
			for p, en := range e.ents[:n] {
				e.y[p] = l.Label[en.i]
				e.rb[p] = e.relRow(l, en.i)
			}
		}
		var tie []bool
		if e.o.Ties == TiesAverage {
			e.tie = grow(e.tie, n)
			for p := 1; p < n; p++ {
				e.tie[p] = sameKey(e.ents[p-1], e.ents[p])
			}
			tie = e.tie
		}
		e.sweep(e.y, e.rb, tie, e.cuts, e.snap, lims)
	}
	if e.ideal && len(e.icuts) > 0 {
		e.idealLabels(judged, e.icuts[len(e.icuts)-1])
		e.sweep(e.iy, nil, nil, e.icuts, e.isnap, ilims)
	}

	fR := float64(nRel)
	var none acc
	for j := range e.ms {
		m := &e.ms[j]
		nd := families[m.Kind].needs
		if nd&(needScores|needOwn|needClicks|needPair) != 0 {
			continue
		}
		a, ia := &none, &none
		if p := e.pos[j]; p > 0 {
			a = &e.snap[cutIndex(e.cuts, p)]
		}
		if p := e.ipos[j]; p > 0 && nd&needIdeal != 0 {
			ia = &e.isnap[cutIndex(e.icuts, p)]
		}
		out[j] = value(m, a, ia, fR)
	}
	return empty
}

// rankedRows sets e.y and e.st to the labels and judgments of the first n
// rows of the ranking (e.st nil when l has none), and e.rpos to the
// positions of its relevant rows, which the measures computed apart walk.
func (e *Evaluator) rankedRows(l *List, n int) {
	e.y, e.rb, e.jc = grow(e.y, n), grow(e.rb, n), grow(e.jc, n)
	e.rpos = e.rpos[:0]
	e.st = nil
	if l.Status != nil {
		e.stBuf = grow(e.stBuf, n)
		e.st = e.stBuf
	}
	// Without a branch on a row's judgment or relevance, which a ranking's
	// random mix of them mispredicted: relRow's cases as selects (a row
	// trec_eval codes, unjudged or judged out, is relevant as its code is,
	// the same for every such row), the relevant positions written at k
	// and k advanced by 0 or 1.
	var codeRel [JudgedOut + 1]uint8
	codeRel[Unjudged], codeRel[JudgedOut] = b2u(e.rel(relNonpool)), b2u(e.rel(relUnjudged))
	rpos := grow(e.rpos, n)
	k := 0
	for p, en := range e.ents[:n] {
		y := l.Label[en.i]
		e.y[p] = y
		st := Judged
		if e.st != nil {
			st = l.Status[en.i]
			e.st[p] = st
		}
		judged := b2u(st == Judged)
		rb := b2u(e.rel(y))&judged | codeRel[st]
		e.rb[p] = rb != 0
		e.jc[p] = judged*judgedRow | rb*relevantRow
		rpos[k] = int32(p)
		k += int(rb)
	}
	e.rpos = rpos[:k]
	if e.rels {
		e.tr.fill(e.y[:n], e.st)
	}
}

// b2u is 1 for true, 0 for false (a SETcc, not a branch).
func b2u(b bool) uint8 {
	var u uint8
	if b {
		u = 1
	}
	return u
}

// The bits of e.jc, a row's class for bpref and the judged counts.
const (
	judgedRow   = 1 << iota // judged (a label, not a negative judgment), or every row of a log
	relevantRow             // relevant
)

// nonrelAt is 1 when a row of class c is judged and not relevant, else 0:
// counted without a branch, which a ranking's random mix of classes would
// mispredict.
func nonrelAt(c uint8) int { return int(c & ^(c >> 1) & judgedRow) }

// keep applies Options.MaxRanked and Options.JudgedOnly to the ranking in
// e.ents (sorted), in trec_eval's order: the cut first, then the unjudged
// rows out. It returns the rows left, which e.ents then holds.
func (e *Evaluator) keep(l *List, n int) int {
	if m := e.o.MaxRanked; m > 0 && n > m {
		e.breakTies(l, m) // the cut must fall where the tie policy puts it
		n = m
	}
	if e.o.JudgedOnly && l.Status != nil {
		k := 0
		for _, en := range e.ents[:n] {
			if l.Status[en.i] == Judged {
				e.ents[k] = en
				k++
			}
		}
		n = k
	}
	e.ents = e.ents[:n]
	return n
}

// idealLabels sets e.iy[:lim] to the lim largest labels, descending. Graded
// labels are small non-negative integers, so a count per grade replaces a
// sort of the whole list; other labels are sorted.
func (e *Evaluator) idealLabels(judged []float64, lim int) {
	var cnt [64]int32
	top := 0
	for _, v := range judged {
		g := int(v)
		if float64(g) != v || g < 0 || g >= len(cnt) { // fractions, NaN, large or negative grades
			e.iy = append(e.iy[:0], judged...)
			slices.Sort(e.iy)
			slices.Reverse(e.iy)
			return
		}
		cnt[g]++
		top = max(top, g)
	}
	e.iy = grow(e.iy, lim)
	p := 0
	for g := top; g >= 0 && p < lim; g-- {
		for c := cnt[g]; c > 0 && p < lim; c-- {
			e.iy[p] = float64(g)
			p++
		}
	}
}

func cutIndex(cuts []int, p int) int {
	i, _ := slices.BinarySearch(cuts, p)
	return i
}

func (e *Evaluator) growDisc(n int) {
	for p := len(e.disc); p < n; p++ {
		e.disc = append(e.disc, 1/pmath.Log2(float64(p+2)))
	}
}

// order fills e.ents with the rows sorted by key, ties in input order (the
// TiesInput ranking, which the correlations' cutoffs also use). Without
// sorting it leaves them in input order, which is enough for correlations
// over the whole list.
func (e *Evaluator) order(l *List, sorted bool) {
	n := len(l.Label)
	e.ents = grow(e.ents, n)
	for i := range e.ents {
		en := ent{i: int32(i)}
		if l.Rank != nil {
			en.key = rankKey(l.Rank[i])
		} else {
			en.key = scoreKey(l.Score[i])
		}
		e.ents[i] = en
	}
	if sorted {
		sortEnts(e.ents, &e.sorts)
	}
}

// breakTies reorders each group of equal keys that starts above lim by the
// tie policy; TiesInput and TiesAverage keep the input order.
func (e *Evaluator) breakTies(l *List, lim int) {
	if lim == 0 {
		return // nothing ranked (an empty list reads no doc ids)
	}
	var by func(a, b ent) int
	switch e.o.Ties {
	case TiesTrec:
		if l.Doc == nil {
			panic("metrics: TiesTrec needs List.Doc")
		}
		by = func(a, b ent) int { return compareDocs(l.Doc[b.i], l.Doc[a.i]) }
	case tiesDocAscending:
		if l.Doc == nil {
			panic("metrics: tiesDocAscending needs List.Doc")
		}
		by = func(a, b ent) int { return compareDocs(l.Doc[a.i], l.Doc[b.i]) }
	case TiesOptimistic:
		by = func(a, b ent) int { return cmp.Compare(l.Label[b.i], l.Label[a.i]) }
	case TiesPessimistic:
		by = func(a, b ent) int { return cmp.Compare(l.Label[a.i], l.Label[b.i]) }
	default:
		return
	}
	ents := e.ents
	for s := 0; s < lim; {
		end := s + 1
		for end < len(ents) && sameKey(ents[s], ents[end]) {
			end++
		}
		if g := ents[s:end]; len(g) > 12 {
			slices.SortFunc(g, func(a, b ent) int {
				if c := by(a, b); c != 0 {
					return c
				}
				return cmp.Compare(a.i, b.i)
			})
		} else {
			// most tied groups are a few rows: an insertion sort calls by
			// once a comparison, cheaper there than SortFunc's generic
			// path (index order breaks by's ties, so any sort gives the
			// one order)
			for i := 1; i < len(g); i++ {
				for j := i; j > 0; j-- {
					if c := by(g[j], g[j-1]); c > 0 || c == 0 && g[j].i > g[j-1].i {
						break
					}
					g[j], g[j-1] = g[j-1], g[j]
				}
			}
		}
		s = end
	}
}
