package aggregate

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/stats"
)

// pairQueries makes n queries of s systems with one [0, 1] metric whose
// values are multiples of 1/64, so that every sum below is exact in a
// float64 and the tests' own arithmetic ties where the fixed point does.
func pairQueries(r *rand.Rand, n, s int, shift float64) []Query {
	out := make([]Query, n)
	for i := range out {
		q := Query{Slice: -1, Hash: stats.QueryHash(fmt.Appendf(nil, "q%d", i))}
		for sys := range s {
			v := float64(r.IntN(65)) / 64
			if sys > 0 && r.Float64() < shift {
				v = math.Min(1, v+float64(r.IntN(16))/64)
			}
			q.Vals = append(q.Vals, []float64{v})
			q.Rows = append(q.Rows, 1)
			q.Empty = append(q.Empty, false)
			q.Missing = append(q.Missing, false)
		}
		out[i] = q
	}
	return out
}

func analysisOf(t *testing.T, l *Layout, qs []Query) *Analysis {
	t.Helper()
	a := NewAnalysis(l)
	for i := range qs {
		if err := a.Add(&qs[i]); err != nil {
			t.Fatal(err)
		}
	}
	return a
}

// TestRandomizationExhaustive: on at most 16 queries every one of the 2^n
// sign patterns can be counted; the replicates' p-value lies within five
// Monte Carlo standard errors of that exact p-value.
func TestRandomizationExhaustive(t *testing.T) {
	const B = 40_000
	for _, tc := range []struct {
		n     int
		shift float64
	}{{4, 0}, {9, 0.5}, {12, 0.9}, {16, 0.3}, {16, 1}} {
		t.Run(fmt.Sprintf("n=%d shift=%g", tc.n, tc.shift), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(tc.n), 3))
			qs := pairQueries(r, tc.n, 2, tc.shift)
			l := &Layout{Metrics: 1, Core: []Range{RangeUnit}, Systems: 2, Compare: Compare{Test: stats.TestRandom, Permutations: B, Seed: 5}}
			got := analysisOf(t, l, qs).Pairs(stats.CorrNone)[0][0]
			var d []float64
			obs := 0.0
			for _, q := range qs {
				d = append(d, q.Vals[1][0]-q.Vals[0][0])
				obs += d[len(d)-1]
			}
			extreme := 0
			for mask := range 1 << tc.n {
				s := 0.0
				for i, v := range d {
					if mask>>i&1 == 1 {
						s -= v
					} else {
						s += v
					}
				}
				if math.Abs(s) >= math.Abs(obs) {
					extreme++
				}
			}
			exact := float64(extreme) / float64(int(1)<<tc.n)
			se := math.Sqrt(exact * (1 - exact) / B)
			if got.Test != stats.TestRandom || math.Abs(got.P-exact) > 5*se+2.0/B {
				t.Fatalf("p %v (%v), exact %v ± %v", got.P, got.Test, exact, se)
			}
		})
	}
}

// TestTukeyPlain: the randomized Tukey HSD's p-values equal a plain
// reimplementation's that uses the same draws (each replicate's shuffle of
// each query, by stats.Shuffler.Draw) and float arithmetic; and on a few queries they
// lie within Monte Carlo error of the exact p-values over every shuffle.
func TestTukeyPlain(t *testing.T) {
	const S, B = 4, 3000
	r := rand.New(rand.NewPCG(11, 12))
	qs := pairQueries(r, 60, S, 0.4)
	l := &Layout{Metrics: 1, Core: []Range{RangeUnit}, Systems: S, Compare: Compare{AllPairs: true, Test: stats.TestTukey, Permutations: B, Seed: 77}}
	got := analysisOf(t, l, qs).Pairs(stats.CorrNone)
	obs := make([]float64, S)
	ranges := make([]float64, B)
	sh := stats.NewShuffler(S)
	for _, q := range qs {
		for s := range S {
			obs[s] += q.Vals[s][0]
		}
	}
	for b := range B {
		sum := make([]float64, S)
		for _, q := range qs {
			for s, from := range sh.Draw(stats.ShuffleStream(q.Hash, 77), b) {
				sum[s] += q.Vals[from][0]
			}
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range sum {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		ranges[b] = hi - lo
	}
	for p, pr := range l.Pairs() {
		d := math.Abs(obs[pr[0]] - obs[pr[1]])
		n := 0
		for _, rg := range ranges {
			if rg >= d {
				n++
			}
		}
		want := float64(1+n) / float64(1+B)
		if g := got[p][0]; g.P != want || g.I != pr[0] || g.J != pr[1] {
			t.Errorf("pair %v: p %v, plain %v", pr, g.P, want)
		}
	}

	t.Run("exhaustive", func(t *testing.T) {
		const S, n, B = 3, 5, 40_000
		qs := pairQueries(rand.New(rand.NewPCG(3, 4)), n, S, 0.8)
		l := &Layout{Metrics: 1, Core: []Range{RangeUnit}, Systems: S, Compare: Compare{AllPairs: true, Test: stats.TestTukey, Permutations: B}}
		got := analysisOf(t, l, qs).Pairs(stats.CorrNone)
		perms := [][]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}
		var rs []float64
		total := 1
		for range n {
			total *= len(perms)
		}
		for code := range total {
			sum := make([]float64, S)
			c := code
			for _, q := range qs {
				pm := perms[c%len(perms)]
				c /= len(perms)
				for s, from := range pm {
					sum[s] += q.Vals[from][0]
				}
			}
			rs = append(rs, math.Max(sum[0], math.Max(sum[1], sum[2]))-math.Min(sum[0], math.Min(sum[1], sum[2])))
		}
		obs := make([]float64, S)
		for _, q := range qs {
			for s := range S {
				obs[s] += q.Vals[s][0]
			}
		}
		for p, pr := range l.Pairs() {
			d := math.Abs(obs[pr[0]] - obs[pr[1]])
			n := 0
			for _, v := range rs {
				if v >= d {
					n++
				}
			}
			exact := float64(n) / float64(len(rs))
			se := math.Sqrt(exact * (1 - exact) / B)
			if g := got[p][0].P; math.Abs(g-exact) > 5*se+2.0/B {
				t.Errorf("pair %v: p %v, exact %v ± %v", pr, g, exact, se)
			}
		}
	})
}

// TestPermSplitMerge: the replicates' p-values are the same bits however
// the queries are split among partial aggregates and merged.
func TestPermSplitMerge(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	qs := pairQueries(r, 500, 3, 0.3)
	for _, test := range []stats.Test{stats.TestRandom, stats.TestTukey} {
		t.Run(test.String(), func(t *testing.T) {
			l := &Layout{Metrics: 1, Core: []Range{RangeUnit}, Systems: 3, Compare: Compare{AllPairs: true, Test: test, Permutations: 300, Seed: 3}}
			whole := fmt.Sprint(analysisOf(t, l, qs).Pairs(stats.CorrHolm))
			for _, cut := range []int{1, 170, 499} {
				a, b := analysisOf(t, l, qs[cut:]), analysisOf(t, l, qs[:cut])
				a.Merge(b)
				if got := fmt.Sprint(a.Pairs(stats.CorrHolm)); got != whole {
					t.Fatalf("split at %d: %s, want %s", cut, got, whole)
				}
			}
		})
	}
}

// TestCheckPerm: sums a crafted state could hold and no queries give are
// refused.
func TestCheckPerm(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	qs := pairQueries(r, 50, 3, 0.3)
	ranges := []Range{RangeUnit}
	for _, tc := range []struct {
		name string
		test stats.Test
		harm func(p *Perms)
		want string
	}{
		{"sign replicate too large", stats.TestRandom, func(p *Perms) { p.hi[3*p.K] += 1 << 20 }, "beyond what its count"},
		{"observed unlike the differences", stats.TestRandom, func(p *Perms) { p.lo[p.B*p.K] += 1 << 58 }, "observed sum unlike"},
		{"tukey total changed", stats.TestTukey, func(p *Perms) { p.lo[2*p.K] += 1 }, "total unlike the observed"},
		// the 128-bit extremes: -2^127 has no absolute value in 128 bits
		{"sign replicate -2^127", stats.TestRandom, func(p *Perms) { p.hi[3*p.K], p.lo[3*p.K] = math.MinInt64, 0 }, "beyond what its count"},
		{"sign replicate -2^127+1", stats.TestRandom, func(p *Perms) { p.hi[3*p.K], p.lo[3*p.K] = math.MinInt64, 1 }, "beyond what its count"},
		{"sign replicate 2^127-1", stats.TestRandom, func(p *Perms) { p.hi[3*p.K], p.lo[3*p.K] = math.MaxInt64, math.MaxUint64 }, "beyond what its count"},
		{"tukey replicate -2^127", stats.TestTukey, func(p *Perms) { p.hi[2*p.K+1], p.lo[2*p.K+1] = math.MinInt64, 0 }, "beyond what its count"},
		{"tukey observed -2^127", stats.TestTukey, func(p *Perms) { p.hi[p.B*p.K], p.lo[p.B*p.K] = math.MinInt64, 0 }, "beyond what its count"},
		{"tukey sums moved between systems past their bound", stats.TestTukey, func(p *Perms) {
			p.hi[2*p.K] += math.MaxInt64 / 2
			p.hi[2*p.K+p.C] -= math.MaxInt64 / 2
		}, "beyond what its count"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := &Layout{Metrics: 1, Core: ranges, Systems: 3, Compare: Compare{Test: tc.test, Permutations: 20}}
			a := analysisOf(t, l, qs)
			if err := a.Check(ranges); err != nil {
				t.Fatalf("an honest aggregate refused: %v", err)
			}
			tc.harm(a.Perm)
			err := a.Check(ranges)
			if !errors.Is(err, ErrImpossible) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}
