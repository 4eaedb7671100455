package stats

import (
	"math"

	"github.com/rankeval/rankeval/internal/pmath"
)

// Student's t distribution, for the paired t-test of a comparison. Written
// out rather than imported: it is forty lines over pmath.Lgamma, and the
// project takes no dependency for numerics.

// regIncBeta is the regularized incomplete beta function I_x(a, b), by the
// continued fraction of Numerical Recipes (betacf) with Lentz's method,
// using the symmetry I_x(a,b) = 1 - I_{1-x}(b,a) where the fraction
// converges slowly. y is 1-x, passed separately because the t test's x is
// within 1e-9 of 1 for large samples and 1-x would keep no digits.
func regIncBeta(x, y, a, b float64) float64 {
	switch {
	case x <= 0:
		return 0
	case y <= 0:
		return 1
	}
	if x > (a+1)/(a+b+2) {
		return 1 - regIncBeta(y, x, b, a)
	}
	front := pmath.Exp(float64(a*logOf(x, y))+float64(b*logOf(y, x))-lbeta(a, b)) / a
	const tiny = 1e-300
	// 1 - (a+b)x/(a+1), written so it does not cancel when x is near 1
	c, d := 1.0, (float64((a+1)*y)+float64((1-b)*x))/(a+1)
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	f := d
	for m := 1; m <= 1<<20; m++ { // converges in O(sqrt(max(a, b))) steps at worst
		fm := float64(m)
		// even step
		num := fm * (b - fm) * x / ((a + 2*fm - 1) * (a + 2*fm))
		d = 1 + float64(num*d)
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + num/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		f *= d * c
		// odd step
		num = -(a + fm) * (a + b + fm) * x / ((a + 2*fm) * (a + 2*fm + 1))
		d = 1 + float64(num*d)
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + num/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := float64(d * c)
		f *= del
		if math.Abs(del-1) < 1e-16 {
			break
		}
	}
	return front * f
}

// logOf is log(x) where y = 1 - x: through log1p(-y) when x is near 1.
func logOf(x, y float64) float64 {
	if x < 0.5 {
		return pmath.Log(x)
	}
	return pmath.Log1p(-y)
}

// lbeta is log B(a, b). For a large argument the three log-gammas are
// huge and nearly cancel, so the difference log Γ(big+small) - log Γ(big)
// comes from Stirling's series instead, where it is a sum of small terms.
func lbeta(a, b float64) float64 {
	big, small := max(a, b), min(a, b)
	ls := pmath.Lgamma(small)
	if big < 100 {
		lb := pmath.Lgamma(big)
		lab := pmath.Lgamma(a + b)
		return ls + lb - lab
	}
	z := big + small
	corr := func(z float64) float64 { // Stirling's series beyond (z-1/2)log z - z
		z2 := z * z
		return 1/(12*z) - 1/(360*z*z2) + 1/(1260*z*z2*z2)
	}
	// log Γ(z) - log Γ(big), with log z = log big + log1p(small/big)
	l1p := pmath.Log1p(small / big)
	d := float64(small*pmath.Log(big)) + (float64((big+small-0.5)*l1p) - small) + corr(z) - corr(big)
	return ls - d
}

// TTwoSided is P(|T| >= |t|) for T with df degrees of freedom: the
// two-sided p-value of a t statistic.
func TTwoSided(t, df float64) float64 {
	if math.IsNaN(t) || !(df > 0) {
		return math.NaN()
	}
	if math.IsInf(t, 0) {
		return 0
	}
	t2 := float64(t * t)
	return regIncBeta(df/(df+t2), t2/(df+t2), df/2, 0.5)
}

// TQuantile975 is the 0.975 quantile of Student's t with df degrees of
// freedom: the multiplier of a 95% interval. Newton's method on TTwoSided
// from the normal quantile, kept inside a shrinking bracket so that it
// cannot wander: a handful of steps, as every slice of a run needs one.
func TQuantile975(df float64) float64 {
	if !(df > 0) {
		return math.NaN()
	}
	lo, hi := z95, 2*z95 // TTwoSided(z95) >= 0.05: t's tails are heavier
	for TTwoSided(hi, df) > 0.05 {
		lo, hi = hi, 2*hi
	}
	lg1 := pmath.Lgamma((df + 1) / 2)
	lg2 := pmath.Lgamma(df / 2)
	logc := lg1 - lg2 - float64(0.5*pmath.Log(df*math.Pi))
	t := z95 * (1 + (z95*z95+1)/(4*df)) // Cornish-Fisher, first order
	for range 100 {
		if !(t > lo && t < hi) {
			t = (lo + hi) / 2
		}
		f := TTwoSided(t, df) - 0.05
		if f > 0 {
			lo = t
		} else {
			hi = t
		}
		// d/dt of the two-sided tail is -2·density
		dens := pmath.Exp(logc - float64((df+1)/2*pmath.Log1p(t*t/df)))
		next := t + f/(2*dens)
		if math.Abs(next-t) <= 1e-15*t || hi-lo <= 1e-15*t {
			return next
		}
		t = next
	}
	return t
}
