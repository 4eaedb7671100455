package aggregate

import (
	"fmt"
	"math"
	"sort"
)

// Paired is the comparison of one metric between two systems over the
// queries where both define it: the mean of the per-query differences
// (system J minus system I), its 95% t interval, the paired t-test, and
// the p-value of the run's test before and after the correction for the
// run's other comparisons.
type Paired struct {
	I, J   int
	N      int64
	Mean   float64 // NaN when N == 0
	Lo, Hi float64 // NaN when N < 2
	// T is the t statistic and PT its two-sided p-value, NaN when N < 2.
	T, PT float64
	// Test made P; PAdj is P corrected (Correct) across the comparisons
	// tested together.
	Test    Test
	P, PAdj float64
	// BootLo and BootHi are the Poisson-bootstrap percentile interval, NaN
	// when no bootstrap was asked for.
	BootLo, BootHi float64
	// Effect is the standardized difference, with its interval for the
	// run's comparisons (not for slices': EffectSize).
	Effect Effect
}

// PairedOf reads the paired t-test from the exact sums of the differences.
func PairedOf(d *Stat) Paired { return pairedOf(d.Summary()) }

// pairedOf reads the paired t-test from the summary of the differences: a
// mean's, or a ratio's (its Stdev the linearized values').
func pairedOf(s Summary) Paired {
	out := Paired{N: s.N, Mean: s.Mean, Lo: math.NaN(), Hi: math.NaN(), T: math.NaN(), PT: math.NaN(), P: math.NaN(),
		PAdj: math.NaN(), BootLo: math.NaN(), BootHi: math.NaN(), Effect: EffectSize(s)}
	if s.N < 2 || math.IsNaN(s.Stdev) {
		return out
	}
	se := s.Stdev / math.Sqrt(float64(s.N))
	df := float64(s.N - 1)
	switch {
	case se == 0 && s.Mean == 0:
		out.T, out.PT = 0, 1 // every difference is 0: no evidence either way
	case se == 0:
		out.T, out.PT = math.Copysign(math.Inf(1), s.Mean), 0 // every difference is the same nonzero value
	default:
		out.T = s.Mean / se
		out.PT = TTwoSided(out.T, df)
	}
	out.P = out.PT
	half := float64(TQuantile975(df) * se)
	out.Lo, out.Hi = s.Mean-half, s.Mean+half
	return out
}

// Statistic is the test's statistic: t for the t-test; for the
// randomization tests the difference of means itself, set against its
// replicates.
func (d *Paired) Statistic() float64 {
	if d.Test == TestT {
		return d.T
	}
	return d.Mean
}

// Significant reports a corrected p-value below 0.05, which the summaries
// mark.
func (d *Paired) Significant() bool { return d.PAdj < 0.05 }

// Holm adjusts p-values for testing them together (Holm, 1979): the i-th
// smallest of m becomes max over j <= i of min(1, (m-j+1)·p_(j)). NaN
// entries are not tests: they stay NaN and do not count in m.
func Holm(p []float64) []float64 {
	out, idx := ranked(p)
	m := len(idx)
	running := 0.0
	for j, i := range idx {
		running = max(running, min(1, float64(m-j)*p[i]))
		out[i] = running
	}
	return out
}

// BH adjusts p-values for the false discovery rate (Benjamini and
// Hochberg, 1995): the i-th smallest of m becomes min over j >= i of
// min(1, m·p_(j)/j). NaN entries are not tests, as for Holm.
func BH(p []float64) []float64 {
	out, idx := ranked(p)
	m := len(idx)
	running := 1.0
	for j := m - 1; j >= 0; j-- {
		i := idx[j]
		running = min(running, float64(m)*p[i]/float64(j+1))
		out[i] = running
	}
	return out
}

// ranked returns a slice of NaNs for p's adjusted values and the indexes
// of p's tests (its p-values that are not NaN) in increasing order of p.
func ranked(p []float64) (out []float64, idx []int) {
	out = make([]float64, len(p))
	idx = make([]int, 0, len(p))
	for i, v := range p {
		out[i] = math.NaN()
		if !math.IsNaN(v) {
			idx = append(idx, i)
		}
	}
	// stable, so equal p-values keep their order: the result does not
	// depend on the sort
	sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] < p[idx[b]] })
	return out, idx
}

// Correction is how the p-values of comparisons tested together are
// adjusted.
type Correction uint8

const (
	// CorrHolm controls the family-wise error rate (Holm, 1979).
	CorrHolm Correction = iota
	// CorrBH controls the false discovery rate (Benjamini and Hochberg,
	// 1995).
	CorrBH
	// CorrNone leaves the p-values as they are.
	CorrNone
)

var corrNames = [...]string{CorrHolm: "holm", CorrBH: "bh", CorrNone: "none"}

func (c Correction) String() string {
	if int(c) < len(corrNames) {
		return corrNames[c]
	}
	return fmt.Sprintf("Correction(%d)", c)
}

// ParseCorrection reads a correction's name.
func ParseCorrection(s string) (Correction, error) {
	for c, n := range corrNames {
		if n == s {
			return Correction(c), nil
		}
	}
	return 0, fmt.Errorf("%q: want holm, bh or none", s)
}

// Correct fills PAdj of every comparison in ps, all tested together: its
// P adjusted by c across them (pairs × metrics).
func Correct(ps [][]Paired, c Correction) {
	var p []float64
	for _, row := range ps {
		for i := range row {
			p = append(p, row[i].P)
		}
	}
	switch c {
	case CorrHolm:
		p = Holm(p)
	case CorrBH:
		p = BH(p)
	}
	for _, row := range ps {
		for i := range row {
			row[i].PAdj, p = p[0], p[1:]
		}
	}
}
