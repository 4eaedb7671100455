package summary

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/rankeval/rankeval/internal/printable"
	"github.com/rankeval/rankeval/stats"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/metrics"
)

// Text writes the summary as tables a person reads.
func (r *Results) Text() []byte {
	c := r.Run
	var w bytes.Buffer
	width := len("metric")
	for _, m := range c.Metrics {
		width = max(width, len(m.Name))
	}
	for s := range r.nsys {
		if r.nsys > 1 {
			role := ""
			if s == 0 {
				role = " (baseline)"
			}
			fmt.Fprintf(&w, "%s%s: %d rows, %d queries, %d missing\n", printable.String(r.systems[s]), role, r.Agg.Sys[s].Rows, r.Agg.Sys[s].Queries, r.Agg.Missing[s])
		}
		fmt.Fprintf(&w, "%-*s  %8s  %-19s  %9s", width, "metric", "mean", "95% CI", "queries")
		if r.boot != nil {
			fmt.Fprintf(&w, "  %-19s", "95% CI (bootstrap)")
		}
		w.WriteByte('\n')
		for i, m := range c.Metrics {
			sm := r.sys[s][i]
			fmt.Fprintf(&w, "%-*s  %8s  %-19s  %9d", width, m.Name, meanText(m, sm.Mean), interval4(sm.Lo, sm.Hi), sm.N)
			if r.boot != nil {
				fmt.Fprintf(&w, "  %-19s", interval4(r.boot[s][i][0], r.boot[s][i][1]))
			}
			w.WriteByte('\n')
		}
		writeOutcomes(&w, c, r.outc[s])
		if r.nsys > 1 {
			w.WriteByte('\n')
		}
	}
	for _, ps := range r.pairs {
		if !slices.ContainsFunc(c.Metrics, func(m metrics.Metric) bool { return !m.Pair() || ps[0].I > 0 }) {
			continue // only rank similarities, which the baseline does not have
		}
		fmt.Fprintf(&w, "%s vs %s: difference of means over the queries both define\n", printable.String(r.systems[ps[0].J]), printable.String(r.systems[ps[0].I]))
		fmt.Fprintf(&w, "%-*s  %9s  %-21s  %-21s  %9s  %9s  %9s", width, "metric", "diff", "95% CI (t)", "effect d_z [95% CI]", "MDE (80%)", "p ("+testShort[c.Compare.Test]+")", "p ("+corrShort[c.Correction]+")")
		if c.Bootstrap > 0 {
			fmt.Fprintf(&w, "  %-21s", "95% CI (bootstrap)")
		}
		w.WriteByte('\n')
		for i, m := range c.Metrics {
			d := ps[i]
			if toBaseline(m, &d) {
				continue
			}
			fmt.Fprintf(&w, "%-*s  %9s  %-21s  %-21s  %9s  %9s  %9s", width, m.Name, signed4(d.Mean)+star(&d), signedInterval4(d.Lo, d.Hi), effectText(d.Effect), mdeText(d.MDE), pval(d.P, "-"), pval(d.PAdj, "-"))
			if c.Bootstrap > 0 {
				fmt.Fprintf(&w, "  %-21s", signedInterval4(d.BootLo, d.BootHi))
			}
			w.WriteByte('\n')
		}
		if ls := r.detectLines(ps); len(ls) > 0 {
			w.WriteString("needed to detect a difference at 80% power (paired t, two-sided, alpha 0.05):\n")
			for _, l := range ls {
				fmt.Fprintf(&w, "  %s\n", l)
			}
		}
		w.WriteByte('\n')
	}
	if len(r.pairs) > 0 {
		fmt.Fprintf(&w, "comparisons: %s; * marks p (%s) < 0.05.\n", c.TestNote(), corrShort[c.Correction])
		fmt.Fprintf(&w, "%s.\n", PowerNote)
		if warn := permutationFloor(c, r.pairs); warn != "" {
			fmt.Fprintf(&w, "warning: %s\n", warn)
		}
		w.WriteByte('\n')
	}
	if len(c.Slices) > 0 {
		if r.nsys == 1 {
			w.WriteByte('\n')
		}
		formatSlicesText(&w, c, r)
	}
	if r.nsys == 1 && len(c.Slices) == 0 {
		w.WriteByte('\n')
	}
	writeFooter(&w, c, r.Agg, c.Gates)
	return w.Bytes()
}

// formatSlicesText prints one line per slice: its queries and the
// baseline's means, then each other system's differences, starred where
// the corrected p (the t-test's: slices have no replicates) is below 0.05.
func formatSlicesText(w *bytes.Buffer, c *Run, r *Results) {
	keyW := len(printableKey(c.Slices))
	for _, sr := range r.slices {
		keyW = max(keyW, len(printableKey(sr.key)))
	}
	colW := 8
	for _, m := range c.Metrics {
		colW = max(colW, len(m.Name)+1)
	}
	head := func(title string) {
		fmt.Fprintf(w, "%s\n%-*s  %9s", title, keyW, printableKey(c.Slices), "queries")
		for _, m := range c.Metrics {
			fmt.Fprintf(w, "  %*s", colW, m.Name)
		}
		w.WriteByte('\n')
	}
	// The queries column counts as the overall table does: the queries
	// behind a mean (an empty query left out under --empty skip is not
	// one), of the first metric that is not a correlation.
	m0 := countMetric(c.Metrics)
	title := "slices: means"
	if r.nsys > 1 {
		title += " of " + printable.String(r.systems[0])
	}
	head(fmt.Sprintf("%s (queries: those behind the %s mean, as in the table above)", title, c.Metrics[m0].Name))
	for _, i := range r.order {
		sr := &r.slices[i]
		fmt.Fprintf(w, "%-*s  %9d", keyW, printableKey(sr.key), sr.sys[0][m0].N)
		for m := range c.Metrics {
			fmt.Fprintf(w, "  %*s", colW, meanText(c.Metrics[m], sr.sys[0][m].Mean))
		}
		w.WriteByte('\n')
	}
	w.WriteByte('\n')
	for p, pr := range r.Agg.L.Pairs() {
		head(fmt.Sprintf("slices: %s - %s (* p (%s) < 0.05, t-test; queries: those behind the %s difference)", printable.String(r.systems[pr[1]]), printable.String(r.systems[pr[0]]), corrShort[c.Correction], c.Metrics[m0].Name))
		for _, i := range r.order {
			sr := &r.slices[i]
			fmt.Fprintf(w, "%-*s  %9d", keyW, printableKey(sr.key), sr.pairs[p][m0].N)
			for m := range c.Metrics {
				d := sr.pairs[p][m]
				fmt.Fprintf(w, "  %*s", colW, signed4(d.Mean)+star(&d))
			}
			w.WriteByte('\n')
		}
		w.WriteByte('\n')
	}
}

// testShort and corrShort name a test and a correction in a column head.
var (
	testShort = map[stats.Test]string{stats.TestT: "t", stats.TestRandom: "rand.", stats.TestTukey: "Tukey"}
	corrShort = map[stats.Correction]string{stats.CorrHolm: "Holm", stats.CorrBH: "BH", stats.CorrNone: "uncorr."}
)

// effectText is an effect size and its interval, two decimals.
func effectText(e stats.Effect) string {
	if math.IsNaN(e.D) {
		return "-"
	}
	if math.IsNaN(e.Lo) || math.IsNaN(e.Hi) {
		return fmt.Sprintf("%+.2f", e.D)
	}
	return fmt.Sprintf("%+.2f [%+.2f, %+.2f]", e.D, e.Lo, e.Hi)
}

// star marks a significant difference.
func star(d *stats.Paired) string {
	if d.Significant() {
		return "*"
	}
	return " "
}

// meanText is a summary figure: a count's total as a whole number, any
// other mean with 4 decimals.
func meanText(m metrics.Metric, v float64) string {
	if m.Count() && !math.IsNaN(v) {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return num4(v)
}

func num4(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.4f", v)
}

func signed4(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%+.4f", v)
}

func interval4(lo, hi float64) string {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return "-"
	}
	return fmt.Sprintf("[%.4f, %.4f]", lo, hi)
}

func signedInterval4(lo, hi float64) string {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return "-"
	}
	return fmt.Sprintf("[%+.4f, %+.4f]", lo, hi)
}

// pval prints a p-value with the digits that matter, for every rendering
// a person reads (the text summary, the HTML report): four decimals, and
// "< 0.0001" below that, where more digits tell a reader nothing (and a
// tail that underflows to 0 would print as 0.0e+00). NaN prints as
// undefined, the rendering's mark for a missing figure.
func pval(p float64, undefined string) string {
	switch {
	case math.IsNaN(p):
		return undefined
	case p < 1e-4:
		return "< 0.0001"
	}
	return fmt.Sprintf("%.4f", p)
}

// writeFooter ends a text summary, for one system or several alike: the
// counts of set (system 0, the baseline), the conventions in force, and
// the quality gates.
func writeFooter(w *bytes.Buffer, c *Run, a *aggregate.Analysis, g *Gates) {
	o, dedupFirst, set := c.Options, c.DedupFirst, a.Sys[0]
	rel := "label > 0"
	if o.HasThreshold {
		rel = "label >= " + strconv.FormatFloat(o.RelThreshold, 'g', -1, 64)
	}
	emptyNote := map[metrics.Empty]string{metrics.EmptySkip: "left out", metrics.EmptyZero: "counted as 0",
		metrics.EmptyOne: "counted as 1", metrics.EmptyError: "an error"}[o.Empty]
	refuses := metrics.RefusesEmpty(c.Metrics, o)
	if o.Empty == metrics.EmptyError && !refuses {
		emptyNote = "no metric asked follows --empty error"
	}
	if slices.ContainsFunc(c.Metrics, metrics.Metric.Clicks) && !refuses {
		emptyNote += "; the click metrics count them, as impressions without a click"
	}
	fmt.Fprintf(w, "%d rows, %d queries, %d with no relevant row (%s).\n", set.Rows, set.Queries, set.Empty, emptyNote)
	if dedupFirst {
		fmt.Fprintf(w, "%d rows dropped as repeats of a doc id within their query (--dedup first).\n", set.Dropped)
	}
	for _, l := range c.missingLines(a) {
		fmt.Fprintf(w, "%s.\n", l)
	}
	fmt.Fprintf(w, "ties %s, gain %s, max grade %g, relevant: %s.\n",
		o.Ties, o.Gain, o.MaxGrade, rel)
	if c.IPS.On() {
		fmt.Fprintf(w, "IPS: a click weighs 1/propensity, the propensity from %s, clipped at %g: %d clicks clipped.\n",
			c.IPS.Source(), o.PropClip, a.Clipped(0))
	}
	writeGates(w, g)
}

// countMetric is the metric whose query count a slice shows, as the
// overall table counts queries: the queries behind its mean (an empty
// query left out under --empty skip is not one). The first metric that
// follows the empty-query policy, whose count follows the relevance of
// rows.
func countMetric(ms []metrics.Metric) int {
	for m, mt := range ms {
		if mt.FollowsEmpty() {
			return m
		}
	}
	return 0
}

// printableKey is a slice's values (or the slice columns' names) as the
// text tables print them: each Printable, joined by "/".
func printableKey(vs []string) string {
	ps := make([]string, len(vs))
	for i, v := range vs {
		ps[i] = printable.String(v)
	}
	return strings.Join(ps, "/")
}
