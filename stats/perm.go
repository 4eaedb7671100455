package stats

import (
	"math/bits"
	"slices"

	"github.com/rankeval/rankeval/internal/splitmix"
)

// The randomization tests' draws. A query's draw in replicate b (a sign,
// or a shuffle of the systems) comes from its hash (QueryHash), b and the
// seed, as the bootstrap's weights do, so the replicates are the same for
// any number of workers, batch size, path or merge of states.

// Keys of the draws, so that signs, shuffles and bootstrap weights of one
// query are unrelated.
const (
	flipKey  = 0x5851f42d4c957f2d
	tukeyKey = 0x14057b7ef767814f
	golden   = 0x9e3779b97f4a7c15
)

// drawBase is the start of a query's stream of draws for a test.
func drawBase(h, seed, key uint64) uint64 { return splitmix.Mix64(h ^ splitmix.Mix64(seed+key)) }

// FlipStream is the start of the sign draws (FlipBlock) of the query of
// hash h under seed.
func FlipStream(h, seed uint64) uint64 { return drawBase(h, seed, flipKey) }

// FlipBlock is the signs of replicates 64·blk .. 64·blk+63 of the query
// whose sign draws start at stream (FlipStream): bit i set is sign + in
// replicate 64·blk+i. Each bit is + with probability 1/2.
func FlipBlock(stream uint64, blk int) uint64 { return splitmix.Mix64(stream + uint64(blk+1)*golden) }

// ShuffleStream is the start of the shuffles (Shuffler.Draw) of the query
// of hash h under seed.
func ShuffleStream(h, seed uint64) uint64 { return drawBase(h, seed, tukeyKey) }

// Shuffler draws replicate b's permutation of n systems for a query. Up
// to tableSystems systems it lists every permutation and draws one index
// from one 64-bit output by multiply-shift (bias below n!/2^64): one hash
// a replicate. More systems get a Fisher-Yates shuffle, each step's index
// from its own output.
type Shuffler struct {
	n     int
	count uint64  // n!, with a table
	table []uint8 // every permutation, n bytes each, in lexicographic order
	perm  []int
}

// tableSystems bounds the systems whose permutations are listed: 8! of 8
// bytes is 322 KB.
const tableSystems = 8

// NewShuffler makes the shuffler of n systems.
func NewShuffler(n int) *Shuffler {
	sh := &Shuffler{n: n, perm: make([]int, n)}
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

// Draw returns replicate b's permutation for the query whose shuffles
// start at stream (ShuffleStream): system s gets the values of system
// perm[s]. The slice is valid until the next draw.
func (sh *Shuffler) Draw(stream uint64, b int) []int {
	perm := sh.perm
	if sh.table != nil {
		i, _ := bits.Mul64(splitmix.Mix64(stream+uint64(b+1)*golden), sh.count)
		for s, from := range sh.table[int(i)*sh.n : int(i+1)*sh.n] {
			perm[s] = int(from)
		}
		return perm
	}
	for i := range perm {
		perm[i] = i
	}
	start := stream + uint64(b)*uint64(sh.n)*golden
	for i := sh.n - 1; i > 0; i-- {
		j, _ := bits.Mul64(splitmix.Mix64(start+uint64(i)*golden), uint64(i+1))
		perm[i], perm[j] = perm[j], perm[i]
	}
	return perm
}

// MonteCarloP is a Monte Carlo p-value that never reads 0: (1 + the
// replicates at least as extreme as the observed) / (1 + the replicates),
// as Phipson and Smyth (2010) show is exact for a test of size α.
func MonteCarloP(extreme, b int) float64 { return float64(1+extreme) / float64(1+b) }
