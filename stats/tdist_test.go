package stats

import (
	"math"
	"testing"
)

// Reference values computed with mpmath at 30 digits: the regularized
// incomplete beta I_{df/(df+t²)}(df/2, 1/2) and its root at 0.05. The
// continued fraction loses digits as df grows (3e-10 relative at df = 1e6,
// 5e-8 at 1e9, where t is the normal to 9 digits anyway); the tolerance
// says so.
func TestTDistribution(t *testing.T) {
	pvals := []struct{ t, df, p float64 }{
		{0, 5, 1},
		{0.5, 1e6, 0.61707518747237138777},
		{2.570581835636314, 5, 0.05},
		{1, 1, 0.5}, // Cauchy: 2*(1 - (1/2 + atan(1)/pi))
		{2, 10, 0.07338803477074036562},
		{-3.5, 30, 0.00147680743764425306},
		{1.959963984540054, 1e9, 0.05000000027729514294}, // near the normal
		{1.959963984540054, 1e5, 0.05000277296178624826},
		{10, 3, 0.00212839905841415006},
		{math.Inf(1), 4, 0},
	}
	for _, c := range pvals {
		got := TTwoSided(c.t, c.df)
		if math.Abs(got-c.p) > min(1e-7, max(1e-12, 1e-15*c.df))*c.p {
			t.Errorf("TTwoSided(%v, %v) = %.10g, want %.10g", c.t, c.df, got, c.p)
		}
	}
	quant := []struct{ df, q float64 }{
		{1, 12.70620473617471}, {2, 4.302652729749464}, {5, 2.570581835636314},
		{10, 2.228138851986274}, {30, 2.042272456301238}, {100, 1.983971518523552}, {1e7, 1.959964},
	}
	for _, c := range quant {
		if got := TQuantile975(c.df); math.Abs(got-c.q) > 1e-9*c.q+1e-6*boolf(c.df > 1e6) {
			t.Errorf("TQuantile975(%v) = %.15g, want %.15g", c.df, got, c.q)
		}
	}
	if !math.IsNaN(TTwoSided(1, 0)) || !math.IsNaN(TQuantile975(0)) {
		t.Error("df 0 must give NaN")
	}
}

func boolf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
