package aggregate

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/rankeval/rankeval/stats"
)

// Layout is what a run aggregates besides the per-system means.
type Layout struct {
	// Metrics is the number of metrics evaluated per system and query.
	Metrics int
	// Core holds the ranges of the leading metrics that get slices,
	// comparisons, bootstrap intervals and histograms; the metrics after
	// them (the report's metric@k curves) get means only.
	Core      []Range
	Systems   int // system 0 is the baseline
	Bootstrap int // replicates; 0 for none
	Hist      bool
	Compare
	// Weights keeps each query's click weight and clipped clicks
	// (Query.Weight, Query.Clipped): the run has IPS estimates. Ratio, nil
	// or one per core metric, marks the metrics whose summary is Σ v / Σ w,
	// a ratio of sums (ratio.go); it needs Weights.
	Weights bool
	Ratio   []bool
}

// Compare is how a run compares its systems.
type Compare struct {
	// AllPairs compares every pair of systems (Layout.Pairs), not only
	// each with the baseline.
	AllPairs bool
	// Test is the comparisons' test; the randomization tests keep
	// Permutations replicates drawn under Seed.
	Test         stats.Test
	Permutations int
	Seed         uint64
}

// NeedsHash reports whether a query's Hash is read: by the bootstrap and
// the randomization tests.
func (l *Layout) NeedsHash() bool { return l.Bootstrap > 0 || l.Test != stats.TestT }

// Pairs lists the comparisons (i, j), i < j, whose difference is system j
// minus system i: each system against the baseline first, then, with
// AllPairs, every other pair in order.
func (l *Layout) Pairs() [][2]int {
	var out [][2]int
	for i := range l.Systems {
		if i > 0 && !l.AllPairs {
			break
		}
		for j := i + 1; j < l.Systems; j++ {
			out = append(out, [2]int{i, j})
		}
	}
	return out
}

// Query is one query's figures as a worker hands them over.
type Query struct {
	Slice   int         // slice index, or -1 when the run has no slices
	Hash    uint64      // QueryHash of its id (read only when Layout.NeedsHash)
	Rows    []int       // per system
	Vals    [][]float64 // per system, one value per metric (NaN = undefined)
	Empty   []bool      // per system: no relevant row
	Missing []bool      // per system: absent from that system's log, counted as 0
	// Weight and Clipped are per system the query's click weight and its
	// clicks whose propensity was clipped; read only when Layout.Weights.
	Weight  []float64
	Clipped []int
}

// Analysis is one worker's (or the merged) aggregate of a run with
// systems, slices, a bootstrap or histograms. Like Set it holds only
// exact sums and integer counts, so merging partials in any order gives
// the same bits. AppendBinary saves it, layout included, in a canonical
// form that UnmarshalBinary loads with no loss; MergeMapped merges the
// saved aggregates of separate runs.
type Analysis struct {
	L       *Layout
	Sys     []*Set   // per system, every metric
	Missing []int64  // per system
	Diff    [][]Stat // per pair p (L.Pairs()[p] = (i, j)), per core metric: v_j - v_i
	Slices  []*Slice // by slice index; nil where this worker met no query of the slice
	Hist    [][]Hist // per system, per core metric; nil without histograms
	// Boot holds the bootstrap of every core metric of every system (mean
	// s·M+m) then of every difference (mean (S+p)·M+m); nil without one.
	Boot *Boots
	// Perm holds the replicates of the randomization test or Tukey HSD;
	// nil under the t-test.
	Perm *Perms
	// W holds the click weights' sums; nil unless L.Weights.
	W     *WeightSums
	ratio []int // L.ratios()
	pairs [][2]int
	w     []uint8
	bvals []float64 // one query's values for Boot
	pvals []float64 // and for Perm
}

// Slice is the aggregate of the queries of one slice.
type Slice struct {
	Rows, Queries, Empty, Missing []int64       // per system
	Stats                         [][]SmallStat // per system, per core metric
	Diff                          [][]SmallStat // per pair, per core metric
	W                             *SliceWeights // nil unless Layout.Weights
}

// diffRange is the fixed-point range of a difference of metrics of range
// r: those of [-1, 1] lie in [-2, 2], the scale of every bounded value.
func diffRange(r Range) Range {
	if r == RangeSigned {
		return RangeUnit
	}
	return r
}

// ErrBootstrapRange reports a value too large for the fixed point of the
// bootstrap and the randomization tests (only cg and dcg can have one).
var ErrBootstrapRange = fmt.Errorf("value beyond the range of the bootstrap and randomization tests (|v| < 2^%d for cg and dcg)", 58-fracOpen)

// NewAnalysis makes an empty aggregate for l.
func NewAnalysis(l *Layout) *Analysis {
	a := &Analysis{L: l, Missing: make([]int64, l.Systems), pairs: l.Pairs(), ratio: l.ratios()}
	nc := len(l.Core)
	for range l.Systems {
		a.Sys = append(a.Sys, NewSet(l.Metrics))
	}
	for range a.pairs {
		a.Diff = append(a.Diff, make([]Stat, nc))
	}
	if l.Hist {
		a.Hist = make([][]Hist, l.Systems)
		for s := range a.Hist {
			for _, r := range l.Core {
				a.Hist[s] = append(a.Hist[s], NewHist(r))
			}
		}
	}
	var sys, diffs []Range
	for range l.Systems {
		sys = append(sys, l.Core...)
	}
	for range a.pairs {
		for _, r := range l.Core {
			diffs = append(diffs, diffRange(r))
		}
	}
	if l.Weights {
		a.W = newWeightSums(l.Systems, len(a.pairs), len(a.ratio))
	}
	if l.Bootstrap > 0 {
		var weights []Range
		for range l.bootExtra() {
			weights = append(weights, RangeOpen)
		}
		a.w = make([]uint8, l.Bootstrap)
		a.Boot = NewBoots(l.Bootstrap, slices.Concat(sys, diffs, weights))
		a.bvals = make([]float64, a.Boot.K)
	}
	switch l.Test {
	case stats.TestRandom:
		a.Perm = NewPerms(l.Test, l.Permutations, l.Seed, l.Systems, diffs)
	case stats.TestTukey:
		a.Perm = NewPerms(l.Test, l.Permutations, l.Seed, l.Systems, sys)
	}
	if a.Perm != nil {
		a.pvals = make([]float64, a.Perm.K)
	}
	return a
}

func (a *Analysis) newSlice() *Slice {
	l := a.L
	sl := &Slice{Rows: make([]int64, l.Systems), Queries: make([]int64, l.Systems),
		Empty: make([]int64, l.Systems), Missing: make([]int64, l.Systems)}
	for range l.Systems {
		sl.Stats = append(sl.Stats, make([]SmallStat, len(l.Core)))
	}
	for range a.pairs {
		sl.Diff = append(sl.Diff, make([]SmallStat, len(l.Core)))
	}
	if l.Weights {
		sl.W = newSliceWeights(l.Systems, len(a.pairs), len(a.ratio))
	}
	return sl
}

// Add records one query. It fails only when a value is beyond the
// bootstrap's range.
func (a *Analysis) Add(q *Query) error {
	l := a.L
	nc := len(l.Core)
	var sl *Slice
	if q.Slice >= 0 {
		for len(a.Slices) <= q.Slice {
			a.Slices = append(a.Slices, nil)
		}
		if sl = a.Slices[q.Slice]; sl == nil {
			sl = a.newSlice()
			a.Slices[q.Slice] = sl
		}
	}
	if l.Bootstrap > 0 {
		stats.BootstrapWeights(q.Hash, a.w)
	}
	for s := range l.Systems {
		vals := q.Vals[s]
		a.Sys[s].AddQuery(q.Rows[s], vals, q.Empty[s])
		if q.Missing[s] {
			a.Missing[s]++
		}
		if a.Hist != nil {
			for m := range nc {
				v := vals[m]
				if l.Ratio != nil && l.Ratio[m] {
					v /= q.Weight[s] // the query's own ratio; NaN without a click
				}
				a.Hist[s][m].Add(v)
			}
		}
		if a.Boot != nil {
			copy(a.bvals[s*nc:(s+1)*nc], vals[:nc])
		}
		if l.Test == stats.TestTukey {
			copy(a.pvals[s*nc:(s+1)*nc], vals[:nc])
		}
		if sl != nil {
			sl.Rows[s] += int64(q.Rows[s])
			sl.Queries[s]++
			if q.Empty[s] {
				sl.Empty[s]++
			}
			if q.Missing[s] {
				sl.Missing[s]++
			}
			for m := range nc {
				sl.Stats[s][m].Add(vals[m])
			}
		}
	}
	for p, pr := range a.pairs {
		vi, vj := q.Vals[pr[0]], q.Vals[pr[1]]
		for m := range nc {
			d := math.NaN()
			if !math.IsNaN(vi[m]) && !math.IsNaN(vj[m]) {
				d = vj[m] - vi[m]
				a.Diff[p][m].Add(d)
				if sl != nil {
					sl.Diff[p][m].Add(d)
				}
			}
			if a.Boot != nil {
				a.bvals[(l.Systems+p)*nc+m] = d
			}
			if l.Test == stats.TestRandom {
				a.pvals[p*nc+m] = d
			}
		}
	}
	if a.W != nil {
		if err := a.addWeights(q, sl); err != nil {
			return err
		}
		if a.Boot != nil && len(a.ratio) > 0 {
			copy(a.bvals[(l.Systems+len(a.pairs))*nc:], q.Weight)
		}
	}
	if a.Boot != nil {
		if k, ok := a.Boot.Add(a.bvals, a.w); !ok {
			return fmt.Errorf("%v: %w", a.bvals[k], ErrBootstrapRange)
		}
	}
	if a.Perm != nil {
		if k, ok := a.Perm.Add(a.pvals, q.Hash); !ok {
			return fmt.Errorf("%v: %w", a.pvals[k], ErrBootstrapRange)
		}
	}
	return nil
}

// ErrLayout reports aggregates of different layouts, which do not merge,
// or an analysis whose parts do not have its layout's shape.
var ErrLayout = errors.New("aggregate layouts differ")

// Merge adds o into a, slice i into slice i; o must not be used afterwards
// (slices may move). The two must have equal layouts, as the workers of one
// run do; MergeMapped checks.
func (a *Analysis) Merge(o *Analysis) { a.merge(o, nil) }

// MergeMapped is Merge for aggregates of separate runs (days of a rolling
// window, saved and decoded): o's slice i goes into a's slice slice[i].
// Each run numbers its slices in order of first appearance, so the caller
// maps o's slice keys to a's numbering, new keys to new indexes; slices
// mapped to one index are merged. It fails, changing nothing, when the
// layouts differ (ErrLayout) or a slice of o has no index in slice.
func (a *Analysis) MergeMapped(o *Analysis, slice []int) error {
	if !a.L.Equal(o.L) {
		return fmt.Errorf("merge: %w", ErrLayout)
	}
	for i, osl := range o.Slices {
		if osl != nil && (i >= len(slice) || slice[i] < 0) {
			return fmt.Errorf("merge: slice %d has no index in a mapping of %d", i, len(slice))
		}
	}
	a.merge(o, slice)
	return nil
}

// merge is Merge with o's slice i going to slice[i], or to i without a
// mapping.
func (a *Analysis) merge(o *Analysis, slice []int) {
	for s := range a.Sys {
		a.Sys[s].Merge(o.Sys[s])
		a.Missing[s] += o.Missing[s]
	}
	for p := range a.Diff {
		for m := range a.Diff[p] {
			a.Diff[p][m].Merge(&o.Diff[p][m])
		}
	}
	for s := range a.Hist {
		for m := range a.Hist[s] {
			a.Hist[s][m].Merge(&o.Hist[s][m])
		}
	}
	if a.Boot != nil {
		a.Boot.Merge(o.Boot)
	}
	if a.Perm != nil {
		a.Perm.Merge(o.Perm)
	}
	if a.W != nil {
		a.W.merge(o.W)
	}
	for i, osl := range o.Slices {
		if osl == nil {
			continue
		}
		j := i
		if slice != nil {
			j = slice[i]
		}
		for len(a.Slices) <= j {
			a.Slices = append(a.Slices, nil)
		}
		if a.Slices[j] == nil {
			a.Slices[j] = osl
		} else {
			a.Slices[j].merge(osl)
		}
	}
}

func (sl *Slice) merge(o *Slice) {
	for s := range sl.Rows {
		sl.Rows[s] += o.Rows[s]
		sl.Queries[s] += o.Queries[s]
		sl.Empty[s] += o.Empty[s]
		sl.Missing[s] += o.Missing[s]
		for m := range sl.Stats[s] {
			sl.Stats[s][m].Merge(&o.Stats[s][m])
		}
	}
	for p := range sl.Diff {
		for m := range sl.Diff[p] {
			sl.Diff[p][m].Merge(&o.Diff[p][m])
		}
	}
	if sl.W != nil {
		sl.W.merge(o.W)
	}
}

// Pairs returns, per pair of L.Pairs(), the comparison of every core
// metric, by the layout's test, corrected by c across them all, with the
// bootstrap interval when there is one, the effect's interval and the
// minimum detectable effect.
func (a *Analysis) Pairs(c stats.Correction) [][]stats.Paired {
	nc := len(a.L.Core)
	var ranges [][]i128 // Tukey's, per metric
	if a.Perm != nil && a.Perm.Test == stats.TestTukey {
		for m := range nc {
			ranges = append(ranges, a.Perm.RangesOf(m))
		}
	}
	out := make([][]stats.Paired, len(a.Diff))
	var mdes stats.MDEs
	for p, pr := range a.L.Pairs() {
		out[p] = make([]stats.Paired, nc)
		for m := range nc {
			s := a.diffSummary(p, m)
			d := stats.PairedOf(s)
			d.I, d.J = pr[0], pr[1]
			d.Effect = stats.EffectOf(s)
			d.MDE = mdes.Of(s)
			if a.Boot != nil {
				d.BootLo, d.BootHi = a.bootCI((a.L.Systems+p)*nc+m, pr[0], m)
			}
			d.Test = a.L.Test
			if d.N > 0 { // else no test: P stays NaN
				switch d.Test {
				case stats.TestRandom:
					d.P = a.Perm.FlipP(p*nc+m, d.N)
				case stats.TestTukey:
					d.P = a.Perm.TukeyP(ranges[m], pr[0], pr[1], m, a.tukeyQueries(m))
				}
			}
			out[p][m] = d
		}
	}
	stats.Correct(out, c)
	return out
}

// tukeyQueries bounds the queries in the Tukey HSD of core metric m:
// those where every system defines it.
func (a *Analysis) tukeyQueries(m int) int64 {
	n := a.Sys[0].Stats[m].N
	for _, set := range a.Sys[1:] {
		n = min(n, set.Stats[m].N)
	}
	return n
}

// BootCI is the bootstrap interval of core metric m of system s (NaN
// without a bootstrap).
func (a *Analysis) BootCI(s, m int) (lo, hi float64) {
	if a.Boot == nil {
		return math.NaN(), math.NaN()
	}
	return a.bootCI(s*len(a.L.Core)+m, s, m)
}

// bootCI is the bootstrap interval of mean k, of core metric m, whose
// weights (for a ratio) are system s's.
func (a *Analysis) bootCI(k, s, m int) (lo, hi float64) {
	if a.ratioIndex(m) >= 0 {
		l := a.L
		return a.Boot.ratioBootCI(k, (l.Systems+len(a.pairs))*len(l.Core)+s)
	}
	return a.Boot.CI95(k)
}

// Pairs is Analysis.Pairs for the slice of a run of layout l, by the
// t-test (the randomization tests and the bootstrap are the whole run's),
// without the effect's interval and the minimum detectable effect, each
// a root search of the noncentral t: thousands of slices would outlast
// the run.
func (sl *Slice) Pairs(l *Layout, c stats.Correction) [][]stats.Paired {
	out := make([][]stats.Paired, len(sl.Diff))
	for p, pr := range l.Pairs() {
		out[p] = make([]stats.Paired, len(sl.Diff[p]))
		for m := range sl.Diff[p] {
			out[p][m] = stats.PairedOf(sl.diffSummary(l, p, m))
			out[p][m].I, out[p][m].J = pr[0], pr[1]
		}
	}
	stats.Correct(out, c)
	return out
}
