package aggregate

import (
	"math"
	"math/big"

	"github.com/rankeval/rankeval/stats"
)

// Stat accumulates one metric over the queries where it is defined.
type Stat struct {
	N     int64
	Sum   Sum
	SumSq Sum
}

// Add records one query's value; NaN (undefined) is not counted.
func (s *Stat) Add(v float64) {
	if math.IsNaN(v) {
		return
	}
	s.N++
	s.Sum.Add(v)
	hi, lo := square(v)
	s.SumSq.Add(hi)
	s.SumSq.Add(lo)
}

// square is v² exactly as hi + lo: v·v rounded and its rounding error,
// which FMA gives exactly (lo is 0 when v·v overflows, and inexact only
// below 2^-1074). The sum of squares is then exact too, so equal values
// have variance 0 and values whose squares round alike (1e15 and 1e15+1)
// keep their spread.
func square(v float64) (hi, lo float64) {
	hi = float64(v * v) // rounded: the caller may add it, inlined
	if math.IsInf(hi, 0) {
		return hi, 0
	}
	return hi, math.FMA(v, v, -hi)
}

// Merge adds o into s.
func (s *Stat) Merge(o *Stat) {
	s.N += o.N
	s.Sum.Merge(&o.Sum)
	s.SumSq.Merge(&o.SumSq)
}

// bigPrec is fixed so the derived figures are a pure function of the exact
// sums: the same on every machine and for every merge order.
const bigPrec = 256

// Summary derives the mean and its normal 95% interval (stats.NormalCI95)
// from the exact sums. The mean is the exact sum divided by N, rounded
// once, and so is the variance.
func (s *Stat) Summary() stats.Summary {
	out := stats.Summary{Mean: math.NaN(), N: s.N, Lo: math.NaN(), Hi: math.NaN(), Stdev: math.NaN()}
	if s.N == 0 {
		return out
	}
	sum, sq := s.Sum.Big(), s.SumSq.Big()
	if sum == nil || sq == nil {
		out.Mean = s.Sum.Float64() / float64(s.N)
		return out
	}
	n := new(big.Float).SetPrec(bigPrec).SetInt64(s.N)
	mean := new(big.Float).SetPrec(bigPrec).Quo(sum, n)
	out.Mean, _ = mean.Float64()
	if s.N < 2 {
		return out
	}
	// var = (sumsq - sum*mean) / (n-1), never below 0 (all values equal).
	v := new(big.Float).SetPrec(bigPrec).Mul(sum, mean)
	v.Sub(new(big.Float).SetPrec(bigPrec).Set(sq), v)
	if v.Sign() < 0 {
		v.SetInt64(0)
	}
	v.Quo(v, new(big.Float).SetPrec(bigPrec).SetInt64(s.N-1))
	variance, _ := v.Float64()
	out.Stdev = math.Sqrt(variance)
	out.Lo, out.Hi = stats.NormalCI95(out.Mean, out.Stdev, s.N)
	return out
}

// Set is one worker's (or the merged) aggregate of a run: a Stat per metric
// plus the row and query counts.
type Set struct {
	Stats   []Stat
	Rows    int64
	Queries int64
	Empty   int64
	Dropped int64 // duplicate rows dropped before evaluation
	// NoScore and NoLabel are the rows without a score or a label, dropped
	// or ranked last or counted as label 0 as --missing-score and
	// --missing-label say. A saved state does not hold them: a run under
	// those policies saves none.
	NoScore, NoLabel int64
}

// NewSet makes a Set for n metrics.
func NewSet(n int) *Set { return &Set{Stats: make([]Stat, n)} }

// AddQuery records one query of rows rows with one value per metric (NaN =
// undefined, not counted).
func (s *Set) AddQuery(rows int, vals []float64, empty bool) {
	s.Rows += int64(rows)
	s.Queries++
	if empty {
		s.Empty++
	}
	for i, v := range vals {
		s.Stats[i].Add(v)
	}
}

// Merge adds o into s.
func (s *Set) Merge(o *Set) {
	s.Rows += o.Rows
	s.Queries += o.Queries
	s.Empty += o.Empty
	s.Dropped += o.Dropped
	s.NoScore += o.NoScore
	s.NoLabel += o.NoLabel
	for i := range s.Stats {
		s.Stats[i].Merge(&o.Stats[i])
	}
}
