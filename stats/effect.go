package stats

import (
	"math"

	"github.com/rankeval/rankeval/internal/pmath"
)

// Effect is the standardized size of a paired difference: Cohen's d_z, the
// mean of the per-query differences over their standard deviation, with
// its exact 95% confidence interval. A p-value only says a difference is
// there; over 10^6 queries a tiny one is "significant", and d_z says
// whether it is large next to the query-to-query noise.
type Effect struct {
	D      float64 // NaN when N < 2 or the differences have no spread
	Lo, Hi float64 // NaN with D
}

// EffectOf reads d_z and its 95% interval from the summary of the
// per-query differences. The interval inverts the noncentral t
// distribution of the t statistic (Steiger & Fouladi 1997, as MBESS's
// ci.sm does): t = d·√n has n-1 degrees of freedom and noncentrality
// δ = d_z(true)·√n, so the bounds are the δ that put t at the 97.5% and
// 2.5% points, over √n. The normal approximation d ± 1.96·√(1/n + d²/2n)
// is off in the second digit for small n and large d, where a report
// needs the interval most.
//
// It is NaN throughout when N < 2 or the standard deviation is 0, NaN or
// infinite: a difference with no spread has no standardized size.
func EffectOf(s Summary) Effect {
	nan := math.NaN()
	out := EffectSize(s)
	if math.IsNaN(out.D) {
		return out
	}
	n := float64(s.N)
	rn := math.Sqrt(n)
	t := out.D * rn
	if math.IsInf(t, 0) || math.Abs(t) > nctMaxT {
		out.Lo, out.Hi = nan, nan
		return out
	}
	out.Lo = nctInvert(t, n-1, 0.975, z95) / rn
	out.Hi = nctInvert(t, n-1, 0.025, -z95) / rn
	return out
}

// EffectSize is EffectOf without the interval (Lo and Hi NaN): d_z alone,
// for the comparisons of slices, where inverting the noncentral t for each
// of thousands of slices, pairs and metrics would outlast the run
// (docs/comparisons.md, Effect sizes).
func EffectSize(s Summary) Effect {
	nan := math.NaN()
	out := Effect{D: nan, Lo: nan, Hi: nan}
	if s.N < 2 || !(s.Stdev > 0) || math.IsInf(s.Stdev, 0) || math.IsNaN(s.Mean) || math.IsInf(s.Mean, 0) {
		return out
	}
	if d := s.Mean / s.Stdev; !math.IsInf(d, 0) { // past float64 (a crafted state's sums): no size to print
		out.D = d
	}
	return out
}

// nctMaxT bounds the t statistics whose interval EffectOf computes: past
// it t·ε is no longer far below the width of the normal step inside the
// integral, and the figures would carry rounding rather than meaning
// (d_z > 10^9 at n = 100: differences that vary only in their last
// digits).
const nctMaxT = 1e11

// nctInvert finds the noncentrality δ with NCTCDF(t, df, δ) = p. The CDF
// falls as δ grows, with slope -∫φ(ts-δ)g(s)ds computed alongside, so
// this is Newton's method kept inside a bracket that only shrinks:
// quadratic near the root, and a bisection step whenever Newton would
// leave the bracket, so it cannot diverge. z is p's normal quantile, for
// the starting guess t - z·sd(T). Deterministic: the same steps on every
// machine.
func nctInvert(t, df, p, z float64) float64 {
	sd := math.Sqrt(1 + float64(t*t/(2*df))) // sd of T for large df, to first order
	f := func(d float64) (float64, float64) {
		c, dc := nctCDF(t, df, d)
		return c - p, dc
	}
	x := t - float64(z*sd)
	fx, dx := f(x)
	// bracket [lo, hi] with f(lo) > 0 > f(hi), walking away from x in
	// doubling steps; Newton starts from the end nearer the root
	lo, hi := x, x
	flo, fhi, dlo, dhi := fx, fx, dx, dx
	if fx > 0 {
		for step := sd; fhi > 0; step *= 2 {
			lo, flo, dlo = hi, fhi, dhi
			hi += step
			fhi, dhi = f(hi)
		}
	} else {
		for step := sd; flo < 0; step *= 2 {
			hi, fhi, dhi = lo, flo, dlo
			lo -= step
			flo, dlo = f(lo)
		}
	}
	x, fx, dx = lo, flo, dlo
	if -fhi < flo {
		x, fx, dx = hi, fhi, dhi
	}
	tol := 1e-14 * max(1, math.Abs(x))
	for range 200 {
		switch {
		case fx > 0:
			lo = x
		case fx < 0:
			hi = x
		default:
			return x
		}
		step := fx / dx
		if dx < 0 && math.Abs(step) <= tol {
			return x - step
		}
		next := x - step
		if !(dx < 0) || !(next > lo && next < hi) {
			next = lo + float64((hi-lo)/2)
		}
		if hi-lo <= tol {
			return next
		}
		x = next
		fx, dx = f(x)
	}
	return x
}

// NCTCDF is P(T <= t) for the noncentral t distribution with df degrees of
// freedom and noncentrality nc: T = (Z + nc)/S with Z standard normal and
// S² an independent chi-square over df. Relative error ≤ 1e-10 where the
// value is ≥ 1e-300 (smaller values may come out as 0), for df in
// [1, 10^8] and |nc|, |t| up to 10^5 and beyond; NaN for NaN arguments,
// df ≤ 0 or an infinite nc.
//
// The usual method sums a Poisson-weighted series of incomplete beta
// functions (Benton & Krishnamoorthy 2003). It needs O(nc) terms — 10^4
// and more at nc in the thousands, which click logs of 10^7 queries
// reach — and for t < 0 < nc its two halves cancel to the last digit.
// Instead this integrates the definition, E[Φ(t·S - nc)], over the law
// of S: the integrand is positive (no cancellation in either tail) and
// unimodal in u = log S for every df, so a Gauss–Kronrod rule placed
// around its mode by its curvature takes about 250 points whatever df
// and nc are, and refines where Φ turns into a sharp step. The tests hold
// it to 40-digit mpmath values (testdata/statref.json).
func NCTCDF(t, df, nc float64) float64 {
	c, _ := nctCDF(t, df, nc)
	return c
}

// nctCDF is NCTCDF and its derivative in nc.
func nctCDF(t, df, nc float64) (float64, float64) {
	switch {
	case math.IsNaN(t) || math.IsNaN(df) || math.IsNaN(nc) || !(df > 0) || math.IsInf(nc, 0):
		return math.NaN(), math.NaN()
	case math.IsInf(t, 1):
		return 1, 0
	case math.IsInf(t, -1):
		return 0, 0
	case t == 0 || math.IsInf(df, 1):
		// S is 1 (df infinite) or does not matter (t = 0): Φ(t - nc)
		w := t - nc
		return pmath.Exp(logPhi(w)), -pmath.Exp(logPhi(w)) * mills(w)
	}
	q := newNCTIntegrand(t, df, nc)
	return q.integrate()
}

// nctIntegrand is Φ(t·s - nc)·g(s) in u = log s, where g is the density
// of S = √(χ²_df/df): log g(s)ds = log c + n·u - n·e^{2u}/2 with
// c = 2(n/2)^{n/2}/Γ(n/2).
type nctIntegrand struct {
	t, n, nc float64
	tmd      float64 // t - nc: the normal's argument at s = 1
	// logG(u) = logc + n·u - n·e^{2u}/2, kept in a form that does not
	// cancel for large n (see logG).
	logc  float64
	large bool
}

func newNCTIntegrand(t, df, nc float64) *nctIntegrand {
	q := &nctIntegrand{t: t, n: df, nc: nc, tmd: t - nc}
	h := df / 2
	if h >= 10 {
		// log c - n/2 = ½log(n/π) - (log Γ(n/2) beyond Stirling): the two
		// terms of size n·log n cancel exactly
		q.large = true
		q.logc = float64(0.5*pmath.Log(df/math.Pi)) - stirlingTail(h)
	} else {
		lg := pmath.Lgamma(h)
		q.logc = math.Ln2 + float64(h*pmath.Log(h)) - lg
	}
	return q
}

// stirlingTail is log Γ(z) - ((z-½)log z - z + ½log 2π) for z ≥ 10, to
// 1e-17: Stirling's series to the z^-13 term.
func stirlingTail(z float64) float64 {
	r := 1 / z
	r2 := r * r
	s := 1.0 / 156 // Horner's rule, every product rounded
	for _, c := range [...]float64{-691.0 / 360360, 1.0 / 1188, -1.0 / 1680, 1.0 / 1260, -1.0 / 360, 1.0 / 12} {
		s = c + float64(r2*s)
	}
	return float64(r * s)
}

// logG is the log density of S in u = log s.
func (q *nctIntegrand) logG(u float64) float64 {
	if q.large {
		// n·u - n·e^{2u}/2 = -n/2 - (n/2)(e^{2u} - 1 - 2u)
		return q.logc - float64(q.n/2*expm1mx(2*u))
	}
	return q.logc + float64(q.n*u) - float64(q.n*pmath.Exp(2*u)/2)
}

// w is t·s - nc at s = e^u, through expm1 so that it keeps its digits when
// t·s and nc are large and nearly equal (the interesting region).
func (q *nctIntegrand) w(u float64) float64 {
	return q.tmd + float64(q.t*pmath.Expm1(u))
}

func (q *nctIntegrand) logH(u float64) float64 {
	return logPhi(q.w(u)) + q.logG(u)
}

// slope is d/du log H and its derivative: t·s·M(w) + n - n·s² with M
// the inverse Mills ratio φ/Φ; it is positive then negative, once.
func (q *nctIntegrand) slope(u float64) (float64, float64) {
	s := pmath.Exp(u)
	w := q.w(u)
	ts := q.t * s
	m := mills(w)
	d := float64(ts*m) + q.n - float64(q.n*s*s)
	// M' = -M(w + M)
	dd := float64(ts*m) - float64(ts*ts*m*(w+m)) - float64(2*q.n*s*s)
	return d, dd
}

// mode finds the maximum of log H and the width 1/√(-(log H)”) there.
// log H's slope changes sign once (it is s times a decreasing function of
// s), so a bracket and safeguarded Newton find it.
func (q *nctIntegrand) mode() (u, sigma float64) {
	// Start where the normal approximations of both factors balance:
	// (n + t²)s² - t·nc·s - n = 0.
	a := q.n + float64(q.t*q.t)
	b := float64(q.t * q.nc)
	u = 0
	if z := (b + math.Sqrt(float64(b*b)+float64(4*q.n*a))) / (2 * a); z > 0 && !math.IsInf(z, 0) {
		u = pmath.Log(z)
	}
	d, dd := q.slope(u)
	lo, hi := u, u
	if d > 0 {
		for step := 1.0; d > 0 && step < 1<<12; step *= 2 {
			lo, hi = hi, hi+step
			d, _ = q.slope(hi)
		}
	} else if d < 0 {
		for step := 1.0; d < 0 && step < 1<<12; step *= 2 {
			hi, lo = lo, lo-step
			d, _ = q.slope(lo)
		}
	}
	d, dd = q.slope(u)
	for range 100 {
		if d > 0 {
			lo = u
		} else if d < 0 {
			hi = u
		}
		next := u - d/dd
		if !(dd < 0) || !(next > lo && next < hi) {
			next = lo + float64((hi-lo)/2)
		}
		// the mode only anchors the quadrature: a millionth of its width
		// is plenty
		done := math.Abs(next-u) <= 1e-6/math.Sqrt(max(-dd, 1e-300)) || hi-lo <= 1e-15*max(1, math.Abs(u))
		u = next
		d, dd = q.slope(u)
		if done || d == 0 {
			break
		}
	}
	sigma = 1 / math.Sqrt(-dd)
	if !(sigma > 0) || math.IsInf(sigma, 0) {
		sigma = 1
	}
	return u, sigma
}

// integrate returns ∫H du and ∫H·M(w) du (the derivative in nc, negated),
// scaled by the peak so that tails far below the smallest float64 still
// integrate.
func (q *nctIntegrand) integrate() (float64, float64) {
	m, sigma := q.mode()
	peak := q.logH(m)
	// The ends: where H has fallen by e^-40 relative to its peak (the
	// tail beyond holds less than 1e-16 of the total), walking out in
	// doubling steps from 2σ (H is unimodal, so it keeps falling).
	cuts := []float64{m}
	var ends [2]float64
	for i, dir := range []float64{1, -1} {
		x := m
		for k := 0; k < 200; k++ {
			x = m + float64(dir*sigma*math.Ldexp(2, k))
			cuts = append(cuts, x)
			if l := q.logH(x); !(l > peak-40) {
				break
			}
		}
		ends[i] = x
	}
	// Where Φ(t·s - nc) steps from 0 to 1, over |1/nc| in u: when that is
	// much narrower than H, cuts closing in on the step save the
	// adaptive rule a dozen halvings.
	if nc := q.nc; q.t*nc > 0 {
		us, width := pmath.Log(nc/q.t), 1/math.Abs(nc)
		for k := 0.0; width*pmath.Pow(2, k) < sigma; k++ {
			for _, x := range []float64{us - float64(width*pmath.Pow(2, k)), us + float64(width*pmath.Pow(2, k))} {
				if x > ends[1] && x < ends[0] {
					cuts = append(cuts, x)
				}
			}
		}
		if us > ends[1] && us < ends[0] {
			cuts = append(cuts, us)
		}
	}
	sortFloats(cuts)
	f := func(u float64) (float64, float64) {
		w := q.w(u)
		lg := q.logG(u) - peak
		// H, and φ(w)·g for the derivative in nc
		pdf := pmath.Exp(lg - float64(w*w/2) - float64(0.5*pmath.Log(2*math.Pi)))
		if w < -30 {
			return pmath.Exp(logPhi(w) + lg), pdf
		}
		return pmath.Exp(lg) * 0.5 * pmath.Erfc(-w/math.Sqrt2), pdf
	}
	v, dv := gkAdaptive(f, cuts, 1e-12)
	scale := pmath.Exp(peak)
	return min(1, v*scale), -dv * scale
}

func sortFloats(x []float64) {
	for i := 1; i < len(x); i++ {
		for j := i; j > 0 && x[j] < x[j-1]; j-- {
			x[j], x[j-1] = x[j-1], x[j]
		}
	}
}

// expm1mx is e^z - 1 - z without cancellation for small z: Taylor's
// series z²/2! + ... + z^21/21! within |z| <= 1/2, where the rest is below
// 1e-17 of the sum, in Horner form (no divisions: it runs at every
// quadrature node).
func expm1mx(z float64) float64 {
	if math.Abs(z) > 0.5 {
		return pmath.Expm1(z) - z
	}
	top := len(invFact) - 1
	if math.Abs(z) < 0.01 { // large df: z^9/9! < 1e-18·z²/2
		top = 8
	}
	s := invFact[top]
	for k := top - 1; k >= 2; k-- {
		s = float64(s*z) + invFact[k]
	}
	return s * z * z
}

// invFact[k] is 1/k!.
var invFact = func() [22]float64 {
	var f [22]float64
	f[0] = 1
	for k := 1; k < len(f); k++ {
		f[k] = f[k-1] / float64(k)
	}
	return f
}()

// logPhi is log Φ(w) for the standard normal CDF, accurate in both tails:
// below -30 erfc underflows, and the asymptotic series of Φ(w)·|w|/φ(w)
// converges there to 1e-17 in a dozen terms.
func logPhi(w float64) float64 {
	switch {
	case w < -30:
		return float64(-w*w/2) - float64(0.5*pmath.Log(2*math.Pi)) - pmath.Log(-w) + pmath.Log(millsSeries(w))
	case w <= 0:
		return pmath.Log(0.5 * pmath.Erfc(-w/math.Sqrt2))
	default:
		return pmath.Log1p(-0.5 * pmath.Erfc(w/math.Sqrt2))
	}
}

// millsSeries is Φ(w)·|w|/φ(w) for w < -30: 1 - 1/w² + 3/w⁴ - 15/w⁶ ...
func millsSeries(w float64) float64 {
	r := 1 / (w * w)
	sum, term := 1.0, 1.0
	for k := 1.0; k < 40; k++ {
		term = float64(term * (-(2*k - 1) * r))
		sum += term
		if math.Abs(term) < 1e-18 {
			break
		}
	}
	return sum
}

// mills is the inverse Mills ratio φ(w)/Φ(w).
func mills(w float64) float64 {
	if w < -30 {
		return -w / millsSeries(w)
	}
	if w > 40 {
		return 0
	}
	return pmath.Exp(-w*w/2) / math.Sqrt(2*math.Pi) / (0.5 * pmath.Erfc(-w/math.Sqrt2))
}

// Gauss–Kronrod 15-point rule (QUADPACK's qk15): Kronrod nodes and
// weights, and the weights of the embedded 7-point Gauss rule on the odd
// nodes.
var (
	gkX = [8]float64{
		0.991455371120812639206854697526329, 0.949107912342758524526189684047851,
		0.864864423359769072789712788640926, 0.741531185599394439863864773280788,
		0.586087235467691130294144845693013, 0.405845151377397166906606412076961,
		0.207784955007898467600689403773245, 0,
	}
	gkW = [8]float64{
		0.022935322010529224963732008058970, 0.063092092629978553290700663189204,
		0.104790010322250183839876322541518, 0.140653259715525918745189590510238,
		0.169004726639267902826583426598550, 0.190350578064785409913256402421014,
		0.204432940075298892414161999234649, 0.209482141084727828012999174891714,
	}
	gW = [4]float64{
		0.129484966168869693270611432679082, 0.279705391489276667901467771423780,
		0.381830050505118944950369775488975, 0.417959183673469387755102040816327,
	}
)

type gkPiece struct{ a, b, v, dv, err float64 }

// gk15 integrates f (and its second output) over [a, b] with QUADPACK's
// error estimate, which is sharp for smooth integrands.
func gk15(f func(float64) (float64, float64), a, b float64) gkPiece {
	c, h := float64((a+b)/2), (b-a)/2
	fc, dc := f(c)
	resk, resg, resd := float64(fc*gkW[7]), float64(fc*gW[3]), float64(dc*gkW[7]) // rounded: the loop adds to them
	var fv [15]float64
	fv[7] = fc
	for j := 0; j < 7; j++ {
		x := float64(h * gkX[j])
		f1, d1 := f(c - x)
		f2, d2 := f(c + x)
		fv[j], fv[14-j] = f1, f2
		resk += float64(gkW[j] * (f1 + f2))
		resd += float64(gkW[j] * (d1 + d2))
		if j%2 == 1 {
			resg += float64(gW[j/2] * (f1 + f2))
		}
	}
	mean := float64(resk / 2)
	asc := float64(gkW[7] * math.Abs(fc-mean))
	for j := 0; j < 7; j++ {
		asc += float64(gkW[j] * (math.Abs(fv[j]-mean) + math.Abs(fv[14-j]-mean)))
	}
	asc *= math.Abs(h)
	err := math.Abs((resk - resg) * h)
	if asc != 0 && err != 0 {
		err = asc * min(1, pmath.Pow(200*err/asc, 1.5))
	}
	err = max(err, 50*0x1p-52*math.Abs(resk*h))
	return gkPiece{a: a, b: b, v: resk * h, dv: resd * h, err: err}
}

// gkAdaptive integrates over the pieces between consecutive cuts, halving
// the piece of largest error until the total error is below rel times the
// total (QUADPACK's qag strategy). Pieces stay in order and ties go to the
// first, so the sums are the same on every run.
func gkAdaptive(f func(float64) (float64, float64), cuts []float64, rel float64) (float64, float64) {
	pieces := make([]gkPiece, 0, 64)
	for i := 1; i < len(cuts); i++ {
		if cuts[i] > cuts[i-1] {
			pieces = append(pieces, gk15(f, cuts[i-1], cuts[i]))
		}
	}
	for range 400 {
		var v, err float64
		worst := -1
		for i, p := range pieces {
			v += p.v
			err += p.err
			if worst < 0 || p.err > pieces[worst].err {
				worst = i
			}
		}
		if worst < 0 || err <= rel*math.Abs(v) {
			break
		}
		p := pieces[worst]
		mid := p.a + float64((p.b-p.a)/2)
		if !(mid > p.a && mid < p.b) { // as narrow as floats go
			pieces[worst].err = 0
			continue
		}
		left, right := gk15(f, p.a, mid), gk15(f, mid, p.b)
		pieces = append(pieces, gkPiece{})
		copy(pieces[worst+2:], pieces[worst+1:])
		pieces[worst], pieces[worst+1] = left, right
	}
	var v, dv float64
	for _, p := range pieces {
		v += p.v
		dv += p.dv
	}
	return v, dv
}
