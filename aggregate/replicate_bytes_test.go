package aggregate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rankeval/rankeval/stats"
)

// TestReplicateBytes: the estimate --bootstrap and --permutations are
// held to (evalflags.MaxReplicateBytes) is at least what an analysis of
// the layout allocates for its replicates, for every layout, once a value
// is undefined (the bootstrap then counts the undefined weight of every
// replicate and mean as well).
func TestReplicateBytes(t *testing.T) {
	for _, c := range []struct {
		name string
		l    Layout
	}{
		{"bootstrap, one system", Layout{Systems: 1, Bootstrap: 200}},
		{"bootstrap, baseline pairs", Layout{Systems: 4, Bootstrap: 200}},
		{"bootstrap, all pairs", Layout{Systems: 4, Bootstrap: 200, Compare: Compare{AllPairs: true}}},
		{"randomization, baseline pairs", Layout{Systems: 4, Compare: Compare{Test: stats.TestRandom, Permutations: 300}}},
		{"randomization, all pairs", Layout{Systems: 4, Compare: Compare{Test: stats.TestRandom, Permutations: 300, AllPairs: true}}},
		{"tukey", Layout{Systems: 9, Compare: Compare{Test: stats.TestTukey, Permutations: 300, AllPairs: true}}},
		{"bootstrap and tukey", Layout{Systems: 3, Bootstrap: 100, Compare: Compare{Test: stats.TestTukey, Permutations: 300, AllPairs: true}}},
	} {
		for _, undefined := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/undefined=%v", c.name, undefined), func(t *testing.T) {
				l := c.l
				l.Metrics, l.Core = 3, []Range{RangeUnit, RangeUnit, RangeOpen}
				a := NewAnalysis(&l)
				r := rand.New(rand.NewPCG(1, 2))
				for i := range 20 {
					q := Query{Slice: -1, Hash: stats.QueryHash(fmt.Appendf(nil, "q%d", i))}
					for s := range l.Systems {
						v := []float64{r.Float64(), r.Float64(), 10 * r.Float64()}
						if undefined && i == 3 && s == 0 {
							v[1] = math.NaN()
						}
						q.Vals = append(q.Vals, v)
						q.Rows = append(q.Rows, 1)
						q.Empty = append(q.Empty, false)
						q.Missing = append(q.Missing, false)
					}
					if err := a.Add(&q); err != nil {
						t.Fatal(err)
					}
				}
				var got int64
				if bs := a.Boot; bs != nil {
					got += 8 * int64(cap(bs.lo)+cap(bs.hi)+cap(bs.miss))
				}
				if p := a.Perm; p != nil {
					got += 8 * int64(cap(p.lo)+cap(p.hi))
				}
				if est := l.ReplicateBytes(); est < got {
					t.Errorf("ReplicateBytes %d, allocated %d", est, got)
				}
			})
		}
	}
}
