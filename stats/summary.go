package stats

import "math"

// z95 is the two-sided 95% quantile of the standard normal distribution.
const z95 = 1.959963984540054

// Z95 is z95 for other packages: a normal 95% interval spans ±Z95
// standard errors.
const Z95 = z95

// Summary is a mean with its normal-approximation 95% confidence interval.
type Summary struct {
	Mean  float64 // NaN when N == 0
	N     int64
	Lo    float64 // NaN when N < 2 (no spread to estimate)
	Hi    float64
	Stdev float64 // sample standard deviation, NaN when N < 2
}

// NormalCI95 is the normal-approximation 95% interval of a mean of n
// values with sample standard deviation stdev: mean ∓ 1.96·stdev/√n.
func NormalCI95(mean, stdev float64, n int64) (lo, hi float64) {
	half := z95 * stdev / math.Sqrt(float64(n))
	return mean - half, mean + half
}
