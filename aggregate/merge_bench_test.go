package aggregate

import (
	"math/rand/v2"
	"testing"
	"time"
)

// A year of daily states: 6 core metrics (five in [0, 1], one dcg-like), 2
// systems, 100 slice keys, a 1,000-replicate bootstrap and histograms; each
// day a few hundred queries, its slices numbered by first appearance.
var benchLayout = &Layout{Metrics: 6, Core: []Range{RangeUnit, RangeUnit, RangeUnit, RangeUnit, RangeUnit, RangeOpen},
	Systems: 2, Bootstrap: 1000, Hist: true}

type benchDay struct {
	enc  []byte
	keys []string // by the day's slice index
}

var benchDays []benchDay

func yearOfStates(b *testing.B) []benchDay {
	if benchDays != nil {
		return benchDays
	}
	r := rand.New(rand.NewPCG(365, 1))
	for range 365 {
		qs := randQueries(r, benchLayout, 200+r.IntN(200), 100)
		keys := map[string]int{}
		number(qs, keys)
		byIndex := make([]string, len(keys))
		for k, i := range keys {
			byIndex[i] = k
		}
		benchDays = append(benchDays, benchDay{enc: encode(b, build(b, benchLayout, qs)), keys: byIndex})
	}
	return benchDays
}

// BenchmarkMergeStates decodes and merges 365 saved daily analyses into
// one, mapping each day's slice keys to the year's numbering: one op is the
// whole year.
func BenchmarkMergeStates(b *testing.B) {
	days := yearOfStates(b)
	size := 0
	for _, d := range days {
		size += len(d.enc)
	}
	var decoding, merging time.Duration
	b.ReportAllocs()
	b.SetBytes(int64(size))
	for b.Loop() {
		total := NewAnalysis(benchLayout)
		global := map[string]int{}
		for _, d := range days {
			t0 := time.Now()
			var a Analysis
			if err := a.UnmarshalBinary(d.enc); err != nil {
				b.Fatal(err)
			}
			t1 := time.Now()
			mapping := make([]int, len(d.keys))
			for i, k := range d.keys {
				g, ok := global[k]
				if !ok {
					g = len(global)
					global[k] = g
				}
				mapping[i] = g
			}
			if err := total.MergeMapped(&a, mapping); err != nil {
				b.Fatal(err)
			}
			decoding += t1.Sub(t0)
			merging += time.Since(t1)
		}
	}
	n := float64(b.N * len(days))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/state")
	b.ReportMetric(float64(decoding.Nanoseconds())/n, "ns/decode")
	b.ReportMetric(float64(merging.Nanoseconds())/n, "ns/merge")
	b.ReportMetric(float64(size)/float64(len(days)), "B/state")
}
