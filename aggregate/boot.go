package aggregate

import (
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

// Boot is the bootstrap of one mean: per replicate b, Σ w_b·v in fixed
// point (hi, lo: a 128-bit integer) and Σ w_b.
type Boot struct {
	frac  int
	scale float64 // 2^frac
	limit float64 // |v| must be below this
	hi    []int64
	lo    []uint64
	cnt   []int64
}

// NewBoot makes a bootstrap of b replicates for values of range r.
func NewBoot(b int, r Range) *Boot {
	f := fracBounded
	if r == RangeOpen {
		f = fracOpen
	}
	return &Boot{frac: f, scale: math.Ldexp(1, f), limit: math.Ldexp(1, 58-f),
		hi: make([]int64, b), lo: make([]uint64, b), cnt: make([]int64, b)}
}

// Add counts v with weight w[b] in replicate b. It reports false, adding
// nothing, when v is beyond the fixed-point range.
func (bt *Boot) Add(v float64, w []uint8) bool {
	if !(math.Abs(v) < bt.limit) {
		return false
	}
	q := int64(math.Round(v * bt.scale))
	hi, lo, cnt := bt.hi[:len(w)], bt.lo[:len(w)], bt.cnt[:len(w)]
	for b, wb := range w {
		// no branch on wb == 0: a third of the weights are, at random
		x := int64(wb) * q
		s, c := bits.Add64(lo[b], uint64(x), 0)
		lo[b] = s
		hi[b] += x>>63 + int64(c)
		cnt[b] += int64(wb)
	}
	return true
}

// Merge adds o into bt.
func (bt *Boot) Merge(o *Boot) {
	for b := range bt.lo {
		s, c := bits.Add64(bt.lo[b], o.lo[b], 0)
		bt.lo[b] = s
		bt.hi[b] += o.hi[b] + int64(c)
		bt.cnt[b] += o.cnt[b]
	}
}

// Means returns the replicate means, each rounded once from the exact
// fixed-point sum; a replicate in which no query has weight is left out.
func (bt *Boot) Means() []float64 {
	out := make([]float64, 0, len(bt.lo))
	for b := range bt.lo {
		if bt.cnt[b] == 0 {
			continue
		}
		n := new(big.Int).SetInt64(bt.hi[b])
		n.Lsh(n, 64)
		n.Add(n, new(big.Int).SetUint64(bt.lo[b]))
		f := new(big.Float).SetPrec(bigPrec).SetInt(n)
		f.SetMantExp(f, -bt.frac)
		f.Quo(f, new(big.Float).SetPrec(bigPrec).SetInt64(bt.cnt[b]))
		m, _ := f.Float64()
		out = append(out, m)
	}
	return out
}

// CI95 is the percentile interval of the replicate means: their 2.5% and
// 97.5% quantiles, interpolated linearly between order statistics (R's
// type 7, numpy's default). NaN with fewer than two replicates.
func (bt *Boot) CI95() (lo, hi float64) { return percentileCI(bt.Means()) }

func percentileCI(ms []float64) (lo, hi float64) {
	if len(ms) < 2 {
		return math.NaN(), math.NaN()
	}
	sort.Float64s(ms)
	return quantile7(ms, 0.025), quantile7(ms, 0.975)
}

func quantile7(sorted []float64, p float64) float64 {
	h := float64(len(sorted)-1) * p
	i := int(h)
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-float64(i))*(sorted[i+1]-sorted[i])
}
