package report

import (
	"fmt"
	"html"
	"math"

	"github.com/rankeval/rankeval/internal/printable"
)

// The comparisons: the table of differences, the forest plots and the
// matrix of every pair.

// pairName is "J − I", the pair's difference in words, each name as
// the report prints it (printable.String): text, to escape for HTML alone.
func (d *Data) pairName(pr Pair) string {
	return minus(d.Systems[pr.J].Name, d.Systems[pr.I].Name)
}

// minus is "a − b" of two names, printable.
func minus(a, b string) string { return printable.String(a) + " − " + printable.String(b) }

// baselineOnly reports whether every pair compares a system with the
// baseline (--pairs baseline).
func (d *Data) baselineOnly() bool {
	for _, pr := range d.Pairs {
		if pr.I != 0 {
			return false
		}
	}
	return true
}

// pHead is a p-value's column head: "p (t)", "p (Holm)"; "p" unnamed.
func pHead(name string) string {
	if name == "" {
		return "p"
	}
	return "p (" + name + ")"
}

// differences is the summary's table of every pair's differences.
func (r *renderer) differences() {
	d := r.d
	boot := d.Bootstrap > 0
	title := "Differences between systems"
	if d.baselineOnly() {
		title = "Differences from the baseline"
	}
	r.p("<h3>%s</h3>\n<table class=\"num\">\n<thead><tr><th>systems</th><th>metric</th><th>difference</th><th>95%% CI (t)</th><th>effect d<sub>z</sub> [95%% CI]</th><th>MDE (80%%)</th><th>%s</th><th>%s</th>",
		title, esc(pHead(d.Test)), esc(pHead(d.Correction)))
	if boot {
		r.p("<th>95%% CI (bootstrap)</th>")
	}
	r.p("<th>queries</th></tr></thead>\n<tbody>\n")
	for _, pr := range d.Pairs {
		for m, name := range d.Metrics {
			df := pr.Diffs[m]
			r.p("<tr>")
			if m == 0 {
				r.p("<th rowspan=\"%d\" class=\"sys\"><span class=\"swatch\" style=\"background:%s\"></span>%s</th>", len(d.Metrics), color(pr.J), html.EscapeString(d.pairName(pr)))
			}
			cls := ""
			if df.Sig {
				cls = " class=\"sig\""
			}
			r.p("<td class=\"name\">%s</td><td%s>%s</td><td>%s</td><td>%s %s</td><td>%s</td><td>%s</td><td%s>%s</td>", esc(name), cls, s4(df.Mean), ci(df.CI, true),
				s2(df.Effect), ci2(df.EffectCI), esc(df.MDEText), esc(ptext(df.PText)), cls, esc(ptext(df.PAdjText)))
			if boot {
				r.p("<td>%s</td>", ci(df.Boot, true))
			}
			r.p("<td>%d</td></tr>\n", df.N)
		}
	}
	r.p("</tbody></table>\n<p class=\"note\">Each difference is the first system minus the second, over the queries where both define the metric, with its 95%% t interval; d<sub>z</sub> is the difference over the standard deviation of the per-query differences, its interval from the noncentral t. %s. %s%s &lt; 0.05.</p>\n",
		esc(d.PowerNote), r.howTested(), esc(pHead(d.Correction)))
	if len(d.Detect) > 0 {
		r.p("<p class=\"note\">Needed to detect a difference at 80%% power (paired t, two-sided, alpha 0.05):</p>\n<ul class=\"note\">\n")
		for _, l := range d.Detect {
			r.p("<li>%s</li>\n", esc(l))
		}
		r.p("</ul>\n")
	}
}

// figures is a difference's hover text: the mean, the intervals, the
// p-values and the queries.
func (d *Data) figures(df Diff) string {
	s := fmt.Sprintf("%s, 95%% CI %s, d_z %s, %s, %s", s4(df.Mean), ci(df.CI, true), s2(df.Effect), peq(pHead(d.Test), df.PText), peq(pHead(d.Correction), df.PAdjText))
	if d.Bootstrap > 0 {
		s += ", bootstrap CI " + ci(df.Boot, true)
	}
	return s + fmt.Sprintf(", %d queries", df.N)
}

// howTested names the run's test and correction for a note, ending in
// "Bold: " for the mark it explains.
func (r *renderer) howTested() string {
	if r.d.TestNote == "" {
		return "Bold: "
	}
	return "Comparisons: " + esc(r.d.TestNote) + ". Bold: "
}

// forestRow is one row of a forest plot: a difference with its intervals.
type forestRow struct {
	label string // printable (middle), short enough for the chart
	tip   string // the row's hover text, before its figures
	df    Diff
	color string // of a row whose corrected p is below 0.05
}

// forest draws the differences: with one pair, one chart with a row per
// metric (a chart per metric would hold a row each); with more, a chart
// per metric with a row per pair, so that pairs compare on their metric's
// scale.
func (r *renderer) forest() {
	d := r.d
	r.p("<section id=\"comparison\">\n<h2>Comparison: differences with 95%% intervals</h2>\n")
	if len(d.Pairs) == 1 {
		pr := d.Pairs[0]
		name := d.pairName(pr)
		var rows []forestRow
		for m, metric := range d.Metrics {
			rows = append(rows, forestRow{label: middle(metric, labelChars(760)), tip: metric, df: pr.Diffs[m], color: color(pr.J)})
		}
		r.forestChart(name+": difference per metric with 95% intervals", "difference ("+name+")", rows, 760)
		r.p("<p class=\"note\">Each row is one metric: ")
	} else {
		r.p("<div class=\"grid2\">\n")
		for m, metric := range d.Metrics {
			var rows []forestRow
			for _, pr := range d.Pairs {
				label := shortPair(d.Systems[pr.J].Name, d.Systems[pr.I].Name, labelChars(560))
				rows = append(rows, forestRow{label: label, tip: d.pairName(pr) + ", " + metric, df: pr.Diffs[m], color: color(pr.J)})
			}
			r.forestChart(metric+": difference per pair with 95% intervals", "difference in "+metric, rows, 560)
		}
		r.p("</div>\n<p class=\"note\">Each chart is one metric, each row one pair, the first system minus the second: ")
	}
	r.p("the dot is the mean difference, the thick line its 95%% t interval")
	if d.Bootstrap > 0 {
		r.p(", the thin line below it the Poisson-bootstrap percentile interval")
	}
	r.p("; the dashed line is no difference. In colour where %s &lt; 0.05, grey otherwise. Hover for the figures.</p>\n</section>\n", esc(pHead(d.Correction)))
}

// charW is the width of a tick label's character, near enough to size a
// margin.
const charW = 7.0

// labelChars is how many characters a forest chart of width w gives its
// row labels: two fifths of it.
func labelChars(w float64) int { return int(w * 0.4 / charW) }

// middle is s as the report prints it (printable.String), cut to n
// characters in the middle, where "…" stands for the rest: the ends of
// names tell them apart (a model's version) more often than their middles.
func middle(s string, n int) string {
	rs := []rune(printable.String(s))
	if len(rs) <= n {
		return string(rs)
	}
	n = max(n, 2)
	head := n / 2
	return string(rs[:head]) + "…" + string(rs[len(rs)-(n-1-head):])
}

// shortPair is "a − b" in at most n characters: a name shorter than its
// half is kept whole, the other cut in the middle. Printable, not escaped.
func shortPair(a, b string, n int) string {
	la, lb := len([]rune(printable.String(a))), len([]rune(printable.String(b)))
	avail := n - 3
	na, nb := la, lb
	if la+lb > avail {
		switch {
		case la <= avail/2:
			nb = avail - la
		case lb <= avail/2:
			na = avail - lb
		default:
			na = (avail + 1) / 2
			nb = avail - na
		}
	}
	return middle(a, na) + " − " + middle(b, nb)
}

func (r *renderer) forestChart(title, xTitle string, rows []forestRow, w float64) {
	d := r.d
	rowH := 34.0
	// the labels' margin grows with them, up to labelChars
	longest := 0
	for _, row := range rows {
		longest = max(longest, len([]rune(row.label)))
	}
	f := &frame{w: w, left: math.Max(90, float64(float64(longest)*charW)+20), right: 30, top: 30, bot: 46}
	f.h = f.top + f.bot + float64(rowH*float64(len(rows)))
	lo, hi := 0.0, 0.0
	for _, row := range rows {
		df := row.df
		for _, v := range []float64{df.Mean, df.CI.Lo, df.CI.Hi, df.Boot.Lo, df.Boot.Hi} {
			if !math.IsNaN(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if hi-lo == 0 {
		lo, hi = -0.01, 0.01
	}
	pad := float64((hi - lo) * 0.08)
	f.x0, f.x1 = lo-pad, hi+pad
	f.y0, f.y1 = 0, 1
	r.p("<figure>\n")
	r.svgOpen(f, title)
	xt := ticks(f.x0, f.x1, int(w/110))
	for _, v := range xt {
		x := f.X(v)
		r.p("<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", x, x, f.top, f.h-f.bot)
	}
	r.axes(f, xt, nil, nil, xTitle, "", false)
	r.p("<line class=\"zero\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>\n", f.X(0), f.X(0), f.top-6, f.h-f.bot)
	for i, row := range rows {
		df := row.df
		y := f.top + float64(rowH*(float64(i)+0.5))
		r.p("<g class=\"row\">")
		r.p("<title>%s</title>", html.EscapeString(row.tip+": difference "+d.figures(df)))
		r.p("<rect class=\"hover\" x=\"0\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>", y-rowH/2, f.w, rowH)
		col, cls := "#555", "tick"
		if df.Sig {
			col, cls = row.color, "tick sig"
		}
		r.p("<text class=\"%s\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" dominant-baseline=\"middle\">%s</text>", cls, f.left-10, y, html.EscapeString(row.label))
		if !math.IsNaN(df.CI.Lo) {
			r.p("<line class=\"ci\" stroke=\"%s\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", col, f.X(df.CI.Lo), f.X(df.CI.Hi), y, y)
		}
		if !math.IsNaN(df.Boot.Lo) {
			r.p("<line class=\"boot\" stroke=\"%s\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", col, f.X(df.Boot.Lo), f.X(df.Boot.Hi), y+7, y+7)
		}
		if !math.IsNaN(df.Mean) {
			r.p("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\"/>", f.X(df.Mean), y, col)
		}
		r.p("</g>\n")
	}
	r.p("</svg>\n<figcaption>%s</figcaption>\n</figure>\n", html.EscapeString(title))
}

// matrixShown reports whether the report has the matrix of every pair:
// with three systems or more (two make one pair, shown above it).
func (r *renderer) matrixShown() bool { return len(r.d.Systems) >= 3 && len(r.d.Pairs) > 0 }

// Letter names system s in the matrix's columns and in the summary's
// table of all pairs: a to z, then aa, ab...
func Letter(s int) string {
	if s < 26 {
		return string(rune('a' + s))
	}
	return Letter(s/26-1) + Letter(s%26)
}

// flip is a pair's difference the other way round: I minus J.
func flip(df Diff) Diff {
	df.Mean = -df.Mean + 0 // + 0 turns -0 into 0
	df.CI = Interval{-df.CI.Hi + 0, -df.CI.Lo + 0}
	df.Boot = Interval{-df.Boot.Hi + 0, -df.Boot.Lo + 0}
	df.Effect = -df.Effect + 0
	df.EffectCI = Interval{Lo: -df.EffectCI.Hi + 0, Hi: -df.EffectCI.Lo + 0}
	return df
}

// matrix draws per metric a table of systems × systems whose cell (i, j)
// is system i minus system j, from the pair of the two (flipped when
// i < j); "–" where the run did not compare them.
func (r *renderer) matrix() {
	d := r.d
	pair := map[[2]int]int{} // (I, J) to index in d.Pairs
	for p, pr := range d.Pairs {
		pair[[2]int{pr.I, pr.J}] = p
	}
	r.p("<section id=\"all-pairs\">\n<h2>All pairs</h2>\n<div class=\"tables\">\n")
	for m, metric := range d.Metrics {
		// columns go by the rows' letters, so that long names do not
		// widen the table; the rows name the systems, cut in the middle
		r.p("<div class=\"scroll\">\n<table class=\"num matrix\">\n<caption>%s</caption>\n<thead><tr><th>row − column</th>", esc(metric))
		for j, sys := range d.Systems {
			r.p("<th title=\"%s\"><span class=\"swatch\" style=\"background:%s\"></span>%s</th>", esc(sys.Name), color(j), Letter(j))
		}
		r.p("</tr></thead>\n<tbody>\n")
		for i, row := range d.Systems {
			r.p("<tr><th class=\"sys\" title=\"%s\"><span class=\"swatch\" style=\"background:%s\"></span>(%s) %s</th>", esc(row.Name), color(i), Letter(i), html.EscapeString(middle(row.Name, 32)))
			for j, col := range d.Systems {
				p, ok := pair[[2]int{min(i, j), max(i, j)}]
				switch {
				case i == j:
					r.p("<td class=\"diag\"></td>")
					continue
				case !ok:
					r.p("<td class=\"none\" title=\"%s\">–</td>", html.EscapeString(minus(row.Name, col.Name)+": not compared"))
					continue
				}
				df := d.Pairs[p].Diffs[m]
				if i < j {
					df = flip(df)
				}
				cls := ""
				if df.Sig {
					cls = " class=\"sig up\""
					if df.Mean < 0 {
						cls = " class=\"sig down\""
					}
				}
				tip := minus(row.Name, col.Name) + ", " + metric + ": " + d.figures(df)
				r.p("<td%s title=\"%s\">%s</td>", cls, html.EscapeString(tip), s4(df.Mean))
			}
			r.p("</tr>\n")
		}
		r.p("</tbody></table>\n</div>\n")
	}
	var none string
	if n := len(d.Systems); len(d.Pairs) < n*(n-1)/2 {
		none = "; – where the run did not compare the two (--pairs baseline compares each system with the baseline only; --pairs all compares every pair)"
	}
	r.p("</div>\n<p class=\"note\">Each cell is its row's system minus its column's: the mean of the per-query differences over the queries where both define the metric%s. %s%s &lt; 0.05, on green where the row's system is higher, on red where it is lower. Hover a cell for its interval and p-values.</p>\n</section>\n",
		none, r.howTested(), esc(pHead(d.Correction)))
}

// s2 is an effect size: signed, two decimals ("–" undefined).
func s2(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf("%+.2f", v)
}

// ci2 is an effect size's interval, two decimals; nothing when there is
// none.
func ci2(iv Interval) string {
	if math.IsNaN(iv.Lo) || math.IsNaN(iv.Hi) {
		return ""
	}
	return "[" + s2(iv.Lo) + ", " + s2(iv.Hi) + "]"
}
