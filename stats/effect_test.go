package stats

import (
	"fmt"
	"math"
	"testing"
)

// NCTCDF against mpmath's 40-digit integral (conditioning on the normal
// for df <= 1000, a formula NCTCDF does not use) on a grid of df from 1 to
// 10^7, nc up to ±3000 and t across the bulk and into both tails; and
// against scipy where scipy agrees with mpmath. scipy (Boost) is off by
// up to 1e-7 where its series cancels (t < 0 < nc, large nc at small df):
// the test counts those points rather than holding NCTCDF to them.
func TestNCTCDFReference(t *testing.T) {
	ref := loadStatRef(t)
	var worst, worstScipy float64
	var where string
	scipyOff := 0
	for _, c := range ref.NCT {
		t.Run(fmt.Sprintf("t=%g/df=%g/nc=%g", c.T, c.DF, c.NC), func(t *testing.T) {
			got := NCTCDF(c.T, c.DF, c.NC)
			if c.MP < 1e-300 {
				if math.Abs(got-c.MP) > 1e-14 {
					t.Errorf("NCTCDF = %.17g, mpmath %.17g", got, c.MP)
				}
				return
			}
			e := relErr(got, c.MP, 0)
			if e > worst {
				worst, where = e, t.Name()
			}
			if e > 1e-10 {
				t.Errorf("NCTCDF = %.17g, mpmath %.17g: relative error %.2g", got, c.MP, e)
			}
			if c.Scipy == nil || relErr(*c.Scipy, c.MP, 0) > 1e-11 {
				scipyOff++
				return
			}
			e = relErr(got, *c.Scipy, 0)
			worstScipy = max(worstScipy, e)
			if e > 1e-10 {
				t.Errorf("NCTCDF = %.17g, scipy %.17g: relative error %.2g", got, *c.Scipy, e)
			}
		})
	}
	t.Logf("%d points: max relative error %.2g vs mpmath (%s), %.2g vs scipy where scipy is within 1e-11 of mpmath; scipy off at %d",
		len(ref.NCT), worst, where, worstScipy, scipyOff)
}

func TestNCTCDFProperties(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	// Student's t (nc = 0) through the incomplete beta of TTwoSided: an
	// independent path.
	for _, c := range []struct{ t, df float64 }{{0.3, 1}, {2, 3}, {-1.5, 10}, {4, 49}, {-2.5, 1000}, {1.9, 1e5}} {
		t.Run(fmt.Sprintf("student/t=%g/df=%g", c.t, c.df), func(t *testing.T) {
			want := TTwoSided(c.t, c.df) / 2
			if c.t > 0 {
				want = 1 - want
			}
			if got := NCTCDF(c.t, c.df, 0); relErr(got, want, 0) > 1e-12 {
				t.Errorf("NCTCDF = %.17g, Student %.17g", got, want)
			}
		})
	}
	// F(t; nc) + F(-t; -nc) = 1: the two tails are computed separately
	// (no 1 - x anywhere), so this checks both.
	for _, c := range []struct{ t, df, nc float64 }{{1, 5, 3}, {-3, 5, 3}, {2, 2, -0.5}, {3100, 1e7, 3000}, {9990, 1e8, 1e4}, {20000, 3, 1e4}} {
		t.Run(fmt.Sprintf("reflect/t=%g/df=%g/nc=%g", c.t, c.df, c.nc), func(t *testing.T) {
			a, b := NCTCDF(c.t, c.df, c.nc), NCTCDF(-c.t, c.df, -c.nc)
			if math.Abs(a+b-1) > 1e-14 {
				t.Errorf("F + reflected F = %.17g + %.17g = 1%+.3g", a, b, a+b-1)
			}
		})
	}
	// Huge noncentrality (10^7 queries with d_z = 3, and beyond): df large,
	// where T is nearly normal with mean nc and sd √(1 + nc²/2df), and df
	// small, where T ≈ nc/S exactly up to O(1/nc²).
	for _, c := range []struct{ t, df, nc float64 }{{1e4, 1e7, 1e4}, {1e5, 1e8, 1e5}, {-1e4, 1e7, -1e4}} {
		t.Run(fmt.Sprintf("huge/t=%g/df=%g/nc=%g", c.t, c.df, c.nc), func(t *testing.T) {
			got := NCTCDF(c.t, c.df, c.nc)
			// P(nc/S <= nc) = P(S >= 1): the chi-square's upper tail at its
			// mean, 1/2 + O(1/√df); and the normal's share
			if !(got > 0.45 && got < 0.55) {
				t.Errorf("NCTCDF = %v, want near 1/2", got)
			}
		})
	}
	// df = 2: S² is exponential, and F(t; 2, nc) = Φ(-nc) + E[exp(-(Z+nc)²/t²); Z > -nc]
	// has the closed form below up to Φ(-nc), which is 0 here.
	for _, c := range []struct{ t, nc float64 }{{17320, 17320}, {15000, 17320}, {5e4, 1e4}} {
		t.Run(fmt.Sprintf("df2/t=%g/nc=%g", c.t, c.nc), func(t *testing.T) {
			k := 1 + 2/(c.t*c.t)
			want := math.Exp(-c.nc*c.nc/(c.t*c.t)/k) / math.Sqrt(k)
			if got := NCTCDF(c.t, 2, c.nc); relErr(got, want, 0) > 1e-10 {
				t.Errorf("NCTCDF = %.17g, want %.17g", got, want)
			}
		})
	}
	edges := []struct {
		name          string
		t, df, nc, is float64
	}{
		{"NaN t", nan, 5, 1, nan}, {"NaN df", 1, nan, 1, nan}, {"NaN nc", 1, 5, nan, nan},
		{"df 0", 1, 0, 1, nan}, {"df negative", 1, -1, 1, nan}, {"nc infinite", 1, 5, inf, nan},
		{"t +Inf", inf, 5, 3, 1}, {"t -Inf", -inf, 5, 3, 0},
		{"t 0", 0, 5, 1.5, 0.5 * math.Erfc(1.5/math.Sqrt2)},
		{"df infinite", 1, inf, 3, 0.5 * math.Erfc(2/math.Sqrt2)},
		{"far lower tail", -40, 49, 40, 0}, // below 1e-350
		{"far upper tail", 3000, 1e7, 2900, 1},
	}
	for _, c := range edges {
		t.Run(c.name, func(t *testing.T) {
			got := NCTCDF(c.t, c.df, c.nc)
			if !(got == c.is || math.IsNaN(got) && math.IsNaN(c.is) || relErr(got, c.is, 1e-300) < 1e-15) {
				t.Errorf("NCTCDF(%v, %v, %v) = %v, want %v", c.t, c.df, c.nc, got, c.is)
			}
		})
	}
}

// EffectOf against the noncentral t inverted on mpmath's 40 digits, and
// against scipy (nct.cdf inverted with brentq) where scipy's CDF holds.
// Where the raw differences are stored, the paired t-test of PairedOf is
// checked against scipy's too (the summary's mean and sd are python's
// exact ones, which aggregate's Stat gives: TestStatSummaryReference).
func TestEffectOfReference(t *testing.T) {
	var worstMP, worstScipy float64
	scipyOff := 0
	defer func() {
		t.Logf("interval bounds: max relative error %.2g vs mpmath, %.2g vs scipy where scipy is within 1e-9 of mpmath; scipy off at %d",
			worstMP, worstScipy, scipyOff)
	}()
	for _, c := range loadStatRef(t).Effect {
		t.Run(c.Name, func(t *testing.T) {
			s := Summary{Mean: c.Mean, N: c.N, Stdev: c.SD}
			if c.X != nil {
				p := PairedOf(s)
				if e := relErr(p.P, *c.P, 0); e > 1e-10 {
					t.Errorf("t-test p = %.17g, scipy %.17g (relative error %.2g)", p.P, *c.P, e)
				}
				// scipy's own test from numpy's variance, which differs from
				// the exact one by up to ε·mean²/var: a check only where that
				// is small
				if e := relErr(p.P, *c.PScipy, 0); e > 1e-9 && c.Mean*c.Mean < 1e4*c.SD*c.SD {
					t.Errorf("t-test p = %.17g, scipy.ttest_1samp %.17g (relative error %.2g)", p.P, *c.PScipy, e)
				}
				if relErr(p.Lo, *c.TLo, 1e-2) > 1e-10 || relErr(p.Hi, *c.THi, 1e-2) > 1e-10 {
					t.Errorf("t interval [%.17g, %.17g], scipy [%.17g, %.17g]", p.Lo, p.Hi, *c.TLo, *c.THi)
				}
			}
			e := EffectOf(s)
			if relErr(e.D, c.D, 0) > 1e-12 {
				t.Errorf("D = %.17g, want %.17g", e.D, c.D)
			}
			for _, b := range []struct {
				name          string
				got, want, mp float64
			}{{"Lo", e.Lo, c.Lo, c.LoMP}, {"Hi", e.Hi, c.Hi, c.HiMP}} {
				// relative 1e-8, absolute 1e-10 near 0
				e := relErr(b.got, b.mp, 1e-2)
				worstMP = max(worstMP, e)
				if e > 1e-8 {
					t.Errorf("%s = %.17g, mpmath %.17g", b.name, b.got, b.mp)
				}
				if relErr(b.want, b.mp, 1e-2) > 1e-9 {
					scipyOff++ // Boost's series, at df = 2 and d in the thousands
					continue
				}
				e = relErr(b.got, b.want, 1e-2)
				worstScipy = max(worstScipy, e)
				if e > 1e-8 {
					t.Errorf("%s = %.17g, scipy %.17g", b.name, b.got, b.want)
				}
			}
			if !(e.Lo < e.D && e.D < e.Hi) {
				t.Errorf("interval [%v, %v] misses d = %v", e.Lo, e.Hi, e.D)
			}
		})
	}
}

func TestEffectOfEdges(t *testing.T) {
	nan := math.NaN()
	stat := summaryOf
	none := []struct {
		name string
		s    Summary
	}{
		{"no queries", stat()},
		{"one query", stat(0.5)},
		{"all equal", stat(0.25, 0.25, 0.25)}, // sd 0: no standardized size
		{"all zero", stat(0, 0, 0, 0)},
		{"NaN mean", Summary{Mean: nan, N: 10, Stdev: 1}},
		{"NaN sd", Summary{Mean: 1, N: 10, Stdev: nan}},
		{"infinite sd", Summary{Mean: 1, N: 10, Stdev: math.Inf(1)}},
		{"infinite mean", Summary{Mean: math.Inf(-1), N: 10, Stdev: 1}},
		{"d beyond float64", Summary{Mean: 1e300, N: 10, Stdev: 1e-10}},
		{"d beyond float64, negative", Summary{Mean: -1e300, N: 10, Stdev: 1e-10}},
	}
	for _, c := range none {
		t.Run(c.name, func(t *testing.T) {
			e := EffectOf(c.s)
			if !math.IsNaN(e.D) || !math.IsNaN(e.Lo) || !math.IsNaN(e.Hi) {
				t.Errorf("EffectOf = %+v, want NaN", e)
			}
		})
	}
	t.Run("two queries", func(t *testing.T) {
		// differences 0 and 1: mean 1/2, sd 1/√2, d = 1/√2, t = 1 at df = 1
		e := EffectOf(stat(0, 1))
		if relErr(e.D, math.Sqrt(0.5), 0) > 1e-15 {
			t.Errorf("D = %v", e.D)
		}
		for _, b := range []struct {
			x, p float64
		}{{e.Lo, 0.975}, {e.Hi, 0.025}} {
			if got := NCTCDF(1, 1, b.x*math.Sqrt2); math.Abs(got-b.p) > 1e-13 {
				t.Errorf("bound %v puts t at the %v point, want %v", b.x, got, b.p)
			}
		}
	})
	t.Run("sign", func(t *testing.T) {
		// reflecting the differences reflects the interval
		for _, s := range []Summary{{Mean: 0.3, N: 12, Stdev: 1.1}, {Mean: 2e-3, N: 1e7, Stdev: 0.2}, {Mean: 5, N: 3, Stdev: 1e-3}} {
			a := EffectOf(s)
			s.Mean = -s.Mean
			b := EffectOf(s)
			if a.D != -b.D || relErr(a.Lo, -b.Hi, 1e-2) > 1e-12 || relErr(a.Hi, -b.Lo, 1e-2) > 1e-12 {
				t.Errorf("%+v and reflected %+v", a, b)
			}
		}
	})
	t.Run("huge t", func(t *testing.T) {
		// differences that vary only in their last digits: d is defined,
		// its interval past nctMaxT is not
		e := EffectOf(Summary{Mean: 1, N: 100, Stdev: 1e-12})
		if e.D != 1e12 || !math.IsNaN(e.Lo) || !math.IsNaN(e.Hi) {
			t.Errorf("EffectOf = %+v", e)
		}
	})
	// Three queries (df = 2): S² is exponential, so for t and δ large
	// F(t; 2, δ) = exp(-(δ/t)²/k)/√k with k = 1 + 2/t², and the bounds
	// solve in closed form: δ = t·√(-k·log(p·√k)). Up to t = 1.7e9, where
	// the step of Φ inside the integral is 1e-9 wide.
	for _, sd := range []float64{1e-2, 1e-5, 1e-9} {
		t.Run(fmt.Sprintf("df2/sd=%g", sd), func(t *testing.T) {
			e := EffectOf(Summary{Mean: 1, N: 3, Stdev: sd})
			tt := math.Sqrt(3) / sd
			k := 1 + 2/(tt*tt)
			lo := tt * math.Sqrt(-k*math.Log(0.975*math.Sqrt(k))) / math.Sqrt(3)
			hi := tt * math.Sqrt(-k*math.Log(0.025*math.Sqrt(k))) / math.Sqrt(3)
			if relErr(e.Lo, lo, 0) > 1e-10 || relErr(e.Hi, hi, 0) > 1e-10 {
				t.Errorf("EffectOf = %+v, closed form [%.17g, %.17g]", e, lo, hi)
			}
		})
	}
	t.Run("nc in the thousands", func(t *testing.T) {
		// 10^7 queries at d = 3: t ≈ 9487, bounds where the normal
		// approximation d ± 1.96·√(1/n + d²/2n) is close
		n := 1e7
		e := EffectOf(Summary{Mean: 0.9, N: int64(n), Stdev: 0.3})
		half := z95 * math.Sqrt(1/n+9/(2*n))
		if math.Abs(e.Lo-(3-half)) > 1e-3*half || math.Abs(e.Hi-(3+half)) > 1e-3*half {
			t.Errorf("EffectOf = %+v, normal approximation ±%v", e, half)
		}
	})
}

func BenchmarkEffectOf(b *testing.B) {
	for _, d := range []float64{0.001, 0.1, 1} {
		b.Run(fmt.Sprintf("n=1e7/d=%g", d), func(b *testing.B) {
			s := Summary{Mean: d, N: 1e7, Stdev: 1}
			for b.Loop() {
				EffectOf(s)
			}
		})
	}
	b.Run("n=3/d=1e4", func(b *testing.B) {
		s := Summary{Mean: 1, N: 3, Stdev: 1e-4}
		for b.Loop() {
			EffectOf(s)
		}
	})
}

// summaryOf is the summary of a few values whose mean and variance
// float64 arithmetic gives exactly, as aggregate's exact sums would.
func summaryOf(xs ...float64) Summary {
	nan := math.NaN()
	s := Summary{Mean: nan, N: int64(len(xs)), Lo: nan, Hi: nan, Stdev: nan}
	if len(xs) == 0 {
		return s
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	s.Mean = sum / float64(len(xs))
	if len(xs) < 2 {
		return s
	}
	var sq float64
	for _, x := range xs {
		sq += float64((x - s.Mean) * (x - s.Mean))
	}
	s.Stdev = math.Sqrt(sq / float64(len(xs)-1))
	s.Lo, s.Hi = NormalCI95(s.Mean, s.Stdev, s.N)
	return s
}
