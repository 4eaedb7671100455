package summary

import (
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/stats"
)

// JSON writes the summary one metric a line (one slice a line):
// valid JSON that a person can also read and diff.
func (r *Results) JSON() []byte {
	c := r.Run
	b := []byte("{\n  \"metrics\": {")
	b = appendMetrics(b, c, r.sys[0], r.outc[0], r.bootOf(0), "\n    ")
	b = append(b, "\n  }"...)
	b = appendTotals(b, r.Agg.Sys[0], c.DedupFirst)
	b = appendMissing(b, c, r.Agg.Sys[0], "\n  ")
	if c.IPS.On() {
		b = append(b, ",\n  \"clicks_clipped\": "...)
		b = strconv.AppendInt(b, r.Agg.Clipped(0), 10)
	}
	if r.nsys > 1 {
		b = append(b, ",\n  \"systems\": ["...)
		for s := range r.nsys {
			if s > 0 {
				b = append(b, ',')
			}
			b = append(b, "\n    "...)
			b = appendSystem(b, c, r, s, r.sys[s], r.bootOf(s), r.Agg.Sys[s], r.Agg.Missing[s])
		}
		b = append(b, "\n  ],\n  \"comparison\": ["...)
		b = appendComparison(b, c, r, r.pairs, "\n    ", true)
		b = append(b, "\n  ]"...)
	}
	if len(c.Slices) > 0 {
		b = append(b, ",\n  \"slices\": ["...)
		for n, i := range r.order {
			if n > 0 {
				b = append(b, ',')
			}
			b = append(b, "\n    "...)
			b = appendSlice(b, c, r, &r.slices[i])
		}
		b = append(b, "\n  ]"...)
	}
	b = append(b, ",\n  \"options\": "...)
	b = AppendOptions(b, c)
	b = appendGates(b, c.Gates)
	if len(c.Warnings) > 0 {
		b = append(b, ",\n  \"warnings\": "...)
		b = appendStrings(b, c.Warnings)
	}
	if len(c.Settings) > 0 {
		b = append(b, ",\n  \"settings\": {"...)
		for i, k := range slices.Sorted(maps.Keys(c.Settings)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, "\n    "...)
			b = AppendJSONString(b, []byte(k))
			b = append(b, ": "...)
			b = AppendJSONString(b, []byte(c.Settings[k]))
		}
		b = append(b, "\n  }"...)
	}
	b = appendProvenance(b, c)
	return append(b, "\n}\n"...)
}

// appendMetrics writes the members of a metrics object, each after sep.
func appendMetrics(b []byte, c *Run, sums []stats.Summary, outs []*aggregate.Outcomes, boot [][2]float64, sep string) []byte {
	for i, m := range c.Metrics {
		if i > 0 {
			b = append(b, ',')
		}
		s := sums[i]
		if i > 0 || sep[0] == '\n' { // one a line, or inline after a comma
			b = append(b, sep...)
		}
		b = AppendJSONString(b, []byte(m.Name))
		b = append(b, `: {"mean": `...)
		b = AppendJSONFloat(b, s.Mean)
		b = append(b, `, "queries": `...)
		b = strconv.AppendInt(b, s.N, 10)
		b = append(b, `, "ci95": `...)
		b = appendInterval(b, s.Lo, s.Hi)
		if boot != nil {
			b = append(b, `, "ci95_bootstrap": `...)
			b = appendInterval(b, boot[i][0], boot[i][1])
		}
		b = appendOutcomes(b, outs, i)
		b = append(b, '}')
	}
	return b
}

func appendInterval(b []byte, lo, hi float64) []byte {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return append(b, "null"...)
	}
	b = append(b, '[')
	b = AppendJSONFloat(b, lo)
	b = append(b, ", "...)
	b = AppendJSONFloat(b, hi)
	return append(b, ']')
}

// appendCounts writes a system's rows and queries object.
func appendCounts(b []byte, set *aggregate.Set, missing int64) []byte {
	b = strconv.AppendInt(b, set.Rows, 10)
	b = append(b, `, "queries": {"total": `...)
	b = strconv.AppendInt(b, set.Queries, 10)
	b = append(b, `, "empty": `...)
	b = strconv.AppendInt(b, set.Empty, 10)
	b = append(b, `, "missing": `...)
	b = strconv.AppendInt(b, missing, 10)
	return append(b, '}')
}

func appendSystem(b []byte, c *Run, r *Results, s int, sums []stats.Summary, boot [][2]float64, set *aggregate.Set, missing int64) []byte {
	b = append(b, `{"name": `...)
	b = AppendJSONString(b, []byte(r.systems[s]))
	b = append(b, `, "rows": `...)
	b = appendCounts(b, set, missing)
	if c.IPS.On() {
		b = append(b, `, "clicks_clipped": `...)
		b = strconv.AppendInt(b, r.Agg.Clipped(s), 10)
	}
	b = appendMissing(b, c, set, " ")
	b = append(b, `, "metrics": {`...)
	b = appendMetrics(b, c, sums, r.outc[s], boot, " ")
	return append(b, "}}"...)
}

// appendComparison writes one object per pair of systems compared; whole
// is the run's comparisons, with what slices lack (the effect's interval,
// the minimum detectable effect and the --detect answers, and the
// bootstrap's interval when there is one).
func appendComparison(b []byte, c *Run, r *Results, pairs [][]stats.Paired, sep string, whole bool) []byte {
	for p, ps := range pairs {
		if p > 0 {
			b = append(b, ',')
		}
		b = append(b, sep...)
		b = append(b, `{"system": `...)
		b = AppendJSONString(b, []byte(r.systems[ps[0].J]))
		b = append(b, `, "baseline": `...)
		b = AppendJSONString(b, []byte(r.systems[ps[0].I]))
		b = append(b, `, "metrics": {`...)
		for i, m := range c.Metrics {
			if i > 0 {
				b = append(b, ", "...)
			}
			d := ps[i]
			b = AppendJSONString(b, []byte(m.Name))
			b = append(b, `: {"diff": `...)
			b = AppendJSONFloat(b, d.Mean)
			b = append(b, `, "queries": `...)
			b = strconv.AppendInt(b, d.N, 10)
			b = append(b, `, "ci95": `...)
			b = appendInterval(b, d.Lo, d.Hi)
			b = append(b, `, "effect": `...)
			b = AppendJSONFloat(b, d.Effect.D)
			if whole {
				b = append(b, `, "effect_ci95": `...)
				b = appendInterval(b, d.Effect.Lo, d.Effect.Hi)
				b = append(b, `, "mde": `...)
				b = AppendJSONFloat(b, d.MDE)
				b = r.appendDetect(b, i, &d)
			}
			b = append(b, `, "test": `...)
			b = strconv.AppendQuote(b, d.Test.String())
			b = append(b, `, "statistic": `...)
			b = AppendJSONFloat(b, d.Statistic())
			b = append(b, `, "p": `...)
			b = AppendJSONFloat(b, d.P)
			b = append(b, `, "p_corrected": `...)
			b = AppendJSONFloat(b, d.PAdj)
			if whole && c.Bootstrap > 0 {
				b = append(b, `, "ci95_bootstrap": `...)
				b = appendInterval(b, d.BootLo, d.BootHi)
			}
			b = append(b, '}')
		}
		b = append(b, "}}"...)
	}
	return b
}

// appendSlice writes one slice in the summary's own shape.
func appendSlice(b []byte, c *Run, r *Results, sr *sliceResult) []byte {
	b = append(b, `{"key": {`...)
	for i, col := range c.Slices {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = AppendJSONString(b, []byte(col))
		b = append(b, ": "...)
		b = AppendJSONString(b, []byte(sr.key[i]))
	}
	b = append(b, `}, "rows": `...)
	b = appendSliceCounts(b, sr.sl, 0, false)
	b = append(b, `, "metrics": {`...)
	b = appendMetrics(b, c, sr.sys[0], sr.outc[0], nil, " ")
	b = append(b, '}')
	if r.nsys > 1 {
		b = append(b, `, "systems": [`...)
		for s := range r.nsys {
			if s > 0 {
				b = append(b, ", "...)
			}
			b = append(b, `{"name": `...)
			b = AppendJSONString(b, []byte(r.systems[s]))
			b = append(b, `, "rows": `...)
			b = appendSliceCounts(b, sr.sl, s, true)
			b = append(b, `, "metrics": {`...)
			b = appendMetrics(b, c, sr.sys[s], sr.outc[s], nil, " ")
			b = append(b, "}}"...)
		}
		b = append(b, `], "comparison": [`...)
		b = appendComparison(b, c, r, sr.pairs, "", false)
		b = append(b, ']')
	}
	return append(b, '}')
}

func appendSliceCounts(b []byte, sl *aggregate.Slice, s int, missing bool) []byte {
	b = strconv.AppendInt(b, sl.Rows[s], 10)
	b = append(b, `, "queries": {"total": `...)
	b = strconv.AppendInt(b, sl.Queries[s], 10)
	b = append(b, `, "empty": `...)
	b = strconv.AppendInt(b, sl.Empty[s], 10)
	if missing {
		b = append(b, `, "missing": `...)
		b = strconv.AppendInt(b, sl.Missing[s], 10)
	}
	return append(b, '}')
}

// appendTotals appends the summary's "rows" and "queries" members (and
// "duplicates_dropped" under --dedup first), each after a comma.
func appendTotals(b []byte, set *aggregate.Set, dedupFirst bool) []byte {
	b = append(b, ",\n  \"rows\": "...)
	b = strconv.AppendInt(b, set.Rows, 10)
	b = append(b, ",\n  \"queries\": {\"total\": "...)
	b = strconv.AppendInt(b, set.Queries, 10)
	b = append(b, `, "empty": `...)
	b = strconv.AppendInt(b, set.Empty, 10)
	b = append(b, '}')
	if dedupFirst {
		b = append(b, ",\n  \"duplicates_dropped\": "...)
		b = strconv.AppendInt(b, set.Dropped, 10)
	}
	return b
}
