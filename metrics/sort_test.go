package metrics

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortEnts compares the typed sort with the standard library's on
// shapes that stress each path: ranked, reversed, few keys, all equal, and
// lists long enough to reach heapsort when the depth budget is cut.
func TestSortEnts(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	shapes := map[string]func(i, n int) uint64{
		"random":   func(i, n int) uint64 { return r.Uint64() },
		"ranked":   func(i, n int) uint64 { return uint64(i) },
		"reversed": func(i, n int) uint64 { return uint64(n - i) },
		"few keys": func(i, n int) uint64 { return uint64(r.IntN(4)) },
		"equal":    func(i, n int) uint64 { return 7 },
		"organ":    func(i, n int) uint64 { return uint64(min(i, n-i)) },
	}
	for name, key := range shapes {
		for _, n := range []int{0, 1, 2, 11, 12, 13, 50, 1000, 20000} {
			t.Run(fmt.Sprintf("%s/%d", name, n), func(t *testing.T) {
				a := make([]ent, n)
				for i := range a {
					a[i] = ent{key: key(i, n), i: int32(i)}
				}
				want := slices.Clone(a)
				slices.SortFunc(want, cmpEnt)
				got := slices.Clone(a)
				sortEnts(got)
				if !slices.Equal(got, want) {
					t.Fatal("order differs from slices.SortFunc")
				}
				heap := slices.Clone(a)
				quickEnts(heap, 0) // depth 0: straight to heapsort
				if n > 12 && !slices.Equal(heap, want) {
					t.Fatal("heapsort order differs")
				}
			})
		}
	}
}
