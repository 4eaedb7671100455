package stats

import (
	"fmt"
	"math"
	"sort"
)

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
