package summary

import (
	"fmt"
	"io"
	"math"

	"github.com/rankeval/rankeval/report"
	"github.com/rankeval/rankeval/stats"
)

// WriteReport writes the HTML report: the same figures as the summary.
func (r *Results) WriteReport(w io.Writer) error {
	c := r.Run
	d := &report.Data{Title: "rankeval report", Version: c.Version, Inputs: c.Inputs, Bootstrap: c.Bootstrap, SliceCols: c.Slices}
	set := r.Agg.Sys[0]
	d.Lines = append(d.Lines, fmt.Sprintf("%d rows, %d queries, %d with no relevant row (empty: %s).", set.Rows, set.Queries, set.Empty, c.Options.Empty))
	d.Lines = append(d.Lines, fmt.Sprintf("Ties %s, gain %s, max grade %g.", c.Options.Ties, c.Options.Gain, c.Options.MaxGrade))
	for s := range r.nsys {
		for _, l := range outcomeLines(c, r.outc[s]) {
			if r.nsys > 1 {
				l = r.systems[s] + ": " + l
			}
			d.Lines = append(d.Lines, l+".")
		}
	}
	for _, m := range c.Metrics {
		d.Metrics = append(d.Metrics, m.Name)
	}
	noBoot := report.Interval{Lo: math.NaN(), Hi: math.NaN()}
	stat := func(s stats.Summary, boot report.Interval) report.Stat {
		return report.Stat{Mean: s.Mean, N: s.N, CI: report.Interval{Lo: s.Lo, Hi: s.Hi}, Boot: boot}
	}
	diff := func(p stats.Paired) report.Diff {
		return report.Diff{N: p.N, Mean: p.Mean, CI: report.Interval{Lo: p.Lo, Hi: p.Hi}, Boot: report.Interval{Lo: p.BootLo, Hi: p.BootHi},
			Effect: p.Effect.D, EffectCI: report.Interval{Lo: p.Effect.Lo, Hi: p.Effect.Hi}, MDEText: mdeText(p.MDE),
			P: p.P, PAdj: p.PAdj, Sig: p.Significant(), PText: pval(p.P, ""), PAdjText: pval(p.PAdj, "")}
	}
	for s := range r.nsys {
		sys := report.System{Name: r.systems[s], Rows: r.Agg.Sys[s].Rows, Queries: r.Agg.Sys[s].Queries, Empty: r.Agg.Sys[s].Empty, Missing: r.Agg.Missing[s]}
		for _, m := range c.missing() {
			sys.RowNotes = append(sys.RowNotes, m.line(m.rows(r.Agg.Sys[s])))
		}
		if sys.Name == "" {
			sys.Name = c.Columns.Score
			if sys.Name == "" {
				sys.Name = c.Columns.Rank
			}
		}
		for m := range c.Metrics {
			boot := noBoot
			if r.boot != nil {
				boot = report.Interval{Lo: r.boot[s][m][0], Hi: r.boot[s][m][1]}
			}
			sys.Stats = append(sys.Stats, stat(r.sys[s][m], boot))
			h := r.Agg.Hist[s][m]
			var bins []report.Bin
			for i, n := range h.Counts {
				lo, hi := h.Edges(i)
				bins = append(bins, report.Bin{Lo: lo, Hi: hi, Count: n})
			}
			sys.Hists = append(sys.Hists, bins)
		}
		d.Systems = append(d.Systems, sys)
	}
	for f, cv := range c.Curves {
		rc := report.Curve{Family: cv.Family}
		for _, m := range cv.Metrics {
			rc.K = append(rc.K, m.K)
		}
		for s := range r.nsys {
			var row []report.Stat
			for _, sm := range r.curves[f][s] {
				row = append(row, stat(sm, noBoot))
			}
			rc.Sys = append(rc.Sys, row)
		}
		d.Curves = append(d.Curves, rc)
	}
	if len(r.pairs) > 0 {
		d.Test, d.Correction, d.TestNote = testShort[c.Compare.Test], corrShort[c.Correction], c.TestNote()
		d.PowerNote = PowerNote
	}
	for _, ps := range r.pairs {
		for _, l := range r.detectLines(ps) {
			d.Detect = append(d.Detect, r.systems[ps[0].J]+" vs "+r.systems[ps[0].I]+": "+l)
		}
		pr := report.Pair{I: ps[0].I, J: ps[0].J}
		for _, x := range ps {
			pr.Diffs = append(pr.Diffs, diff(x))
		}
		d.Pairs = append(d.Pairs, pr)
	}
	for _, i := range r.order {
		sr := &r.slices[i]
		sl := report.Slice{Key: sr.key, Queries: sr.sys[0][countMetric(c.Metrics)].N}
		for s := range r.nsys {
			var row []report.Stat
			for _, sm := range sr.sys[s] {
				row = append(row, stat(sm, noBoot))
			}
			sl.Stats = append(sl.Stats, row)
		}
		for _, ps := range sr.pairs {
			var row []report.Diff
			for _, x := range ps {
				row = append(row, diff(x))
			}
			sl.Diffs = append(sl.Diffs, row)
		}
		d.Slices = append(d.Slices, sl)
	}
	return report.Write(w, d)
}
