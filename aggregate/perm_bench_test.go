package aggregate

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rankeval/rankeval/stats"
)

// BenchmarkPermsAdd is one query's cost in the randomization test and
// Tukey HSD against the bootstrap's: four systems, six metrics, 1000
// replicates (queries/s; ns/op is one query).
func BenchmarkPermsAdd(b *testing.B) {
	const S, C, B = 4, 6, 1000
	core := make([]Range, C)
	qs := pairQueries(rand.New(rand.NewPCG(1, 1)), 256, S, 0.3)
	for i := range qs {
		for s := range S {
			for len(qs[i].Vals[s]) < C {
				qs[i].Vals[s] = append(qs[i].Vals[s], qs[i].Vals[s][0]/2)
			}
		}
	}
	for _, tc := range []struct {
		name string
		l    Layout
	}{
		{"plain", Layout{Metrics: C, Core: core, Systems: S}},
		{"bootstrap", Layout{Metrics: C, Core: core, Systems: S, Bootstrap: B}},
		{"randomization", Layout{Metrics: C, Core: core, Systems: S, Compare: Compare{Test: stats.TestRandom, Permutations: B}}},
		{"tukey", Layout{Metrics: C, Core: core, Systems: S, Compare: Compare{Test: stats.TestTukey, Permutations: B}}},
	} {
		b.Run(fmt.Sprint(tc.name), func(b *testing.B) {
			a := NewAnalysis(&tc.l)
			for i := 0; b.Loop(); i++ {
				if err := a.Add(&qs[i%len(qs)]); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "queries/s")
		})
	}
}
