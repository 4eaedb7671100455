package stats

import (
	"fmt"
	"math"
	"math/big"
	"sort"

	"github.com/rankeval/rankeval/internal/splitmix"
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

// QueryHash is the resampling draws' hash of a query id: FNV-1a, then a
// splitmix64 finalizer. It is fixed (never seeded), so a replicate is the
// same resample in every run.
func QueryHash(id []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range id {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return splitmix.Mix64(h)
}

// BootstrapWeights fills w[b] with the weight of the query of hash h in
// replicate b: the b-th output of a splitmix64 stream seeded with h,
// through the Poisson(1) inverse CDF. Every weight is below 32.
func BootstrapWeights(h uint64, w []uint8) {
	for b := range w {
		u := splitmix.Mix64(h + uint64(b+1)*0x9e3779b97f4a7c15)
		k := 0
		for k < poissonLen-1 && u >= poissonThr[k] {
			k++
		}
		w[b] = uint8(k)
	}
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

// PercentileCI95 is the percentile interval of replicate means ms: their
// 2.5% and 97.5% quantiles, interpolated linearly between order
// statistics (R's type 7, numpy's default). It sorts ms in place. NaN
// with fewer than two means; the caller refuses fewer than MinBootstrap
// replicates in all.
func PercentileCI95(ms []float64) (lo, hi float64) {
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
