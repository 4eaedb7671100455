package stats

import (
	"math"

	"github.com/rankeval/rankeval/internal/pmath"
)

// SignTest is the two-sided p-value of the exact binomial sign test of a
// wins against b losses under even odds (ties left out, as the test
// wants): 2·P(X <= min(a, b)) for X ~ Binomial(a+b, 1/2), at most 1, which
// is what scipy.stats.binomtest(min(a, b), a+b, 0.5) gives. With no wins
// and no losses there is no evidence either way, and p is 1.
//
// The tail is summed from its largest term down. That term comes from
// Loader's saddle-point form of the binomial probability (what R's dbinom
// uses), not from the incomplete beta function the t-test uses: at ten
// million trials the beta's a·log x + b·log y − log B(a, b) cancels
// terms of 10^7 and keeps eight digits, the saddle point keeps fifteen.
func SignTest(a, b int64) float64 {
	if a < 0 || b < 0 {
		return math.NaN()
	}
	k, n := min(a, b), a+b
	if n == 0 || 2*k == n {
		return 1
	}
	if k == 0 {
		// all one way: the dyadic 2·2^−n, exactly (0 below 2^−1074)
		return math.Ldexp(1, int(1-min(n, 1100)))
	}
	term := binomHalf(k, n)
	tail := 0.0
	// terms fall at least as fast as a geometric series once past the
	// mode, so the loop ends within a few hundred standard deviations
	for i := k; i >= 0 && term > tail*0x1p-60; i-- {
		tail += term
		term *= float64(i) / float64(n-i+1)
	}
	return min(2*tail, 1)
}

// binomHalf is P(X = x) for X ~ Binomial(n, 1/2).
func binomHalf(x, n int64) float64 {
	if x == 0 || x == n {
		return math.Ldexp(1, -int(min(n, 1100))) // 2^−n, exactly
	}
	fx, fn := float64(x), float64(n)
	half := fn / 2
	lc := stirlerr(fn) - stirlerr(fx) - stirlerr(fn-fx) - bd0(fx, half) - bd0(fn-fx, half)
	lf := pmath.Log(2*math.Pi) + pmath.Log(fx) + pmath.Log1p(-fx/fn)
	return pmath.Exp(lc - float64(0.5*lf))
}

// stirlerr is log(n!) − log(√(2πn)·(n/e)^n), the error of Stirling's
// formula: its series past 15, where the terms are small; from the
// log-gamma function below, where n is small and so is log(n!).
func stirlerr(n float64) float64 {
	if n <= 15 {
		lg := pmath.Lgamma(n + 1)
		return lg - float64((n+0.5)*pmath.Log(n)) + n - float64(0.5*pmath.Log(2*math.Pi))
	}
	const (
		s0 = 1.0 / 12
		s1 = 1.0 / 360
		s2 = 1.0 / 1260
		s3 = 1.0 / 1680
		s4 = 1.0 / 1188
	)
	nn := n * n
	return (s0 - (s1-(s2-(s3-s4/nn)/nn)/nn)/nn) / n
}

// bd0 is x·log(x/np) + np − x, the deviance term of the saddle point,
// by its series when x is near np, where the plain formula cancels.
func bd0(x, np float64) float64 {
	if math.Abs(x-np) >= 0.1*(x+np) {
		return float64(x*pmath.Log(x/np)) + np - x
	}
	v := (x - np) / (x + np)
	s := float64((x - np) * v) // rounded: the loop adds to it
	ej := 2 * x * v
	v *= v
	for j := 1; j < 1000; j++ {
		ej *= v
		s1 := s + ej/float64(2*j+1)
		if s1 == s {
			return s1
		}
		s = s1
	}
	return s
}
