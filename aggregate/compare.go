package aggregate

import (
	"math"
	"sort"
)

// Paired is the comparison of one metric between two systems over the
// queries where both define it: the mean of the per-query differences
// (system minus baseline), its 95% t interval and the paired t-test's
// two-sided p-value.
type Paired struct {
	N      int64
	Mean   float64 // NaN when N == 0
	Lo, Hi float64 // NaN when N < 2
	P      float64 // NaN when N < 2
	PHolm  float64 // P adjusted by Holm's method across the metrics of the pair
	// BootLo and BootHi are the Poisson-bootstrap percentile interval, NaN
	// when no bootstrap was asked for.
	BootLo, BootHi float64
}

// PairedOf reads the paired t-test from the exact sums of the differences.
func PairedOf(d *Stat) Paired {
	s := d.Summary()
	out := Paired{N: s.N, Mean: s.Mean, Lo: math.NaN(), Hi: math.NaN(), P: math.NaN(), PHolm: math.NaN(),
		BootLo: math.NaN(), BootHi: math.NaN()}
	if s.N < 2 || math.IsNaN(s.Stdev) {
		return out
	}
	se := s.Stdev / math.Sqrt(float64(s.N))
	df := float64(s.N - 1)
	switch {
	case se == 0 && s.Mean == 0:
		out.P = 1 // every difference is 0: no evidence either way
	case se == 0:
		out.P = 0 // every difference is the same nonzero value
	default:
		out.P = TTwoSided(s.Mean/se, df)
	}
	half := TQuantile975(df) * se
	out.Lo, out.Hi = s.Mean-half, s.Mean+half
	return out
}

// Holm adjusts p-values for testing them together (Holm, 1979): the i-th
// smallest of m becomes max over j <= i of min(1, (m-j+1)·p_(j)). NaN
// entries are not tests: they stay NaN and do not count in m.
func Holm(p []float64) []float64 {
	out := make([]float64, len(p))
	idx := make([]int, 0, len(p))
	for i, v := range p {
		out[i] = math.NaN()
		if !math.IsNaN(v) {
			idx = append(idx, i)
		}
	}
	// stable, so equal p-values keep the metric order: the result does not
	// depend on the sort
	sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] < p[idx[b]] })
	m := len(idx)
	running := 0.0
	for j, i := range idx {
		running = max(running, min(1, float64(m-j)*p[i]))
		out[i] = running
	}
	return out
}

// HolmPaired fills PHolm across one pair's metrics.
func HolmPaired(ps []Paired) {
	p := make([]float64, len(ps))
	for i := range ps {
		p[i] = ps[i].P
	}
	for i, v := range Holm(p) {
		ps[i].PHolm = v
	}
}
