package metrics

import (
	"math"
	"slices"

	"github.com/rankeval/rankeval/internal/pmath"
)

// The sweep: one pass down a ranking that accumulates the sums every
// ranked metric reads (acc) at each cut, with ties broken as the policy
// says, TiesAverage's groups as exact expectations. Eval (eval.go) calls
// it once for the ranking and once for the ideal.

// gain returns g(y) and 2^y - 1 (the latter feeds ERR whatever the gain).
func (e *Evaluator) gain(y float64) (g, ex float64) {
	if e.o.Gain == GainLinear && !e.wantERR {
		return y, 0 // nothing reads 2^y - 1 (ERR's sums are off)
	}
	if y >= 0 && y < 64 && y == math.Trunc(y) {
		ex = float64(uint64(1)<<uint(y)) - 1 // exact, and far cheaper than Exp2
	} else {
		ex = pmath.Exp2(y) - 1
	}
	if e.o.Gain == GainLinear {
		return y, ex
	}
	return ex, ex
}

// sweep walks the ranking y down to the last cut, one group at a time, and
// stores the running sums at every cut into snap. A group is one row, or
// under TiesAverage (tie != nil) a run of tied rows whose every order is
// equally likely; see group for how its expectations are taken.
func (e *Evaluator) sweep(y []float64, rb, tie []bool, cuts []int, snap []acc, lims sweepLims) {
	if !e.wantERR {
		lims.err = 0
	}
	if tie == nil && lims.err == 0 && e.o.Gain == GainLinear {
		e.sweepLinear(y, rb, cuts, snap, lims.dcg)
		return
	}
	st := sweepState{reach: 1, cuts: cuts, snap: snap, lims: lims}
	lim := cuts[len(cuts)-1]
	for s := 0; s < lim; {
		end := s + 1
		if tie != nil {
			for end < len(y) && tie[end] {
				end++
			}
		}
		if end-s > 1 {
			var grb []bool
			if rb != nil {
				grb = rb[s:end]
			}
			e.group(&st, y[s:end], grb, s, lim)
			s = end
			continue
		}
		a := &st.a
		v := y[s]
		i := float64(s + 1)
		a.cg += v
		if s < lims.dcg || s < lims.err {
			g, ex := e.gain(v)
			if s < lims.dcg {
				a.dcg += float64(g * e.disc[s])
			}
			if s < lims.err {
				r := float64(ex * e.invG)
				a.err += st.reach * r / i
				st.reach *= 1 - r
			}
		}
		if rb != nil && rb[s] || rb == nil && e.rel(v) {
			st.c++
			a.rel++
			a.ap += float64(st.c) / i
			if st.c == 1 {
				a.rr = 1 / i
				a.hit = 1
			}
		}
		s = end
		st.record(s)
	}
}

// sweepLinear is sweep for rankings without tied groups, under linear
// gains and without ERR (trec_eval's measures, and every ideal ranking's
// sweep but ERR's): the same sums, each added
// to in the same order, but kept in registers (in sweepState, every row's
// additions waited on the stores of the row before) and without a branch
// on the row's relevance, which a ranking's random mix of relevant rows
// mispredicted. A row that is not relevant adds exactly zero: c/i is
// finite and ap, rel never negative, so x + 0·(c/i) is x.
// TestSweepLinear holds it to sweep's general loop.
func (e *Evaluator) sweepLinear(y []float64, rb []bool, cuts []int, snap []acc, dcgLim int) {
	lim := cuts[len(cuts)-1]
	y = y[:lim]
	var first int // the first relevant row gives rr and hit
	if rb != nil {
		rb = rb[:lim]
		first = slices.Index(rb, true)
	} else {
		first = slices.IndexFunc(y, e.rel)
	}
	disc := e.disc[:min(dcgLim, lim)]
	var cg, dcg, rel, ap float64
	c, ci, next := 0, 0, cuts[0]
	for s, v := range y {
		i := float64(s + 1)
		cg += v
		if s < len(disc) {
			dcg += float64(v * disc[s])
		}
		b := 0
		if rb != nil && rb[s] || rb == nil && e.rel(v) {
			b = 1
		}
		c += b
		f := float64(b)
		rel += f
		ap += float64(f * (float64(c) / i))
		if s+1 == next {
			a := acc{rel: rel, cg: cg, dcg: dcg, ap: ap}
			if first >= 0 && first <= s {
				a.rr, a.hit = 1/float64(first+1), 1
			}
			snap[ci] = a
			if ci++; ci < len(cuts) {
				next = cuts[ci]
			}
		}
	}
}

// sweepLims bounds the costly sums of a sweep: below a ranking's last cut
// (MAP and MRR see the whole list) DCG and ERR are only needed down to the
// deepest cut of a metric that reads them, often 10 of 100 rows. Sums past
// their limit are left unfinished; no metric reads them there.
type sweepLims struct{ dcg, err int }

func (l *sweepLims) need(nd needs, p int) {
	if nd&needDCG != 0 {
		l.dcg = max(l.dcg, p)
	}
	if nd&needERR != 0 {
		l.err = max(l.err, p)
	}
}

type sweepState struct {
	a     acc
	reach float64 // ERR: probability that the user gets past every row above
	c     int     // relevant rows above the current group
	cuts  []int
	snap  []acc
	ci    int // next cut
	lims  sweepLims
}

// record takes a snapshot if 1-based position i is the next cut.
func (st *sweepState) record(i int) {
	if st.cuts[st.ci] == i {
		st.snap[st.ci] = st.a
		st.ci++
	}
}

// group adds to st the expected contributions of the in-cut positions of one
// tied group g (m >= 2 rows, uniformly permuted) that starts at 0-based
// position s, given the state above it.
//
// The expectations, with r relevant rows in the group and t the 1-based
// position inside it:
//   - linear sums (rel, cg, dcg) take the group mean at every position;
//   - ap: E[b·prec] = (r/m)(c + 1 + (t-1)(r-1)/(m-1)) / i, since a second
//     given position is relevant with probability (r-1)/(m-1) once one is;
//   - rr, hit (only when nothing above is relevant): the first relevant sits
//     at t with probability C(m-t, r-1)/C(m, r), and none is in the first t
//     with probability C(m-r, t)/C(m, t), both built as running products;
//   - err: with x_j = 1 - R_j and M_t the mean of Π x over t-subsets of the
//     group, the item at t stops the user with probability M_{t-1} - M_t
//     given they reached the group. M comes from a DP that adds one item at
//     a time: M_j <- ((n-j)/n)·M_j + (j/n)·x_n·M_{j-1}.
//
// The sums and the DP read the group's labels in ascending order, not the
// input's, so the figures are the same bits for every order of the tied
// rows (a shuffled log, --unsorted, Beam).
func (e *Evaluator) group(st *sweepState, g []float64, rb []bool, s, lim int) {
	m := len(g)
	r := 0
	for k, v := range g {
		if rb != nil && rb[k] || rb == nil && e.rel(v) {
			r++
		}
	}
	e.gs = append(e.gs[:0], g...)
	slices.Sort(e.gs)
	var sumY, sumG float64
	prodX := 1.0
	e.xs = e.xs[:0]
	for _, v := range e.gs {
		gv, ex := e.gain(v)
		sumY += v
		sumG += gv
		x := 1 - float64(ex*e.invG)
		prodX *= x
		e.xs = append(e.xs, x)
	}
	fm := float64(m)
	pb := float64(r) / fm
	meanY, meanG := sumY/fm, sumG/fm
	pair := float64(r-1) / float64(m-1)
	T := min(m, lim-s)

	var M []float64
	doERR := s < st.lims.err // a group that starts past the limit needs no ERR
	if doERR {
		M = grow(e.mdp, T+1)
		e.mdp = M
		clear(M)
		M[0] = 1
		for q, x := range e.xs {
			// M_j += (j/n)(x·M_{j-1} - M_j) is the update above with one
			// division per item instead of two per step.
			inv := 1 / float64(q+1)
			for j := min(q+1, T); j >= 1; j-- {
				M[j] += float64(float64(j) * inv * (float64(x*M[j-1]) - M[j]))
			}
		}
	}

	a := &st.a
	first := st.c == 0 && r > 0
	pFirst := pb // P(first relevant of the group at t)
	noRel := 1.0 // P(no relevant among the first t)
	for t := 1; t <= T; t++ {
		p := s + t - 1
		i := float64(p + 1)
		a.rel += pb
		a.cg += meanY
		a.dcg += float64(meanG * e.disc[p])
		if r > 0 {
			a.ap += float64(pb * (float64(st.c) + 1 + float64(float64(t-1)*pair)) / i)
		}
		if first {
			a.rr += pFirst / i
			noRel = float64(noRel * (float64(m-r-t+1) / float64(m-t+1)))
			a.hit = 1 - noRel
			if t < m {
				pFirst *= float64(m-t-r+1) / float64(m-t)
			}
		}
		if doERR {
			a.err += st.reach * (M[t-1] - M[t]) / i
		}
		st.record(p + 1)
	}
	st.c += r
	st.reach *= prodX
}
