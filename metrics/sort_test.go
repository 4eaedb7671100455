package metrics

import (
	"bytes"
	"fmt"
	"math"
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
		// the radix sort skips bytes that are the same in every key
		"float32 scores":      func(i, n int) uint64 { return scoreKey(float64(float32(r.Float64() * 100))) },
		"only the top byte":   func(i, n int) uint64 { return uint64(r.IntN(256))<<56 | 0x1234 },
		"two separated bytes": func(i, n int) uint64 { return uint64(r.IntN(3))<<48 | uint64(r.IntN(256))<<8 },
		// the high halves sorted, then the runs sharing one: doubles
		// from short decimals, and keys made to share few high halves
		"decimal doubles":    func(i, n int) uint64 { return scoreKey(float64(r.IntN(2000)) / 100) },
		"random doubles":     func(i, n int) uint64 { return scoreKey(r.NormFloat64()) },
		"shared high halves": func(i, n int) uint64 { return uint64(r.IntN(3))<<48 | uint64(r.IntN(2))<<40 | uint64(r.Uint32()) },
		// the buckets (bucketEnts): crowded ones that spend the insertion's
		// budget, scores it must refuse, signs and zeros, rank keys
		"skewed scores":      func(i, n int) uint64 { return scoreKey(skewed(r, i)) },
		"NaN and infinities": func(i, n int) uint64 { return scoreKey(special(r, i)) },
		"signs and zeros":    func(i, n int) uint64 { return scoreKey([]float64{0, negZero, -1.5, 2.25, -1e-310, 5e-324}[r.IntN(6)]) },
		"overflowing range":  func(i, n int) uint64 { return scoreKey(float64(r.IntN(3)-1) * 1.7e308 * r.Float64()) },
		"subnormal scores":   func(i, n int) uint64 { return scoreKey(float64(r.IntN(50)) * 5e-324) },
		"rank keys":          func(i, n int) uint64 { return rankKey(int64(r.IntN(2000) - 1000)) },
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
				sortEnts(got, nil)
				if !slices.Equal(got, want) {
					t.Fatal("order differs from slices.SortFunc")
				}
				// both algorithms, whatever the length
				for _, min := range []int{2, 1 << 30} {
					old := radixMin
					radixMin = min
					got := slices.Clone(a)
					sortEnts(got, &sortScratch{ents: make([]ent, 3), packed: make([]uint64, 5)})
					radixMin = old
					if !slices.Equal(got, want) {
						t.Fatalf("radixMin %d: order differs from slices.SortFunc", min)
					}
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

// TestIdealLabels compares the count per grade with a descending sort, on
// graded labels and on the labels that must fall back to the sort.
func TestIdealLabels(t *testing.T) {
	cases := map[string][]float64{
		"graded":       {0, 3, 1, 0, 4, 4, 2, 0, 1},
		"binary":       {1, 0, 0, 1, 0},
		"all zero":     {0, 0, 0},
		"one":          {2},
		"fraction":     {0.5, 2, 1, 0.25},
		"negative":     {-1, 2, 0, 1},
		"grade 63":     {63, 0, 62, 1},
		"grade 64":     {64, 0, 63, 1},
		"huge":         {1e300, 3, 0},
		"large graded": {},
	}
	r := rand.New(rand.NewPCG(5, 6))
	for range 500 {
		cases["large graded"] = append(cases["large graded"], float64(r.IntN(5)))
	}
	var e Evaluator
	for name, labels := range cases {
		t.Run(name, func(t *testing.T) {
			want := slices.Clone(labels)
			slices.Sort(want)
			slices.Reverse(want)
			for _, lim := range []int{1, 2, len(labels) / 2, len(labels)} {
				if lim < 1 || lim > len(labels) {
					continue
				}
				e.idealLabels(labels, lim)
				if !slices.Equal(e.iy[:lim], want[:lim]) {
					t.Fatalf("lim %d: %v, want %v", lim, e.iy[:lim], want[:lim])
				}
			}
		})
	}
}

var negZero = math.Copysign(0, -1)

// skewed gives most scores in a sliver of the range and a few far off, so
// that the buckets of equal width crowd with different scores.
func skewed(r *rand.Rand, i int) float64 {
	if i%97 == 0 {
		return 1e6
	}
	return r.Float64() * 1e-3
}

// special mixes NaNs (both signs), infinities and ordinary scores.
func special(r *rand.Rand, i int) float64 {
	switch r.IntN(8) {
	case 0:
		return math.NaN()
	case 1:
		return math.Copysign(math.NaN(), -1)
	case 2:
		return math.Inf(1)
	case 3:
		return math.Inf(-1)
	}
	return float64(r.IntN(100)) / 10
}

// TestBucketEnts checks which lists the bucket sort takes and which it
// leaves to the radix sort (a crowded list spends the insertion's budget).
func TestBucketEnts(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	cases := []struct {
		name  string
		score func(i int) float64
		taken bool
	}{
		{"decimals", func(i int) float64 { return float64(r.IntN(1000)) / 100 }, true},
		{"negative", func(i int) float64 { return -float64(r.IntN(1000)) / 7 }, true},
		{"crowded", func(i int) float64 { return skewed(r, i) }, false},
		{"a NaN", func(i int) float64 { return []float64{1, math.NaN()}[min(i, 1)%2] }, false},
		{"an infinity", func(i int) float64 { return []float64{1, math.Inf(-1)}[i%2] }, false},
		{"overflowing width", func(i int) float64 { return []float64{-1e308, 1e308}[i%2] }, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := make([]ent, 1000)
			minK, maxK := uint64(math.MaxUint64), uint64(0)
			for i := range a {
				a[i] = ent{key: scoreKey(c.score(i)), i: int32(i)}
				minK, maxK = min(minK, a[i].key), max(maxK, a[i].key)
			}
			want := slices.Clone(a)
			slices.SortFunc(want, cmpEnt)
			got := slices.Clone(a)
			if taken := bucketEnts(got, new(sortScratch), minK, maxK); taken != c.taken {
				t.Fatalf("taken %v, want %v", taken, c.taken)
			}
			if c.taken && !slices.Equal(got, want) {
				t.Fatal("order differs from slices.SortFunc")
			}
			if !c.taken && !slices.Equal(got, a) {
				t.Fatal("a list not taken was changed")
			}
		})
	}
}

func TestKeyScore(t *testing.T) {
	for _, f := range []float64{0, 1, -1, 3.26, -3.26, math.MaxFloat64, -math.MaxFloat64, 5e-324, -5e-324, math.Inf(1), math.Inf(-1)} {
		if got := keyScore(scoreKey(f)); got != f || math.Signbit(got) != math.Signbit(f) {
			t.Errorf("keyScore(scoreKey(%v)) = %v", f, got)
		}
	}
	if got := keyScore(scoreKey(negZero)); got != 0 || math.Signbit(got) {
		t.Errorf("-0 came back as %v, want +0", got)
	}
}

// TestCompareDocs holds compareDocs to bytes.Compare on ids of 0 to 20
// bytes, with NUL and 0xff bytes (which the masks must not confuse with
// an id's end), prefixes of each other, and ids without room past them.
func TestCompareDocs(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	alphabet := []byte{0, 1, 'A', 'D', 0xfe, 0xff}
	var ids [][]byte
	for range 3000 {
		n := r.IntN(21)
		id := make([]byte, n, n+r.IntN(20)) // room past the end or not
		for i := range id {
			id[i] = alphabet[r.IntN(len(alphabet))]
		}
		// garbage past the end, which must be masked off
		ext := id[:cap(id)]
		for i := n; i < len(ext); i++ {
			ext[i] = alphabet[r.IntN(len(alphabet))]
		}
		ids = append(ids, id)
		if n > 0 {
			ids = append(ids, id[:r.IntN(n)]) // a prefix, sharing the buffer
		}
	}
	for i := 1; i < len(ids); i++ {
		for _, b := range [][]byte{ids[i-1], ids[r.IntN(len(ids))], slices.Clone(ids[i])} {
			a := ids[i]
			if got, want := compareDocs(a, b), bytes.Compare(a, b); got != want {
				t.Fatalf("compareDocs(%q, %q) = %d, want %d", a, b, got, want)
			}
		}
	}
}
