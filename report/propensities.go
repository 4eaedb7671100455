package report

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// The page of rankeval propensities: the estimated curve with its
// intervals beside the power laws k^−η, which is closest, and the
// figures; no script.

// Propensities is what the propensities page shows; the caller
// computes every figure (package propensity), the page draws them.
type Propensities struct {
	Title   string
	Version string   // of the program, shown as "rankeval VERSION"
	Inputs  []string // what was read, in order
	Lines   []string // under the title: counts, options
	// Closest says which power law is closest, and by how much.
	Closest string
	// Positions are 1 up to the last with a row; InFile of them, from 1,
	// are in the propensity file.
	Positions []PropPosition
	InFile    int
	// Laws are the power laws compared, the fitted one first; none when
	// nothing is fitted.
	Laws  []PowLaw
	Notes []string
}

// PropPosition is the estimate at one position.
type PropPosition struct {
	Position   int
	Propensity float64
	CI         Interval
	// Rows counts the rows at the position, Pairs the (query, document)
	// pairs shown there and elsewhere, Clicks their clicks there.
	Rows, Pairs, Clicks int64
	// Refused says why there is no estimate ("" when there is one).
	Refused string
	// Laws are each law's propensity here, as Propensities.Laws.
	Laws []float64
}

// PowLaw is one power law k^−η and how close it comes.
type PowLaw struct {
	Name string
	Eta  float64
	SE   float64 // η's error; NaN for a law not fitted
	// EtaText is η as the table writes it (with its error when fitted);
	// "" writes Eta with 3 significant digits.
	EtaText string
	// RMS is the residual in standard errors; Inside the positions of
	// Of whose interval holds it; MaxRel its largest relative difference.
	RMS, MaxRel float64
	Inside, Of  int
	// Curve is the law at k = 1, 1.1, 1.2, ... up to the last of
	// Positions (at least 2), for drawing.
	Curve []float64
}

// lawColour colours the power laws: the fitted one dark, the references
// in the palette after the estimate's.
func lawColour(i int) string {
	if i == 0 {
		return "#1d2330"
	}
	return color(i)
}

// WritePropensities renders d.
func WritePropensities(w io.Writer, d *Propensities) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	r := &renderer{w: bw, d: &Data{Title: d.Title, Version: d.Version, Inputs: d.Inputs, Lines: d.Lines}}
	r.begin(false)
	if len(d.Laws) > 0 {
		r.p("<p><b>%s.</b></p>\n", esc(upper(d.Closest)))
	} else {
		r.p("<p>%s.</p>\n", esc(upper(d.Closest)))
	}
	r.propChart(d)
	if len(d.Laws) > 0 {
		r.lawTable(d)
	}
	r.positionTable(d)
	if len(d.Notes) > 0 {
		r.p("<h2>Notes</h2>\n<ul class=\"note\">\n")
		for _, n := range d.Notes {
			r.p("<li>%s</li>\n", esc(n))
		}
		r.p("</ul>\n")
	}
	r.p("</body>\n</html>\n")
	return bw.Flush()
}

// upper is s with its first letter capital.
func upper(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// prop writes a propensity with 4 decimals, or 3 significant digits
// below 0.01, where 4 decimals would keep one or none.
func prop(v float64) string {
	if v > 0 && v < 0.01 {
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	return f4(v)
}

// propCI is a position's 95% interval as prop writes its bounds.
func propCI(p PropPosition) string {
	return "[" + prop(p.CI.Lo) + ", " + prop(p.CI.Hi) + "]"
}

// propChart draws the estimate at each position up to the last with a
// row, its 95% interval as a bar, beside the power laws as curves; a
// position with no estimate is a cross on the axis, with its reason.
func (r *renderer) propChart(d *Propensities) {
	last := max(len(d.Positions), 2)
	inFile := d.InFile
	f := &frame{w: 720, h: 380, left: 58, right: 16, top: 28, bot: 46}
	f.x0, f.x1 = 0.5, float64(last)+0.5
	top := 1.0
	for _, p := range d.Positions {
		if p.Refused == "" {
			top = math.Max(top, p.CI.Hi)
		}
	}
	yt := spanTicks(0, top, 5)
	f.y0, f.y1 = 0, yt[len(yt)-1]
	r.p("<section id=\"curve\">\n<h2>Propensity by position</h2>\n<figure>\n")
	r.svgOpen(f, "propensity relative to position 1, positions 1 to "+strconv.Itoa(last))
	var xt []float64
	for _, k := range ticks(1, float64(last), 20) {
		if k == math.Trunc(k) {
			xt = append(xt, k)
		}
	}
	r.axes(f, xt, nil, yt, "position", "propensity relative to position 1", true)
	for i := len(d.Laws) - 1; i >= 0; i-- { // the fitted law drawn last, on top
		var line strings.Builder
		for j, v := range d.Laws[i].Curve {
			fmt.Fprintf(&line, "%.1f,%.1f ", f.X(1+float64(j)/10), f.Y(math.Min(v, f.y1)))
		}
		dash, width := " stroke-dasharray=\"6 4\"", 1.5
		if i == 0 {
			dash, width = "", 2
		}
		r.p("<polyline class=\"line\" stroke=\"%s\" stroke-width=\"%g\"%s points=\"%s\"><title>%s</title></polyline>\n",
			lawColour(i), width, dash, line.String(), esc(d.Laws[i].Name))
	}
	est := color(0)
	var line strings.Builder
	for _, p := range d.Positions {
		x := f.X(float64(p.Position))
		if p.Refused != "" {
			// the estimate's line breaks at a position without one
			if line.Len() > 0 {
				r.p("<polyline class=\"line\" stroke=\"%s\" points=\"%s\"/>\n", est, line.String())
				line.Reset()
			}
			y := f.Y(0)
			r.p("<g class=\"refused\"><path d=\"M%.1f %.1fl10 -10m0 10l-10 -10\" stroke=\"#d1495b\" stroke-width=\"2\"/><title>position %d: no estimate: %s</title></g>\n",
				x-5, y+5, p.Position, esc(p.Refused))
			continue
		}
		fmt.Fprintf(&line, "%.1f,%.1f ", x, f.Y(p.Propensity))
	}
	if line.Len() > 0 {
		r.p("<polyline class=\"line\" stroke=\"%s\" points=\"%s\"/>\n", est, line.String())
	}
	for _, p := range d.Positions {
		if p.Refused != "" {
			continue
		}
		x := f.X(float64(p.Position))
		fill, where := est, ""
		if p.Position > inFile {
			fill, where = "#fff", fmt.Sprintf(" (not in the file, which ends at position %d)", inFile)
		}
		r.p("<line class=\"ci\" stroke=\"%s\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", est, x, x, f.Y(p.CI.Lo), f.Y(p.CI.Hi))
		r.p("<circle class=\"pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" stroke=\"%s\" stroke-width=\"1.5\"><title>position %d: %s, 95%% CI %s, %d pairs, %d clicks%s</title></circle>\n",
			x, f.Y(p.Propensity), fill, est, p.Position, prop(p.Propensity), propCI(p), p.Pairs, p.Clicks, where)
	}
	names := []string{"estimate"}
	for _, l := range d.Laws {
		names = append(names, l.Name)
	}
	r.keys(f, names, func(i int) string {
		if i == 0 {
			return est
		}
		return lawColour(i - 1)
	})
	r.p("</svg>\n<figcaption>Estimate (points, with the 95%% interval as a bar) and the power laws k<sup>−η</sup> (the fitted one solid, the references dashed)</figcaption>\n</figure>\n")
	r.p("<p class=\"note\">A red cross on the axis marks a position without an estimate, up to the last with a row (hover it for the reason: too little evidence, or no row there): it is not drawn as one. ")
	r.p("The file of propensities ends before the first such position; a hollow point is an estimate past it. Hover a point for its figures.</p>\n</section>\n")
}

// lawTable lists the power laws and how close each comes.
func (r *renderer) lawTable(d *Propensities) {
	r.p("<section id=\"laws\">\n<h2>Power laws</h2>\n<table class=\"num\">\n<thead><tr><th>law</th><th>η</th><th>RMS residual (standard errors)</th><th>inside the 95%% interval</th><th>largest relative difference</th></tr></thead>\n<tbody>\n")
	for i, l := range d.Laws {
		eta := l.EtaText
		if eta == "" {
			eta = strconv.FormatFloat(l.Eta, 'g', 3, 64)
		}
		r.p("<tr><td class=\"name\"><span class=\"swatch\" style=\"background:%s\"></span>%s</td><td>%s</td><td>%s</td><td>%d of %d</td><td>%s</td></tr>\n",
			lawColour(i), esc(l.Name), eta, strconv.FormatFloat(l.RMS, 'f', 2, 64), l.Inside, l.Of, strconv.FormatFloat(l.MaxRel*100, 'f', 1, 64)+"%")
	}
	r.p("</tbody></table>\n<p class=\"note\">Over the %d estimated positions past 1. η is fitted by weighted least squares of ln p̂(k) on −ln k, each position weighted by its interval's width in logs; the residuals are in those standard errors (docs/metrics.md).</p>\n</section>\n", d.Laws[0].Of)
}

// positionTable lists every position up to the last with a row: the
// estimate, or why there is none, its evidence, and each power law there.
func (r *renderer) positionTable(d *Propensities) {
	r.p("<section id=\"positions\">\n<h2>Positions</h2>\n<table class=\"num\">\n<thead><tr><th>position</th><th>propensity</th><th>95%% CI</th><th>rows</th><th>pairs</th><th>clicks</th>")
	for _, l := range d.Laws {
		r.p("<th>%s</th>", esc(l.Name))
	}
	r.p("</tr></thead>\n<tbody>\n")
	for _, p := range d.Positions {
		r.p("<tr><td>%d</td>", p.Position)
		switch {
		case p.Refused != "":
			r.p("<td class=\"name\" colspan=\"2\">no estimate: %s</td>", esc(p.Refused))
		case p.Position > d.InFile:
			r.p("<td>%s</td><td>%s <small>(not in the file)</small></td>", prop(p.Propensity), propCI(p))
		default:
			r.p("<td>%s</td><td>%s</td>", prop(p.Propensity), propCI(p))
		}
		r.p("<td>%d</td><td>%d</td><td>%d</td>", p.Rows, p.Pairs, p.Clicks)
		for _, v := range p.Laws {
			r.p("<td>%s</td>", prop(v))
		}
		r.p("</tr>\n")
	}
	r.p("</tbody></table>\n<p class=\"note\">rows: rows at the position; pairs: the (query, document) pairs shown there and at another position; clicks: their clicks there.</p>\n</section>\n")
}
