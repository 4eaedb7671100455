package aggregate

import (
	"fmt"
	"math/big"
	"math/bits"
	"slices"
)

// Test is the significance test whose p-values a comparison reports.
type Test uint8

const (
	// TestT is the paired t-test, read from the differences' exact sums.
	TestT Test = iota
	// TestRandom is Fisher's paired randomization test (Smucker, Allan and
	// Carterette, 2007): under the null hypothesis each query's difference
	// is as likely to have either sign.
	TestRandom
	// TestTukey is the randomized Tukey HSD (Carterette, 2012): each query's
	// values are shuffled among the systems, and a pair's difference is
	// set against the largest difference of any two systems.
	TestTukey
)

var testNames = [...]string{TestT: "t", TestRandom: "randomization", TestTukey: "tukey"}

func (t Test) String() string {
	if int(t) < len(testNames) {
		return testNames[t]
	}
	return fmt.Sprintf("Test(%d)", t)
}

// ParseTest reads a test's name.
func ParseTest(s string) (Test, error) {
	for t, n := range testNames {
		if n == s {
			return Test(t), nil
		}
	}
	return 0, fmt.Errorf("%q: want t, randomization or tukey", s)
}

// Perms holds the randomization replicates of a run's comparisons, kept
// as sums so that they stream, merge and save like every other aggregate.
// A query's draw in replicate b (a sign, or a shuffle of the systems)
// comes from a hash of its id, b and the seed, as the bootstrap's weights
// do, so the replicates are the same for any number of workers, batch
// size, path or merge of states.
//
// For TestRandom the K means are the pairs' differences (pair-major, then
// core metric) and replicate b keeps the sum of the values whose sign is
// + in b: the replicate's statistic Σ±d is then 2·that - Σd, and a query
// touches half the replicates, adding with no multiply. For TestTukey the
// K means are the systems' values (system-major) and replicate b keeps
// each system's sum of the values the shuffle gives it; a metric that
// some system leaves undefined in a query leaves that query out of the
// metric's test. Row B holds the observed sums (no sign flipped, no
// shuffle). Values are in the bootstrap's fixed point, summed into 128
// bits: the tests compare exact integers, so a replicate that ties the
// observed statistic counts as at least as extreme, on every machine.
type Perms struct {
	Test Test
	B    int // replicates
	Seed uint64
	S, C int // systems and core metrics (TestTukey)
	K    int
	fixed
	lo  []uint64 // [b*K+k], b in [0, B]
	hi  []int64
	q   []int64
	sh  *shuffler
	def []bool
}

// NewPerms makes the replicates of test t over k means of the given
// ranges; for TestTukey the ranges are those of s systems' c core metrics
// (k = s·c).
func NewPerms(t Test, b int, seed uint64, s int, ranges []Range) *Perms {
	k := len(ranges)
	p := &Perms{Test: t, B: b, Seed: seed, K: k, fixed: newFixed(ranges), lo: make([]uint64, (b+1)*k),
		hi: make([]int64, (b+1)*k), q: make([]int64, k)}
	if t == TestTukey {
		p.S, p.C = s, k/s
		p.sh, p.def = newShuffler(s), make([]bool, p.C)
	}
	return p
}

// Keys of the draws, so that signs, shuffles and bootstrap weights of one
// query are unrelated.
const (
	flipKey  = 0x5851f42d4c957f2d
	tukeyKey = 0x14057b7ef767814f
	golden   = 0x9e3779b97f4a7c15
)

// drawBase is the start of a query's stream of draws for a test.
func drawBase(h, seed, key uint64) uint64 { return mix64(h ^ mix64(seed+key)) }

// flipBits are the signs of replicates 64·blk .. 64·blk+63 for a query:
// bit i set is sign + in replicate 64·blk+i.
func flipBits(base uint64, blk int) uint64 { return mix64(base + uint64(blk+1)*golden) }

// shuffler draws replicate b's permutation of n systems for a query.
// Up to tableSystems systems it lists every permutation and draws one
// index from one 64-bit output by multiply-shift (bias below n!/2^64):
// one hash a replicate. More systems get a Fisher-Yates shuffle, each
// step's index from its own output.
type shuffler struct {
	n     int
	count uint64  // n!, with a table
	table []uint8 // every permutation, n bytes each, in lexicographic order
	perm  []int
}

// tableSystems bounds the systems whose permutations are listed: 8! of 8
// bytes is 322 KB.
const tableSystems = 8

func newShuffler(n int) *shuffler {
	sh := &shuffler{n: n, perm: make([]int, n)}
	if n > tableSystems {
		return sh
	}
	sh.count = 1
	for i := 2; i <= n; i++ {
		sh.count *= uint64(i)
	}
	cur := make([]uint8, n)
	for i := range cur {
		cur[i] = uint8(i)
	}
	for {
		sh.table = append(sh.table, cur...)
		if !nextPermutation(cur) {
			return sh
		}
	}
}

// nextPermutation steps p to the next permutation in lexicographic order;
// false after the last.
func nextPermutation(p []uint8) bool {
	i := len(p) - 2
	for i >= 0 && p[i] >= p[i+1] {
		i--
	}
	if i < 0 {
		return false
	}
	j := len(p) - 1
	for p[j] <= p[i] {
		j--
	}
	p[i], p[j] = p[j], p[i]
	slices.Reverse(p[i+1:])
	return true
}

// draw returns replicate b's permutation for the query whose draws start
// at base: system s gets the values of system perm[s]. The slice is valid
// until the next draw.
func (sh *shuffler) draw(base uint64, b int) []int {
	perm := sh.perm
	if sh.table != nil {
		i, _ := bits.Mul64(mix64(base+uint64(b+1)*golden), sh.count)
		for s, from := range sh.table[int(i)*sh.n : int(i+1)*sh.n] {
			perm[s] = int(from)
		}
		return perm
	}
	for i := range perm {
		perm[i] = i
	}
	start := base + uint64(b)*uint64(sh.n)*golden
	for i := sh.n - 1; i > 0; i-- {
		j, _ := bits.Mul64(mix64(start+uint64(i)*golden), uint64(i+1))
		perm[i], perm[j] = perm[j], perm[i]
	}
	return perm
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
	if p.Test == TestTukey {
		p.addTukey(vals, h)
		return 0, true
	}
	add128(p.lo[p.B*K:], p.hi[p.B*K:], p.q)
	base := drawBase(h, p.Seed, flipKey)
	for blk := 0; blk*64 < p.B; blk++ {
		signs := flipBits(base, blk)
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
	base := drawBase(h, p.Seed, tukeyKey)
	for b := range p.B {
		perm := p.sh.draw(base, b)
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

// pValue is a Monte Carlo p-value that never reads 0: (1 + the replicates
// at least as extreme as the observed) / (1 + the replicates), as
// Phipson and Smyth (2010) show is exact for a test of size α.
func pValue(extreme, b int) float64 { return float64(1+extreme) / float64(1+b) }

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

// FlipP is the two-sided p-value of the randomization test of mean k
// (TestRandom), a sum of n values: a replicate counts when |Σ±d| >= |Σd|,
// ties within rounding included (tieSlack).
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
	return pValue(extreme, p.B)
}

// TukeyP is the p-value of the randomized Tukey HSD of systems i and j on
// core metric m (TestTukey), over at most n queries: a replicate counts
// when its largest difference between any two systems is at least
// |observed i - j|, ties within rounding included (tieSlack). ranges is
// RangesOf(m), sorted, shared by every pair of the metric.
func (p *Perms) TukeyP(ranges []i128, i, j, m int, n int64) float64 {
	d := p.at(p.B, i*p.C+m).sub(p.at(p.B, j*p.C+m)).abs()
	d = d.sub(p.tieSlack(i*p.C+m, n, 4))
	k, _ := slices.BinarySearchFunc(ranges, d, i128.cmp)
	return pValue(len(ranges)-k, p.B)
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
