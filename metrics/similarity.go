package metrics

import (
	"math"

	"github.com/rankeval/rankeval/internal/pmath"
)

// The rank-similarity measures (docs/metrics.md §4, "Rank similarity"):
// how much a candidate system's ranking of a query differs from the
// baseline's. They read two rankings of items, no labels. A ranking is
// the list of its items, best first, in the order the tie policy gives
// (Evaluator.AppendRanking); an item is a small integer, the same
// document in both (the caller maps rows or doc ids onto 0..items-1).
//
// Notation: A is the baseline's ranking, B the candidate's, A_k and B_k
// their first min(k, |A|) and min(k, |B|) items (the whole list without
// a cutoff).

// Pair reports whether m compares two systems' rankings (overlap, jaccard,
// churn, rbo, rbo_res, rbo_ext, tau): a query's value belongs to a
// candidate system, against the baseline, and is undefined for the
// baseline itself.
func (m Metric) Pair() bool { return families[m.Kind].needs&needPair != 0 }

// AnyPair reports whether some metric of ms is a rank-similarity measure.
func AnyPair(ms []Metric) bool {
	for _, m := range ms {
		if m.Pair() {
			return true
		}
	}
	return false
}

// AppendRanking appends to dst the rows of the list last evaluated, in
// ranked order (their indexes in the List's columns): the ranking after
// the tie policy, Options.MaxRanked and Options.JudgedOnly, which the
// rank-similarity measures compare. It is set only when some metric of
// the Evaluator is one of them.
func (e *Evaluator) AppendRanking(dst []int32) []int32 {
	if e.split != nil {
		return e.split.parts[0].ev.AppendRanking(dst)
	}
	for _, en := range e.ents[:e.nRanked] {
		dst = append(dst, en.i)
	}
	return dst
}

// Similarity writes into out the value of every rank-similarity metric
// for candidate ranking cand against baseline ranking base, whose items
// lie in [0, items); the other metrics' values are left alone.
func (e *Evaluator) Similarity(base, cand []int32, items int, out []float64) {
	if e.split != nil {
		e.split.similarity(base, cand, items, out)
		return
	}
	e.posA, e.posB = grow(e.posA, items), grow(e.posB, items)
	clear(e.posA)
	clear(e.posB)
	for r, it := range base {
		e.posA[it] = int32(r + 1)
	}
	for r, it := range cand {
		e.posB[it] = int32(r + 1)
	}
	var rboP float64 // the last rbo computed, for rbo, rbo_res and rbo_ext of one p and depth
	rboK := -1
	var lo, res, ext float64
	for j, m := range e.ms {
		if !m.Pair() {
			continue
		}
		a, b := base[:cutAt(m.K, len(base))], cand[:cutAt(m.K, len(cand))]
		switch m.Kind {
		case KindOverlap, KindChurn:
			v := math.NaN()
			if len(a) > 0 {
				v = float64(common(a, e.posB, len(b))) / float64(len(a))
				if m.Kind == KindChurn {
					v = 1 - v
				}
			}
			out[j] = v
		case KindJaccard:
			v := math.NaN()
			if len(a)+len(b) > 0 {
				c := common(a, e.posB, len(b))
				v = float64(c) / float64(len(a)+len(b)-c)
			}
			out[j] = v
		case KindTau:
			out[j] = e.rankTau(a, b)
		case KindRBO, KindRBORes, KindRBOExt:
			if m.Beta != rboP || m.K != rboK {
				lo, res, ext = e.rbo(a, b, m.Beta)
				rboP, rboK = m.Beta, m.K
			}
			switch m.Kind {
			case KindRBO:
				out[j] = lo
			case KindRBORes:
				out[j] = res
			default:
				out[j] = ext
			}
		}
	}
}

// common counts the items of a whose rank in the other ranking (pos, 0
// for none) is within its first n.
func common(a []int32, pos []int32, n int) int {
	c := 0
	for _, it := range a {
		if r := pos[it]; r > 0 && int(r) <= n {
			c++
		}
	}
	return c
}

// rankTau is Kendall's tau-b between A_k and B_k over their union: an
// item of the union absent from one side's top k ranks there just below
// it, every such item tied (|A_k| + 1 in A, |B_k| + 1 in B). NaN when the
// union has fewer than 2 items or one side ranks them all tied.
func (e *Evaluator) rankTau(a, b []int32) float64 {
	e.pts = e.pts[:0]
	na, nb := int32(len(a)), int32(len(b))
	for _, it := range a {
		rb := e.posB[it]
		if rb == 0 || rb > nb {
			rb = nb + 1
		}
		e.pts = append(e.pts, pt{x: -float64(e.posA[it]), y: -float64(rb)})
	}
	for _, it := range b {
		if ra := e.posA[it]; ra > 0 && ra <= na {
			continue // counted with A's items
		}
		e.pts = append(e.pts, pt{x: -float64(na + 1), y: -float64(e.posB[it])})
	}
	return e.kendall(e.pts)
}

// rbo is rank-biased overlap (Webber, Moffat and Zobel, TOIS 2010) of
// the prefixes a and b at persistence p: its lower bound (RBO_min), its
// residual (RBO_max − RBO_min) and its extrapolation (RBO_ext), with
// uneven lengths as in the paper's §4.3 (and Corsi and Urbano's 2024
// code, whose w-variant it is on rankings without ties). S is the
// shorter prefix (a when both are as long), L the longer, s ≤ l their
// lengths, X_d the items common to S's and L's first d (S whole past s),
// A_d = X_d/d:
//
//	RBO_min = (1−p)/p · (Σ_{d≤l} p^d·X_d/d + X_l·Σ_{d>l} p^d/d)
//	RBO_max = (1−p)/p · (Σ_{d≤l} p^d·Xmax_d/d + Σ_{l<d≤f} p^d·(2d−l−s+X_l)/d + p^{f+1}/(1−p))
//	RBO_ext = (1−p)/p · (Σ_{d≤l} p^d·Xext_d/d) + (X_l + (l−s)·A_s)/l · p^l
//
// with Xmax_d = X_d + min(d−s, d−X_d) and Xext_d = X_d + (d−s)·A_s past s
// (X_d before), f = l + s − X_l, and Σ_{d>l} p^d/d = −ln(1−p) − Σ_{d≤l}
// p^d/d. Both prefixes empty: all three NaN; S empty: A_s is 0.
func (e *Evaluator) rbo(a, b []int32, p float64) (lo, res, ext float64) {
	S, L, posS, posL := a, b, e.posA, e.posB
	if len(b) < len(a) {
		S, L, posS, posL = b, a, e.posB, e.posA
	}
	s, l := len(S), len(L)
	if l == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	in := func(pos []int32, it int32, d, n int) bool {
		r := int(pos[it])
		return r > 0 && r <= d && r <= n
	}
	var (
		x                      int     // X_d
		pd                     = 1.0   // p^d
		sMin, sMax, sExt, tail float64 // the sums over d ≤ l; tail Σ p^d/d
		as                     float64 // A_s
	)
	for d := 1; d <= l; d++ {
		pd = float64(pd * p)
		if d <= s {
			if in(posL, S[d-1], d, l) {
				x++
			}
			if in(posS, L[d-1], d, s) && S[d-1] != L[d-1] {
				x++
			}
		} else if in(posS, L[d-1], s, s) {
			x++
		}
		fd := float64(d)
		xmax, xext := float64(x), float64(x)
		if d > s {
			xmax = float64(x + min(d-s, d-x))
			xext = float64(float64(d-s)*as) + float64(x)
		}
		w := pd / fd
		sMin += float64(w * float64(x))
		sMax += float64(w * xmax)
		sExt += float64(w * xext)
		tail += w
		if d == s {
			as = float64(x) / fd
		}
	}
	q := (1 - p) / p
	xl := float64(x)
	rest := max(-pmath.Log(1-p)-tail, 0) // Σ_{d>l} p^d/d
	lo = float64(q * (sMin + float64(xl*rest)))
	// past l: the unseen rest of S holds L's items first, then both go on alike
	f := l + s - x
	var sec3 float64
	pd2 := pd
	for d := l + 1; d <= f; d++ {
		pd2 = float64(pd2 * p)
		sec3 += float64(pd2 * float64(2*d-l-s+x) / float64(d))
	}
	sec3 += float64(pd2*p) / (1 - p)
	hi := float64(q * (sMax + sec3))
	res = hi - lo
	al := (float64(float64(l-s)*as) + xl) / float64(l)
	ext = float64(q*sExt) + float64(al*pd)
	return lo, res, ext
}
