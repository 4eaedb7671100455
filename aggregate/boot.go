package aggregate

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"sort"
)

// The Poisson bootstrap (Hanley and MacGibbon, 2006; Chamandy et al.,
// 2012) resamples a stream without holding it: in replicate b each query
// counts w times, w ~ Poisson(1) drawn from a hash of the query id and b.
// The draw depends on nothing but the id, so the replicates are the same
// for any number of workers, any batch size, any run, and two systems'
// logs of the same queries get the same weights: the bootstrap is paired.

// poissonThr[k] is floor(P(X <= k)·2^64) for X ~ Poisson(1); the last entry
// stands for 1. A uniform 64-bit u then draws min{k : u < poissonThr[k]}.
// Computed in big.Float so every platform gets the same table.
var poissonThr = func() [poissonLen]uint64 {
	const prec = 256
	var thr [poissonLen]uint64
	// e^-1 = Σ (-1)^n / n!
	em1 := new(big.Float).SetPrec(prec)
	term := new(big.Float).SetPrec(prec).SetInt64(1)
	for n := 0; n < 80; n++ {
		if n > 0 {
			term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(int64(-n)))
		}
		em1.Add(em1, term)
	}
	two64 := new(big.Float).SetPrec(prec).SetMantExp(big.NewFloat(1), 64)
	cdf := new(big.Float).SetPrec(prec)
	pk := new(big.Float).SetPrec(prec).Set(em1) // P(X = k) = e^-1 / k!
	for k := 0; k < poissonLen; k++ {
		if k > 0 {
			pk.Quo(pk, new(big.Float).SetPrec(prec).SetInt64(int64(k)))
		}
		cdf.Add(cdf, pk)
		v := new(big.Float).SetPrec(prec).Mul(cdf, two64)
		if k == poissonLen-1 || v.Cmp(two64) >= 0 {
			thr[k] = math.MaxUint64
			continue
		}
		thr[k], _ = v.Uint64()
	}
	return thr
}()

// poissonLen covers every weight a 64-bit draw can give: P(X > 20) is
// below 2^-64.
const poissonLen = 22

// QueryHash is the bootstrap's hash of a query id: FNV-1a, then a
// splitmix64 finalizer. It is fixed (never seeded), so a replicate is the
// same resample in every run.
func QueryHash(id []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range id {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return mix64(h)
}

func mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// Weights fills w[b] with the query's weight in replicate b: the b-th
// output of a splitmix64 stream seeded with its hash, through the Poisson
// inverse CDF.
func Weights(h uint64, w []uint8) {
	for b := range w {
		u := mix64(h + uint64(b+1)*0x9e3779b97f4a7c15)
		k := 0
		for k < poissonLen-1 && u >= poissonThr[k] {
			k++
		}
		w[b] = uint8(k)
	}
}

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

// MinBootstrap is the fewest replicates a bootstrap may have: its 95%
// percentile interval takes the 2.5% and 97.5% quantiles of the replicate
// means, and each of those 2.5% tails must hold at least one replicate
// (40 × 2.5% = 1). With fewer, both ends are interpolated between the
// smallest (largest) replicate and the next, an interval that says
// nothing of 95%: with 2 replicates it spans 95% of the gap between them
// and need not hold the mean at all. 1000 or more give a stable interval.
const MinBootstrap = 40

// ErrFewReplicates is wrapped by the refusals of a bootstrap of fewer than
// MinBootstrap replicates.
var ErrFewReplicates = fmt.Errorf("a 95%% percentile interval needs each 2.5%% tail to hold a replicate (%d × 2.5%% = 1)", MinBootstrap)

// CI95 is the percentile interval of mean k's replicate means: their 2.5%
// and 97.5% quantiles, interpolated linearly between order statistics (R's
// type 7, numpy's default). NaN with fewer than MinBootstrap replicates
// in all, or fewer than two in which some query has weight.
func (bs *Boots) CI95(k int) (lo, hi float64) {
	if bs.B < MinBootstrap {
		return math.NaN(), math.NaN()
	}
	return percentileCI(bs.Means(k))
}

func percentileCI(ms []float64) (lo, hi float64) {
	if len(ms) < 2 {
		return math.NaN(), math.NaN()
	}
	sort.Float64s(ms)
	return quantile7(ms, 0.025), quantile7(ms, 0.975)
}

func quantile7(sorted []float64, p float64) float64 {
	h := float64(float64(len(sorted)-1) * p)
	i := int(h)
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + float64((h-float64(i))*(sorted[i+1]-sorted[i]))
}
