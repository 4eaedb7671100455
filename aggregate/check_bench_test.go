package aggregate

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkCheck: the check of a merge's state of 10,000 slices (the
// --max-slices default), two systems and three core metrics.
func BenchmarkCheck(b *testing.B) {
	l := &Layout{Metrics: 3, Core: []Range{RangeUnit, RangeSigned, RangeOpen}, Systems: 2}
	a := NewAnalysis(l)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 40_000 {
		q := Query{Slice: i % 10_000, Rows: []int{5, 5}, Vals: [][]float64{{r.Float64(), r.Float64()*2 - 1, r.Float64() * 10}, {r.Float64(), 0, 3}},
			Empty: []bool{false, false}, Missing: []bool{false, false}}
		if err := a.Add(&q); err != nil {
			b.Fatal(err)
		}
	}
	ranges := []Range{RangeUnit, RangeSigned, RangeOpen}
	b.ResetTimer()
	for b.Loop() {
		if err := a.Check(ranges); err != nil {
			b.Fatal(err)
		}
	}
}
