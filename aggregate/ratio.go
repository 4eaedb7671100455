package aggregate

import (
	"errors"
	"fmt"
	"math"
	"math/big"

	"github.com/rankeval/rankeval/stats"
)

// Click weights and ratio metrics. A run with IPS estimates keeps, per
// system, each query's click weight w (the sum of its clicks' inverse
// propensities) and its clipped clicks. A ratio metric (the
// self-normalized estimates) has the summary Σ v / Σ w over the queries,
// not the mean of v: its sums are those of v (the metric's Stat), of w,
// w² and of v·w, all exact, so the ratio merges like every other figure.
// Its interval is the delta method's: with r = Σv/Σw and z_q = v_q − r·w_q,
// Var(r) ≈ Σ z² / ((n−1)·n·w̄²), w̄ = Σw/n, and Σ z² = Σv² − 2r·Σvw + r²·Σw²
// comes from the sums. A difference between two systems of one log is a
// ratio too, Σ(v_j − v_i)/Σw: both rankings' clicks and weights are the
// log's, so w is the same for both (Add checks), and the randomization
// tests, whose statistics are the numerators' sums, need nothing more
// (dividing every replicate by the same Σw moves none past another).

// ErrRatioWeights reports a query whose two systems compared by a ratio
// metric have different click weights: they are not rankings of one log.
var ErrRatioWeights = errors.New("systems compared by a self-normalized metric have different click weights (they must rank one log's clicks)")

// WeightSums are a run's sums of click weights (Layout.Weights).
type WeightSums struct {
	Sys  []SysWeights // per system
	Pair [][]Sum      // per pair, per ratio metric: Σ (v_j − v_i)·w_i
}

// SysWeights are one system's click weights: their count and sums, the
// clicks clipped, and per ratio metric Σ v·w.
type SysWeights struct {
	W       Stat
	Clipped int64
	Cross   []Sum
}

// SliceWeights are WeightSums for one slice, with Small sums.
type SliceWeights struct {
	W     []SmallStat // per system
	Cross [][]Small   // per system, per ratio metric
	Pair  [][]Small   // per pair, per ratio metric
}

// ratios lists the core metrics that are ratios, in order.
func (l *Layout) ratios() []int {
	var out []int
	for m, r := range l.Ratio {
		if r {
			out = append(out, m)
		}
	}
	return out
}

// bootExtra is the number of bootstrap means past the metrics' and the
// differences': each system's weight, when a ratio metric needs it.
func (l *Layout) bootExtra() int {
	if len(l.ratios()) == 0 {
		return 0
	}
	return l.Systems
}

func newWeightSums(S, P, R int) *WeightSums {
	w := &WeightSums{Sys: make([]SysWeights, S), Pair: make([][]Sum, P)}
	for s := range w.Sys {
		w.Sys[s].Cross = make([]Sum, R)
	}
	for p := range w.Pair {
		w.Pair[p] = make([]Sum, R)
	}
	return w
}

func newSliceWeights(S, P, R int) *SliceWeights {
	w := &SliceWeights{W: make([]SmallStat, S), Cross: make([][]Small, S), Pair: make([][]Small, P)}
	for s := range w.Cross {
		w.Cross[s] = make([]Small, R)
	}
	for p := range w.Pair {
		w.Pair[p] = make([]Small, R)
	}
	return w
}

// product is v·w exactly, as hi + lo (see square).
func product(v, w float64) (hi, lo float64) {
	hi = float64(v * w) // rounded: the caller may add it, inlined
	if math.IsInf(hi, 0) {
		return hi, 0
	}
	return hi, math.FMA(v, w, -hi)
}

type adder interface{ Add(float64) }

func addProduct(s adder, v, w float64) {
	hi, lo := product(v, w)
	s.Add(hi)
	s.Add(lo)
}

// addWeights records q's click weights in a and in its slice sl (nil
// without one). vals are q's values per system; pairs are the layout's.
func (a *Analysis) addWeights(q *Query, sl *Slice) error {
	W := a.W
	for s := range W.Sys {
		w := q.Weight[s]
		ws := &W.Sys[s]
		ws.W.Add(w)
		ws.Clipped += int64(q.Clipped[s])
		for r, m := range a.ratio {
			addProduct(&ws.Cross[r], q.Vals[s][m], w)
		}
		if sl != nil {
			sl.W.W[s].Add(w)
			for r, m := range a.ratio {
				addProduct(&sl.W.Cross[s][r], q.Vals[s][m], w)
			}
		}
	}
	if len(a.ratio) == 0 {
		return nil
	}
	for p, pr := range a.pairs {
		w := q.Weight[pr[0]]
		if w != q.Weight[pr[1]] {
			return fmt.Errorf("weights %v and %v: %w", w, q.Weight[pr[1]], ErrRatioWeights)
		}
		vi, vj := q.Vals[pr[0]], q.Vals[pr[1]]
		for r, m := range a.ratio {
			d := vj[m] - vi[m]
			addProduct(&W.Pair[p][r], d, w)
			if sl != nil {
				addProduct(&sl.W.Pair[p][r], d, w)
			}
		}
	}
	return nil
}

func (w *WeightSums) merge(o *WeightSums) {
	for s := range w.Sys {
		w.Sys[s].W.Merge(&o.Sys[s].W)
		w.Sys[s].Clipped += o.Sys[s].Clipped
		for r := range w.Sys[s].Cross {
			w.Sys[s].Cross[r].Merge(&o.Sys[s].Cross[r])
		}
	}
	for p := range w.Pair {
		for r := range w.Pair[p] {
			w.Pair[p][r].Merge(&o.Pair[p][r])
		}
	}
}

func (w *SliceWeights) merge(o *SliceWeights) {
	for s := range w.W {
		w.W[s].Merge(&o.W[s])
		for r := range w.Cross[s] {
			w.Cross[s][r].Merge(&o.Cross[s][r])
		}
	}
	for p := range w.Pair {
		for r := range w.Pair[p] {
			w.Pair[p][r].Merge(&o.Pair[p][r])
		}
	}
}

// ratioIndex is core metric m's index among the ratio metrics, or -1.
func (a *Analysis) ratioIndex(m int) int {
	for r, rm := range a.ratio {
		if rm == m {
			return r
		}
	}
	return -1
}

// Clipped is the number of clicks of system s whose propensity was raised
// to the clip (0 without click weights).
func (a *Analysis) Clipped(s int) int64 {
	if a.W == nil {
		return 0
	}
	return a.W.Sys[s].Clipped
}

// SysSummary is the summary of metric m of system s: the mean and its
// interval, or for a ratio metric the ratio of sums and the delta
// method's interval.
func (a *Analysis) SysSummary(s, m int) stats.Summary {
	st := &a.Sys[s].Stats[m]
	if r := a.ratioIndex(m); r >= 0 {
		ws := &a.W.Sys[s]
		return ratioSummary(st.N, &st.Sum, &st.SumSq, &ws.W.Sum, &ws.W.SumSq, &ws.Cross[r])
	}
	return st.Summary()
}

// diffSummary is the summary of pair p's difference of core metric m.
func (a *Analysis) diffSummary(p, m int) stats.Summary {
	d := &a.Diff[p][m]
	if r := a.ratioIndex(m); r >= 0 {
		w := &a.W.Sys[a.pairs[p][0]].W
		return ratioSummary(d.N, &d.Sum, &d.SumSq, &w.Sum, &w.SumSq, &a.W.Pair[p][r])
	}
	return d.Summary()
}

// Ratio reports whether core metric m of the slice's run is a ratio.
func (sl *Slice) ratio(l *Layout, m int) int {
	r := -1
	for i, rm := range l.ratios() {
		if rm == m {
			r = i
		}
	}
	return r
}

// SysSummary is Analysis.SysSummary for the slice, of a run of layout l.
func (sl *Slice) SysSummary(l *Layout, s, m int) stats.Summary {
	st := sl.Stats[s][m].Stat()
	if r := sl.ratio(l, m); r >= 0 {
		w, c := sl.W.W[s].Stat(), sl.W.Cross[s][r].Full()
		return ratioSummary(st.N, &st.Sum, &st.SumSq, &w.Sum, &w.SumSq, &c)
	}
	return st.Summary()
}

func (sl *Slice) diffSummary(l *Layout, p, m int) stats.Summary {
	d := sl.Diff[p][m].Stat()
	if r := sl.ratio(l, m); r >= 0 {
		w, c := sl.W.W[l.Pairs()[p][0]].Stat(), sl.W.Pair[p][r].Full()
		return ratioSummary(d.N, &d.Sum, &d.SumSq, &w.Sum, &w.SumSq, &c)
	}
	return d.Summary()
}

// ratioSummary is the summary of Σv/Σw over n queries from the exact sums
// of v, v², w, w² and v·w: the ratio rounded once; Stdev the standard
// deviation of the linearized values (v − r·w)/w̄, so that Lo and Hi are
// r ∓ 1.96·Stdev/√n, the delta method's interval, and a difference's
// t-test and effect size read it as they read a mean's. The ratio is
// undefined (NaN) when Σw is 0: no click anywhere.
func ratioSummary(n int64, sv, sv2, sw, sw2, svw *Sum) stats.Summary {
	out := stats.Summary{Mean: math.NaN(), N: n, Lo: math.NaN(), Hi: math.NaN(), Stdev: math.NaN()}
	V, V2, W, W2, VW := sv.Big(), sv2.Big(), sw.Big(), sw2.Big(), svw.Big()
	if n == 0 || V == nil || V2 == nil || W == nil || W2 == nil || VW == nil || W.Sign() == 0 {
		return out
	}
	nf := func() *big.Float { return new(big.Float).SetPrec(bigPrec) }
	r := nf().Quo(V, W)
	out.Mean, _ = r.Float64()
	if n < 2 {
		return out
	}
	// Σ z² = Σv² − 2r·Σvw + r²·Σw², never below 0
	q := nf().Mul(r, VW)
	q.Mul(q, big.NewFloat(2))
	q.Sub(V2, q)
	q.Add(q, nf().Mul(nf().Mul(r, r), W2))
	if q.Sign() < 0 {
		q.SetInt64(0)
	}
	// Stdev = √(Σz²/(n−1)) / (Σw/n)
	q.Quo(q, nf().SetInt64(n-1))
	q.Sqrt(q)
	q.Mul(q, nf().SetInt64(n))
	q.Quo(q, W)
	out.Stdev, _ = q.Float64()
	out.Stdev = math.Abs(out.Stdev) // Σw < 0 cannot be, but a crafted state's can
	out.Lo, out.Hi = stats.NormalCI95(out.Mean, out.Stdev, n)
	return out
}

// ratioBootCI is the bootstrap interval of a ratio: per replicate Σw_b·v
// over Σw_b·w, k the numerator's mean and kw the weight's.
func (bs *Boots) ratioBootCI(k, kw int) (lo, hi float64) {
	if bs.B < stats.MinBootstrap { // as CI95
		return math.NaN(), math.NaN()
	}
	out := make([]float64, 0, bs.B)
	for b := range bs.B {
		i, iw := b*bs.K+k, b*bs.K+kw
		den := new(big.Float).SetPrec(bigPrec).SetInt(i128{bs.hi[iw], bs.lo[iw]}.big())
		if den.Sign() == 0 {
			continue
		}
		den.SetMantExp(den, -bs.frac[kw])
		f := new(big.Float).SetPrec(bigPrec).SetInt(i128{bs.hi[i], bs.lo[i]}.big())
		f.SetMantExp(f, -bs.frac[k])
		f.Quo(f, den)
		m, _ := f.Float64()
		out = append(out, m)
	}
	return stats.PercentileCI95(out)
}

// checkWeights verifies the click weights' sums (Check): weights are
// never negative, and each Σ v·w is within what Σv² and Σw² allow
// (Cauchy-Schwarz: (Σvw)² <= Σv²·Σw²), for every system, pair and slice.
// A ratio metric's numerator is a query's clicks' weights, each counted
// at most once and by a factor in [0, 1] (a discount, a share of a tied
// group, 1/k), so 0 <= v <= w, and a difference's |v_j − v_i| <= w: then
// Σv, Σv² and Σvw are at most ΣW and ΣW² (a difference's in magnitude),
// and the ratio lies in [0, 1]; a state whose weights were scaled down
// would otherwise print a self-normalized estimate of 60.
func (a *Analysis) checkWeights() error {
	weights := func(w *Stat, where string) error {
		if err := plausible(w, RangeOpen, false); err != nil {
			return fmt.Errorf("%s: click weights: %w", where, err)
		}
		if s := w.Sum.Big(); s != nil && s.Sign() < 0 {
			return fmt.Errorf("%s: a negative sum of click weights: %w", where, ErrImpossible)
		}
		return nil
	}
	cross := func(v, w *Stat, vw *Sum, where string, diff bool) error {
		vsq, wsq, c := v.SumSq.Big(), w.SumSq.Big(), vw.Big()
		vs, ws := v.Sum.Big(), w.Sum.Big()
		if vsq == nil || wsq == nil || c == nil || vs == nil || ws == nil {
			return fmt.Errorf("%s: a sum holds a non-finite value: %w", where, ErrImpossible)
		}
		// |Σv| <= ΣW, Σv² <= ΣW², |Σvw| <= ΣW² (the rounding of each
		// value allowed for), and Σv >= 0 but for a difference
		atMost := func(x, bound *big.Float) bool {
			b := new(big.Float).SetPrec(checkPrec).Mul(bound, big.NewFloat(slack))
			return new(big.Float).SetPrec(checkPrec).Abs(x).Cmp(b) <= 0
		}
		if !atMost(vs, ws) || !atMost(vsq, wsq) || !atMost(c, wsq) || !diff && vs.Sign() < 0 {
			return fmt.Errorf("%s: values of a ratio metric beyond their click weights: %w", where, ErrImpossible)
		}
		lhs := new(big.Float).SetPrec(checkPrec).Mul(c, c)
		rhs := new(big.Float).SetPrec(checkPrec).Mul(vsq, wsq)
		rhs.Mul(rhs, big.NewFloat(slack))
		// each product's exact value is summed, so only the squares' own
		// rounding (below 2^-1074 a value) needs the slack
		rhs.Add(rhs, new(big.Float).SetMantExp(big.NewFloat(float64(v.N+1)), -1000))
		if lhs.Cmp(rhs) > 0 {
			return fmt.Errorf("%s: a sum of products beyond what the sums of squares allow: %w", where, ErrImpossible)
		}
		return nil
	}
	for s := range a.W.Sys {
		ws := &a.W.Sys[s]
		where := fmt.Sprintf("system %d", s)
		if err := weights(&ws.W, where); err != nil {
			return err
		}
		for r, m := range a.ratio {
			if err := cross(&a.Sys[s].Stats[m], &ws.W, &ws.Cross[r], where, false); err != nil {
				return err
			}
		}
	}
	for p, pr := range a.pairs {
		for r, m := range a.ratio {
			if err := cross(&a.Diff[p][m], &a.W.Sys[pr[0]].W, &a.W.Pair[p][r], fmt.Sprintf("difference %d", p+1), true); err != nil {
				return err
			}
		}
	}
	for i, sl := range a.Slices {
		if sl == nil {
			continue
		}
		for s := range sl.W.W {
			where := fmt.Sprintf("slice %d, system %d", i, s)
			w := sl.W.W[s].Stat()
			if err := weights(&w, where); err != nil {
				return err
			}
			for r, m := range a.ratio {
				v, c := sl.Stats[s][m].Stat(), sl.W.Cross[s][r].Full()
				if err := cross(&v, &w, &c, where, false); err != nil {
					return err
				}
			}
		}
		for p, pr := range a.pairs {
			w := sl.W.W[pr[0]].Stat()
			for r, m := range a.ratio {
				d, c := sl.Diff[p][m].Stat(), sl.W.Pair[p][r].Full()
				if err := cross(&d, &w, &c, fmt.Sprintf("slice %d, difference %d", i, p+1), true); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
