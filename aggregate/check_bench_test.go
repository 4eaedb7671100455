package aggregate

import (
	"math/rand/v2"
	"testing"

	"github.com/rankeval/rankeval/stats"
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

// BenchmarkCheckPerm: the check of a state's randomization replicates,
// 10,000 of them, four systems, every pair, six metrics (36 sums a
// replicate), and Tukey's (24 a replicate).
func BenchmarkCheckPerm(b *testing.B) {
	for _, test := range []stats.Test{stats.TestRandom, stats.TestTukey} {
		b.Run(test.String(), func(b *testing.B) {
			core := []Range{RangeUnit, RangeUnit, RangeUnit, RangeUnit, RangeUnit, RangeOpen}
			l := &Layout{Metrics: 6, Core: core, Systems: 4, Compare: Compare{AllPairs: true, Test: test, Permutations: 10_000}}
			qs := pairQueries(rand.New(rand.NewPCG(3, 3)), 200, 4, 0.3)
			for i := range qs {
				for s := range 4 {
					for len(qs[i].Vals[s]) < 6 {
						qs[i].Vals[s] = append(qs[i].Vals[s], qs[i].Vals[s][0])
					}
				}
			}
			a := NewAnalysis(l)
			for i := range qs {
				if err := a.Add(&qs[i]); err != nil {
					b.Fatal(err)
				}
			}
			for b.Loop() {
				if err := a.Check(core); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
