package stats

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"testing"
)

// TestDrawsFair: the signs are + half the time, in every replicate and
// for every query, with no correlation between neighbouring replicates,
// and each shuffle of three systems comes a sixth of the time.
func TestDrawsFair(t *testing.T) {
	const n = 20_000
	ones, pairsAgree := 0, 0
	count := map[[3]int]int{}
	sh := NewShuffler(3)
	for i := range n {
		h := QueryHash(fmt.Appendf(nil, "query-%d", i))
		for blk := range 2 {
			x := FlipBlock(FlipStream(h, 0), blk)
			ones += bits.OnesCount64(x)
			pairsAgree += 63 - bits.OnesCount64((x^x>>1)&(1<<63-1))
		}
		count[[3]int(sh.Draw(ShuffleStream(h, 0), i%7))]++
	}
	bitsDrawn := float64(n * 128)
	if f := float64(ones) / bitsDrawn; math.Abs(f-0.5) > 5*0.5/math.Sqrt(bitsDrawn) {
		t.Errorf("signs + in %v of replicates", f)
	}
	if f := float64(pairsAgree) / float64(n*2*63); math.Abs(f-0.5) > 5*0.5/math.Sqrt(float64(n*2*63)) {
		t.Errorf("neighbouring replicates agree in %v", f)
	}
	if len(count) != 6 {
		t.Fatalf("%d distinct shuffles of 3", len(count))
	}
	for p, c := range count {
		if f := float64(c) / n; math.Abs(f-1.0/6) > 5*math.Sqrt(1.0/6*5/6/n) {
			t.Errorf("shuffle %v drawn %v of the time", p, f)
		}
	}
	// another seed, other draws
	h := QueryHash([]byte("q"))
	if FlipBlock(FlipStream(h, 0), 0) == FlipBlock(FlipStream(h, 1), 0) {
		t.Error("the seed does not change the signs")
	}
}

// TestShuffler: the table lists every permutation once (8! of 8 systems),
// and both draws, by table and by Fisher-Yates past 8 systems, put each
// system first a 1/n of the time.
func TestShuffler(t *testing.T) {
	sh := NewShuffler(8)
	seen := map[string]bool{}
	for i := range int(sh.count) {
		seen[string(sh.table[i*8:(i+1)*8])] = true
	}
	if sh.count != 40320 || len(seen) != 40320 {
		t.Fatalf("%d permutations listed, %d distinct", sh.count, len(seen))
	}
	for _, n := range []int{4, 8, 11} {
		t.Run(fmt.Sprint(n, " systems"), func(t *testing.T) {
			sh := NewShuffler(n)
			if (sh.table == nil) != (n > tableSystems) {
				t.Fatalf("table %v for %d systems", sh.table != nil, n)
			}
			const draws = 60_000
			first := make([]int, n)
			for i := range draws {
				perm := sh.Draw(ShuffleStream(QueryHash(fmt.Appendf(nil, "q%d", i)), 1), i%5)
				used := make([]bool, n)
				for _, s := range perm {
					used[s] = true
				}
				if slices.Contains(used, false) {
					t.Fatalf("not a permutation: %v", perm)
				}
				first[perm[0]]++
			}
			want := float64(draws) / float64(n)
			for s, c := range first {
				if math.Abs(float64(c)-want) > 5*math.Sqrt(want) {
					t.Errorf("system %d first %d times of %d, want %.0f", s, c, draws, want)
				}
			}
		})
	}
}
