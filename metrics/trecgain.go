package metrics

import (
	"math"
	"slices"

	"github.com/rankeval/rankeval/internal/pmath"
)

// trec_eval's gain table (its gain_init.c, and setup_gains in 9.0.8's
// m_ndcg.c) and the measures that read it: G, ndcg, dcg and ideal_dcg
// under a table of gains, ndcg_rel, Rndcg and rbp. A measure's Param
// gives pairs level=gain; every level from 0 to the query's highest
// judged one that has no pair gains its own number. The table is sorted
// by gain, and its ideal ranking takes the judged documents from the
// highest gain down while the gain is above 0.

// relGain is one entry of a query's gain table: the documents judged at
// level (count of them) and their gain.
type relGain struct {
	level, count int64
	gain         float64
}

// gainTable builds metric j's table for the query e.tr holds, into e.gt;
// e.gainOf then gives the gain of a ranked document's judgment.
func (e *Evaluator) gainTable(j int) []relGain {
	if e.gtOK && e.gtFor == e.ms[j].Param {
		return e.gt // several measures read the same table (all_trec's default)
	}
	e.gtFor, e.gtOK, e.gpOK = e.ms[j].Param, true, false
	t := &e.tr
	g := e.gt[:0]
	for _, p := range e.par[j].gains {
		g = append(g, relGain{level: p.Level, gain: p.Gain})
	}
	add := func(level, count int64) {
		for k := range g {
			if g[k].level == level {
				g[k].count = count
				return
			}
		}
		g = append(g, relGain{level: level, count: count, gain: float64(level)})
	}
	for lv, c := range t.levels {
		add(int64(lv), c)
	}
	for _, s := range t.sparse {
		add(s.level, s.count)
	}
	e.gtmp = msortGains(g, e.gtmp)
	e.gt = g
	// the gains of the judgments a ranked document can have: the codes
	// and the dense levels; a sparse level is looked up
	e.gl = grow(e.gl, len(t.levels)+2)
	for i := range e.gl {
		e.gl[i] = lookupGain(g, int64(i)+relUnjudged)
	}
	return g
}

// lookupGain is trec_eval's get_gain: the gain of the first entry at the
// level, in the table's sorted order; 0 when none is.
func lookupGain(g []relGain, level int64) float64 {
	for _, r := range g {
		if r.level == level {
			return r.gain
		}
	}
	return 0
}

// gainOf is the gain of the document at rank i under the table gainTable
// built last.
func (e *Evaluator) gainOf(i int) float64 {
	r := e.tr.rel[i]
	// unsigned: the level of a judgment past int64's range (MaxInt64)
	// wraps below 0 once offset, and must be looked up, not indexed
	if k := uint64(r - relUnjudged); k < uint64(len(e.gl)) {
		return e.gl[k]
	}
	return lookupGain(e.gt, r)
}

// gainPos is the positions from i0 on whose document gains something
// under the table gainTable built last: a judged document's, or every one
// when the table gains documents outside the pool (a level -1). The
// measures walk the ranking rank by rank while the ideal ranking lasts,
// then only these.
func (e *Evaluator) gainPos(i0 int) []int32 {
	if !e.gpOK {
		t := &e.tr
		e.gp, e.gpOK = e.gp[:0], true
		// the candidates: every position, those in the qrels, or (when
		// the codes and level 0 gain nothing, as by default) those judged
		// above 0
		switch {
		case e.gl[relNonpool-relUnjudged] != 0:
			for i := range t.numRet {
				if e.gainOf(i) != 0 {
					e.gp = append(e.gp, int32(i))
				}
			}
		case e.gl[0] != 0 || len(e.gl) > -relUnjudged && e.gl[-relUnjudged] != 0: // a code, or level 0
			for _, p := range t.jpos {
				if e.gainOf(int(p)) != 0 {
					e.gp = append(e.gp, p)
				}
			}
		default:
			for _, p := range t.ppos {
				if e.gainOf(int(p)) != 0 {
					e.gp = append(e.gp, p)
				}
			}
		}
	}
	k, _ := slices.BinarySearch(e.gp, int32(i0))
	return e.gp[k:]
}

// cmpGain is trec_eval's comp_rel_gain: the difference of the gains,
// converted to a C int (truncated; x86's "integer indefinite", the least
// int, when it does not fit).
func cmpGain(a, b *relGain) int {
	d := a.gain - b.gain
	if !(d > -2147483649 && d < 2147483648) {
		return math.MinInt32
	}
	return int(d)
}

// msortGains sorts g as glibc's qsort does for a small array (Msort), by
// cmpGain: gains less than 1 apart compare equal, so the order trec_eval
// sees is this algorithm's, not an order of the gains. tmp is scratch
// space, returned for reuse.
func msortGains(g, tmp []relGain) []relGain { return Msort(g, tmp, cmpGain) }

// Msort sorts s as glibc's qsort does for a small array, a top-down merge
// sort (msort_with_tmp: halves of n/2 and the rest, the left's element
// first unless cmp says it is greater), by cmp. For a comparison that is
// not an order (trec_eval's comp_double, to which a NaN equals everything;
// cmpGain) the result is this algorithm's, as trec_eval sees it. tmp is
// scratch space, returned for reuse.
func Msort[T any](s, tmp []T, cmp func(a, b *T) int) []T {
	tmp = grow(tmp, len(s))
	var sort func(b []T)
	sort = func(b []T) {
		n := len(b)
		if n <= 1 {
			return
		}
		n1 := n / 2
		b1, b2 := b[:n1], b[n1:]
		sort(b1)
		sort(b2)
		t := tmp[:0]
		for len(b1) > 0 && len(b2) > 0 {
			if cmp(&b1[0], &b2[0]) <= 0 {
				t, b1 = append(t, b1[0]), b1[1:]
			} else {
				t, b2 = append(t, b2[0]), b2[1:]
			}
		}
		t = append(t, b1...)
		copy(b, t) // b2's rest is in place
	}
	sort(s)
	return tmp
}

// idealGains walks a gain table's ideal ranking: gain is the ideal gain
// at the position next gave last (the highest gain before the first).
type idealGains struct {
	g    []relGain
	cur  int
	n    int64
	gain float64
}

func newIdeal(g []relGain) idealGains {
	it := idealGains{g: g, cur: len(g) - 1}
	if it.cur >= 0 {
		it.gain = g[it.cur].gain
	}
	return it
}

// next moves to the next position of the ideal ranking and returns its
// gain, trec_eval's num_at_level and cur_level steps.
func (it *idealGains) next() float64 {
	it.n++
	for it.cur >= 0 && it.n > it.g[it.cur].count {
		it.n = 1
		it.cur--
		it.gain = 0
		if it.cur >= 0 {
			it.gain = it.g[it.cur].gain
		}
	}
	return it.gain
}

// log2 is math.Log2 of the whole number k, from a table.
func (e *Evaluator) log2(k int) float64 {
	for len(e.lg) <= k {
		e.lg = append(e.lg, pmath.Log2(float64(len(e.lg))))
	}
	return e.lg[k]
}

// discount is trec_eval's log2(i + 2) of the document at rank i + 1.
func (e *Evaluator) discount(i int) float64 { return e.log2(i + 2) }

// gainValue is the value of metric j, m, of a family that reads a gain
// table.
func (e *Evaluator) gainValue(j int, m *Metric) float64 {
	g := e.gainTable(j)
	n := e.tr.numRet
	switch m.Kind {
	case KindGainNDCG, KindGainDCG, KindGainIDCG:
		dcg, ideal := e.gainDCG(g, n)
		switch m.Kind {
		case KindGainDCG:
			return dcg
		case KindGainIDCG:
			return ideal
		}
		if ideal > 0 {
			return dcg / ideal
		}
		return 0
	case KindNDCGRel:
		return e.ndcgRel(g, n)
	case KindRNDCG:
		return e.rndcg(g, n)
	case KindG:
		return e.gG(g, n)
	case KindRBP:
		return e.rbp(g, n, m.Beta)
	}
	panic("metrics: no trec_eval measure of kind " + families[m.Kind].help)
}

// gainDCG is m_ndcg.c's dcg of the ranking and of its ideal.
func (e *Evaluator) gainDCG(g []relGain, n int) (dcg, ideal float64) {
	it := newIdeal(g)
	i := 0
	for ; i < n && it.gain > 0; i++ {
		if rg := e.gainOf(i); rg != 0 {
			dcg += rg / e.discount(i)
		}
		if ig := it.next(); ig > 0 {
			ideal += ig / e.discount(i)
		}
	}
	for _, p := range e.gainPos(i) {
		dcg += e.gainOf(int(p)) / e.discount(int(p))
	}
	for i = max(i, n); it.gain > 0; i++ {
		if ig := it.next(); ig > 0 {
			ideal += ig / e.discount(i)
		}
	}
	return dcg, ideal
}

// ndcgRel is m_ndcg_rel.c's: the ndcg at each relevant (positive gain)
// document ranked, and at the ranking's end for each one not ranked,
// averaged over the ideal ranking's positive gains.
func (e *Evaluator) ndcgRel(g []relGain, n int) float64 {
	it := newIdeal(g)
	var dcg, ideal, sum float64
	var numRel, numRelRet int64
	i := 0
	for ; i < n && it.gain > 0; i++ {
		rg := e.gainOf(i)
		if rg != 0 {
			dcg += rg / e.discount(i)
		}
		if ig := it.next(); ig > 0 {
			numRel++
			ideal += ig / e.discount(i)
		}
		if rg > 0 {
			sum += dcg / ideal
			numRelRet++
		}
	}
	for _, p := range e.gainPos(i) {
		rg := e.gainOf(int(p))
		dcg += rg / e.discount(int(p))
		if rg > 0 {
			sum += dcg / ideal
			numRelRet++
		}
	}
	for i = max(i, n); it.gain > 0; i++ {
		if ig := it.next(); ig > 0 {
			numRel++
			ideal += ig / e.discount(i)
		}
	}
	sum += float64(float64(numRel-numRelRet)*dcg) / ideal
	if sum > 0 {
		return sum / float64(numRel)
	}
	return 0
}

// rndcg is m_Rndcg.c's: the ndcg at each rank where the ideal gain
// changes, and at the ranking's end, averaged; 0 when R is 0.
func (e *Evaluator) rndcg(g []relGain, n int) float64 {
	if e.tr.numRel == 0 {
		return 0
	}
	it := newIdeal(g)
	old := it.gain
	var dcg, ideal, sum float64
	var changed int64
	at := func() {
		if old != it.gain {
			if ideal > 0 {
				sum += dcg / ideal
				changed++
			}
			old = it.gain
		}
	}
	i := 0
	for ; i < n && it.gain > 0; i++ {
		rg := e.gainOf(i)
		it.next()
		at()
		if rg != 0 {
			dcg += rg / e.discount(i)
		}
		if it.gain > 0 {
			ideal += it.gain / e.discount(i)
		}
	}
	if i < n {
		for _, p := range e.gainPos(i) {
			dcg += e.gainOf(int(p)) / e.discount(int(p))
		}
		if ideal > 0 {
			sum += dcg / ideal
			changed++
		}
		i = n
	}
	for ; it.gain > 0; i++ {
		it.next()
		at()
		if it.gain > 0 {
			ideal += it.gain / e.discount(i)
		}
	}
	return sum / float64(changed)
}

// gG is m_G.c's G: each ranked gain discounted by the log of the cost so
// far (the ideal gains, at least 1 a document) less the gains so far,
// over the sum of the ideal gains.
func (e *Evaluator) gG(g []relGain, n int) float64 {
	const minCost = 1.0
	it := newIdeal(g)
	var resultsG, sumResults, sumIdeal, sumCost float64
	i := 0
	for ; i < n && it.gain > 0; i++ {
		rg := e.gainOf(i)
		sumResults += rg
		ig := it.next()
		if ig > 0 {
			sumIdeal += ig
		}
		if ig >= minCost {
			sumCost += ig
		} else {
			sumCost += minCost
		}
		if rg != 0 {
			resultsG += rg / pmath.Log2(2+sumCost-sumResults)
		}
	}
	// past the ideal ranking the cost grows by 1 a rank, and a document
	// without gain adds nothing else: with a cost that is a whole number
	// (whole gains), every sum of trec_eval's walk is exact, and the cost
	// at rank i is the one before plus the ranks since
	gp := e.gainPos(i)
	if sumCost == math.Trunc(sumCost) && sumCost+float64(n) < 1<<53 {
		base := sumCost - float64(i)
		for _, p := range gp {
			rg := e.gainOf(int(p))
			sumResults += rg
			resultsG += rg / pmath.Log2(2+(base+float64(p+1))-sumResults)
		}
		i = n
	}
	for ; i < n; i++ {
		sumCost += minCost // rounded a rank at a time, as trec_eval's sum
		if len(gp) > 0 && int(gp[0]) == i {
			gp = gp[1:]
			rg := e.gainOf(i)
			sumResults += rg
			resultsG += rg / pmath.Log2(2+sumCost-sumResults)
		}
	}
	for it.gain > 0 {
		if ig := it.next(); ig > 0 {
			sumIdeal += ig
		}
	}
	if sumIdeal > 0 {
		return resultsG / sumIdeal
	}
	return 0
}

// rbp is m_rbp.c's rank-biased precision with persistence p. trec_eval
// 10.0 scales the gains into [0, 1] when one lies outside, between the
// least and the greatest of the table and two variables it never sets
// (min and max in m_rbp.c): they are taken as 0 here, which is what
// trec_eval computes with -m all_trec or -m rbp alone; after some other
// measures (-m dcg -m rbp) its value depends on what its stack holds.
func (e *Evaluator) rbp(g []relGain, n int, p float64) float64 {
	lo, hi := 0.0, 0.0
	for _, r := range g {
		if r.gain < lo {
			lo = r.gain
		}
		if r.gain > hi {
			hi = r.gain
		}
	}
	if lo < 0 || hi > 1 {
		for k := range g {
			g[k].gain = (g[k].gain - lo) / (hi - lo)
		}
		for k := range e.gl {
			e.gl[k] = lookupGain(g, int64(k)+relUnjudged)
		}
		e.gtOK, e.gpOK = false, false // the table is rbp's now
	}
	pw := e.powers(p, n)
	sum := 0.0
	for _, i := range e.gainPos(0) {
		sum += float64(e.gainOf(int(i)) * pw[i])
	}
	return float64((1.0 - p) * sum)
}
