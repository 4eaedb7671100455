package aggregate

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/rankeval/rankeval/stats"
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
		x := q{h: stats.QueryHash([]byte{byte(i), byte(i >> 8)}), v: [2]float64{r.Float64()*2 - 1, math.NaN()}}
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
				stats.BootstrapWeights(x.h, w)
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
			stats.BootstrapWeights(x.h, w)
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
		{"one too few", stats.MinBootstrap - 1, true},
		{"the minimum", stats.MinBootstrap, false},
		{"1000", 1000, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bs := NewBoots(tc.b, []Range{RangeUnit})
			w := make([]uint8, tc.b)
			for i := range 50 {
				stats.BootstrapWeights(stats.QueryHash([]byte{byte(i)}), w)
				bs.Add([]float64{0.25}, w)
			}
			lo, hi := bs.CI95(0)
			if tc.nan != math.IsNaN(lo) || tc.nan != math.IsNaN(hi) || !tc.nan && (lo != 0.25 || hi != 0.25) {
				t.Fatalf("CI [%v, %v], want NaN %v", lo, hi, tc.nan)
			}
		})
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
