package main

import (
	"cmp"
	"math"
	"slices"
	"strconv"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/pipeline"
)

// results holds every figure the outputs print, derived once from the
// merged aggregate: the JSON and text summaries and the report read the
// same numbers.
type results struct {
	res     *pipeline.Result
	nsys    int
	sys     [][]aggregate.Summary // per system, per core metric
	boot    [][][2]float64        // per system, per core metric; nil without a bootstrap
	pairs   [][]aggregate.Paired  // per system s >= 1 (at s-1), per core metric
	order   []int                 // slice indices in output order (by key)
	slices  []sliceResult         // by slice index
	curves  [][][]aggregate.Summary
	systems []string // names; "" for a single unnamed system
}

type sliceResult struct {
	key   []string
	sl    *aggregate.Slice
	sys   [][]aggregate.Summary
	pairs [][]aggregate.Paired
}

func newResults(c *config, res *pipeline.Result) *results {
	nc := len(c.metrics)
	r := &results{res: res, nsys: len(res.Sys), systems: c.systems}
	if len(r.systems) == 0 {
		r.systems = []string{""}
	}
	for s, set := range res.Sys {
		sums := make([]aggregate.Summary, nc)
		for m := range sums {
			sums[m] = set.Stats[m].Summary()
		}
		r.sys = append(r.sys, sums)
		if res.Boot != nil {
			bs := make([][2]float64, nc)
			for m := range bs {
				bs[m][0], bs[m][1] = res.BootCI(s, m)
			}
			r.boot = append(r.boot, bs)
		}
		// curves: per family, per system, per k
		off := nc
		for f, cv := range c.curves {
			if s == 0 {
				r.curves = append(r.curves, nil)
			}
			row := make([]aggregate.Summary, len(cv.ms))
			for k := range row {
				row[k] = set.Stats[off+k].Summary()
			}
			r.curves[f] = append(r.curves[f], row)
			off += len(cv.ms)
		}
	}
	r.pairs = res.Pairs()
	r.slices = make([]sliceResult, len(res.SliceKeys))
	for i, key := range res.SliceKeys {
		sr := sliceResult{key: key}
		if i < len(res.Slices) {
			sr.sl = res.Slices[i]
		}
		if sr.sl != nil {
			for s := range r.nsys {
				sums := make([]aggregate.Summary, nc)
				for m := range sums {
					sums[m] = sr.sl.Summary(s, m)
				}
				sr.sys = append(sr.sys, sums)
			}
			sr.pairs = sr.sl.Pairs()
		}
		r.slices[i] = sr
		r.order = append(r.order, i)
	}
	slices.SortStableFunc(r.order, func(a, b int) int { return compareKeys(r.slices[a].key, r.slices[b].key) })
	return r
}

// compareKeys orders slices column by column, numerically where both
// values are numbers (so m2 < m10 stays a byte-wise matter, but 2 < 10).
func compareKeys(a, b []string) int {
	for c := range a {
		x, errx := strconv.ParseFloat(a[c], 64)
		y, erry := strconv.ParseFloat(b[c], 64)
		if errx == nil && erry == nil && !math.IsNaN(x) && !math.IsNaN(y) {
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
