package metrics

import "math"

// The click metrics and the IPS estimates, computed apart from the sweep:
// they read only the clicked rows (c_i = b_i, docs/metrics.md §3's relevance rule
// applied to a click log's labels) and where the ranking puts them, and
// they are defined for every impression, with or without a click, so the
// empty-query policy does not touch them.
//
// The ranking is the one every other metric sees (after Options.MaxRanked
// and JudgedOnly). Under TiesAverage each value is its exact expectation
// over the orders of the tied groups: a group of m rows at 0-based
// positions s..s+m-1 with r clicked rows puts each row at each of its
// positions with probability 1/m, so
//   - a sum over clicked rows cut at p takes a fraction q/m of the group's
//     clicks (q = the group's positions above p), and its discounted sum
//     the mean discount of those positions;
//   - the first clicked row of the group lies at s + (m+1)/(r+1) and the
//     last at s + r(m+1)/(r+1) (1-based): the least and the largest of r
//     positions drawn from m without replacement.
// Without ties every group is one row and these are the plain formulas.

// clickGroup is a run of tied rows (one row unless TiesAverage) holding
// clicks: its 0-based first position s, its rows m, its clicked rows r and
// their IPS weight w.
type clickGroup struct {
	s, m, r int
	w       float64
}

// clickValues writes the click metrics and IPS estimates of a query whose
// ranking e.ents holds n rows, ties broken unless TiesAverage, and sets
// the query's click weight.
func (e *Evaluator) clickValues(l *List, n int, out []float64) {
	if e.ips {
		if len(l.Prop) != len(l.Label) {
			panic("metrics: the IPS estimates need List.Prop, a propensity a row")
		}
		e.clickWeight(l)
	}
	e.cgs = e.cgs[:0]
	if e.o.Ties != TiesAverage {
		e.clickRows(l, n)
	} else {
		e.clickGroups(l, n)
	}
	if e.ipsDCG {
		e.growDisc(n)
	}
	for j := range e.ms {
		m := &e.ms[j]
		if families[m.Kind].needs&needClicks != 0 {
			out[j] = e.clickValue(l, m, n)
		}
	}
}

// clickRows sets e.cgs to the clicked rows of a ranking without ties, a
// group each: the loop every click log's query takes, kept lean.
func (e *Evaluator) clickRows(l *List, n int) {
	thr, t := e.o.HasThreshold, e.o.RelThreshold
	for s, en := range e.ents[:n] {
		if y := l.Label[en.i]; thr && y >= t || !thr && y > 0 {
			g := clickGroup{s: s, m: 1, r: 1}
			if e.ips {
				g.w = e.clickWeightOf(l.Prop[en.i])
			}
			e.cgs = append(e.cgs, g)
		}
	}
}

// clickGroups sets e.cgs to the tied groups that hold clicks.
func (e *Evaluator) clickGroups(l *List, n int) {
	for s := 0; s < n; {
		end := s + 1
		for end < n && sameKey(e.ents[s], e.ents[end]) {
			end++
		}
		g := clickGroup{s: s, m: end - s}
		for _, en := range e.ents[s:end] {
			if e.rel(l.Label[en.i]) {
				g.r++
				if e.ips {
					g.w += e.clickWeightOf(l.Prop[en.i])
				}
			}
		}
		if g.r > 0 {
			e.cgs = append(e.cgs, g)
		}
		s = end
	}
}

// clickWeightOf is a clicked row's IPS weight, 1/p with p raised to the
// clip.
func (e *Evaluator) clickWeightOf(p float64) float64 { return 1 / max(p, e.o.PropClip) }

// clickWeight sets the query's click weight W = Σ_i c_i·w_i over every
// row, and the clicks clipped. It sums in input order, not in the ranking's,
// so that every ranking of one log gets the very same W: the
// self-normalized estimates of several score columns share it.
func (e *Evaluator) clickWeight(l *List) {
	e.weight, e.clipped = 0, 0
	for i, y := range l.Label {
		if e.rel(y) {
			p := l.Prop[i]
			if p < e.o.PropClip {
				e.clipped++
			}
			e.weight += e.clickWeightOf(p)
		}
	}
}

// ClickWeight is the click weight W of the query Eval last evaluated, the
// denominator of the self-normalized estimates (Σ over its clicked rows of
// 1/max(p, clip)), and the number of its clicks whose propensity was below
// the clip. Both are 0 unless an IPS estimate is among the metrics.
func (e *Evaluator) ClickWeight() (w float64, clipped int) {
	if e.split != nil {
		return e.split.parts[0].ev.ClickWeight()
	}
	return e.weight, e.clipped
}

// clickValue is one click metric from e.cgs, for a ranking of n rows of
// l.
func (e *Evaluator) clickValue(l *List, m *Metric, n int) float64 {
	p := cutAt(m.K, n)
	switch m.Kind {
	case KindAbandon:
		if len(e.cgs) == 0 {
			return 1
		}
		return 0
	case KindFirstClick:
		if len(e.cgs) == 0 {
			return math.NaN()
		}
		g := e.cgs[0]
		return float64(g.s) + float64(g.m+1)/float64(g.r+1)
	case KindInterleave:
		return e.interleaveValue(l, n)
	case KindLastClick:
		if len(e.cgs) == 0 {
			return math.NaN()
		}
		g := e.cgs[len(e.cgs)-1]
		return float64(g.s) + float64(g.r)*float64(g.m+1)/float64(g.r+1)
	case KindIPSDCG, KindSNIPSDCG:
		v := 0.0
		for _, g := range e.cgs {
			if g.s >= p {
				break
			}
			if g.m == 1 {
				v += float64(g.w * e.disc[g.s])
				continue
			}
			d := 0.0
			for t := g.s; t < min(g.s+g.m, p); t++ {
				d += e.disc[t]
			}
			v += g.w * d / float64(g.m)
		}
		return v
	}
	ips := families[m.Kind].needs&needProp != 0
	c := 0.0
	for _, g := range e.cgs {
		if g.s >= p {
			break
		}
		x := float64(g.r)
		if ips {
			x = g.w
		}
		if q := p - g.s; q < g.m {
			x = x * float64(q) / float64(g.m)
		}
		c += x
	}
	switch m.Kind {
	case KindCTR:
		if p == 0 {
			return 0 // nothing shown, nothing clicked
		}
		return c / float64(p)
	case KindIPSP, KindSNIPSP:
		return c / float64(m.K)
	}
	return c // clicks, ips_clicks, snips_clicks
}
