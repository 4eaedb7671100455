package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSweepLinear holds sweepLinear, the loop for rankings without tied
// groups under linear gains, to sweep's general loop (taken here by a tie
// slice that marks no ties), with the rows' relevance given or read from
// the labels: every sum at every cut, bit for bit, on
// rankings with no relevant row, relevant rows first or last, graded and
// fractional labels, and cuts past the DCG limit.
func TestSweepLinear(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{1, 2, 10, 1000} {
		for _, shape := range []string{"none", "all", "first", "last", "random", "fraction"} {
			for _, dcgLim := range []int{0, 1, n / 2, n} {
				t.Run(fmt.Sprintf("%d/%s/dcg%d", n, shape, dcgLim), func(t *testing.T) {
					y := make([]float64, n)
					rb := make([]bool, n)
					for i := range y {
						switch shape {
						case "all":
							y[i] = 1
						case "first":
							y[i] = float64(min(1, max(0, 3-i)))
						case "last":
							y[i] = float64(min(1, max(0, i-n+3)))
						case "random":
							y[i] = float64(r.IntN(4))
						case "fraction":
							y[i] = r.Float64() * 3
						}
						rb[i] = y[i] >= 1
					}
					cuts := []int{n}
					for _, c := range []int{1, 5, 10, 100, 500} {
						if c < n {
							cuts = append(cuts, c)
						}
					}
					slices.Sort(cuts)
					e := NewEvaluator(nil, Options{Gain: GainLinear, HasThreshold: true, RelThreshold: 1})
					e.growDisc(n)
					lims := sweepLims{dcg: dcgLim}
					fast := make([]acc, len(cuts))
					e.sweep(y, rb, nil, cuts, fast, lims)
					slow := make([]acc, len(cuts))
					e.sweep(y, rb, make([]bool, n), cuts, slow, lims)
					// the ideal ranking's sweep: relevance from the labels
					ideal := make([]acc, len(cuts))
					e.sweep(y, nil, nil, cuts, ideal, lims)
					for k := range cuts {
						if !sameAcc(fast[k], slow[k]) {
							t.Fatalf("cut %d: %+v, general loop %+v", cuts[k], fast[k], slow[k])
						}
						if !sameAcc(ideal[k], slow[k]) {
							t.Fatalf("cut %d, relevance from the labels: %+v, general loop %+v", cuts[k], ideal[k], slow[k])
						}
					}
					if shape == "random" && n == 1000 && fast[len(cuts)-1].ap == 0 {
						t.Fatal("no relevant row: the case tests nothing")
					}
				})
			}
		}
	}
}

func sameAcc(a, b acc) bool {
	same := func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) }
	return same(a.rel, b.rel) && same(a.cg, b.cg) && same(a.dcg, b.dcg) && same(a.ap, b.ap) &&
		same(a.rr, b.rr) && same(a.hit, b.hit) && same(a.err, b.err)
}

// BenchmarkSweep is the sweep of a 1000-row ranking with a third of its
// rows relevant, at trec_eval's cutoffs.
func BenchmarkSweep(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	const n = 1000
	e := NewEvaluator(nil, Options{Gain: GainLinear})
	e.growDisc(n)
	var ys [][]float64
	var rbs [][]bool
	for range 16 {
		y, rb := make([]float64, n), make([]bool, n)
		for i := range y {
			y[i] = float64(r.IntN(3) / 2 * (1 + r.IntN(2)))
			rb[i] = y[i] >= 1
		}
		ys, rbs = append(ys, y), append(rbs, rb)
	}
	cuts := []int{5, 10, 15, 20, 30, 100, 200, 500, 1000}
	snap := make([]acc, len(cuts))
	k := 0
	for b.Loop() {
		e.sweep(ys[k], rbs[k], nil, cuts, snap, sweepLims{dcg: n})
		k = (k + 1) % len(ys)
	}
	b.ReportMetric(n*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
