package propensity

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/rankeval/rankeval/internal/pmath"
	"github.com/rankeval/rankeval/stats"
)

// Method is an estimator of the propensities.
type Method string

// The estimators.
const (
	// Harvest is all-pairs intervention harvesting (Agarwal et al., WSDM
	// 2019): the documents of a query shown at two positions k and k'
	// form the intervention set of (k, k'); each contributes its click
	// rate at k and at k' (the paper's weighting, w(q,d,k) = Σ_i n_i(q)
	// 1[d at k under ranker i], the impressions of d at k), and the
	// propensities and each set's relevance maximize the paper's
	// likelihood over every pair.
	Harvest Method = "harvest"
	// EM is the position-based model fitted by EM to the count table
	// (Wang et al., WSDM 2018, without the regression): a propensity per
	// position, an attractiveness per query and document.
	EM Method = "em"
)

// ErrMethod is wrapped by the error of an unknown method.
var ErrMethod = errors.New("unknown propensity method")

// ParseMethod reads a method's name.
func ParseMethod(s string) (Method, error) {
	switch m := Method(s); m {
	case Harvest, EM:
		return m, nil
	}
	return "", fmt.Errorf("%q: want harvest or em: %w", s, ErrMethod)
}

// DefaultReplicates and DefaultMinClicks are --replicates and
// --min-clicks when not given.
const (
	DefaultReplicates = 200
	DefaultMinClicks  = 20
)

// Options say how to estimate.
type Options struct {
	Method Method
	// Replicates is the Poisson-bootstrap resamples of the queries (at
	// least stats.MinBootstrap).
	Replicates int
	// MinClicks is the least clicks at a position, on documents shown
	// there and at another position, for an estimate there.
	MinClicks int64
	// Workers fit the replicates (0: one per CPU); the result does not
	// depend on it.
	Workers int
}

// Position is the estimate at one position.
type Position struct {
	Position int
	// Propensity is relative to position 1; Lower and Upper bound its 95%
	// percentile interval. All are NaN when Refused.
	Propensity, Lower, Upper float64
	// Impressions counts the rows at this position; Pairs the (query,
	// document) pairs shown here and at another position, Clicks their
	// clicks here: the evidence of the estimate.
	Impressions, Pairs, Clicks int64
	// Refused says why the position has no estimate ("" when it has).
	Refused string
}

// Estimate is the propensity of every position 1 to the table's
// MaxPosition.
type Estimate struct {
	Method     Method
	Replicates int
	Positions  []Position
	Totals     Totals
}

// overlap is the part of a table that informs the propensities: the
// (query, document) pairs shown at two positions or more, their counts
// pooled over rankers per position (the paper's weighting: a ranker
// that shows d at k in n_i(q) impressions adds n_i(q) to d's
// impressions at k). Queries are in byte order, documents in byte order
// within their query.
type overlap struct {
	m          int
	pos        []int32 // per cell, 0-based position
	clicks     []int64
	imps       []int64
	docStart   []int // cells of doc i: docStart[i]:docStart[i+1]
	queryStart []int // docs of query j: queryStart[j]:queryStart[j+1]
	hash       []uint64
	// contrib lists each query's contributions to the pair sums,
	// queryContrib[j]:queryContrib[j+1].
	contrib      []pairContrib
	queryContrib []int
	evidence     []Position
}

// pairContrib is one query's contribution to the ordered pair idx =
// k·m + k' (0-based, k ≠ k'): its documents shown at both, their summed
// click rate at k, and their clicks at k.
type pairContrib struct {
	idx    int32
	docs   int64
	clicks int64
	rate   float64
}

// newOverlap reads t's cells (in the order of Each, one query at a
// time) into the overlap, and sums them.
func newOverlap(t *Table) (*overlap, Totals, error) {
	m := t.MaxPosition
	o := &overlap{m: m, evidence: make([]Position, m), queryStart: []int{0}, queryContrib: []int{0}}
	c, n := make([]int64, m), make([]int64, m)
	rate := make([]float64, m*m)
	docs, clk := make([]int64, m*m), make([]int64, m*m)
	var shown, touched []int32
	// doc adds the pooled counts of one document if it was shown at two
	// positions or more, and says whether it did
	doc := func() bool {
		kept := len(shown) >= 2
		sortedInt32(shown)
		if kept {
			o.docStart = append(o.docStart, len(o.pos))
		}
		for _, k := range shown {
			if kept {
				o.pos = append(o.pos, k)
				o.clicks = append(o.clicks, c[k])
				o.imps = append(o.imps, n[k])
				o.evidence[k].Pairs++
				o.evidence[k].Clicks += c[k]
				r := float64(c[k]) / float64(n[k])
				for _, k2 := range shown {
					if k2 == k {
						continue
					}
					idx := k*int32(m) + k2
					if docs[idx] == 0 {
						touched = append(touched, idx)
					}
					docs[idx]++
					clk[idx] += c[k]
					rate[idx] += r
				}
			}
		}
		for _, k := range shown {
			c[k], n[k] = 0, 0
		}
		shown = shown[:0]
		return kept
	}
	var tot totaler
	var cells []Cell // of one query
	// query adds the documents of one query's cells
	query := func() {
		if len(cells) == 0 {
			return
		}
		i, j := 0, len(cells)
		kept := false
		for a := i; a < j; {
			b := a
			for b < j && cells[b].Doc == cells[a].Doc {
				k := int32(cells[b].Position - 1)
				if n[k] == 0 {
					shown = append(shown, k)
				}
				c[k] += cells[b].Clicks
				n[k] += cells[b].Impressions
				o.evidence[k].Impressions += cells[b].Impressions
				b++
			}
			kept = doc() || kept
			a = b
		}
		if kept {
			o.hash = append(o.hash, stats.QueryHash([]byte(cells[i].Query)))
			for _, idx := range sortedInt32(touched) {
				o.contrib = append(o.contrib, pairContrib{idx: idx, docs: docs[idx], clicks: clk[idx], rate: rate[idx]})
				rate[idx], docs[idx], clk[idx] = 0, 0, 0
			}
			touched = touched[:0]
			o.queryStart = append(o.queryStart, len(o.docStart))
			o.queryContrib = append(o.queryContrib, len(o.contrib))
		}
		cells = cells[:0]
	}
	err := t.Each(func(c Cell) error {
		tot.add(c)
		if len(cells) > 0 && c.Query != cells[0].Query {
			query()
		}
		cells = append(cells, c)
		return nil
	})
	if err != nil {
		return nil, Totals{}, err
	}
	query()
	o.docStart = append(o.docStart, len(o.pos))
	for k := range o.evidence {
		o.evidence[k].Position = k + 1
	}
	return o, tot.totals(t.Beyond), nil
}

func sortedInt32(s []int32) []int32 {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j-1] > s[j]; j-- {
			s[j-1], s[j] = s[j], s[j-1]
		}
	}
	return s
}

func (o *overlap) queries() int { return len(o.queryStart) - 1 }

// weights are each query's bootstrap weight in each replicate,
// weights[j·B + b].
func (o *overlap) weights(b int) []uint8 {
	w := make([]uint8, o.queries()*b)
	for j, h := range o.hash {
		stats.BootstrapWeights(h, w[j*b:(j+1)*b])
	}
	return w
}

// pairSums are the pair sums of one resample: per ordered pair idx, the
// documents shown at both positions, their click rates summed at the
// first and their clicks there.
type pairSums struct {
	docs, clicks []int64
	rate         []float64
}

func newPairSums(m int) pairSums {
	return pairSums{docs: make([]int64, m*m), clicks: make([]int64, m*m), rate: make([]float64, m*m)}
}

// sums adds each query's pair contributions, weighted by weight(j), in
// query order.
func (o *overlap) sums(s pairSums, weight func(j int) int64) {
	for j := range o.queries() {
		w := weight(j)
		if w == 0 {
			continue
		}
		for _, c := range o.contrib[o.queryContrib[j]:o.queryContrib[j+1]] {
			s.docs[c.idx] += w * c.docs
			s.clicks[c.idx] += w * c.clicks
			s.rate[c.idx] = float64(float64(w)*c.rate) + s.rate[c.idx]
		}
	}
}

// connected says which positions are tied to position 1 by pairs with
// clicks at both of their positions: only there is a propensity relative
// to position 1 identified by the data.
func connected(m int, s pairSums) []bool {
	ok := make([]bool, m)
	ok[0] = true
	stack := []int{0}
	for len(stack) > 0 {
		k := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for k2 := range m {
			if ok[k2] || k2 == k {
				continue
			}
			if s.clicks[k*m+k2] > 0 && s.clicks[k2*m+k] > 0 {
				ok[k2] = true
				stack = append(stack, k2)
			}
		}
	}
	any := false
	for k := 1; k < m; k++ {
		any = any || ok[k]
	}
	ok[0] = any
	return ok
}

// Estimate fits the propensities of t.
func (t *Table) Estimate(opt Options) (*Estimate, error) {
	if opt.Replicates < stats.MinBootstrap {
		return nil, fmt.Errorf("%d replicates: want at least %d: %w", opt.Replicates, stats.MinBootstrap, stats.ErrFewReplicates)
	}
	if opt.Method != Harvest && opt.Method != EM {
		return nil, fmt.Errorf("%q: want harvest or em: %w", opt.Method, ErrMethod)
	}
	o, totals, err := newOverlap(t)
	if err != nil {
		return nil, err
	}
	m, B := o.m, opt.Replicates
	w := o.weights(B)
	// resample B is the log itself (every weight 1), fitted first so
	// that the resamples start from its fit
	fits := make([][]float64, B+1)
	var full fitter
	if opt.Method == Harvest {
		full = newHarvestFit(m)
	} else {
		full = newEMFit(o)
	}
	fits[B] = full.fit(o, func(int) int64 { return 1 }, nil)
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(workers, B) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := full.clone()
			for b := range next {
				fits[b] = f.fit(o, func(j int) int64 { return int64(w[j*B+b]) }, full)
			}
		}()
	}
	for b := range B {
		next <- b
	}
	close(next)
	wg.Wait()
	e := &Estimate{Method: opt.Method, Replicates: B, Positions: o.evidence, Totals: totals}
	reps := make([]float64, 0, B)
	for k := range m {
		p := &e.Positions[k]
		p.Propensity, p.Lower, p.Upper = math.NaN(), math.NaN(), math.NaN()
		est := fits[B][k]
		reps = reps[:0]
		undefined := 0
		for b := range B {
			if r := fits[b][k]; math.IsNaN(r) {
				undefined++
			} else {
				reps = append(reps, r)
			}
		}
		switch {
		case p.Impressions == 0:
			p.Refused = "no row at this position"
		case p.Pairs == 0:
			p.Refused = "no document of a query shown here was shown at another position"
		case math.IsNaN(est):
			p.Refused = "no chain of documents clicked here and at another position leads to position 1"
		case p.Clicks < opt.MinClicks:
			p.Refused = fmt.Sprintf("%d clicks on documents also shown elsewhere, fewer than --min-clicks %d", p.Clicks, opt.MinClicks)
		case k == 0: // the reference: 1 wherever another position is estimated
			p.Propensity, p.Lower, p.Upper = 1, 1, 1
		case undefined > 0:
			p.Refused = fmt.Sprintf("%d of %d resamples of the queries leave it without overlapping clicks", undefined, B)
		case est > 1:
			p.Refused = fmt.Sprintf("estimated at %.4g, above position 1's, which a propensity relative to position 1 cannot be", est)
		case !(est > 0):
			p.Refused = "estimated at 0"
		default:
			p.Propensity = est
			p.Lower, p.Upper = stats.PercentileCI95(reps)
		}
	}
	return e, nil
}

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
	for k := range m {
		op[k] = p[k]
		if den[k] > 0 {
			op[k] = num[k] / den[k]
		}
	}
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
	for k := range m {
		ot[k] = theta[k]
		if den[k] > 0 {
			ot[k] = num[k] / den[k]
		}
	}
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
