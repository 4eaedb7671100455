package aggregate

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rankeval/rankeval/stats"
)

func ratioLayout(systems, boot int) *Layout {
	return &Layout{Metrics: 2, Core: []Range{RangeOpen, RangeOpen}, Systems: systems, Bootstrap: boot,
		Weights: true, Ratio: []bool{true, false}}
}

// clickQuery is a query of a ratio layout: per system the ratio metric's
// numerator v[s] (metric 0) and a plain metric (1), one weight w.
func clickQuery(v []float64, w float64, clipped int) *Query {
	q := &Query{Slice: -1}
	for _, x := range v {
		q.Vals = append(q.Vals, []float64{x, x / 2})
		q.Rows = append(q.Rows, 3)
		q.Empty = append(q.Empty, w == 0)
		q.Missing = append(q.Missing, false)
		q.Weight = append(q.Weight, w)
		q.Clipped = append(q.Clipped, clipped)
	}
	return q
}

// TestRatioWorked checks a ratio metric's summary and its difference on
// four queries worked by hand.
func TestRatioWorked(t *testing.T) {
	a := NewAnalysis(ratioLayout(2, 0))
	// (v_0, v_1, w) per query
	for _, q := range [][3]float64{{2, 3, 4}, {0, 0, 0}, {3, 3, 2}, {1, 0, 2}} {
		if err := a.Add(clickQuery([]float64{q[0], q[1]}, q[2], 1)); err != nil {
			t.Fatal(err)
		}
	}
	// System 0: r = Σv/Σw = 6/8 = 0.75. The linearized values z = v − r·w
	// are −1, 0, 1.5, −0.5: Σz² = 3.5, their variance 3.5/3; w̄ = 8/4 = 2,
	// so Stdev = √(7/6)/2 and the interval is r ± 1.96·Stdev/√4.
	s := a.SysSummary(0, 0)
	sd := math.Sqrt(7.0/6) / 2
	half := z95 * sd / 2
	if s.N != 4 || s.Mean != 0.75 || !close(s.Stdev, sd) || !close(s.Lo, 0.75-half) || !close(s.Hi, 0.75+half) {
		t.Errorf("system 0: %+v; want mean 0.75, sd %v, interval ±%v", s, sd, half)
	}
	// The plain metric is the mean of v/2: (1 + 0 + 1.5 + 0.5)/4.
	if s := a.SysSummary(0, 1); s.Mean != 0.75 {
		t.Errorf("plain metric: mean %v, want 0.75", s.Mean)
	}
	// The difference, system 1 − system 0: d = 1, 0, 0, −1, Σd = 0, so
	// D = 0/8 = 0; z = d − 0·w = d, Σz² = 2, Stdev = √(2/3)/2, and the t
	// test of D over Stdev/√4 with 3 degrees of freedom.
	p := a.Pairs(stats.CorrNone)[0][0]
	dsd := math.Sqrt(2.0/3) / 2
	if p.N != 4 || p.Mean != 0 || p.T != 0 || p.PT != 1 || !close(p.Hi, stats.TQuantile975(3)*dsd/2) {
		t.Errorf("difference: %+v; want mean 0, t 0, p 1, half-width %v", p, stats.TQuantile975(3)*dsd/2)
	}
	if c := a.Clipped(0); c != 4 {
		t.Errorf("clipped %d, want 4", c)
	}
}

func close(a, b float64) bool { return math.Abs(a-b) <= 1e-15*math.Max(1, math.Abs(b)) }

// TestRatioAgainstDirect compares the summary from the exact sums with
// the ratio and the delta method computed directly from the values, and
// the bootstrap's interval with its replicates recomputed by hand.
func TestRatioAgainstDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, B = 500, 50
	a := NewAnalysis(ratioLayout(2, B))
	var vs, ws, ds []float64
	hashes := make([]uint64, n)
	for i := range n {
		w := 0.0
		var v0, v1 float64
		if rng.IntN(3) > 0 { // a third of the impressions have no click
			w = 1 / (0.05 + rng.Float64())
			v0, v1 = w*rng.Float64(), w*rng.Float64()
		}
		q := clickQuery([]float64{v0, v1}, w, 0)
		q.Hash = rng.Uint64()
		hashes[i] = q.Hash
		if err := a.Add(q); err != nil {
			t.Fatal(err)
		}
		vs, ws, ds = append(vs, v0), append(ws, w), append(ds, v1-v0)
	}
	direct := func(vs []float64) (r, sd float64) {
		var sv, sw float64
		for i := range vs {
			sv += vs[i]
			sw += ws[i]
		}
		r = sv / sw
		var q float64
		for i := range vs {
			z := vs[i] - r*ws[i]
			q += z * z
		}
		return r, math.Sqrt(q/float64(n-1)) / (sw / n)
	}
	r, sd := direct(vs)
	if s := a.SysSummary(0, 0); math.Abs(s.Mean-r) > 1e-13 || math.Abs(s.Stdev-sd) > 1e-12 {
		t.Errorf("ratio %v sd %v, direct %v sd %v", s.Mean, s.Stdev, r, sd)
	}
	r, sd = direct(ds)
	if p := a.Pairs(stats.CorrNone)[0][0]; math.Abs(p.Mean-r) > 1e-13 || math.Abs(p.Hi-p.Mean-stats.TQuantile975(n-1)*sd/math.Sqrt(n)) > 1e-12 {
		t.Errorf("difference %v [%v, %v], direct %v sd %v", p.Mean, p.Lo, p.Hi, r, sd)
	}
	// the bootstrap: replicate b's ratio is Σ w_b·v / Σ w_b·w
	w8 := make([]uint8, B)
	num, den := make([]float64, B), make([]float64, B)
	for i, h := range hashes {
		stats.BootstrapWeights(h, w8)
		for b, k := range w8 {
			num[b] += float64(k) * vs[i]
			den[b] += float64(k) * ws[i]
		}
	}
	var reps []float64
	for b := range B {
		reps = append(reps, num[b]/den[b])
	}
	lo, hi := stats.PercentileCI95(reps)
	glo, ghi := a.BootCI(0, 0)
	if math.Abs(glo-lo) > 1e-9 || math.Abs(ghi-hi) > 1e-9 {
		t.Errorf("bootstrap [%v, %v], by hand [%v, %v]", glo, ghi, lo, hi)
	}
}

// TestRatioWeightsDiffer: two systems compared by a ratio metric must
// share the query's weight.
func TestRatioWeightsDiffer(t *testing.T) {
	a := NewAnalysis(ratioLayout(2, 0))
	q := clickQuery([]float64{1, 2}, 2, 0)
	q.Weight[1] = 3
	if err := a.Add(q); !errors.Is(err, ErrRatioWeights) {
		t.Errorf("Add: %v, want ErrRatioWeights", err)
	}
}

// TestRatioNoClick: with no click anywhere the ratio is undefined, not 0.
func TestRatioNoClick(t *testing.T) {
	a := NewAnalysis(ratioLayout(1, 0))
	for range 3 {
		if err := a.Add(clickQuery([]float64{0}, 0, 0)); err != nil {
			t.Fatal(err)
		}
	}
	if s := a.SysSummary(0, 0); s.N != 3 || !math.IsNaN(s.Mean) || !math.IsNaN(s.Lo) {
		t.Errorf("%+v, want 3 queries and an undefined ratio", s)
	}
}

// TestRatioMergeOrder: the ratio's figures are the same bits whatever the
// split of the queries between workers and the order of the merges.
func TestRatioMergeOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	l := ratioLayout(2, 20)
	var qs []*Query
	for range 300 {
		w := float64(rng.IntN(3)) / (0.01 + rng.Float64())
		q := clickQuery([]float64{w * rng.Float64(), w * rng.Float64()}, w, rng.IntN(2))
		q.Hash = rng.Uint64()
		q.Slice = rng.IntN(3)
		qs = append(qs, q)
	}
	var want string
	for split := range 4 {
		parts := make([]*Analysis, 1+split)
		for i := range parts {
			parts[i] = NewAnalysis(l)
		}
		for i, q := range qs {
			if err := parts[(i*7+split)%len(parts)].Add(q); err != nil {
				t.Fatal(err)
			}
		}
		slices.Reverse(parts)
		total := NewAnalysis(l)
		for _, p := range parts {
			total.Merge(p)
		}
		got := render(total)
		if split == 0 {
			want = got
		} else if got != want {
			t.Fatalf("split %d:\n%s\nwant\n%s", split, got, want)
		}
	}
}

// TestRatioCheck: a crafted state's click weights are refused when no
// queries give them: a negative weight total, a sum of products beyond
// what the sums of squares allow (Cauchy-Schwarz); real ones pass.
func TestRatioCheck(t *testing.T) {
	l := ratioLayout(2, 0)
	// scale multiplies the weights: 1 gives a real run's figures (each
	// numerator a share of its query's weight, 0 <= v <= w)
	buildScaled := func(scale float64) *Analysis {
		a := NewAnalysis(l)
		for i := range 20 {
			w := float64(i%4) + 1
			q := clickQuery([]float64{w * float64(i%3) / 2, w * float64(i%5) / 4}, w*scale, 0)
			q.Slice = i % 2
			if err := a.Add(q); err != nil {
				t.Fatal(err)
			}
		}
		return a
	}
	build := func() *Analysis { return buildScaled(1) }
	ranges := []Range{RangeOpen, RangeOpen}
	if err := build().Check(ranges); err != nil {
		t.Fatalf("real figures refused: %v", err)
	}
	for _, tc := range []struct {
		name   string
		tamper func(a *Analysis)
	}{
		{"negative weights", func(a *Analysis) { a.W.Sys[1].W.Sum.Add(-1000) }},
		{"cross beyond Cauchy-Schwarz", func(a *Analysis) { a.W.Sys[0].Cross[0].Add(1e6) }},
		{"pair cross", func(a *Analysis) { a.W.Pair[0][0].Add(-1e6) }},
		{"slice cross", func(a *Analysis) { a.Slices[1].W.Cross[1][0].Add(1e6) }},
		// every sum consistent, Cauchy-Schwarz met, but the weights a
		// 64th of what the numerators need: the ratio would be 64 times
		// what it can be
		{"weights scaled down", func(a *Analysis) { *a = *buildScaled(1.0 / 64) }},
		{"negative numerator", func(a *Analysis) {
			b := NewAnalysis(l)
			for i := range 4 {
				if err := b.Add(clickQuery([]float64{-float64(i), 0}, float64(i)+1, 0)); err != nil {
					t.Fatal(err)
				}
			}
			*a = *b
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := build()
			tc.tamper(a)
			if err := a.Check(ranges); !errors.Is(err, ErrImpossible) {
				t.Errorf("Check: %v, want ErrImpossible", err)
			}
		})
	}
}
