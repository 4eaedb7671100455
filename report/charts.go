package report

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"

	"github.com/rankeval/rankeval/internal/pmath"
)

// The charts: inline SVG drawn from data coordinates, with round ticks.

// frame is a plot area inside an SVG: data coordinates map to pixels.
type frame struct {
	w, h                  float64 // svg size
	left, right, top, bot float64 // margins
	x0, x1, y0, y1        float64 // data ranges
}

func (f *frame) X(v float64) float64 {
	return f.left + float64((v-f.x0)/(f.x1-f.x0)*(f.w-f.left-f.right))
}

func (f *frame) Y(v float64) float64 {
	return f.h - f.bot - float64((v-f.y0)/(f.y1-f.y0)*(f.h-f.top-f.bot))
}

// Round steps are m × 10^k for m in one of these.
var (
	steps125  = []float64{1, 2, 5}
	steps1255 = []float64{1, 2, 2.5, 5}
)

// step returns the smallest round step, m × 10^k for m in ms, that cuts
// [lo, hi] into at most n parts; hi must be above lo.
func step(lo, hi float64, n int, ms []float64) float64 {
	raw := (hi - lo) / float64(n)
	mag := pmath.Pow(10, math.Floor(pmath.Log10(raw)))
	for _, m := range ms {
		if m*mag >= raw*(1-1e-9) {
			return m * mag
		}
	}
	return 10 * mag
}

// multiples returns i·st for i from i0 to i1, each rounded to the step's
// decimals so that 3 × 0.2 is 0.6.
func multiples(i0, i1, st float64) []float64 {
	dec := max(0, int(-math.Floor(pmath.Log10(st)))+1)
	var out []float64
	for i := i0; i <= i1; i++ {
		v, _ := strconv.ParseFloat(strconv.FormatFloat(i*st, 'f', dec, 64), 64)
		out = append(out, v+0) // +0 turns -0 into 0
	}
	return out
}

// ticks returns the multiples of a round step (1, 2, 2.5 or 5 × 10^k)
// that lie in [lo, hi], about n of them: for an axis whose ends the data
// fix, where 2.5 keeps a few more ticks.
func ticks(lo, hi float64, n int) []float64 {
	if !(hi > lo) {
		return []float64{lo}
	}
	st := step(lo, hi, n, steps1255)
	return multiples(math.Ceil(lo/st-1e-9), math.Floor(hi/st+1e-9), st)
}

// spanTicks returns round ticks, about n steps of 1, 2 or 5 × 10^k, from
// the last multiple of the step at or below lo to the first at or above
// hi: an axis drawn from the first to the last has a tick at both ends
// ([0, 1] gives 0, 0.2, ..., 1; [-1, 1] gives -1, -0.5, 0, 0.5, 1).
func spanTicks(lo, hi float64, n int) []float64 {
	if !(hi > lo) {
		return []float64{lo}
	}
	st := step(lo, hi, n, steps125)
	return multiples(math.Floor(lo/st+1e-9), math.Ceil(hi/st-1e-9), st)
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

// svgOpen opens a chart; its label, like every title of axes and
// captions, is text as the report prints it (printable: metric names, and
// system names through printable.String), escaped here for HTML only.
func (r *renderer) svgOpen(f *frame, label string) {
	r.n++
	r.p("<svg class=\"chart\" id=\"chart%d\" role=\"img\" aria-label=\"%s\" viewBox=\"0 0 %g %g\" width=\"%g\" height=\"%g\" xmlns=\"http://www.w3.org/2000/svg\">\n",
		r.n, html.EscapeString(label), f.w, f.h, f.w, f.h)
	r.p("<title>%s</title>\n", html.EscapeString(label))
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
	r.p("<text class=\"axis-title\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", (f.left+f.w-f.right)/2, f.h-6, html.EscapeString(xTitle))
	r.p("<text class=\"axis-title\" transform=\"translate(14 %.1f) rotate(-90)\" text-anchor=\"middle\">%s</text>\n", (f.top+f.h-f.bot)/2, html.EscapeString(yTitle))
}

// legend draws the systems' colours at the top right.
func (r *renderer) legend(f *frame) {
	if len(r.d.Systems) < 2 {
		return
	}
	names := make([]string, len(r.d.Systems))
	for s, sys := range r.d.Systems {
		names[s] = sys.Name
	}
	r.keys(f, names, color)
}

// keys draws a legend at the top right: a swatch of colour(i) and
// names[i] for each, left to right.
func (r *renderer) keys(f *frame, names []string, colour func(i int) string) {
	x := f.w - f.right
	for s := len(names) - 1; s >= 0; s-- {
		name := names[s]
		x -= float64(float64(len(name))*7) + 26
		r.p("<rect x=\"%.1f\" y=\"4\" width=\"12\" height=\"12\" fill=\"%s\"/><text class=\"tick\" x=\"%.1f\" y=\"14\">%s</text>\n", x, colour(s), x+16, esc(name))
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
	pad := float64((hi - lo) * 0.08)
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

// histAxis is a histogram's x axis: each bin's span in axis units, the
// axis's ends, its ticks and their labels (nil: the tick values).
type histAxis struct {
	spans  [][2]float64
	x0, x1 float64
	ticks  []float64
	labels []string
}

// histX lays out the x axis of bins. Bins of a bounded range (equal
// widths) sit at their values under round ticks that span the range, both
// ends included. The open range's bins double in width, so they sit side
// by side, one unit each, under the values of some of their edges.
func histX(bins []Bin, bounded bool) histAxis {
	var ax histAxis
	n := len(bins)
	if bounded {
		ax.ticks = spanTicks(bins[0].Lo, bins[n-1].Hi, 5)
		ax.x0, ax.x1 = ax.ticks[0], ax.ticks[len(ax.ticks)-1]
		for _, b := range bins {
			ax.spans = append(ax.spans, [2]float64{b.Lo, b.Hi})
		}
		return ax
	}
	ax.x0, ax.x1 = 0, float64(n)
	for i := range bins {
		ax.spans = append(ax.spans, [2]float64{float64(i), float64(i + 1)})
	}
	every := max(1, n/6)
	for i := 0; i <= n; i += every {
		ax.ticks = append(ax.ticks, float64(i))
		switch {
		case i < n:
			ax.labels = append(ax.labels, tickLabel(bins[i].Lo))
		case math.IsInf(bins[n-1].Hi, 1):
			ax.labels = append(ax.labels, "")
		default:
			ax.labels = append(ax.labels, tickLabel(bins[n-1].Hi))
		}
	}
	return ax
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
	bounded := !math.IsInf(bins[len(bins)-1].Hi, 1) && bins[0].Lo != bins[0].Hi
	if bounded {
		first, last = 0, len(bins)-1
	}
	var top int64 = 1
	for _, sys := range d.Systems {
		for _, b := range sys.Hists[m][first : last+1] {
			top = max(top, b.Count)
		}
	}
	ax := histX(bins[first:last+1], bounded)
	f := &frame{w: 560, h: 300, left: 58, right: 16, top: 24, bot: 60}
	f.x0, f.x1 = ax.x0, ax.x1
	f.y0, f.y1 = 0, float64(top)*1.08
	r.p("<figure>\n")
	r.svgOpen(f, "histogram of per-query "+name)
	r.axes(f, ax.ticks, ax.labels, ticks(0, f.y1, 5), name+" (per query)", "queries", true)
	ns := float64(len(d.Systems))
	for i := first; i <= last; i++ {
		sp := ax.spans[i-first]
		w := f.X(sp[1]) - f.X(sp[0])
		bw := w * 0.9 / ns
		for s, sys := range d.Systems {
			b := sys.Hists[m][i]
			x := f.X(sp[0]) + float64(w*0.05) + float64(float64(s)*bw)
			y := f.Y(float64(b.Count))
			r.p("<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>%s %s %s: %d queries</title></rect>\n",
				x, y, math.Max(bw-0.5, 0.5), f.Y(0)-y, color(s), esc(sys.Name), esc(name), binLabel(b), b.Count)
		}
	}
	r.legend(f)
	r.p("</svg>\n<figcaption>%s</figcaption>\n</figure>\n", esc(name))
}
