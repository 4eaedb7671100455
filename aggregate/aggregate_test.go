package aggregate

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// exact is the reference: a big.Float wide enough to hold any float64 sum.
func exact(vs []float64) float64 {
	acc := new(big.Float).SetPrec(4096)
	for _, v := range vs {
		acc.Add(acc, new(big.Float).SetPrec(4096).SetFloat64(v))
	}
	f, _ := acc.Float64()
	return f
}

func TestSumExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cases := map[string][]float64{
		"cancellation":  {1e308, 1, -1e308, 1e-300, -1},
		"subnormals":    {5e-324, 5e-324, -1e-320, 2.5e-310},
		"tiny and huge": {1e-200, 1e200, -1e200},
		"one third":     {1.0 / 3, 1.0 / 3, 1.0 / 3},
		"max":           {math.MaxFloat64, -math.MaxFloat64, math.MaxFloat64},
	}
	rnd := make([]float64, 10000)
	for i := range rnd {
		rnd[i] = (r.Float64() - 0.3) * math.Pow(2, float64(r.IntN(80)-40))
	}
	cases["random"] = rnd
	for name, vs := range cases {
		t.Run(name, func(t *testing.T) {
			var s Sum
			for _, v := range vs {
				s.Add(v)
			}
			if got, want := s.Float64(), exact(vs); got != want {
				t.Fatalf("sum = %v, want %v", got, want)
			}
		})
	}
}

// TestSumOrderIndependent splits and shuffles the same values many ways and
// demands bit-identical sums: the property the summary's determinism rests on.
func TestSumOrderIndependent(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	vs := make([]float64, 5000)
	for i := range vs {
		vs[i] = r.Float64() * math.Pow(10, float64(r.IntN(12)-6))
	}
	var ref Sum
	for _, v := range vs {
		ref.Add(v)
	}
	want := ref.Float64()
	naive := 0.0
	for _, v := range vs {
		naive += v
	}
	for parts := 1; parts <= 9; parts++ {
		r.Shuffle(len(vs), func(i, j int) { vs[i], vs[j] = vs[j], vs[i] })
		ps := make([]Sum, parts)
		for i, v := range vs {
			ps[(i*7)%parts].Add(v)
		}
		var tot Sum
		for i := parts - 1; i >= 0; i-- {
			tot.Merge(&ps[i])
		}
		if got := tot.Float64(); got != want {
			t.Fatalf("%d parts: %v, want %v", parts, got, want)
		}
	}
	_ = naive
}

func TestSumManyAddsNormalizes(t *testing.T) {
	defer func(n int32) { normalizeEvery = n }(normalizeEvery)
	normalizeEvery = 7 // force many carry propagations
	var s Sum
	const n = 100001
	for i := 0; i < n; i++ {
		s.Add(math.MaxFloat64 / 8)
		s.Add(-0.1)
	}
	want := new(big.Float).SetPrec(4096).Mul(big.NewFloat(math.MaxFloat64/8), big.NewFloat(n))
	want.Sub(want, new(big.Float).SetPrec(4096).Mul(big.NewFloat(0.1), big.NewFloat(n)))
	if s.Big().Cmp(want) != 0 {
		t.Fatalf("sum = %v, want %v", s.Big(), want)
	}
	if !math.IsInf(s.Float64(), 1) {
		t.Fatalf("beyond float64 should round to +Inf, got %v", s.Float64())
	}
}

func TestSumSpecial(t *testing.T) {
	var s Sum
	s.Add(1)
	s.Add(math.Inf(1))
	if !math.IsInf(s.Float64(), 1) {
		t.Fatalf("got %v", s.Float64())
	}
}

// z95 is the normal's two-sided 95% quantile, the multiplier of
// stats.NormalCI95.
const z95 = 1.959963984540054

func TestStatSummary(t *testing.T) {
	tests := []struct {
		name     string
		vals     []float64
		mean     float64
		lo, hi   float64
		n        int64
		noSpread bool
	}{
		{name: "empty", vals: nil, mean: math.NaN(), n: 0, noSpread: true},
		{name: "one", vals: []float64{0.5}, mean: 0.5, n: 1, noSpread: true},
		{name: "undefined skipped", vals: []float64{math.NaN(), 1, 0}, mean: 0.5, n: 2,
			lo: 0.5 - z95*math.Sqrt(0.5)/math.Sqrt(2), hi: 0.5 + z95*math.Sqrt(0.5)/math.Sqrt(2)},
		{name: "constant", vals: []float64{0.25, 0.25, 0.25}, mean: 0.25, n: 3, lo: 0.25, hi: 0.25},
		{name: "four", vals: []float64{1, 2, 3, 4}, mean: 2.5, n: 4,
			lo: 2.5 - z95*math.Sqrt(5.0/3)/2, hi: 2.5 + z95*math.Sqrt(5.0/3)/2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var s Stat
			for _, v := range tc.vals {
				s.Add(v)
			}
			got := s.Summary()
			if got.N != tc.n {
				t.Fatalf("n = %d, want %d", got.N, tc.n)
			}
			if !(got.Mean == tc.mean || math.IsNaN(got.Mean) && math.IsNaN(tc.mean)) {
				t.Fatalf("mean = %v, want %v", got.Mean, tc.mean)
			}
			if tc.noSpread {
				if !math.IsNaN(got.Lo) || !math.IsNaN(got.Hi) {
					t.Fatalf("ci = [%v %v], want none", got.Lo, got.Hi)
				}
				return
			}
			if math.Abs(got.Lo-tc.lo) > 1e-15 || math.Abs(got.Hi-tc.hi) > 1e-15 {
				t.Fatalf("ci = [%v %v], want [%v %v]", got.Lo, got.Hi, tc.lo, tc.hi)
			}
		})
	}
}

func TestSetMerge(t *testing.T) {
	a, b, all := NewSet(2), NewSet(2), NewSet(2)
	rows := [][]float64{{0.1, math.NaN()}, {0.7, 2}, {0.2, 3}, {0.9, 1}}
	for i, v := range rows {
		all.AddQuery(10, v, i == 0)
		if i%2 == 0 {
			a.AddQuery(10, v, i == 0)
		} else {
			b.AddQuery(10, v, i == 0)
		}
	}
	b.Merge(a)
	if b.Rows != 40 || b.Queries != 4 || b.Empty != 1 {
		t.Fatalf("counts %+v", b)
	}
	for i := range all.Stats {
		if b.Stats[i].Summary() != all.Stats[i].Summary() && !math.IsNaN(all.Stats[i].Summary().Lo) {
			t.Fatalf("metric %d: %+v vs %+v", i, b.Stats[i].Summary(), all.Stats[i].Summary())
		}
	}
	if got := b.Stats[1].Summary(); got.N != 3 || got.Mean != 2 {
		t.Fatalf("metric 1: %+v", got)
	}
}

func BenchmarkSumAdd(b *testing.B) {
	var s Sum
	v := 0.123456
	for i := 0; i < b.N; i++ {
		s.Add(v)
		v += 1e-7
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "adds/s")
}
