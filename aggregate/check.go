package aggregate

import (
	"errors"
	"fmt"
	"math"
	"math/big"

	"github.com/rankeval/rankeval/stats"
)

// ErrImpossible reports figures that no queries give: a saved aggregate
// that was crafted, not computed.
var ErrImpossible = errors.New("figures no queries give")

// checkPrec holds the products of two exact sums (up to 2,240 bits each)
// and a count without rounding.
const checkPrec = 4700

// Check verifies that a's sums are ones some queries could give, where
// ranges holds the range of each of its L.Metrics metrics: no non-finite
// value, each mean within its metric's range (differences within twice
// it), a sum of squares that is not below what the sum implies
// (Cauchy-Schwarz: sum² <= n·sumsq), and a bootstrap whose replicate
// means lie in range. A saved aggregate is read from a file anyone can
// write with a valid checksum; these are the sums it must still obey.
// The bounds allow for the rounding of the values added (a value of a
// [0, 1] metric may be an ulp above 1; a square is rounded).
func (a *Analysis) Check(ranges []Range) error {
	if len(ranges) != a.L.Metrics {
		return fmt.Errorf("%d ranges for %d metrics", len(ranges), a.L.Metrics)
	}
	for s, set := range a.Sys {
		for m := range set.Stats {
			if err := plausible(&set.Stats[m], ranges[m], false); err != nil {
				return fmt.Errorf("system %d, metric %d: %w", s, m, err)
			}
		}
	}
	core := len(a.L.Core)
	for p, diffs := range a.Diff {
		for m := range diffs {
			if err := plausible(&diffs[m], a.L.Core[m], true); err != nil {
				return fmt.Errorf("difference %d, metric %d: %w", p+1, m, err)
			}
		}
	}
	for i, sl := range a.Slices {
		if sl == nil {
			continue
		}
		for s := range sl.Stats {
			for m := range min(core, len(sl.Stats[s])) {
				st := sl.Stats[s][m].Stat()
				if err := plausible(&st, a.L.Core[m], false); err != nil {
					return fmt.Errorf("slice %d, system %d, metric %d: %w", i, s, m, err)
				}
			}
		}
		for p := range sl.Diff {
			for m := range min(core, len(sl.Diff[p])) {
				st := sl.Diff[p][m].Stat()
				if err := plausible(&st, a.L.Core[m], true); err != nil {
					return fmt.Errorf("slice %d, difference %d, metric %d: %w", i, p+1, m, err)
				}
			}
		}
	}
	if a.Boot != nil {
		if err := a.Boot.check(); err != nil {
			return err
		}
	}
	if a.Perm != nil {
		if err := a.checkPerm(); err != nil {
			return err
		}
	}
	if a.W != nil {
		return a.checkWeights()
	}
	return nil
}

// checkPerm verifies the randomization test's sums: every replicate's sum
// of a mean within what its count of values can make, and for the sign
// test the observed sums within rounding of the differences' exact sums;
// for Tukey, a shuffle moves values between systems but keeps their
// total, so every replicate's total over the systems is the observed one.
func (a *Analysis) checkPerm() error {
	p := a.Perm
	n := make([]int64, p.K) // the values each mean can have summed
	for k := range n {
		if p.Test == stats.TestRandom {
			n[k] = a.Diff[k/len(a.L.Core)][k%len(a.L.Core)].N
			continue
		}
		n[k] = a.tukeyQueries(k % p.C)
	}
	bad := func(b, k int, why string) error {
		return fmt.Errorf("randomization replicate %d, mean %d: %s: %w", b, k, why, ErrImpossible)
	}
	for k := range p.K {
		bound := new(big.Int).SetInt64(n[k])
		if p.frac[k] == fracBounded {
			bound.Lsh(bound, uint(p.frac[k]+1))
		} else {
			lim, _ := big.NewFloat(p.limit[k] * p.scale[k]).Int(nil)
			bound.Mul(bound, lim)
		}
		bound.Add(bound, new(big.Int).SetInt64(n[k]))
		// in 128 bits, as the sums are: a check of every replicate that
		// costs no allocation (10^5 replicates of a state to merge)
		if bound.BitLen() < 127 {
			b128 := i128{hi: new(big.Int).Rsh(bound, 64).Int64(), lo: new(big.Int).And(bound, new(big.Int).SetUint64(math.MaxUint64)).Uint64()}
			for b := range p.B + 1 {
				if v := p.at(b, k); v.abs().cmp(b128) > 0 || v == (i128{hi: math.MinInt64}) {
					return bad(b, k, "a sum beyond what its count of values can make")
				}
			}
		}
		if p.Test != stats.TestRandom {
			continue
		}
		// |T·2^-frac - Σd| <= n·2^-(frac+1): each value rounds by half a unit
		d := a.Diff[k/len(a.L.Core)][k%len(a.L.Core)].Sum.Big()
		if d == nil {
			continue // plausible has refused it
		}
		t := new(big.Float).SetPrec(checkPrec).SetInt(p.at(p.B, k).big())
		t.SetMantExp(t, -p.frac[k])
		t.Sub(t, d)
		tol := new(big.Float).SetPrec(checkPrec).SetInt64(n[k])
		tol.SetMantExp(tol, -p.frac[k]) // twice the bound: slack for the float sum's own rounding
		if t.Abs(t).Cmp(tol) > 0 {
			return bad(p.B, k, "an observed sum unlike the differences'")
		}
	}
	if p.Test == stats.TestTukey {
		// each sum is within its bound above (< 2^127 or not checked):
		// totals are added in 128 bits and an overflow refused
		total := func(b, m int) (i128, bool) {
			var t i128
			for s := range p.S {
				v := p.at(b, s*p.C+m)
				next := t.add(v)
				if (v.hi < 0) == (t.hi < 0) && (next.hi < 0) != (t.hi < 0) {
					return t, false
				}
				t = next
			}
			return t, true
		}
		for m := range p.C {
			obs, ok := total(p.B, m)
			for b := range p.B {
				tot, okb := total(b, m)
				if !ok || !okb || tot != obs {
					return bad(b, m, "systems' total unlike the observed")
				}
			}
		}
	}
	return nil
}

// bounds are the least and greatest value of a metric of range r, or of a
// difference of two; ±Inf where there is none (the open range holds
// gm_map's logarithms, which are negative).
func bounds(r Range, diff bool) (lo, hi float64) {
	switch r {
	case RangeUnit:
		lo, hi = 0, 1
	case RangeSigned:
		lo, hi = -1, 1
	default:
		return math.Inf(-1), math.Inf(1)
	}
	if diff {
		lo, hi = lo-hi, hi-lo
	}
	return lo, hi
}

// slack widens a bound for the rounding of the values summed.
const slack = 1 + 0x1p-40

func plausible(st *Stat, r Range, diff bool) error {
	sum, sq := st.Sum.Big(), st.SumSq.Big()
	if sum == nil || sq == nil {
		return fmt.Errorf("a sum holds a non-finite value: %w", ErrImpossible)
	}
	if st.N < 0 {
		return fmt.Errorf("a count of %d: %w", st.N, ErrImpossible)
	}
	if sq.Sign() < 0 {
		return fmt.Errorf("a negative sum of squares: %w", ErrImpossible)
	}
	if st.N == 0 {
		if sum.Sign() != 0 || sq.Sign() != 0 {
			return fmt.Errorf("sums of no values: %w", ErrImpossible)
		}
		return nil
	}
	// The sums rounded to float64 (relative error 2^-53) decide unless the
	// figures lie within 2^-20 of a bound, where the exact sums do.
	fn := float64(st.N)
	sumF, _ := sum.Float64()
	sqF, _ := sq.Float64()
	if l, r := sumF*sumF, fn*sqF; math.IsInf(l, 0) || math.IsInf(r, 0) || l > r*(1-0x1p-20) {
		if err := cauchySchwarz(sum, sq, st.N); err != nil {
			return err
		}
	}
	lo, hi := bounds(r, diff)
	if math.IsInf(hi, 1) {
		return nil
	}
	m, msq := sumF/fn, sqF/fn
	if m > hi*slack || m < float64(lo*slack)-0x1p-40 || msq > math.Max(lo*lo, hi*hi)*slack {
		return fmt.Errorf("a mean of %g (mean square %g) outside [%g, %g]: %w", m, msq, lo, hi, ErrImpossible)
	}
	return nil
}

// cauchySchwarz checks sum² <= n·Σv² exactly. Stat adds squares exactly
// but below 2^-1074, and states of earlier versions hold rounded squares
// fl(v²) >= v²(1-2^-53) - 2^-1075 (it may underflow to 0), so the bound
// is sum² <= n·(sumsq + n·2^-1074)·slack.
func cauchySchwarz(sum, sq *big.Float, count int64) error {
	n := new(big.Float).SetPrec(checkPrec).SetInt64(count)
	lhs := new(big.Float).SetPrec(checkPrec).Mul(sum, sum)
	under := new(big.Float).SetPrec(checkPrec).SetMantExp(n, -1074)
	rhs := new(big.Float).SetPrec(checkPrec).Add(sq, under)
	rhs.Mul(rhs, n)
	rhs.Mul(rhs, big.NewFloat(slack))
	if lhs.Cmp(rhs) > 0 {
		return fmt.Errorf("a sum of squares below what the sum implies: %w", ErrImpossible)
	}
	return nil
}

// check verifies that each replicate's mean of each mean k lies in its
// range: a fixed-point sum over its weight total, each value rounded to
// the fixed point by at most half a unit.
func (bs *Boots) check() error {
	for b := range bs.B {
		if bs.total[b] < 0 {
			return fmt.Errorf("bootstrap replicate %d: a weight total of %d: %w", b, bs.total[b], ErrImpossible)
		}
		for k := range bs.K {
			cnt := bs.total[b]
			if bs.miss != nil {
				cnt -= bs.miss[k*bs.B+b]
			}
			if cnt < 0 {
				return fmt.Errorf("bootstrap replicate %d, mean %d: more weight undefined than in all: %w", b, k, ErrImpossible)
			}
			i := b*bs.K + k
			sum := i128{bs.hi[i], bs.lo[i]}.big()
			// the values' range in fixed point: bounded means are those of
			// [-1, 1] metrics or of differences, in [-2, 2]; open ones are
			// below the limit Add takes
			bound := new(big.Int).SetInt64(cnt)
			if bs.frac[k] == fracBounded {
				bound.Lsh(bound, uint(bs.frac[k]+1)) // 2 · 2^frac a unit of weight
			} else {
				lim, _ := big.NewFloat(bs.limit[k] * bs.scale[k]).Int(nil)
				bound.Mul(bound, lim)
			}
			bound.Add(bound, new(big.Int).SetInt64(cnt)) // the rounding
			if new(big.Int).Abs(sum).Cmp(bound) > 0 {
				return fmt.Errorf("bootstrap replicate %d, mean %d: a sum beyond what its weight of values can make: %w", b, k, ErrImpossible)
			}
		}
	}
	return nil
}
