// Package report writes a run's figures as one self-contained HTML file:
// tables, and charts drawn as inline SVG (no chart library, no network at
// view time). It knows nothing of how the figures were computed; the
// command fills a Data and calls Write.
package report

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"math"
	"strconv"
	"strings"
)

// Interval is a confidence interval; NaN bounds mean there is none.
type Interval struct{ Lo, Hi float64 }

// Stat is one mean.
type Stat struct {
	Mean float64 // NaN when no query counts
	N    int64
	CI   Interval // normal approximation
	Boot Interval // Poisson bootstrap (NaN without one)
}

// Bin is one histogram bar: values in [Lo, Hi) (Lo == Hi: exactly Lo).
type Bin struct {
	Lo, Hi float64
	Count  int64
}

// System is one evaluated system (one model).
type System struct {
	Name                          string
	Rows, Queries, Empty, Missing int64
	Stats                         []Stat  // per metric
	Hists                         [][]Bin // per metric
}

// Curve is a metric family at k = K[0], K[1], ...
type Curve struct {
	Family string   // "ndcg", "p", "r", "err"
	K      []int    // cutoffs
	Sys    [][]Stat // per system, per cutoff
}

// Diff is a system's difference from the baseline on one metric.
type Diff struct {
	N        int64
	Mean     float64
	CI, Boot Interval
	P, PHolm float64
}

// Pair is one system against the baseline.
type Pair struct {
	System, Baseline string
	Diffs            []Diff // per metric
}

// Slice is one combination of the slice columns' values.
type Slice struct {
	Key     []string
	Queries int64
	Stats   [][]Stat // per system, per metric
	Diffs   [][]Diff // per pair, per metric
}

// Data is everything a report shows.
type Data struct {
	Title     string
	Lines     []string // shown under the title: inputs, options
	Metrics   []string // metric names, in the order asked
	Systems   []System // the baseline first
	Curves    []Curve
	Pairs     []Pair
	SliceCols []string
	Slices    []Slice
	Bootstrap int
}

// palette colours systems in every chart, the baseline first.
var palette = []string{"#1f5fa8", "#d1495b", "#2a9d5c", "#8e5cc4", "#e08a1e", "#6b4f3a", "#3aa3b8", "#777777"}

func color(s int) string { return palette[s%len(palette)] }

// Write renders d.
func Write(w io.Writer, d *Data) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	r := &renderer{w: bw, d: d}
	r.page()
	return bw.Flush()
}

type renderer struct {
	w *bufio.Writer
	d *Data
	n int // charts so far, for unique ids
}

func (r *renderer) p(format string, a ...any) { fmt.Fprintf(r.w, format, a...) }

func esc(s string) string { return html.EscapeString(s) }

func (r *renderer) page() {
	d := r.d
	r.p("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>%s</title>\n", esc(d.Title))
	r.p("<style>%s</style>\n", css)
	// The error handler comes first so that a failure of any later script
	// shows on the page instead of leaving a half-drawn report.
	r.p("<script>%s</script>\n</head>\n<body>\n", errorScript)
	r.p("<div id=\"script-error\" class=\"error\" hidden></div>\n")
	r.p("<h1>%s</h1>\n", esc(d.Title))
	for _, l := range d.Lines {
		r.p("<p class=\"meta\">%s</p>\n", esc(l))
	}
	r.p("<nav>")
	for _, s := range r.sections() {
		r.p("<a href=\"#%s\">%s</a> ", s[0], s[1])
	}
	r.p("</nav>\n")
	r.summary()
	if len(d.Pairs) > 0 {
		r.forest()
	}
	if len(d.Curves) > 0 {
		r.curves()
	}
	r.histograms()
	if len(d.Slices) > 0 {
		r.slices()
	}
	r.p("<script>%s</script>\n</body>\n</html>\n", pageScript)
}

func (r *renderer) sections() [][2]string {
	out := [][2]string{{"summary", "Summary"}}
	if len(r.d.Pairs) > 0 {
		out = append(out, [2]string{"comparison", "Comparison"})
	}
	if len(r.d.Curves) > 0 {
		out = append(out, [2]string{"curves", "Metric@k"})
	}
	out = append(out, [2]string{"distributions", "Distributions"})
	if len(r.d.Slices) > 0 {
		out = append(out, [2]string{"slices", "Slices"})
	}
	return out
}

// ---- numbers

func f4(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return strconv.FormatFloat(v, 'f', 4, 64)
}

func s4(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf("%+.4f", v)
}

func ci(iv Interval, signed bool) string {
	if math.IsNaN(iv.Lo) || math.IsNaN(iv.Hi) {
		return "–"
	}
	if signed {
		return "[" + s4(iv.Lo) + ", " + s4(iv.Hi) + "]"
	}
	return "[" + f4(iv.Lo) + ", " + f4(iv.Hi) + "]"
}

func pfmt(p float64) string {
	switch {
	case math.IsNaN(p):
		return "–"
	case p < 1e-4:
		return strconv.FormatFloat(p, 'e', 1, 64)
	}
	return strconv.FormatFloat(p, 'f', 4, 64)
}

// dataV is a sort key attribute for a table cell; undefined sorts last.
func dataV(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return fmt.Sprintf(" data-v=\"%s\"", strconv.FormatFloat(v, 'g', -1, 64))
}

// ---- sections

func (r *renderer) summary() {
	d := r.d
	boot := d.Bootstrap > 0
	r.p("<section id=\"summary\">\n<h2>Summary</h2>\n")
	r.p("<table class=\"num\">\n<thead><tr><th>system</th><th>metric</th><th>mean</th><th>95%% CI</th>")
	if boot {
		r.p("<th>95%% CI (bootstrap, %d)</th>", d.Bootstrap)
	}
	r.p("<th>queries</th></tr></thead>\n<tbody>\n")
	for s, sys := range d.Systems {
		for m, name := range d.Metrics {
			st := sys.Stats[m]
			r.p("<tr>")
			if m == 0 {
				role := ""
				if s == 0 && len(d.Systems) > 1 {
					role = " <small>(baseline)</small>"
				}
				r.p("<th rowspan=\"%d\" class=\"sys\"><span class=\"swatch\" style=\"background:%s\"></span>%s%s<br><small>%d queries, %d rows</small></th>",
					len(d.Metrics), color(s), esc(sys.Name), role, sys.Queries, sys.Rows)
			}
			r.p("<td class=\"name\">%s</td><td>%s</td><td>%s</td>", esc(name), f4(st.Mean), ci(st.CI, false))
			if boot {
				r.p("<td>%s</td>", ci(st.Boot, false))
			}
			r.p("<td>%d</td></tr>\n", st.N)
		}
	}
	r.p("</tbody></table>\n")
	if len(d.Pairs) > 0 {
		r.p("<h3>Differences from the baseline</h3>\n<table class=\"num\">\n<thead><tr><th>system</th><th>metric</th><th>difference</th><th>95%% CI (t)</th><th>p (paired t)</th><th>p (Holm)</th>")
		if boot {
			r.p("<th>95%% CI (bootstrap)</th>")
		}
		r.p("<th>queries</th></tr></thead>\n<tbody>\n")
		for _, pr := range d.Pairs {
			for m, name := range d.Metrics {
				df := pr.Diffs[m]
				r.p("<tr>")
				if m == 0 {
					r.p("<th rowspan=\"%d\" class=\"sys\">%s − %s</th>", len(d.Metrics), esc(pr.System), esc(pr.Baseline))
				}
				cls := ""
				if df.PHolm < 0.05 {
					cls = " class=\"sig\""
				}
				r.p("<td class=\"name\">%s</td><td%s>%s</td><td>%s</td><td>%s</td><td%s>%s</td>", esc(name), cls, s4(df.Mean), ci(df.CI, true), pfmt(df.P), cls, pfmt(df.PHolm))
				if boot {
					r.p("<td>%s</td>", ci(df.Boot, true))
				}
				r.p("<td>%d</td></tr>\n", df.N)
			}
		}
		r.p("</tbody></table>\n<p class=\"note\">Differences are system minus baseline, over the queries where both define the metric. p is the paired t-test's two-sided p-value; Holm's correction is across the metrics of each system. Bold: Holm p &lt; 0.05.</p>\n")
	}
	r.p("</section>\n")
}

func (r *renderer) forest() {
	d := r.d
	r.p("<section id=\"comparison\">\n<h2>Comparison: differences with 95%% intervals</h2>\n")
	for _, pr := range d.Pairs {
		r.forestChart(pr)
	}
	r.p("<p class=\"note\">Each row is one metric: the dot is the mean difference, the thick line its 95%% t interval")
	if d.Bootstrap > 0 {
		r.p(", the thin line below it the Poisson-bootstrap percentile interval")
	}
	r.p("; the dashed line is no difference. Hover for the figures.</p>\n</section>\n")
}

// ---- charts

// frame is a plot area inside an SVG: data coordinates map to pixels.
type frame struct {
	w, h                  float64 // svg size
	left, right, top, bot float64 // margins
	x0, x1, y0, y1        float64 // data ranges
}

func (f *frame) X(v float64) float64 {
	return f.left + (v-f.x0)/(f.x1-f.x0)*(f.w-f.left-f.right)
}

func (f *frame) Y(v float64) float64 {
	return f.h - f.bot - (v-f.y0)/(f.y1-f.y0)*(f.h-f.top-f.bot)
}

// ticks returns round values covering [lo, hi], about n of them.
func ticks(lo, hi float64, n int) []float64 {
	if !(hi > lo) {
		return []float64{lo}
	}
	raw := (hi - lo) / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	// i·step rounded to the step's decimals, so 3 × 0.2 prints as 0.6
	dec := max(0, int(-math.Floor(math.Log10(step)))+1)
	var out []float64
	for i := math.Ceil(lo/step - 1e-9); i*step <= hi+step*1e-9; i++ {
		v, _ := strconv.ParseFloat(strconv.FormatFloat(i*step, 'f', dec, 64), 64)
		out = append(out, v+0) // +0 turns -0 into 0
	}
	return out
}

func tickLabel(v float64) string {
	if v == 0 {
		return "0" // not "-0"
	}
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if len(s) > 7 {
		s = strconv.FormatFloat(v, 'g', 4, 64)
	}
	return s
}

func (r *renderer) svgOpen(f *frame, label string) {
	r.n++
	r.p("<svg class=\"chart\" id=\"chart%d\" role=\"img\" aria-label=\"%s\" viewBox=\"0 0 %g %g\" width=\"%g\" height=\"%g\" xmlns=\"http://www.w3.org/2000/svg\">\n",
		r.n, esc(label), f.w, f.h, f.w, f.h)
	r.p("<title>%s</title>\n", esc(label))
}

// axes draws the frame's axes with ticks and their labels.
func (r *renderer) axes(f *frame, xticks []float64, xlabels []string, yticks []float64, xTitle, yTitle string, grid bool) {
	for _, v := range yticks {
		y := f.Y(v)
		if grid {
			r.p("<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", f.left, f.w-f.right, y, y)
		}
		r.p("<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" dominant-baseline=\"middle\">%s</text>\n", f.left-6, y, tickLabel(v))
	}
	for i, v := range xticks {
		x := f.X(v)
		lab := tickLabel(v)
		if xlabels != nil {
			lab = xlabels[i]
		}
		r.p("<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", x, x, f.h-f.bot, f.h-f.bot+4)
		r.p("<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", x, f.h-f.bot+17, esc(lab))
	}
	r.p("<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", f.left, f.w-f.right, f.h-f.bot, f.h-f.bot)
	r.p("<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>\n", f.left, f.left, f.top, f.h-f.bot)
	r.p("<text class=\"axis-title\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", (f.left+f.w-f.right)/2, f.h-6, esc(xTitle))
	r.p("<text class=\"axis-title\" transform=\"translate(14 %.1f) rotate(-90)\" text-anchor=\"middle\">%s</text>\n", (f.top+f.h-f.bot)/2, esc(yTitle))
}

// legend draws the systems' colours at the top right.
func (r *renderer) legend(f *frame) {
	if len(r.d.Systems) < 2 {
		return
	}
	x := f.w - f.right
	for s := len(r.d.Systems) - 1; s >= 0; s-- {
		name := r.d.Systems[s].Name
		x -= float64(len(name))*7 + 26
		r.p("<rect x=\"%.1f\" y=\"4\" width=\"12\" height=\"12\" fill=\"%s\"/><text class=\"tick\" x=\"%.1f\" y=\"14\">%s</text>\n", x, color(s), x+16, esc(name))
	}
}

var familyName = map[string]string{"ndcg": "nDCG", "p": "precision", "r": "recall", "err": "ERR"}

func (r *renderer) curves() {
	r.p("<section id=\"curves\">\n<h2>Metric@k</h2>\n<div class=\"grid2\">\n")
	for _, cv := range r.d.Curves {
		r.curveChart(cv)
	}
	r.p("</div>\n<p class=\"note\">Mean over queries at each cutoff k, with the 95%% interval as a band. Hover a point for its figures.</p>\n</section>\n")
}

func (r *renderer) curveChart(cv Curve) {
	name := familyName[cv.Family]
	f := &frame{w: 560, h: 320, left: 58, right: 16, top: 24, bot: 46}
	f.x0, f.x1 = float64(cv.K[0]), float64(cv.K[len(cv.K)-1])
	if f.x1 == f.x0 {
		f.x0, f.x1 = f.x0-1, f.x1+1
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, row := range cv.Sys {
		for _, st := range row {
			for _, v := range []float64{st.Mean, st.CI.Lo, st.CI.Hi} {
				if !math.IsNaN(v) {
					lo, hi = math.Min(lo, v), math.Max(hi, v)
				}
			}
		}
	}
	if math.IsInf(lo, 0) {
		lo, hi = 0, 1
	}
	pad := (hi - lo) * 0.08
	f.y0, f.y1 = math.Max(0, lo-pad), math.Min(1, hi+pad)
	if !(f.y1 > f.y0) {
		f.y0, f.y1 = f.y0-0.05, f.y1+0.05
	}
	r.p("<figure>\n")
	r.svgOpen(f, name+"@k for k = 1 to "+strconv.Itoa(cv.K[len(cv.K)-1]))
	yt := ticks(f.y0, f.y1, 5)
	var xt []float64
	for _, k := range ticks(f.x0, f.x1, 10) {
		if k == math.Trunc(k) {
			xt = append(xt, k)
		}
	}
	r.axes(f, xt, nil, yt, "cutoff k", "mean "+name+"@k", true)
	for s, row := range cv.Sys {
		// CI band
		var band strings.Builder
		for i, st := range row {
			if !math.IsNaN(st.CI.Hi) {
				fmt.Fprintf(&band, "%.1f,%.1f ", f.X(float64(cv.K[i])), f.Y(st.CI.Hi))
			}
		}
		for i := len(row) - 1; i >= 0; i-- {
			if st := row[i]; !math.IsNaN(st.CI.Lo) {
				fmt.Fprintf(&band, "%.1f,%.1f ", f.X(float64(cv.K[i])), f.Y(st.CI.Lo))
			}
		}
		r.p("<polygon class=\"band\" fill=\"%s\" points=\"%s\"/>\n", color(s), band.String())
		var line strings.Builder
		for i, st := range row {
			if !math.IsNaN(st.Mean) {
				fmt.Fprintf(&line, "%.1f,%.1f ", f.X(float64(cv.K[i])), f.Y(st.Mean))
			}
		}
		r.p("<polyline class=\"line\" stroke=\"%s\" points=\"%s\"/>\n", color(s), line.String())
		for i, st := range row {
			if math.IsNaN(st.Mean) {
				continue
			}
			r.p("<circle class=\"pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>%s %s@%d = %s, 95%% CI %s, %d queries</title></circle>\n",
				f.X(float64(cv.K[i])), f.Y(st.Mean), color(s), esc(r.d.Systems[s].Name), name, cv.K[i], f4(st.Mean), ci(st.CI, false), st.N)
		}
	}
	r.legend(f)
	r.p("</svg>\n<figcaption>%s@k</figcaption>\n</figure>\n", name)
}

func (r *renderer) histograms() {
	d := r.d
	r.p("<section id=\"distributions\">\n<h2>Distribution of per-query values</h2>\n<div class=\"grid2\">\n")
	for m, name := range d.Metrics {
		if len(d.Systems) == 0 || len(d.Systems[0].Hists) <= m {
			continue
		}
		r.histChart(m, name)
	}
	r.p("</div>\n<p class=\"note\">Number of queries whose value falls in each bin (undefined values are not counted). Hover a bar for its range and count.</p>\n</section>\n")
}

func binLabel(b Bin) string {
	switch {
	case b.Lo == b.Hi:
		return tickLabel(b.Lo)
	case math.IsInf(b.Hi, 1):
		return "≥" + tickLabel(b.Lo)
	}
	return "[" + tickLabel(b.Lo) + ", " + tickLabel(b.Hi) + ")"
}

func (r *renderer) histChart(m int, name string) {
	d := r.d
	bins := d.Systems[0].Hists[m]
	// drop empty bins at both ends (the open range has forty)
	first, last := len(bins), -1
	for i := range bins {
		for _, sys := range d.Systems {
			if sys.Hists[m][i].Count > 0 {
				first, last = min(first, i), max(last, i)
			}
		}
	}
	if last < 0 {
		first, last = 0, len(bins)-1
	}
	// bounded ranges keep every bin, so shapes compare across metrics
	if !math.IsInf(bins[len(bins)-1].Hi, 1) && bins[0].Lo != bins[0].Hi {
		first, last = 0, len(bins)-1
	}
	n := last - first + 1
	var top int64 = 1
	for _, sys := range d.Systems {
		for _, b := range sys.Hists[m][first : last+1] {
			top = max(top, b.Count)
		}
	}
	f := &frame{w: 560, h: 300, left: 58, right: 16, top: 24, bot: 60}
	f.x0, f.x1 = 0, float64(n)
	f.y0, f.y1 = 0, float64(top)*1.08
	r.p("<figure>\n")
	r.svgOpen(f, "histogram of per-query "+name)
	yt := ticks(0, f.y1, 5)
	var xt []float64
	var xl []string
	every := max(1, n/6)
	for i := 0; i <= n; i += every {
		xt = append(xt, float64(i))
		switch {
		case i < n:
			xl = append(xl, tickLabel(bins[first+i].Lo))
		case math.IsInf(bins[last].Hi, 1):
			xl = append(xl, "")
		default:
			xl = append(xl, tickLabel(bins[last].Hi))
		}
	}
	r.axes(f, xt, xl, yt, name+" (per query)", "queries", true)
	ns := float64(len(d.Systems))
	bw := (f.X(1) - f.X(0)) * 0.9 / ns
	for i := first; i <= last; i++ {
		for s, sys := range d.Systems {
			b := sys.Hists[m][i]
			x := f.X(float64(i-first)) + (f.X(1)-f.X(0))*0.05 + float64(s)*bw
			y := f.Y(float64(b.Count))
			r.p("<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>%s %s %s: %d queries</title></rect>\n",
				x, y, math.Max(bw-0.5, 0.5), f.Y(0)-y, color(s), esc(sys.Name), name, binLabel(b), b.Count)
		}
	}
	r.legend(f)
	r.p("</svg>\n<figcaption>%s</figcaption>\n</figure>\n", esc(name))
}

func (r *renderer) forestChart(pr Pair) {
	d := r.d
	rowH := 34.0
	f := &frame{w: 760, left: 130, right: 30, top: 30, bot: 46}
	f.h = f.top + f.bot + rowH*float64(len(d.Metrics))
	lo, hi := 0.0, 0.0
	for _, df := range pr.Diffs {
		for _, v := range []float64{df.Mean, df.CI.Lo, df.CI.Hi, df.Boot.Lo, df.Boot.Hi} {
			if !math.IsNaN(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if hi-lo == 0 {
		lo, hi = -0.01, 0.01
	}
	pad := (hi - lo) * 0.08
	f.x0, f.x1 = lo-pad, hi+pad
	f.y0, f.y1 = 0, 1
	label := fmt.Sprintf("%s − %s: difference per metric with 95%% intervals", pr.System, pr.Baseline)
	r.p("<figure>\n")
	r.svgOpen(f, label)
	xt := ticks(f.x0, f.x1, 7)
	for _, v := range xt {
		x := f.X(v)
		r.p("<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", x, x, f.top, f.h-f.bot)
	}
	r.axes(f, xt, nil, nil, "difference ("+pr.System+" − "+pr.Baseline+")", "", false)
	r.p("<line class=\"zero\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>\n", f.X(0), f.X(0), f.top-6, f.h-f.bot)
	for m, name := range d.Metrics {
		df := pr.Diffs[m]
		y := f.top + rowH*(float64(m)+0.5)
		r.p("<g class=\"row\">")
		tip := fmt.Sprintf("%s: difference %s, 95%% CI %s, p = %s, Holm p = %s", name, s4(df.Mean), ci(df.CI, true), pfmt(df.P), pfmt(df.PHolm))
		if d.Bootstrap > 0 {
			tip += ", bootstrap CI " + ci(df.Boot, true)
		}
		tip += fmt.Sprintf(", %d queries", df.N)
		r.p("<title>%s</title>", esc(tip))
		r.p("<rect class=\"hover\" x=\"0\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>", y-rowH/2, f.w, rowH)
		r.p("<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" dominant-baseline=\"middle\">%s</text>", f.left-10, y, esc(name))
		col := "#555"
		if df.PHolm < 0.05 {
			col = color(1)
		}
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
	r.p("</svg>\n<figcaption>%s</figcaption>\n</figure>\n", esc(label))
}

func (r *renderer) slices() {
	d := r.d
	r.p("<section id=\"slices\">\n<h2>Slices by %s</h2>\n", esc(strings.Join(d.SliceCols, ", ")))
	r.p("<p class=\"note\">%d slices. Click a column header to sort; click again to reverse.", len(d.Slices))
	if len(d.Pairs) > 0 {
		r.p(" Differences are system minus baseline; bold where Holm's p &lt; 0.05 across the metrics of the slice.")
	}
	r.p("</p>\n<table class=\"num sortable\" id=\"slice-table\">\n<thead><tr>")
	for _, c := range d.SliceCols {
		r.p("<th data-type=\"text\">%s</th>", esc(c))
	}
	r.p("<th>queries</th>")
	base := ""
	if len(d.Systems) > 1 {
		base = " <small>(" + esc(d.Systems[0].Name) + ")</small>"
	}
	for _, m := range d.Metrics {
		r.p("<th>%s%s</th>", esc(m), base)
	}
	for _, pr := range d.Pairs {
		for _, m := range d.Metrics {
			r.p("<th>Δ %s <small>(%s)</small></th>", esc(m), esc(pr.System))
		}
	}
	r.p("</tr></thead>\n<tbody>\n")
	for _, sl := range d.Slices {
		r.p("<tr>")
		for _, v := range sl.Key {
			r.p("<td class=\"name\">%s</td>", esc(v))
		}
		r.p("<td data-v=\"%d\">%d</td>", sl.Queries, sl.Queries)
		for m := range d.Metrics {
			st := sl.Stats[0][m]
			r.p("<td%s title=\"95%% CI %s, %d queries\">%s</td>", dataV(st.Mean), ci(st.CI, false), st.N, f4(st.Mean))
		}
		for p := range d.Pairs {
			for m := range d.Metrics {
				df := sl.Diffs[p][m]
				cls := ""
				if df.PHolm < 0.05 {
					cls = " class=\"sig\""
				}
				r.p("<td%s%s title=\"95%% CI %s, p = %s, Holm p = %s\">%s</td>", dataV(df.Mean), cls, ci(df.CI, true), pfmt(df.P), pfmt(df.PHolm), s4(df.Mean))
			}
		}
		r.p("</tr>\n")
	}
	r.p("</tbody></table>\n</section>\n")
}

const css = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2330;margin:24px auto;max-width:1240px;padding:0 20px}
h1{font-size:24px;margin:0 0 4px}h2{font-size:19px;margin:32px 0 10px;border-bottom:1px solid #dde;padding-bottom:4px}h3{font-size:15px;margin:20px 0 8px}
.meta{color:#556;margin:2px 0;font-size:13px}nav{margin:12px 0}nav a{margin-right:14px;color:#1f5fa8}
table{border-collapse:collapse;margin:6px 0}th,td{padding:4px 10px;border-bottom:1px solid #e6e8ef}
thead th{background:#f3f5f9;text-align:right;position:sticky;top:0}
table.num td{text-align:right;font-variant-numeric:tabular-nums}td.name,th[data-type=text]{text-align:left}
th.sys{text-align:left;vertical-align:top;background:#fafbfd}.swatch{display:inline-block;width:10px;height:10px;margin-right:6px;border-radius:2px}
.sig{font-weight:700}.note{color:#556;font-size:12.5px;max-width:900px}
table.sortable th{cursor:pointer;user-select:none}table.sortable th.asc::after{content:" ▲"}table.sortable th.desc::after{content:" ▼"}
.grid2{display:grid;grid-template-columns:repeat(auto-fill,minmax(560px,1fr));gap:8px 24px}
figure{margin:0}figcaption{font-size:12.5px;color:#556;text-align:center}
svg.chart{max-width:100%;height:auto;background:#fff}
.axis{stroke:#333;stroke-width:1}.grid{stroke:#e8eaf0;stroke-width:1}.tick{font-size:11px;fill:#333}
.axis-title{font-size:12px;fill:#222}.band{opacity:.15;stroke:none}.line{fill:none;stroke-width:2}
.pt:hover,.bar:hover{opacity:.7}.zero{stroke:#888;stroke-dasharray:4 3}
.ci{stroke-width:3}.boot{stroke-width:1.5;opacity:.7}.row .hover{fill:transparent}.row:hover .hover{fill:#f3f5f9}
.error{background:#fde8e8;border:1px solid #d1495b;color:#7a1020;padding:8px 12px;margin:8px 0;white-space:pre-wrap}
`

const errorScript = `window.addEventListener("error",function(e){var d=document.getElementById("script-error");if(d){d.hidden=false;d.textContent+="Script error: "+e.message+"\n";}});`

// pageScript makes the slice table sortable: numbers by their data-v
// (undefined last), text by locale order.
const pageScript = `
(function(){
  document.querySelectorAll("table.sortable").forEach(function(t){
    var body=t.tBodies[0];
    t.querySelectorAll("thead th").forEach(function(th,col){
      th.addEventListener("click",function(){
        var asc=!th.classList.contains("asc");
        t.querySelectorAll("thead th").forEach(function(h){h.classList.remove("asc","desc");});
        th.classList.add(asc?"asc":"desc");
        var text=th.dataset.type==="text";
        var rows=Array.prototype.slice.call(body.rows);
        rows.sort(function(a,b){
          var x=a.cells[col],y=b.cells[col],r;
          if(text){r=x.textContent.localeCompare(y.textContent,undefined,{numeric:true});}
          else{
            var u=x.dataset.v,v=y.dataset.v;
            if(u===undefined&&v===undefined)return 0;
            if(u===undefined)return 1;
            if(v===undefined)return -1;
            r=parseFloat(u)-parseFloat(v);
          }
          return asc?r:-r;
        });
        rows.forEach(function(row){body.appendChild(row);});
      });
    });
  });
  document.documentElement.setAttribute("data-ready","1");
})();
`
