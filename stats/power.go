package stats

import (
	"math"

	"github.com/rankeval/rankeval/internal/pmath"
)

// The power of the paired t-test, for planning: how small a difference
// the queries at hand can detect (MDE), and how many queries a given
// difference needs (DetectN). Both fix the test a comparison reports
// (two-sided, α = 0.05) and the conventional 80% power, and take the
// standard deviation of the per-query differences as known: the observed
// one. They are statsmodels' TTestPower (solve_power with
// alternative='two-sided'), computed with NCTCDF (docs/comparisons.md,
// Power).

// PowerTarget is the power MDE and DetectN solve for.
const PowerTarget = 0.8

// z80 is the 0.8 quantile of the standard normal distribution.
const z80 = 0.8416212335729143

// MaxDetectN bounds DetectN's answer: past it the sample is beyond any
// log (10^15 queries), and the noncentral t's degrees of freedom beyond
// where NCTCDF is checked.
const MaxDetectN = 1_000_000_000_000_000

// TPower is the power of the two-sided paired t-test at α = 0.05 over n
// pairs when the true mean difference is d standard deviations (d_z):
// P(|T| > t_{0.975, n-1}) for T noncentral t with n-1 degrees of freedom
// and noncentrality d·√n. NaN when n < 2 or d is NaN or infinite.
func TPower(d float64, n int64) float64 {
	if n < 2 || math.IsNaN(d) || math.IsInf(d, 0) {
		return math.NaN()
	}
	p, _ := newTPower(n).at(d)
	return p
}

// tPower is the power function of one n: the critical value is n's alone.
type tPower struct {
	df, rn, crit float64
}

func newTPower(n int64) tPower {
	df := float64(n - 1)
	return tPower{df: df, rn: math.Sqrt(float64(n)), crit: tCrit975(df)}
}

// tCrit975 is the 0.975 quantile of Student's t with df degrees of
// freedom: TQuantile975 up to 10^4, and beyond it the Cornish–Fisher
// expansion around the normal quantile (Abramowitz & Stegun 26.7.5, four
// terms: the next is below 1e-19 there), where TQuantile975's continued
// fraction loses digits (1e-6 relative at 10^12, which moved DetectN's
// answer by 0.4% at 10^14 queries).
func tCrit975(df float64) float64 {
	if df < 1e4 {
		return TQuantile975(df)
	}
	x := z95
	x2 := x * x
	poly := func(cs ...float64) float64 { // Horner's rule in x², times x
		s := 0.0
		for _, c := range cs {
			s = float64(s*x2) + c
		}
		return float64(s * x)
	}
	// rounded: a division by 4 compiles to a product, which the sum below
	// would otherwise fuse
	g1 := float64(poly(1, 1) / 4)
	g2 := float64(poly(5, 16, 3) / 96)
	g3 := float64(poly(3, 19, 17, -15) / 384)
	g4 := float64(poly(79, 776, 1482, -1920, -945) / 92160)
	r := 1 / df
	return x + float64(r*(g1+float64(r*(g2+float64(r*(g3+float64(r*g4)))))))
}

// at is the power at d_z = d and its derivative in d.
func (p tPower) at(d float64) (float64, float64) {
	nc := float64(d * p.rn)
	if math.IsInf(nc, 1) || p.surelyBeyond(nc) {
		return 1, 0 // detected by this n to float64's precision
	}
	cu, dcu := nctCDF(p.crit, p.df, nc)
	cl, dcl := nctCDF(-p.crit, p.df, nc)
	return (1 - cu) + cl, float64((dcl - dcu) * p.rn)
}

// surelyBeyond reports whether P(T ≤ crit) < 1e-18 for T noncentral t
// with noncentrality nc, so that the power is 1 in float64 (and
// P(T ≤ -crit), smaller, no matter). The bound is
// P(Z + nc ≤ crit·S) ≤ Φ(-nc/2) + P(S ≥ x), x = nc/(2·crit), with
// Chernoff's P(χ²_df ≥ df·y) ≤ (y·e^{1-y})^{df/2} for y = x² > 1. Far
// past the 80% power MDE and DetectN solve for, NCTCDF's quadrature
// loses its peak (a log density of -1e18) and returns NaN, which would
// read as power not reached.
func (p tPower) surelyBeyond(nc float64) bool {
	const logEps = -41.44653167389282 // log(1e-18)
	if !(nc > 0) || !(logPhi(-nc/2) < logEps) {
		return false
	}
	x := nc / (2 * p.crit)
	y := float64(x * x)
	if !(y > 1) {
		return false
	}
	return math.IsInf(y, 1) || float64(p.df/2*(pmath.Log(y)+1-y)) < logEps
}

// MDEFactor is the standardized minimum detectable effect over n pairs:
// the d_z > 0 at which the two-sided paired t-test at α = 0.05 has 80%
// power. The MDE of a comparison is it times the standard deviation of
// the differences (MDE). NaN when n < 2.
//
// The power rises with d from α at 0, so Newton's method inside a
// bracket that only shrinks finds it (bisecting where Newton would leave
// the bracket), to 1e-13 relative.
func MDEFactor(n int64) float64 {
	if n < 2 {
		return math.NaN()
	}
	p := newTPower(n)
	f := func(d float64) (float64, float64) {
		v, dv := p.at(d)
		return v - PowerTarget, dv
	}
	// the normal approximation (z_{0.975} + z_{0.8})/√n is below the root:
	// t's heavier tails need a larger effect
	lo, hi := 0.0, (z95+z80)/p.rn
	fhi, dhi := f(hi)
	for fhi < 0 {
		lo, hi = hi, 2*hi
		fhi, dhi = f(hi)
	}
	x, fx, dx := hi, fhi, dhi
	for range 200 {
		switch {
		case fx < 0:
			lo = x
		case fx > 0:
			hi = x
		default:
			return x
		}
		next := x - fx/dx
		if !(dx > 0) || !(next > lo && next < hi) {
			next = lo + float64((hi-lo)/2)
		}
		if math.Abs(next-x) <= 1e-14*x || hi-lo <= 1e-14*x {
			return next
		}
		x = next
		fx, dx = f(x)
	}
	return x
}

// MDE is the minimum detectable effect of a comparison whose per-query
// differences s summarizes: the smallest true mean difference that the
// two-sided paired t-test at α = 0.05 detects with 80% power over s.N
// queries, taking the differences' standard deviation as s.Stdev
// (MDEFactor(N)·Stdev). NaN when N < 2 or the differences have no
// spread (Stdev 0, NaN or infinite): the t-test then has no power
// function.
func MDE(s Summary) float64 { return new(MDEs).Of(s) }

// MDEs computes the MDE of many comparisons, solving MDEFactor once per
// number of queries: a run's metrics and pairs mostly share theirs. The
// zero value is ready; not safe for concurrent use.
type MDEs struct{ factor map[int64]float64 }

// Of is MDE(s).
func (m *MDEs) Of(s Summary) float64 {
	if s.N < 2 || !(s.Stdev > 0) || math.IsInf(s.Stdev, 0) {
		return math.NaN()
	}
	k, ok := m.factor[s.N]
	if !ok {
		if m.factor == nil {
			m.factor = map[int64]float64{}
		}
		k = MDEFactor(s.N)
		m.factor[s.N] = k
	}
	return float64(k * s.Stdev)
}

// DetectN is the number of queries the two-sided paired t-test at
// α = 0.05 needs to detect a true mean difference delta with 80% power,
// when the differences' standard deviation is sd: the least n ≥ 2 with
// TPower(delta/sd, n) ≥ 0.8. It is 0 (undefined) when sd is not
// positive and finite or delta is not positive and finite, and -1 when
// the answer exceeds MaxDetectN.
//
// The search starts at the normal approximation ((z_{0.975}+z_{0.8})/d)²
// + z_{0.975}²/2, within a few of the answer, and brackets it by
// doubling steps before bisecting: a dozen power evaluations.
func DetectN(delta, sd float64) int64 {
	if !(sd > 0) || math.IsInf(sd, 0) || !(delta > 0) || math.IsInf(delta, 0) {
		return 0
	}
	d := delta / sd
	if d == 0 {
		return -1
	}
	r := (z95 + z80) / d
	est := float64(r*r) + z95*z95/2
	if !(est <= 2*MaxDetectN) {
		return -1
	}
	reaches := func(n int64) bool {
		v, _ := newTPower(n).at(d)
		return v >= PowerTarget
	}
	n0 := max(2, int64(est))
	if n0 > MaxDetectN {
		n0 = MaxDetectN
	}
	// lo fails (or is 1, below every answer), hi reaches
	var lo, hi int64
	if reaches(n0) {
		hi, lo = n0, n0-1
		for step := int64(1); lo >= 2 && reaches(lo); step *= 2 {
			hi = lo
			lo = max(1, lo-step)
		}
	} else {
		lo, hi = n0, n0+1
		for step := int64(1); ; step *= 2 {
			if hi > MaxDetectN {
				if !reaches(MaxDetectN) {
					return -1
				}
				hi = MaxDetectN
				break
			}
			if reaches(hi) {
				break
			}
			lo = hi
			hi += step
		}
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if reaches(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}
