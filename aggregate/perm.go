package aggregate

import (
	"math/big"
	"math/bits"
	"slices"

	"github.com/rankeval/rankeval/stats"
)

// Perms holds the randomization replicates of a run's comparisons, kept
// as sums so that they stream, merge and save like every other aggregate.
// A query's draw in replicate b (a sign, stats.FlipBlock, or a shuffle of
// the systems, stats.Shuffler) comes from a hash of its id, b and the
// seed, so the replicates are the same for any number of workers, batch
// size, path or merge of states.
//
// For stats.TestRandom the K means are the pairs' differences
// (pair-major, then core metric) and replicate b keeps the sum of the
// values whose sign is + in b: the replicate's statistic Σ±d is then
// 2·that - Σd, and a query touches half the replicates, adding with no
// multiply. For stats.TestTukey the K means are the systems' values
// (system-major) and replicate b keeps
// each system's sum of the values the shuffle gives it; a metric that
// some system leaves undefined in a query leaves that query out of the
// metric's test. Row B holds the observed sums (no sign flipped, no
// shuffle). Values are in the bootstrap's fixed point, summed into 128
// bits: the tests compare exact integers, so a replicate that ties the
// observed statistic counts as at least as extreme, on every machine.
type Perms struct {
	Test stats.Test
	B    int // replicates
	Seed uint64
	S, C int // systems and core metrics (stats.TestTukey)
	K    int
	fixed
	lo  []uint64 // [b*K+k], b in [0, B]
	hi  []int64
	q   []int64
	sh  *stats.Shuffler
	def []bool
}

// NewPerms makes the replicates of test t over k means of the given
// ranges; for stats.TestTukey the ranges are those of s systems' c core
// metrics (k = s·c).
func NewPerms(t stats.Test, b int, seed uint64, s int, ranges []Range) *Perms {
	k := len(ranges)
	p := &Perms{Test: t, B: b, Seed: seed, K: k, fixed: newFixed(ranges), lo: make([]uint64, (b+1)*k),
		hi: make([]int64, (b+1)*k), q: make([]int64, k)}
	if t == stats.TestTukey {
		p.S, p.C = s, k/s
		p.sh, p.def = stats.NewShuffler(s), make([]bool, p.C)
	}
	return p
}

func add128(lo []uint64, hi []int64, q []int64) {
	lo, hi = lo[:len(q)], hi[:len(q)]
	for k, x := range q {
		s, c := bits.Add64(lo[k], uint64(x), 0)
		lo[k] = s
		hi[k] += x>>63 + int64(c)
	}
}

// Add counts one query of hash h with value vals[k] for mean k (NaN:
// undefined). It returns the index of a value beyond the fixed-point
// range and false, adding nothing.
func (p *Perms) Add(vals []float64, h uint64) (int, bool) {
	if k, ok := p.conv(vals, p.q); !ok {
		return k, false
	}
	K := p.K
	if p.Test == stats.TestTukey {
		p.addTukey(vals, h)
		return 0, true
	}
	add128(p.lo[p.B*K:], p.hi[p.B*K:], p.q)
	stream := stats.FlipStream(h, p.Seed)
	for blk := 0; blk*64 < p.B; blk++ {
		signs := stats.FlipBlock(stream, blk)
		if rest := p.B - blk*64; rest < 64 {
			signs &= 1<<rest - 1
		}
		for signs != 0 {
			b := blk*64 + bits.TrailingZeros64(signs)
			signs &= signs - 1
			add128(p.lo[b*K:], p.hi[b*K:], p.q)
		}
	}
	return 0, true
}

func (p *Perms) addTukey(vals []float64, h uint64) {
	S, C, K := p.S, p.C, p.K
	some := false
	for m := range C {
		p.def[m] = true
		for s := range S {
			if vals[s*C+m] != vals[s*C+m] { // NaN
				p.def[m] = false
			}
		}
		if !p.def[m] {
			for s := range S {
				p.q[s*C+m] = 0
			}
		}
		some = some || p.def[m]
	}
	if !some {
		return
	}
	add128(p.lo[p.B*K:], p.hi[p.B*K:], p.q)
	stream := stats.ShuffleStream(h, p.Seed)
	for b := range p.B {
		perm := p.sh.Draw(stream, b)
		lo, hi := p.lo[b*K:(b+1)*K], p.hi[b*K:(b+1)*K]
		for s, from := range perm {
			add128(lo[s*C:], hi[s*C:], p.q[from*C:(from+1)*C])
		}
	}
}

// Merge adds o into p.
func (p *Perms) Merge(o *Perms) { merge128(p.lo, p.hi, o.lo, o.hi) }

// merge128 adds the 128-bit sums (olo, ohi) into (lo, hi).
func merge128(lo []uint64, hi []int64, olo []uint64, ohi []int64) {
	for i := range lo {
		s, c := bits.Add64(lo[i], olo[i], 0)
		lo[i] = s
		hi[i] += ohi[i] + int64(c)
	}
}

// i128 is a 128-bit two's-complement integer: the tests' statistics.
type i128 struct {
	hi int64
	lo uint64
}

func (p *Perms) at(b, k int) i128 { i := b*p.K + k; return i128{p.hi[i], p.lo[i]} }

func (a i128) big() *big.Int {
	v := new(big.Int).SetInt64(a.hi)
	v.Lsh(v, 64)
	return v.Add(v, new(big.Int).SetUint64(a.lo))
}

func (a i128) add(b i128) i128 {
	lo, carry := bits.Add64(a.lo, b.lo, 0)
	return i128{a.hi + b.hi + int64(carry), lo}
}

func (a i128) sub(b i128) i128 {
	lo, borrow := bits.Sub64(a.lo, b.lo, 0)
	return i128{a.hi - b.hi - int64(borrow), lo}
}

func (a i128) abs() i128 {
	if a.hi < 0 {
		return i128{}.sub(a)
	}
	return a
}

func (a i128) cmp(b i128) int {
	switch {
	case a.hi != b.hi:
		if a.hi < b.hi {
			return -1
		}
		return 1
	case a.lo < b.lo:
		return -1
	case a.lo > b.lo:
		return 1
	}
	return 0
}

// tieSlack is how far apart, in fixed-point units, the integer statistics
// of mean k may lie when the exact ones tie, for statistics made of sums
// sums of n values each. A value's fixed point lies within half a unit of
// its float, which lies within some ulps of the exact value it stands for
// (1/3, 3/10: a p@3 or p@10), and these errors do not cancel as exact
// values do: 2·round(2^55/3) is not round(2·2^55/3). Counting only exact
// integer ties would then break ties of exact values downward, making p
// too small. The slack is 2^-45 a value for bounded metrics (some 256
// ulps) and 2 units (2^-25) for open ones: far below any difference of
// means that matters.
func (p *Perms) tieSlack(k int, n int64, sums uint64) i128 {
	e := uint64(2)
	if f := p.frac[k]; f > 46 {
		e = 1 << (f - 45)
	}
	hi, lo := bits.Mul64(uint64(max(n, 0)), e*sums)
	return i128{int64(hi), lo}
}

// FlipP is the two-sided p-value (stats.MonteCarloP) of the randomization
// test of mean k (stats.TestRandom), a sum of n values: a replicate counts
// when |Σ±d| >= |Σd|, ties within rounding included (tieSlack).
func (p *Perms) FlipP(k int, n int64) float64 {
	obs := p.at(p.B, k)
	aobs := obs.abs().sub(p.tieSlack(k, n, 2))
	extreme := 0
	for b := range p.B {
		pos := p.at(b, k)
		two := i128{pos.hi<<1 | int64(pos.lo>>63), pos.lo << 1}
		if two.sub(obs).abs().cmp(aobs) >= 0 {
			extreme++
		}
	}
	return stats.MonteCarloP(extreme, p.B)
}

// TukeyP is the p-value (stats.MonteCarloP) of the randomized Tukey HSD of
// systems i and j on core metric m (stats.TestTukey), over at most n
// queries: a replicate counts when its largest difference between any two systems is at least
// |observed i - j|, ties within rounding included (tieSlack). ranges is
// RangesOf(m), sorted, shared by every pair of the metric.
func (p *Perms) TukeyP(ranges []i128, i, j, m int, n int64) float64 {
	d := p.at(p.B, i*p.C+m).sub(p.at(p.B, j*p.C+m)).abs()
	d = d.sub(p.tieSlack(i*p.C+m, n, 4))
	k, _ := slices.BinarySearchFunc(ranges, d, i128.cmp)
	return stats.MonteCarloP(len(ranges)-k, p.B)
}

// RangesOf is, per replicate, the largest minus the least of the systems'
// sums of core metric m, sorted ascending.
func (p *Perms) RangesOf(m int) []i128 {
	out := make([]i128, p.B)
	for b := range p.B {
		lo, hi := p.at(b, m), p.at(b, m)
		for s := 1; s < p.S; s++ {
			v := p.at(b, s*p.C+m)
			if v.cmp(lo) < 0 {
				lo = v
			}
			if v.cmp(hi) > 0 {
				hi = v
			}
		}
		out[b] = hi.sub(lo)
	}
	slices.SortFunc(out, i128.cmp)
	return out
}
