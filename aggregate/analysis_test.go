package aggregate

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestSmallMatchesSum demands Small give Sum's exact result whatever the
// values' spread, and the same bits for any split and merge order.
func TestSmallMatchesSum(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	cases := map[string][]float64{
		"metric-like": nil,
		"wide":        nil,
		"extremes":    {math.MaxFloat64, 5e-324, -math.MaxFloat64, 1, -5e-324, 1e-300},
	}
	for range 3000 {
		cases["metric-like"] = append(cases["metric-like"], r.Float64()/float64(1+r.IntN(50)))
		cases["wide"] = append(cases["wide"], (r.Float64()-0.5)*math.Ldexp(1, r.IntN(400)-200))
	}
	for name, vs := range cases {
		t.Run(name, func(t *testing.T) {
			var ref Sum
			for _, v := range vs {
				ref.Add(v)
			}
			want := ref.Float64()
			for _, parts := range []int{1, 2, 7} {
				ss := make([]Small, parts)
				for i, v := range vs {
					ss[(i*31+i/5)%parts].Add(v)
				}
				var tot Small
				for i := parts - 1; i >= 0; i-- {
					tot.Merge(&ss[i])
				}
				full := tot.Full()
				if got := full.Float64(); got != want || full.Big().Cmp(ref.Big()) != 0 {
					t.Fatalf("%d parts: %v, want %v", parts, got, want)
				}
			}
		})
	}
	t.Run("small stays small", func(t *testing.T) {
		var s Small
		for _, v := range cases["metric-like"] {
			s.Add(v)
		}
		if len(s.limb) > 8 {
			t.Fatalf("window of %d limbs for values in [0, 1]", len(s.limb))
		}
	})
}

func TestHolm(t *testing.T) {
	// Holm's procedure by hand: sorted 0.01, 0.02, 0.03, 0.04 (m = 4) ->
	// 0.04, 0.06, 0.06 (monotone), 0.06; the NaN is not a test.
	got := Holm([]float64{0.03, 0.01, math.NaN(), 0.04, 0.02})
	want := []float64{0.06, 0.04, math.NaN(), 0.06, 0.06}
	for i := range want {
		if !(got[i] == want[i] || math.IsNaN(got[i]) && math.IsNaN(want[i])) && math.Abs(got[i]-want[i]) > 1e-15 {
			t.Fatalf("Holm = %v, want %v", got, want)
		}
	}
	if got := Holm([]float64{0.5, 0.6}); got[0] != 1 || got[1] != 1 {
		t.Fatalf("Holm caps at 1: %v", got)
	}
}

func TestPairedOf(t *testing.T) {
	// differences 1, 2, 3, 4, 5: mean 3, sd sqrt(2.5), t = 3/(sd/sqrt 5)
	var d Stat
	for _, v := range []float64{1, 2, 3, 4, 5} {
		d.Add(v)
	}
	p := PairedOf(&d)
	tstat := 3 / (math.Sqrt(2.5) / math.Sqrt(5))
	if p.N != 5 || p.Mean != 3 || math.Abs(p.P-TTwoSided(tstat, 4)) > 1e-15 {
		t.Fatalf("paired %+v", p)
	}
	// mpmath: I_{4/(4+t²)}(2, 1/2) at t = 4.2426406871 is 0.01323559956368268952
	if math.Abs(p.P-0.01323559956368268952) > 1e-16 {
		t.Fatalf("p = %v, want 0.01323559956368268952", p.P)
	}
	half := 2.7764451051977987 * math.Sqrt(2.5) / math.Sqrt(5) // qt(0.975, 4)
	if math.Abs(p.Lo-(3-half)) > 1e-9 || math.Abs(p.Hi-(3+half)) > 1e-9 {
		t.Fatalf("CI [%v, %v], want 3 ± %v", p.Lo, p.Hi, half)
	}
	var same Stat
	same.Add(0.25)
	same.Add(0.25)
	if p := PairedOf(&same); p.P != 0 || p.Lo != 0.25 || p.Hi != 0.25 {
		t.Fatalf("constant nonzero difference: %+v", p)
	}
	var zero Stat
	zero.Add(0)
	zero.Add(0)
	if p := PairedOf(&zero); p.P != 1 {
		t.Fatalf("zero difference: p = %v", p.P)
	}
}

// TestPoissonWeights checks the draws have Poisson(1)'s mean, variance
// and P(0), and are a pure function of (hash, replicate).
func TestPoissonWeights(t *testing.T) {
	w := make([]uint8, 1000)
	var n, sum, sq, zeros float64
	for q := range 2000 {
		Weights(QueryHash([]byte{byte(q), byte(q >> 8), 'x'}), w)
		for _, v := range w {
			n++
			sum += float64(v)
			sq += float64(v) * float64(v)
			if v == 0 {
				zeros++
			}
		}
	}
	mean, vr := sum/n, sq/n-(sum/n)*(sum/n)
	if math.Abs(mean-1) > 0.005 || math.Abs(vr-1) > 0.01 || math.Abs(zeros/n-math.Exp(-1)) > 0.002 {
		t.Fatalf("mean %v var %v P(0) %v; want 1, 1, %v", mean, vr, zeros/n, math.Exp(-1))
	}
	a, b := make([]uint8, 50), make([]uint8, 50)
	Weights(QueryHash([]byte("q1")), a)
	Weights(QueryHash([]byte("q1")), b)
	if string(a) != string(b) {
		t.Fatal("weights differ between calls")
	}
	if QueryHash([]byte("q0000001")) != 0x519734439e4fd519 {
		t.Fatalf("QueryHash changed (%#x): every published bootstrap interval would move", QueryHash([]byte("q0000001")))
	}
	if poissonThr[poissonLen-1] != math.MaxUint64 || poissonThr[0] != 6786177901268885274 {
		t.Fatalf("thresholds: %v", poissonThr)
	}
}

// TestBootMatchesReference sums weighted values the slow way (big.Float,
// value by value) and compares the replicate means, for any split, with a
// second mean that some queries leave undefined.
func TestBootMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const B = 64
	type q struct {
		h uint64
		v [2]float64
	}
	var qs []q
	for i := range 500 {
		x := q{h: QueryHash([]byte{byte(i), byte(i >> 8)}), v: [2]float64{r.Float64()*2 - 1, math.NaN()}}
		if i%3 != 0 {
			x.v[1] = r.Float64() * 1000 // an open range: cg-like
		}
		qs = append(qs, x)
	}
	w := make([]uint8, B)
	var want [2][]float64
	for k := range 2 {
		for b := range B {
			num, den := new(big.Float).SetPrec(512), int64(0)
			for _, x := range qs {
				if math.IsNaN(x.v[k]) {
					continue
				}
				Weights(x.h, w)
				num.Add(num, new(big.Float).SetPrec(512).Mul(big.NewFloat(x.v[k]), big.NewFloat(float64(w[b]))))
				den += int64(w[b])
			}
			m, _ := new(big.Float).Quo(num, big.NewFloat(float64(den))).Float64()
			want[k] = append(want[k], m)
		}
	}
	ranges := []Range{RangeUnit, RangeOpen}
	for _, parts := range []int{1, 3} {
		bs := make([]*Boots, parts)
		for i := range bs {
			bs[i] = NewBoots(B, ranges)
		}
		for i, x := range qs {
			Weights(x.h, w)
			if _, ok := bs[i%parts].Add(x.v[:], w); !ok {
				t.Fatal("in-range value refused")
			}
		}
		for i := 1; i < parts; i++ {
			bs[0].Merge(bs[i])
		}
		for k, tol := range []float64{1e-15, 1e-7} { // fixed point at 2^-55 and 2^-26
			got := bs[0].Means(k)
			if len(got) != B {
				t.Fatalf("%d replicate means, want %d", len(got), B)
			}
			for b := range B {
				if math.Abs(got[b]-want[k][b]) > tol*math.Max(1, math.Abs(want[k][b])) {
					t.Fatalf("parts %d mean %d replicate %d: %v, want %v", parts, k, b, got[b], want[k][b])
				}
			}
		}
	}
	if k, ok := NewBoots(4, ranges).Add([]float64{0.5, math.Ldexp(1, 33)}, w[:4]); ok || k != 1 {
		t.Fatalf("out-of-range value accepted (%d, %v)", k, ok)
	}
}

// TestBootCIMinimum: a bootstrap of fewer than MinBootstrap replicates
// gives no interval (NaN, which a gate fails), whatever a caller of the
// package asks; from MinBootstrap on, an interval that holds the mean of
// values that all agree.
func TestBootCIMinimum(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    int
		nan  bool
	}{
		{"2 replicates", 2, true},
		{"one too few", MinBootstrap - 1, true},
		{"the minimum", MinBootstrap, false},
		{"1000", 1000, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bs := NewBoots(tc.b, []Range{RangeUnit})
			w := make([]uint8, tc.b)
			for i := range 50 {
				Weights(QueryHash([]byte{byte(i)}), w)
				bs.Add([]float64{0.25}, w)
			}
			lo, hi := bs.CI95(0)
			if tc.nan != math.IsNaN(lo) || tc.nan != math.IsNaN(hi) || !tc.nan && (lo != 0.25 || hi != 0.25) {
				t.Fatalf("CI [%v, %v], want NaN %v", lo, hi, tc.nan)
			}
		})
	}
}

func TestQuantile7(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	lo, hi := percentileCI(xs)
	if lo != 1.25 || hi != 10.75 {
		t.Fatalf("CI [%v, %v], want [1.25, 10.75] (numpy.percentile)", lo, hi)
	}
}

func TestHist(t *testing.T) {
	h := NewHist(RangeUnit)
	for _, v := range []float64{0, 0.049, 0.05, 0.5, 1, math.NaN()} {
		h.Add(v)
	}
	if h.Counts[0] != 2 || h.Counts[1] != 1 || h.Counts[10] != 1 || h.Counts[19] != 1 {
		t.Fatalf("unit counts %v", h.Counts)
	}
	o := NewHist(RangeOpen)
	for _, v := range []float64{0, 0.5, 1, 3, 4, 1e300} {
		o.Add(v)
	}
	if o.Counts[0] != 1 || o.Counts[1] != 1 || o.Counts[2] != 1 || o.Counts[3] != 1 || o.Counts[4] != 1 || o.Counts[openBins-1] != 1 {
		t.Fatalf("open counts %v", o.Counts)
	}
	if lo, hi := o.Edges(3); lo != 2 || hi != 4 {
		t.Fatalf("bin 3 is [%v, %v), want [2, 4)", lo, hi)
	}
	s := NewHist(RangeSigned)
	s.Add(-1)
	s.Add(0)
	if s.Counts[0] != 1 || s.Counts[10] != 1 {
		t.Fatalf("signed counts %v", s.Counts)
	}
}
