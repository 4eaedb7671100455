package main

import (
	"math"
	"math/big"
	"sort"
)

// reference figures of one metric's comparison, computed the slow way.
type refPair struct {
	n            int64
	mean, lo, hi float64
	p            float64
	bootLo       float64
	bootHi       float64
}

// refPaired computes the paired t-test with big.Float sums and a p-value
// by numerical integration of Student's density (independent of the
// incomplete beta the program uses), and the Poisson bootstrap with its
// own hash, draws and big.Float replicate sums.
func refPaired(ids []string, d []float64, B int) refPair {
	n := len(d)
	sum, sq := new(big.Float).SetPrec(600), new(big.Float).SetPrec(600)
	for _, v := range d {
		x := new(big.Float).SetPrec(600).SetFloat64(v)
		sum.Add(sum, x)
		sq.Add(sq, new(big.Float).SetPrec(600).Mul(x, x))
	}
	nb := new(big.Float).SetPrec(600).SetInt64(int64(n))
	meanB := new(big.Float).SetPrec(600).Quo(sum, nb)
	mean, _ := meanB.Float64()
	v := new(big.Float).SetPrec(600).Sub(sq, new(big.Float).SetPrec(600).Mul(sum, meanB))
	v.Quo(v, new(big.Float).SetPrec(600).SetInt64(int64(n-1)))
	vr, _ := v.Float64()
	se := math.Sqrt(vr) / math.Sqrt(float64(n))
	df := float64(n - 1)
	tq := refTQuantile(df)
	out := refPair{n: int64(n), mean: mean, lo: mean - tq*se, hi: mean + tq*se, p: 2 * refTTail(math.Abs(mean/se), df)}
	if B == 0 {
		return out
	}
	means := make([]float64, 0, B)
	for b := range B {
		num := new(big.Float).SetPrec(600)
		var den int64
		for i, id := range ids {
			w := refPoisson(refMix(refFNV(id) + uint64(b+1)*0x9e3779b97f4a7c15))
			num.Add(num, new(big.Float).SetPrec(600).Mul(big.NewFloat(d[i]), big.NewFloat(float64(w))))
			den += int64(w)
		}
		m, _ := new(big.Float).Quo(num, big.NewFloat(float64(den))).Float64()
		means = append(means, m)
	}
	sort.Float64s(means)
	q := func(p float64) float64 {
		h := float64(len(means)-1) * p
		i := int(math.Floor(h))
		return means[i] + (h-float64(i))*(means[i+1]-means[i])
	}
	out.bootLo, out.bootHi = q(0.025), q(0.975)
	return out
}

func refFNV(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	return refMix(h)
}

func refMix(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// refPoisson draws Poisson(1) by the textbook inverse CDF in floating point.
func refPoisson(u uint64) int {
	x := float64(u>>11) / (1 << 53)
	p := math.Exp(-1)
	cdf, k := p, 0
	for x >= cdf && k < 30 {
		k++
		p /= float64(k)
		cdf += p
	}
	return k
}

func refTDensity(x, df float64) float64 {
	a, _ := math.Lgamma((df + 1) / 2)
	b, _ := math.Lgamma(df / 2)
	return math.Exp(a - b - 0.5*math.Log(df*math.Pi) - (df+1)/2*math.Log1p(x*x/df))
}

// refTTail is P(T > t) by Simpson's rule after x = t + u/(1-u).
func refTTail(t, df float64) float64 {
	const n = 200_000
	h := 1.0 / n
	f := func(u float64) float64 {
		if u >= 1 {
			return 0
		}
		return refTDensity(t+u/(1-u), df) / ((1 - u) * (1 - u))
	}
	s := f(0) + f(1)
	for i := 1; i < n; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		s += w * f(float64(i)*h)
	}
	return s * h / 3
}

func refTQuantile(df float64) float64 {
	lo, hi := 0.0, 50.0
	for range 60 {
		mid := (lo + hi) / 2
		if 2*refTTail(mid, df) > 0.05 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

func refHolm(p []float64) []float64 {
	idx := make([]int, len(p))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] < p[idx[b]] })
	out := make([]float64, len(p))
	run := 0.0
	for j, i := range idx {
		run = math.Max(run, math.Min(1, float64(len(p)-j)*p[i]))
		out[i] = run
	}
	return out
}
