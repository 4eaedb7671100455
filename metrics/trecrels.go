package metrics

import (
	"math"
	"slices"

	"github.com/rankeval/rankeval/internal/pmath"
)

// trec_eval computes most of its measures from one view of a query, its
// RES_RELS: the judgment of the document at each rank (a level, or a
// code for a document outside the pool or pooled but unjudged), and how
// many judged documents the query has at each level. trecRels is that
// view, built once a query for the measures of families that need it
// (needRels), after the ranking's cut (MaxRanked) and filter
// (JudgedOnly). The measures below and in trecgain.go follow trec_eval's
// m_*.c files, in their arithmetic and order, so that each value is the
// double trec_eval computes.

// trec_eval's judgments of a ranked document that has no level.
const (
	relNonpool  = -1 // not in the qrels (RELVALUE_NONPOOL)
	relUnjudged = -2 // in the qrels with a negative judgment (RELVALUE_UNJUDGED)
)

// maxDenseLevel bounds the levels counted one slot each: trec_eval
// reserves a slot for every level up to the highest (a qrels judging at
// level 10^9 would take gigabytes); levels above it are counted apart.
const maxDenseLevel = 1 << 16

type trecRels struct {
	rel                       []int64 // per rank: the document's level, relNonpool or relUnjudged
	rpos, jpos, npos          []int32 // the positions (from 0) of the relevant documents, of those in the qrels, of those unjudged
	ppos                      []int32 // the positions of the documents judged above level 0
	levels                    []int64 // per level from 0: the judged documents at it (rel_levels)
	sparse                    []levelCount
	numRel, numRelRet, numRet int
	thr                       float64    // a level >= thr is relevant
	allJudged                 []Judgment // zeros: the judgments of a list that has none
}

// levelCount counts the judgments at a level above maxDenseLevel.
type levelCount struct{ level, count int64 }

// fill makes the view of a ranking from its rows' labels y and judgments
// st (nil: every row judged), in a pass of its own over the arrays
// rankedRows just wrote (in its loop, the call per row cost more than
// the pass). A row's level or code and its lists are selects and writes
// at an index advanced by 0 or 1, not branches, which a ranking's random
// mix of judged, unjudged and relevant rows mispredicted.
func (t *trecRels) fill(y []float64, st []Judgment) {
	n := len(y)
	if st == nil {
		// every row judged: read from zeros rather than test for nil
		// twice a row
		if cap(t.allJudged) < n {
			t.allJudged = make([]Judgment, n, n+n/4)
		}
		st = t.allJudged[:n]
	}
	st = st[:n]
	rel := grow(t.rel, n)
	jpos, npos, ppos := grow(t.jpos, n), grow(t.npos, n), grow(t.ppos, n)
	kj, kn, kp := 0, 0, 0
	for p, v := range y {
		un := b2u(st[p] == Unjudged) // not in the qrels
		// judged out (its label then is -0, or below 0 in a log)
		out := (b2u(v < 0) | b2u(st[p] == JudgedOut)) &^ un
		r := level(v)
		pos := b2u(r > 0) &^ (un | out)
		if out != 0 {
			r = relUnjudged
		}
		if un != 0 {
			r = relNonpool
		}
		rel[p] = r
		jpos[kj], npos[kn], ppos[kp] = int32(p), int32(p), int32(p)
		kj += int(1 - un)
		kn += int(un | out)
		kp += int(pos)
	}
	t.rel, t.jpos, t.npos, t.ppos = rel, jpos[:kj], npos[:kn], ppos[:kp]
}

// readRels completes the view of the query whose ranking e.ents[:n] holds
// (rankedRows gave its rows), whose judged documents' labels are judged:
// the judged documents per level, and R.
func (e *Evaluator) readRels(l *List, n int, judged []float64) {
	t := &e.tr
	t.numRet = n
	if e.o.HasThreshold {
		t.thr = e.o.RelThreshold
	} else {
		t.thr = math.SmallestNonzeroFloat64 // label > 0
	}
	t.rpos = e.rpos
	t.numRelRet = len(t.rpos)
	e.gtOK, e.gpOK = false, false
	t.levels, t.sparse = t.levels[:0], t.sparse[:0]
	for _, v := range judged {
		if v < 0 || negativeJudgment(v) && l.Judged != nil {
			continue // trec_eval counts the levels from 0
		}
		lv := level(v)
		if lv > maxDenseLevel {
			t.addSparse(lv)
			continue
		}
		for int64(len(t.levels)) <= lv {
			t.levels = append(t.levels, 0)
		}
		t.levels[lv]++
	}
	// R as trec_eval counts it: the judgments at a relevant level (under
	// -l 0, not the negative ones, which e.rel would count)
	t.numRel = 0
	for lv, c := range t.levels {
		if t.relevant(int64(lv)) {
			t.numRel += int(c)
		}
	}
	for _, s := range t.sparse {
		if t.relevant(s.level) {
			t.numRel += int(s.count)
		}
	}
}

// level is a judgment's level, its whole part (a label past int64's range
// is its largest level, not what Go's conversion makes of it).
func level(v float64) int64 {
	if v >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(v)
}

func (t *trecRels) addSparse(lv int64) {
	for i := range t.sparse {
		if t.sparse[i].level == lv {
			t.sparse[i].count++
			return
		}
	}
	t.sparse = append(t.sparse, levelCount{lv, 1})
}

// relevant reports whether a judgment is relevant.
func (t *trecRels) relevant(r int64) bool { return float64(r) >= t.thr }

// trecValue is the value of metric j, m, of a family that needs the view.
func (e *Evaluator) trecValue(j int, m *Metric) float64 {
	t := &e.tr
	switch m.Kind {
	case KindInfAP:
		return t.infAP()
	case KindRprecMult:
		return t.rprecMult(m.Level)
	case KindUtility:
		c := e.par[j].floats
		a, b := float64(t.numRelRet), float64(t.numRet-t.numRelRet)
		cc, d := float64(t.numRel-t.numRelRet), float64(e.o.NumDocs+int64(t.numRelRet-t.numRet-t.numRel))
		// float64() rounds each product, as C does: no fused multiply-add;
		// of two NaNs, trec_eval's sum on amd64 keeps the first two
		// terms' over the later ones, and the last term's over the rest
		return nanFirst(float64(c[3]*d), nanFirst(nanFirst(float64(c[0]*a), float64(c[1]*b)), float64(c[2]*cc)))
	case KindBinG:
		return t.binG(e)
	case KindUnj:
		return t.unj(m.K)
	case KindYaap:
		return t.yaap()
	case KindRelAt:
		if m.K > t.numRet {
			return math.NaN()
		}
		return float64(t.rel[m.K-1])
	case KindRBPResid:
		return t.rbpResid(e, m.Beta)
	}
	return e.gainValue(j, m)
}

// infAP is m_infap.c's inferred AP (it skips the documents outside the
// pool: the walk is over the others).
func (t *trecRels) infAP() float64 {
	const eps = 0.00001 // INFAP_EPSILON
	var relSoFar, nonrelSoFar, unjudgedSoFar int64
	infAP := 0.0
	for _, p := range t.jpos {
		j := int(p)
		switch r := t.rel[j]; {
		case r == relUnjudged:
			unjudgedSoFar++
			continue
		case !t.relevant(r):
			nonrelSoFar++
			continue
		}
		relSoFar++
		if j == 0 {
			infAP += 1.0
			continue
		}
		fj := float64(j)
		infAP += 1.0/(fj+1.0) + float64(float64(fj/(fj+1.0))*
			(float64(relSoFar-1+nonrelSoFar+unjudgedSoFar)/fj)*
			((float64(relSoFar-1)+eps)/(float64(relSoFar-1+nonrelSoFar)+float64(2*eps))))
	}
	if t.numRel > 0 {
		infAP /= float64(t.numRel)
	}
	return infAP
}

// rprecMult is m_Rprec_mult.c's precision at ⌊x·R + 0.9⌋ documents: the
// relevant documents ranked over that number when the ranking is
// shorter. (trec_eval walks up from the bottom, and gives the precision
// where it meets the cut, 0 when it runs out of relevant documents
// first: the relevant documents above the cut, over the cut.)
func (t *trecRels) rprecMult(x float64) float64 {
	cut := pmath.CLong(float64(x*float64(t.numRel)) + 0.9)
	if cut > int64(t.numRet) {
		return float64(t.numRelRet) / float64(cut)
	}
	above, _ := slices.BinarySearch(t.rpos, int32(cut)) // relevant rows among the first cut
	if above == 0 {
		return 0
	}
	return float64(above) / float64(cut)
}

// nanFirst is x + y, x when both are NaN: which NaN an addition returns
// (its sign prints, nan or -nan) is the first operand's on amd64, and on
// arm64 whichever operand the compiler put first, so the order is chosen
// here, as trec_eval's compiled code has it on amd64.
func nanFirst(x, y float64) float64 {
	if x != x {
		return x
	}
	return x + y
}

// binG is m_binG.c's (its walk adds at the relevant documents only).
func (t *trecRels) binG(e *Evaluator) float64 {
	sum := 0.0
	for k, p := range t.rpos {
		sum += 1.0 / e.log2(2+int(p)-k) // 3 + i - relevant so far
	}
	if len(t.rpos) > 0 {
		return sum / float64(t.numRel)
	}
	return 0
}

// unj is m_unjudged.c's share of unjudged documents (outside the pool or
// pooled unjudged) among the first k, over k whatever the ranking's
// length.
func (t *trecRels) unj(k int) float64 {
	c := 0
	for _, p := range t.npos {
		if int(p) >= k {
			break
		}
		c++
	}
	return float64(c) / float64(k)
}

// yaap is m_yaap.c's.
func (t *trecRels) yaap() float64 {
	sum := 0.0
	for k, p := range t.rpos {
		sum += float64(k+1) / float64(p+1)
	}
	return pmath.Log((1.0 + sum) / (1.0 + float64(t.numRel) - sum))
}

// rbpResid is m_rbp_resid.c's: with p the persistence, p^n plus (1-p)
// times the sum of p^(i-1) over the unjudged documents at ranks i, when
// there is one; else 0. (p^i is the product trec_eval takes rank after
// rank, from a table.)
func (t *trecRels) rbpResid(e *Evaluator, p float64) float64 {
	if len(t.npos) == 0 {
		return 0
	}
	pw := e.powers(p, t.numRet)
	sum := 0.0
	for _, i := range t.npos {
		sum += pw[i]
	}
	return pw[t.numRet] + float64((1-p)*sum)
}

// powers is p^0, ..., p^n as trec_eval computes them, each the product of
// the one before and p; one table a persistence, grown as rankings grow.
func (e *Evaluator) powers(p float64, n int) []float64 {
	k := 0
	for k < len(e.pws) && e.pws[k].p != p {
		k++
	}
	if k == len(e.pws) {
		e.pws = append(e.pws, powTable{p: p, pw: []float64{1}})
	}
	t := &e.pws[k]
	for len(t.pw) <= n {
		t.pw = append(t.pw, t.pw[len(t.pw)-1]*p)
	}
	return t.pw
}

// powTable is the powers of one persistence.
type powTable struct {
	p  float64
	pw []float64
}
