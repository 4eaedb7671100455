package stats

import (
	"fmt"
	"math"
)

// Test is the significance test whose p-values a comparison reports.
type Test uint8

const (
	// TestT is the paired t-test, read from the differences' summary.
	TestT Test = iota
	// TestRandom is Fisher's paired randomization test (Smucker, Allan and
	// Carterette, 2007): under the null hypothesis each query's difference
	// is as likely to have either sign.
	TestRandom
	// TestTukey is the randomized Tukey HSD (Carterette, 2012): each query's
	// values are shuffled among the systems, and a pair's difference is
	// set against the largest difference of any two systems.
	TestTukey
)

var testNames = [...]string{TestT: "t", TestRandom: "randomization", TestTukey: "tukey"}

func (t Test) String() string {
	if int(t) < len(testNames) {
		return testNames[t]
	}
	return fmt.Sprintf("Test(%d)", t)
}

// ParseTest reads a test's name.
func ParseTest(s string) (Test, error) {
	for t, n := range testNames {
		if n == s {
			return Test(t), nil
		}
	}
	return 0, fmt.Errorf("%q: want t, randomization or tukey", s)
}

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
	// SD is the standard deviation of the per-query differences (NaN when
	// N < 2), which the power of the t-test takes as known (DetectN).
	SD float64
	// MDE is the minimum detectable effect at 80% power (MDE) for the
	// run's comparisons; NaN for slices' and where it is undefined.
	MDE float64
}

// PairedOf reads the paired t-test from the summary of the per-query
// differences: a mean's, or a ratio's (its Stdev the linearized values').
// P is the t-test's p-value, PAdj NaN until Correct, the bootstrap
// interval NaN, Effect d_z without its interval (EffectSize), and MDE
// NaN (MDE computes it).
func PairedOf(s Summary) Paired {
	out := Paired{N: s.N, Mean: s.Mean, Lo: math.NaN(), Hi: math.NaN(), T: math.NaN(), PT: math.NaN(), P: math.NaN(),
		PAdj: math.NaN(), BootLo: math.NaN(), BootHi: math.NaN(), Effect: EffectSize(s), SD: math.NaN(), MDE: math.NaN()}
	if s.N < 2 || math.IsNaN(s.Stdev) {
		return out
	}
	out.SD = s.Stdev
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
