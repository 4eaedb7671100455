package metrics

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// BenchmarkSortKinds times the ranking's sort on lists of n scores of
// five kinds: a grid of short decimals (3.26, as TREC runs hold them),
// float32 widened, random doubles, whole numbers, and skewed scores (most
// in a sliver of the range); by radixEnts (the bucket sort, or the radix
// sort where the buckets crowd) and by the introsort. n1000: 8-10 us on
// the first four kinds, where the radix sort alone took 12-16 and the
// introsort 24-29; 16 us on the skewed ones, which fall back to the radix.
func BenchmarkSortKinds(b *testing.B) {
	for _, n := range []int{300, 1000, 3000, 20000} {
		for _, kind := range []string{"grid", "f32", "rand", "int", "skew"} {
			// 64 different lists, taken in turn: the same list sorted
			// again and again would teach the branch predictor its order
			r := rand.New(rand.NewPCG(1, 2))
			keys := make([]uint64, 64*n)
			for i := range keys {
				var s float64
				switch kind {
				case "grid":
					s = float64(r.IntN(2000)) / 100
				case "f32":
					s = float64(float32(r.Float64() * 30))
				case "rand":
					s = r.NormFloat64() * 5
				case "int":
					s = float64(r.IntN(100000))
				case "skew":
					s = skewed(r, i)
				}
				keys[i] = scoreKey(s)
			}
			for _, how := range []string{"radix", "intro"} {
				b.Run(fmt.Sprintf("n%d/%s/%s", n, kind, how), func(b *testing.B) {
					a := make([]ent, n)
					var s sortScratch
					l := 0
					for b.Loop() {
						ks := keys[l*n : (l+1)*n]
						l = (l + 1) % 64
						for i := range a {
							a[i] = ent{key: ks[i], i: int32(i)}
						}
						if how == "radix" {
							radixEnts(a, &s)
						} else {
							quickEnts(a, 2*bits.Len(uint(n)))
						}
					}
					b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
				})
			}
		}
	}
}
