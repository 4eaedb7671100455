package aggregate

import (
	"fmt"
	"math"
	"testing"

	"github.com/rankeval/rankeval/stats"
)

// exactly is numerators over a common denominator: values such as a
// p@3 of 1/3 or a p@10 of 3/10, whose fixed points do not add up as the
// values do (round(2^55/3)·2 is not round(2·2^55/3)), so replicates that
// tie the observed statistic exactly must still count.
type exactly struct {
	den  int
	nums [][]int // per query, per system
}

func (e exactly) queries() []Query {
	var qs []Query
	for i, row := range e.nums {
		q := Query{Slice: -1, Hash: stats.QueryHash(fmt.Appendf(nil, "q%d", i))}
		for _, n := range row {
			q.Vals = append(q.Vals, []float64{float64(n) / float64(e.den)})
			q.Rows = append(q.Rows, 1)
			q.Empty = append(q.Empty, false)
			q.Missing = append(q.Missing, false)
		}
		qs = append(qs, q)
	}
	return qs
}

func absInt(x int) int { return max(x, -x) }

// TestRandomizationTiesOfRoundedValues: Fisher's randomization test on
// differences that are multiples of 1/3 or 1/10, set against every sign
// pattern counted in integers: the p-value lies within Monte Carlo error
// of the exact one (rounding to the fixed point used to break the exact
// ties downward, an anti-conservative p: 0.625 for an exact 0.75).
func TestRandomizationTiesOfRoundedValues(t *testing.T) {
	const B = 40_000
	for _, tc := range []struct {
		name string
		e    exactly
	}{
		{"thirds", exactly{3, [][]int{{0, 1}, {0, 1}, {1, 3}, {3, 1}}}},
		{"thirds, more", exactly{3, [][]int{{0, 1}, {1, 2}, {0, 2}, {3, 1}, {2, 3}, {1, 0}, {0, 2}, {3, 2}, {1, 3}}}},
		{"tenths", exactly{10, [][]int{{1, 2}, {1, 3}, {0, 3}, {7, 1}, {4, 6}, {2, 3}, {5, 1}, {0, 7}, {9, 3}, {2, 6}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := &Layout{Metrics: 1, Core: []Range{RangeUnit}, Systems: 2, Compare: Compare{Test: stats.TestRandom, Permutations: B, Seed: 1}}
			got := analysisOf(t, l, tc.e.queries()).Pairs(stats.CorrNone)[0][0]
			var d []int
			obs := 0
			for _, row := range tc.e.nums {
				d = append(d, row[1]-row[0])
				obs += row[1] - row[0]
			}
			extreme := 0
			for mask := range 1 << len(d) {
				s := 0
				for i, v := range d {
					if mask>>i&1 == 1 {
						s -= v
					} else {
						s += v
					}
				}
				if absInt(s) >= absInt(obs) {
					extreme++
				}
			}
			exact := float64(extreme) / float64(int(1)<<len(d))
			se := math.Sqrt(exact * (1 - exact) / B)
			if math.Abs(got.P-exact) > 5*se+2.0/B {
				t.Fatalf("p %v, exact %v ± %v", got.P, exact, se)
			}
		})
	}
}

// TestTukeyTiesOfRoundedValues: the randomized Tukey HSD on values that
// are multiples of 1/3 or 1/10, against every shuffle of three systems
// counted in integers.
func TestTukeyTiesOfRoundedValues(t *testing.T) {
	const S, B = 3, 40_000
	for _, tc := range []struct {
		name string
		e    exactly
	}{
		{"thirds", exactly{3, [][]int{{0, 1, 2}, {1, 1, 0}, {2, 0, 1}, {3, 1, 1}, {0, 2, 1}}}},
		{"tenths", exactly{10, [][]int{{1, 3, 2}, {7, 1, 4}, {2, 2, 9}, {3, 0, 1}, {5, 6, 3}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := &Layout{Metrics: 1, Core: []Range{RangeUnit}, Systems: S, Compare: Compare{AllPairs: true, Test: stats.TestTukey, Permutations: B, Seed: 2}}
			got := analysisOf(t, l, tc.e.queries()).Pairs(stats.CorrNone)
			perms := [][]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}
			n := len(tc.e.nums)
			total := 1
			for range n {
				total *= len(perms)
			}
			var rs []int
			for code := range total {
				sum := make([]int, S)
				c := code
				for _, row := range tc.e.nums {
					pm := perms[c%len(perms)]
					c /= len(perms)
					for s, from := range pm {
						sum[s] += row[from]
					}
				}
				rs = append(rs, max(sum[0], sum[1], sum[2])-min(sum[0], sum[1], sum[2]))
			}
			obs := make([]int, S)
			for _, row := range tc.e.nums {
				for s := range S {
					obs[s] += row[s]
				}
			}
			for p, pr := range l.Pairs() {
				d := absInt(obs[pr[0]] - obs[pr[1]])
				k := 0
				for _, v := range rs {
					if v >= d {
						k++
					}
				}
				exact := float64(k) / float64(len(rs))
				se := math.Sqrt(exact * (1 - exact) / B)
				if g := got[p][0].P; math.Abs(g-exact) > 5*se+2.0/B {
					t.Errorf("pair %v: p %v, exact %v ± %v", pr, g, exact, se)
				}
			}
		})
	}
}
