package propensity

import (
	"math"

	"github.com/rankeval/rankeval/internal/pmath"
)

// The position-based model's fits: intervention harvesting over the
// pairs of positions, and EM over the cells.

// fitter fits the propensities relative to position 1 to one resample
// (weight(j), the weight of query j), NaN where they are not identified;
// warm, when not nil, is the fit of the log itself to start from.
type fitter interface {
	fit(o *overlap, weight func(j int) int64, warm fitter) []float64
	clone() fitter
}

// model is a position-based model's EM over a parameter vector x: x[:m]
// the examination of each position, x[m:] the relevances; every value
// in [0, 1].
type model interface {
	// step is one EM step from x into out.
	step(x, out []float64)
	// loglik is the log-likelihood at x.
	loglik(x []float64) float64
}

// Fit's convergence: the iterations stop when no relative propensity
// moves by more than tolerance, or after maxIter.
const (
	tolerance = 1e-9
	maxIter   = 5000
)

// solve runs EM on mod from x (its result left in x), accelerated by
// SQUAREM (Varadhan and Roland, 2008): two EM steps give a direction and
// a step length, the extrapolated point is followed by one more EM step,
// and kept only when its likelihood is no lower than the two plain steps
// reached, so the likelihood never falls. m is the positions' count.
func solve(mod model, x []float64, m int) {
	n := len(x)
	x1, x2, r, v, xn := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	prev := make([]float64, m)
	rel := make([]float64, m)
	converged(x[:m], prev, rel)
	for range maxIter {
		mod.step(x, x1)
		mod.step(x1, x2)
		var rr, vv float64
		for i := range x {
			r[i] = x1[i] - x[i]
			v[i] = x2[i] - x1[i] - r[i]
			rr = float64(r[i]*r[i]) + rr
			vv = float64(v[i]*v[i]) + vv
		}
		next := x2
		if vv > 0 {
			alpha := -math.Sqrt(rr / vv)
			alpha = min(alpha, -1)
			for i := range x {
				xn[i] = min(max(x[i]-float64(2*alpha*r[i])+float64(float64(alpha*alpha)*v[i]), 0), 1)
			}
			mod.step(xn, x1) // x1 is free again: the stabilized point
			if l := mod.loglik(x1); l >= mod.loglik(x2) {
				next = x1
			}
		}
		copy(x, next)
		if converged(x[:m], prev, rel) {
			return
		}
	}
}

// converged computes the propensities relative to position 1 into rel
// and says whether none moved by more than tolerance from prev, which it
// then updates.
func converged(p, prev, rel []float64) bool {
	done := true
	for k := range p {
		rel[k] = 0
		if p[0] > 0 {
			rel[k] = p[k] / p[0]
		}
		if !(math.Abs(rel[k]-prev[k]) <= tolerance) {
			done = false
		}
		prev[k] = rel[k]
	}
	return done
}

// relative is p relative to position 1 where ok, NaN elsewhere.
func relative(p []float64, ok []bool) []float64 {
	out := make([]float64, len(p))
	for k := range p {
		out[k] = math.NaN()
		if ok[k] && p[0] > 0 {
			out[k] = p[k] / p[0]
		}
	}
	return out
}

// rescale moves the fit along the model's ridge, on which every product
// of an examination and a relevance, hence the likelihood, stays the
// same: the examinations divided by their largest, the relevances
// multiplied by it (so all stay within [0, 1]).
func rescale(exam, rel []float64) {
	top := 0.0
	for _, p := range exam {
		top = max(top, p)
	}
	if top <= 0 || top == 1 {
		return
	}
	for k := range exam {
		exam[k] /= top
	}
	for i := range rel {
		rel[i] = float64(rel[i] * top)
	}
}

// mStep is both fits' M-step for the examination: out[k] = num[k] /
// den[k], the examined share of position k's trials, or p[k] where k had
// none.
func mStep(out, p, num, den []float64) {
	for k := range out {
		out[k] = p[k]
		if den[k] > 0 {
			out[k] = num[k] / den[k]
		}
	}
}

// posterior is the E-step of n trials with clicks c (a count, or a sum
// of click rates) at success probability p·r, a click examined and
// relevant, a skip either not: the expected examined trials and relevant
// trials.
func posterior(c, n, p, r float64) (examined, relevant float64) {
	skip := n - c
	den := 1 - float64(p*r)
	if skip <= 0 || den <= 0 {
		return c, c
	}
	examined = float64(skip*float64(p*(1-r))/den) + c
	relevant = float64(skip*float64((1-p)*r)/den) + c
	return examined, relevant
}

// binomialLL is the log-likelihood of c successes in n trials at
// probability q, clamped away from 0 and 1 so that a boundary point
// scores very low rather than -Inf or NaN.
func binomialLL(c, n, q float64) float64 {
	const eps = 1e-300
	q = min(max(q, eps), 1-1e-16)
	ll := 0.0
	if c > 0 {
		ll = float64(c * pmath.Log(q))
	}
	if n-c > 0 {
		ll = float64((n-c)*pmath.Log(1-q)) + ll
	}
	return ll
}

// harvestFit maximizes the all-pairs likelihood of Agarwal et al.: for
// the intervention set of positions k < k' (n documents), the click
// rates summed at k (c_k) and at k' are n Bernoulli trials of success
// p_k·r and p_k'·r, r the set's relevance; EM over examination and
// relevance (a click is examined and relevant; a skip either) climbs it
// with no step size to tune.
type harvestFit struct {
	m int
	x []float64 // p, then r per unordered pair k·m + k', k < k'
	s pairSums
}

func newHarvestFit(m int) *harvestFit {
	return &harvestFit{m: m, x: make([]float64, m+m*m), s: newPairSums(m)}
}

func (h *harvestFit) clone() fitter { return newHarvestFit(h.m) }

// begin sums o's pairs under weight into s and starts x at from (the
// solution of a fit before, the warm start) or, with none, at 0.5.
func begin(o *overlap, weight func(int) int64, s pairSums, x, from []float64) {
	clear(s.docs)
	clear(s.clicks)
	clear(s.rate)
	o.sums(s, weight)
	if from != nil {
		copy(x, from)
		return
	}
	for i := range x {
		x[i] = 0.5
	}
}

func (h *harvestFit) fit(o *overlap, weight func(int) int64, warm fitter) []float64 {
	var from []float64
	if wf, ok := warm.(*harvestFit); ok {
		from = wf.x
	}
	begin(o, weight, h.s, h.x, from)
	solve(h, h.x, h.m)
	return relative(h.x[:h.m], connected(h.m, h.s))
}

func (h *harvestFit) step(x, out []float64) {
	m, s := h.m, h.s
	p, r := x[:m], x[m:]
	op, or := out[:m], out[m:]
	num, den := make([]float64, m), make([]float64, m)
	copy(or, r)
	for k := range m {
		for k2 := k + 1; k2 < m; k2++ {
			i, i2 := k*m+k2, k2*m+k
			n := float64(s.docs[i])
			if n == 0 {
				continue
			}
			ex1, rl1 := posterior(s.rate[i], n, p[k], r[i])
			ex2, rl2 := posterior(s.rate[i2], n, p[k2], r[i])
			or[i] = (rl1 + rl2) / (2 * n)
			num[k] += ex1
			num[k2] += ex2
			den[k] += n
			den[k2] += n
		}
	}
	mStep(op, p, num, den)
	rescale(op, or)
}

func (h *harvestFit) loglik(x []float64) float64 {
	m, s := h.m, h.s
	p, r := x[:m], x[m:]
	ll := 0.0
	for k := range m {
		for k2 := k + 1; k2 < m; k2++ {
			i, i2 := k*m+k2, k2*m+k
			n := float64(s.docs[i])
			if n == 0 {
				continue
			}
			ll += binomialLL(s.rate[i], n, float64(p[k]*r[i]))
			ll += binomialLL(s.rate[i2], n, float64(p[k2]*r[i]))
		}
	}
	return ll
}

// emFit fits the position-based model to the overlap's cells (Wang et
// al.'s EM without the regression): θ_k per position, γ per (query,
// document); a click is examined and attractive, a skip is either not,
// in proportion to θ_k(1−γ) and (1−θ_k)γ.
type emFit struct {
	m      int
	x      []float64 // θ, then γ per document of the overlap
	s      pairSums
	o      *overlap
	weight func(int) int64
}

func newEMFit(o *overlap) *emFit {
	return &emFit{m: o.m, x: make([]float64, o.m+len(o.docStart)-1), s: newPairSums(o.m)}
}

func (e *emFit) clone() fitter {
	return &emFit{m: e.m, x: make([]float64, len(e.x)), s: newPairSums(e.m)}
}

func (e *emFit) fit(o *overlap, weight func(int) int64, warm fitter) []float64 {
	var from []float64
	if wf, ok := warm.(*emFit); ok {
		from = wf.x
	}
	begin(o, weight, e.s, e.x, from)
	e.o, e.weight = o, weight
	solve(e, e.x, e.m)
	return relative(e.x[:e.m], connected(e.m, e.s))
}

func (e *emFit) step(x, out []float64) {
	m, o := e.m, e.o
	theta, gamma := x[:m], x[m:]
	ot, og := out[:m], out[m:]
	num, den := make([]float64, m), make([]float64, m)
	copy(og, gamma)
	for j := range o.queries() {
		w := e.weight(j)
		if w == 0 {
			continue
		}
		wf := float64(w)
		for d := o.queryStart[j]; d < o.queryStart[j+1]; d++ {
			g := gamma[d]
			var relevant, shown float64
			for c := o.docStart[d]; c < o.docStart[d+1]; c++ {
				k := o.pos[c]
				ex, rl := posterior(float64(o.clicks[c]), float64(o.imps[c]), theta[k], g)
				num[k] = float64(wf*ex) + num[k]
				den[k] = float64(wf*float64(o.imps[c])) + den[k]
				relevant += rl
				shown += float64(o.imps[c])
			}
			og[d] = relevant / shown
		}
	}
	mStep(ot, theta, num, den)
	rescale(ot, og)
}

func (e *emFit) loglik(x []float64) float64 {
	m, o := e.m, e.o
	theta, gamma := x[:m], x[m:]
	ll := 0.0
	for j := range o.queries() {
		w := e.weight(j)
		if w == 0 {
			continue
		}
		q := 0.0
		for d := o.queryStart[j]; d < o.queryStart[j+1]; d++ {
			for c := o.docStart[d]; c < o.docStart[d+1]; c++ {
				q += binomialLL(float64(o.clicks[c]), float64(o.imps[c]), float64(theta[o.pos[c]]*gamma[d]))
			}
		}
		ll = float64(float64(w)*q) + ll
	}
	return ll
}
