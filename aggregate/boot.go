package aggregate

import (
	"math"
	"math/big"
	"math/bits"

	"github.com/rankeval/rankeval/stats"
)

// The replicate sums of the Poisson bootstrap: in replicate b each query
// counts w_b times, its weights drawn by stats.BootstrapWeights from its
// id's hash, so the replicates are the same for any number of workers,
// batch size, run or merge of states.

// Fixed-point scales of the bootstrap sums. A value v is kept as round(v·2^F)
// in an int64, at most 2^58 in magnitude so that a weight (< 2^5) times it
// fits, and summed into 128 bits, which no count of queries overflows.
// Values in [-2, 2] (every bounded metric, and a difference of two) get 55
// bits of fraction, finer than a float64's ulp at 1; unbounded metrics
// (cg, dcg) 26 bits, for |v| < 2^32. Rounding is a fixed function of the
// value, so the sums stay independent of order; only the bootstrap's
// percentiles see it, at 1e-8 at worst.
const (
	fracBounded = 55
	fracOpen    = 26
)

// Boots is the bootstrap of K means at once (every metric of every system
// and difference). Per replicate b and mean k it keeps Σ w_b·v in fixed
// point, a 128-bit integer (hi, lo), laid out replicate-major so that one
// query's update walks memory once and skips the replicates where its
// weight is 0 (a third of them). The weight total Σ w_b is kept once for
// all K; a mean that a query leaves undefined records that query's
// weights apart, to subtract.
type Boots struct {
	B, K int
	fixed
	lo    []uint64 // [b*K+k]
	hi    []int64
	total []int64 // [b]
	miss  []int64 // [k*B+b], allocated at the first undefined value
	q     []int64 // one query's fixed-point values
}

// fixed is the fixed point of K means, one scale per mean by its range.
type fixed struct {
	frac  []int     // per mean
	scale []float64 // 2^frac
	limit []float64 // |v| must be below this
}

func newFixed(ranges []Range) fixed {
	var f fixed
	for _, r := range ranges {
		fr := fracBounded
		if r == RangeOpen {
			fr = fracOpen
		}
		f.frac = append(f.frac, fr)
		f.scale = append(f.scale, math.Ldexp(1, fr))
		f.limit = append(f.limit, math.Ldexp(1, 58-fr))
	}
	return f
}

// conv sets q[k] to vals[k] in fixed point (0 for NaN, undefined). It
// returns the index of a value beyond the fixed-point range and false.
func (f *fixed) conv(vals []float64, q []int64) (int, bool) {
	for k, v := range vals {
		switch {
		case math.IsNaN(v):
			q[k] = 0
		case !(math.Abs(v) < f.limit[k]):
			return k, false
		default:
			q[k] = int64(math.Round(v * f.scale[k]))
		}
	}
	return 0, true
}

// NewBoots makes the bootstrap of len(ranges) means over b replicates.
func NewBoots(b int, ranges []Range) *Boots {
	k := len(ranges)
	return &Boots{B: b, K: k, fixed: newFixed(ranges), lo: make([]uint64, b*k), hi: make([]int64, b*k),
		total: make([]int64, b), q: make([]int64, k)}
}

// Add counts one query, with value vals[k] for mean k (NaN: undefined,
// not counted) and weight w[b] in replicate b. It returns the index of a
// value beyond the fixed-point range and false, adding nothing.
func (bs *Boots) Add(vals []float64, w []uint8) (int, bool) {
	if k, ok := bs.conv(vals, bs.q); !ok {
		return k, false
	}
	for k, v := range vals {
		if math.IsNaN(v) {
			if bs.miss == nil {
				bs.miss = make([]int64, bs.K*bs.B)
			}
			m := bs.miss[k*bs.B : (k+1)*bs.B]
			for b, wb := range w {
				m[b] += int64(wb)
			}
		}
	}
	K := bs.K
	q := bs.q[:K]
	for b, wb := range w {
		if wb == 0 {
			continue
		}
		bs.total[b] += int64(wb)
		lo, hi := bs.lo[b*K:(b+1)*K], bs.hi[b*K:(b+1)*K]
		for k, qk := range q {
			x := int64(wb) * qk
			s, c := bits.Add64(lo[k], uint64(x), 0)
			lo[k] = s
			hi[k] += x>>63 + int64(c)
		}
	}
	return 0, true
}

// Merge adds o into bs.
func (bs *Boots) Merge(o *Boots) {
	merge128(bs.lo, bs.hi, o.lo, o.hi)
	for b := range bs.total {
		bs.total[b] += o.total[b]
	}
	if o.miss != nil {
		if bs.miss == nil {
			bs.miss = make([]int64, bs.K*bs.B)
		}
		for i := range bs.miss {
			bs.miss[i] += o.miss[i]
		}
	}
}

// Means returns mean k's replicate means, each rounded once from the exact
// fixed-point sum; a replicate in which no query has weight is left out.
func (bs *Boots) Means(k int) []float64 {
	out := make([]float64, 0, bs.B)
	for b := range bs.B {
		cnt := bs.total[b]
		if bs.miss != nil {
			cnt -= bs.miss[k*bs.B+b]
		}
		if cnt == 0 {
			continue
		}
		i := b*bs.K + k
		f := new(big.Float).SetPrec(bigPrec).SetInt(i128{bs.hi[i], bs.lo[i]}.big())
		f.SetMantExp(f, -bs.frac[k])
		f.Quo(f, new(big.Float).SetPrec(bigPrec).SetInt64(cnt))
		m, _ := f.Float64()
		out = append(out, m)
	}
	return out
}

// CI95 is the percentile interval of mean k's replicate means
// (stats.PercentileCI95). NaN with fewer than stats.MinBootstrap
// replicates in all, or fewer than two in which some query has weight.
func (bs *Boots) CI95(k int) (lo, hi float64) {
	if bs.B < stats.MinBootstrap {
		return math.NaN(), math.NaN()
	}
	return stats.PercentileCI95(bs.Means(k))
}
