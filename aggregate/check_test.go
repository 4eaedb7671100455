package aggregate

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// TestCheckAcceptsWhatQueriesGive: an analysis built from queries, with
// values at the ends of their ranges, equal values (where the sum of
// squares meets Cauchy-Schwarz's bound, but for rounding), undefined and
// missing ones, slices, two systems and a bootstrap, passes Check; the
// same with one sum pushed past its range does not.
func TestCheckAcceptsWhatQueriesGive(t *testing.T) {
	l := &Layout{Metrics: 4, Core: []Range{RangeUnit, RangeSigned, RangeOpen}, Systems: 2, Bootstrap: 50, Hist: true}
	ranges := []Range{RangeUnit, RangeSigned, RangeOpen, RangeUnit}
	for _, tc := range []struct {
		name string
		val  func(r *rand.Rand, m int) float64
	}{
		{"random", func(r *rand.Rand, m int) float64 {
			switch m {
			case 1:
				return 2*r.Float64() - 1
			case 2:
				return r.Float64() * 1e6
			}
			return r.Float64()
		}},
		{"the ends", func(r *rand.Rand, m int) float64 {
			switch m {
			case 1:
				return float64(2*r.IntN(2) - 1)
			case 2:
				return -math.Log(1e-5) * float64(r.IntN(2)) // 0 or a log
			}
			return float64(r.IntN(2))
		}},
		{"all equal", func(r *rand.Rand, m int) float64 { return 0.1 * float64(m+1) / 3 }},
		{"tiny", func(r *rand.Rand, m int) float64 { return 5e-324 * float64(r.IntN(3)) }},
		{"undefined", func(r *rand.Rand, m int) float64 {
			if r.IntN(3) == 0 {
				return math.NaN()
			}
			return r.Float64()
		}},
		{"log values below 0", func(r *rand.Rand, m int) float64 {
			if m == 2 {
				return math.Log(r.Float64() + 1e-300)
			}
			return r.Float64()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(3, 4))
			a := NewAnalysis(l)
			for i := range 500 {
				q := Query{Slice: i % 4, Hash: uint64(i) * 0x9e3779b97f4a7c15, Rows: []int{5, 5},
					Vals: [][]float64{make([]float64, 4), make([]float64, 4)}, Empty: []bool{false, false}, Missing: []bool{false, i%7 == 0}}
				for s := range 2 {
					for m := range 4 {
						q.Vals[s][m] = tc.val(r, m)
					}
				}
				if err := a.Add(&q); err != nil {
					t.Fatal(err)
				}
			}
			if err := a.Check(ranges); err != nil {
				t.Fatalf("queries' figures refused: %v", err)
			}
			a.Sys[1].Stats[0].Sum.Add(600) // a mean above 1 over 500 queries
			if err := a.Check(ranges); !errors.Is(err, ErrImpossible) {
				t.Fatalf("a map sum of 600 over 500 queries: %v", err)
			}
		})
	}
}
