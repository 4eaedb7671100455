package summary

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/rankeval/rankeval/internal/pmath"
	"github.com/rankeval/rankeval/stats"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/metrics"
)

// Results holds every figure the outputs print, derived once from a run's
// merged aggregate: the JSON, text and trec summaries and the report read
// the same numbers.
type Results struct {
	Run  *Run
	Agg  *aggregate.Analysis
	nsys int
	sys  [][]stats.Summary // per system, per metric
	boot [][][2]float64    // per system, per metric; nil without a bootstrap
	// outc holds per system the interleaving counts (outcomesOf); nil
	// without the interleave metric
	outc [][]*aggregate.Outcomes
	// pairs holds per pair of systems (Layout.Pairs), per metric, the
	// comparison.
	pairs   [][]stats.Paired
	order   []int         // slice indices in output order (by key)
	slices  []sliceResult // by slice index
	curves  [][][]stats.Summary
	systems []string // names; "" for a single unnamed system
}

type sliceResult struct {
	key   []string
	sl    *aggregate.Slice
	sys   [][]stats.Summary
	outc  [][]*aggregate.Outcomes // per system, as Results.outc
	pairs [][]stats.Paired
}

// FromSet makes the Results of a run of one system without slices.
func FromSet(run *Run, set *aggregate.Set) *Results {
	return NewResults(run, &aggregate.Analysis{Sys: []*aggregate.Set{set}, Missing: []int64{0}}, nil)
}

// NewResults derives the figures of a run from its merged aggregate a and
// the values of each slice's columns (by slice index).
func NewResults(run *Run, a *aggregate.Analysis, sliceKeys [][]string) *Results {
	nc := len(run.Metrics)
	r := &Results{Run: run, Agg: a, nsys: len(a.Sys), systems: run.Systems}
	if len(r.systems) == 0 {
		r.systems = []string{""}
	}
	for s, set := range a.Sys {
		sums := make([]stats.Summary, nc)
		for m := range sums {
			if run.Metrics[m].Ratio() {
				sums[m] = a.SysSummary(s, m)
			} else {
				sums[m] = Summarize(run.Metrics[m], &set.Stats[m])
			}
		}
		r.sys = append(r.sys, sums)
		r.outc = append(r.outc, outcomesOf(run, func(m int) (aggregate.Outcomes, error) { return a.SysOutcomes(s, m) }))
		if a.Boot != nil {
			bs := make([][2]float64, nc)
			for m := range bs {
				bs[m][0], bs[m][1] = bootCI(run.Metrics[m], a, s, m)
			}
			r.boot = append(r.boot, bs)
		}
		// curves: per family, per system, per k
		off := nc
		for f, cv := range run.Curves {
			if s == 0 {
				r.curves = append(r.curves, nil)
			}
			row := make([]stats.Summary, len(cv.Metrics))
			for k := range row {
				row[k] = set.Stats[off+k].Summary()
			}
			r.curves[f] = append(r.curves[f], row)
			off += len(cv.Metrics)
		}
	}
	if a.L != nil {
		r.pairs = a.Pairs(run.Correction)
		if w := permutationFloor(run, r.pairs); w != "" {
			run.Warnings = append(run.Warnings, w)
		}
	}
	r.slices = make([]sliceResult, len(sliceKeys))
	for i, key := range sliceKeys {
		sr := sliceResult{key: key}
		if i < len(a.Slices) {
			sr.sl = a.Slices[i]
		}
		if sr.sl != nil {
			for s := range r.nsys {
				sums := make([]stats.Summary, nc)
				for m := range sums {
					if run.Metrics[m].Ratio() {
						sums[m] = sr.sl.SysSummary(a.L, s, m)
						continue
					}
					st := sr.sl.Stats[s][m].Stat()
					sums[m] = Summarize(run.Metrics[m], &st)
				}
				sr.sys = append(sr.sys, sums)
				sr.outc = append(sr.outc, outcomesOf(run, func(m int) (aggregate.Outcomes, error) { return sr.sl.SliceOutcomes(s, m) }))
			}
			sr.pairs = sr.sl.Pairs(a.L, run.Correction)
		}
		r.slices[i] = sr
		r.order = append(r.order, i)
	}
	slices.SortStableFunc(r.order, func(a, b int) int { return compareKeys(r.slices[a].key, r.slices[b].key) })
	return r
}

// permutationFloor warns when Holm's correction over the comparisons made
// leaves no randomization p-value a chance to fall below 0.05: the least
// p of B replicates is 1/(B+1), which Holm multiplies by their number.
func permutationFloor(run *Run, pairs [][]stats.Paired) string {
	if run.Compare.Test == stats.TestT || run.Correction != stats.CorrHolm {
		return ""
	}
	m := 0
	for _, ps := range pairs {
		for i := range ps {
			if !math.IsNaN(ps[i].P) {
				m++
			}
		}
	}
	if floor := float64(m) / float64(run.Compare.Permutations+1); floor >= 0.05 {
		return fmt.Sprintf("%d comparisons under Holm's correction and %d permutations: no corrected p can fall below %.3g, so none can be significant; give --permutations %d or more",
			m, run.Compare.Permutations, floor, 20*m)
	}
	return ""
}

// Summarize is the summary of metric m from its aggregate: the mean and
// its interval, or what m's Aggregation makes of them; a ratio's
// (AggRatio) needs its weights too, aggregate.Analysis.SysSummary. A count's summary
// is its exact total (no interval: the total is not an estimate); gm_map's
// is exp of the mean of its logarithms, and so are its bounds.
func Summarize(m metrics.Metric, st *aggregate.Stat) stats.Summary {
	s := st.Summary()
	switch m.Aggregate() {
	case metrics.AggSum:
		s.Mean, s.Lo, s.Hi = st.Sum.Float64(), math.NaN(), math.NaN()
	case metrics.AggGeo:
		s.Mean, s.Lo, s.Hi = pmath.Exp(s.Mean), pmath.Exp(s.Lo), pmath.Exp(s.Hi)
	}
	return s
}

// bootCI is the bootstrap interval of metric m of system s, transformed as
// Summarize transforms the mean.
func bootCI(m metrics.Metric, a *aggregate.Analysis, s, k int) (lo, hi float64) {
	lo, hi = a.BootCI(s, k)
	switch m.Aggregate() {
	case metrics.AggSum:
		return math.NaN(), math.NaN()
	case metrics.AggGeo:
		return pmath.Exp(lo), pmath.Exp(hi)
	}
	return lo, hi
}

func (r *Results) bootOf(s int) [][2]float64 {
	if r.boot == nil {
		return nil
	}
	return r.boot[s]
}

// compareKeys orders slices column by column, numerically where both
// values are numbers (so m2 < m10 stays a byte-wise matter, but 2 < 10).
//
// It is a total order, so the order of the slices never depends on the
// order they were met in: per column, numbers come before other values and
// compare by value (then byte-wise: 2 and 2.0), the rest byte-wise.
func compareKeys(a, b []string) int {
	for c := range a {
		x, errx := strconv.ParseFloat(a[c], 64)
		y, erry := strconv.ParseFloat(b[c], 64)
		xn, yn := errx == nil && !math.IsNaN(x), erry == nil && !math.IsNaN(y)
		switch {
		case xn && !yn:
			return -1
		case !xn && yn:
			return 1
		case xn && yn:
			if d := cmp.Compare(x, y); d != 0 {
				return d
			}
		}
		if d := cmp.Compare(a[c], b[c]); d != 0 {
			return d
		}
	}
	return 0
}

// Curve is a metric family the report plots at k = 1..K.
type Curve struct {
	Family  string // ndcg, p, r, err
	Kind    metrics.Kind
	Metrics []metrics.Metric
}

func nextK(k, step int) int {
	if k == 1 && step > 1 {
		return step
	}
	return k + step
}

// CurvesFor picks the report's metric@k curves: the families among nDCG,
// P, R and ERR that were asked for, from k = 1 to the largest k asked (10
// when none is). Families not asked are left out: ERR, for one, makes a
// label above --max-grade an error.
func CurvesFor(ms []metrics.Metric) []Curve {
	maxK := 0
	for _, m := range ms {
		maxK = max(maxK, m.K)
	}
	if maxK == 0 {
		maxK = 10
	}
	var out []Curve
	for _, f := range []struct {
		name string
		kind metrics.Kind
	}{{"ndcg", metrics.KindNDCG}, {"p", metrics.KindP}, {"r", metrics.KindR}, {"err", metrics.KindERR}} {
		if !slices.ContainsFunc(ms, func(m metrics.Metric) bool { return m.Kind == f.kind }) {
			continue
		}
		cv := Curve{Family: f.name, Kind: f.kind}
		// at most some 100 points: a k of 1000 is plotted every 10th
		step := (maxK + 99) / 100
		for k := 1; k <= maxK; k = nextK(k, step) {
			m, err := metrics.Parse(fmt.Sprintf("%s@%d", f.name, k))
			if err != nil {
				panic(err) // the names above always parse
			}
			cv.Metrics = append(cv.Metrics, m)
		}
		out = append(out, cv)
	}
	return out
}

// Evaluated lists every metric a run evaluates: those asked for, then the
// curves'.
func (c *Run) Evaluated() []metrics.Metric {
	ms := slices.Clone(c.Metrics)
	for _, cv := range c.Curves {
		ms = append(ms, cv.Metrics...)
	}
	return ms
}
