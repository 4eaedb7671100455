// Package report writes a run's figures as one self-contained HTML file:
// tables, and charts drawn as inline SVG (no chart library, no network at
// view time). It knows nothing of how the figures were computed; the
// command fills a Data and calls Write.
package report

import (
	"bufio"
	"fmt"
	"github.com/rankeval/rankeval/internal/printable"
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
	// RowNotes say what became of rows without a score or a label
	// (--missing-score, --missing-label), one sentence each, shown under
	// the system's counts.
	RowNotes []string
}

// Curve is a metric family at k = K[0], K[1], ...
type Curve struct {
	Family string   // "ndcg", "p", "r", "err"
	K      []int    // cutoffs
	Sys    [][]Stat // per system, per cutoff
}

// Diff is one pair's difference on one metric.
type Diff struct {
	N        int64
	Mean     float64
	CI, Boot Interval
	// Effect is the standardized difference d_z, EffectCI its interval
	// (NaN for a slice's).
	Effect   float64
	EffectCI Interval
	// MDEText is the minimum detectable effect at 80% power as the
	// summary prints it ("n/a" when undefined; "" for a slice's).
	MDEText string
	P, PAdj float64
	// Sig marks the difference (bold, in colour): the summary's rule, a
	// corrected p below 0.05, which the report's notes state.
	Sig bool
	// PText and PAdjText are P and PAdj as the summary prints them
	// ("< 0.0001"): the report prints them as given ("" as undefined), so
	// the rule for p-values stays with the summary.
	PText, PAdjText string
}

// Pair is one comparison: system J against system I (I < J, indexes of
// Data.Systems), whose differences are J minus I.
type Pair struct {
	I, J  int
	Diffs []Diff // per metric
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
	Version   string   // of the program that made the report, shown as "rankeval VERSION"
	Inputs    []string // what was read, in order: the first few shown, the rest behind a disclosure
	Lines     []string // shown under the title: counts, options
	Metrics   []string // metric names, in the order asked
	Systems   []System // the baseline first
	Curves    []Curve
	SliceCols []string
	Slices    []Slice
	Bootstrap int

	Pairs []Pair // those with the baseline first
	// Test and Correction name the run's test and correction in column
	// heads ("t", "Holm"); TestNote says in words how the comparisons were
	// tested and corrected. The summary owns the words, so that every
	// rendering says the same.
	Test, Correction, TestNote string
	// PowerNote says what the minimum detectable effect assumes, and
	// Detect answers --detect, a line each ("score_b − score: ndcg@10, a
	// difference of 0.005: 15110 queries ..."): the summary's words.
	PowerNote string
	Detect    []string
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

// esc is s as the report prints data: printable.String's escapes for
// control characters and bytes that are not UTF-8, then HTML's.
func esc(s string) string { return html.EscapeString(printable.String(s)) }

// begin writes a page's head (its title and the style), opens its body
// with the title and the header's lines; with scripts, the error handler
// comes first, so that a failure of any later script shows on the page
// instead of leaving a half-drawn report.
func (r *renderer) begin(scripts bool) {
	d := r.d
	r.p("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>%s</title>\n", esc(d.Title))
	r.p("<style>%s</style>\n", css)
	if scripts {
		r.p("<script>%s</script>\n</head>\n<body>\n", errorScript)
		r.p("<div id=\"script-error\" class=\"error\" hidden></div>\n")
	} else {
		r.p("</head>\n<body>\n")
	}
	r.p("<h1>%s</h1>\n", esc(d.Title))
	r.header()
}

func (r *renderer) page() {
	d := r.d
	r.begin(true)
	r.p("<nav>")
	for _, s := range r.sections() {
		r.p("<a href=\"#%s\">%s</a> ", s[0], s[1])
	}
	r.p("</nav>\n")
	r.summary()
	if len(d.Pairs) > 0 {
		r.forest()
	}
	if r.matrixShown() {
		r.matrix()
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

// shownInputs is how many inputs the header names; the rest are behind a
// disclosure, so a lake of many parts does not push the report down.
const shownInputs = 3

// header writes the lines under the title: the program's version, the
// inputs and d.Lines.
func (r *renderer) header() {
	d := r.d
	if d.Version != "" {
		r.p("<p class=\"meta\">rankeval %s</p>\n", esc(d.Version))
	}
	switch n := len(d.Inputs); {
	case n == 1:
		r.p("<p class=\"meta\">Input: %s</p>\n", esc(d.Inputs[0]))
	case n > 1 && n <= shownInputs:
		r.p("<p class=\"meta\">%d inputs: %s</p>\n", n, esc(strings.Join(d.Inputs, ", ")))
	case n > shownInputs:
		r.p("<div class=\"meta inputs\">%d inputs: %s, …\n", n, esc(strings.Join(d.Inputs[:shownInputs], ", ")))
		r.p("<details><summary>%d more</summary>\n<ol start=\"%d\">\n", n-shownInputs, shownInputs+1)
		for _, in := range d.Inputs[shownInputs:] {
			r.p("<li>%s</li>\n", esc(in))
		}
		r.p("</ol>\n</details>\n</div>\n")
	}
	for _, l := range d.Lines {
		r.p("<p class=\"meta\">%s</p>\n", esc(l))
	}
	if len(d.Pairs) > 0 && d.TestNote != "" {
		r.p("<p class=\"meta\">Comparisons: %s.</p>\n", esc(d.TestNote))
	}
}

func (r *renderer) sections() [][2]string {
	out := [][2]string{{"summary", "Summary"}}
	if len(r.d.Pairs) > 0 {
		out = append(out, [2]string{"comparison", "Comparison"})
	}
	if r.matrixShown() {
		out = append(out, [2]string{"all-pairs", "All pairs"})
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

// ptext is a p-value as the summary printed it, "–" when undefined.
func ptext(p string) string {
	if p == "" {
		return "–"
	}
	return p
}

// peq is "name = p", or "name < 0.0001" for a p printed as a bound.
func peq(name, p string) string {
	if strings.HasPrefix(p, "<") {
		return name + " " + p
	}
	return name + " = " + ptext(p)
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
				r.p("<th rowspan=\"%d\" class=\"sys\"><span class=\"swatch\" style=\"background:%s\"></span>%s%s<br><small>%d queries, %d rows</small>",
					len(d.Metrics), color(s), esc(sys.Name), role, sys.Queries, sys.Rows)
				for _, n := range sys.RowNotes {
					r.p("<br><small>%s</small>", esc(n))
				}
				r.p("</th>")
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
		r.differences()
	}
	r.p("</section>\n")
}

func (r *renderer) slices() {
	d := r.d
	r.p("<section id=\"slices\">\n<h2>Slices by %s</h2>\n", esc(strings.Join(d.SliceCols, ", ")))
	r.p("<p class=\"note\">%d slices. Click a column header to sort; click again to reverse.", len(d.Slices))
	if len(d.Pairs) > 0 {
		// A slice's comparisons are t-tests whatever the run's: the
		// randomization tests and the bootstrap are drawn for the whole run.
		r.p(" Δ is the first system minus the second. Within a slice every comparison is a paired t-test, whatever the run's test, its p corrected across the comparisons of that slice (every pair and metric): bold where %s &lt; 0.05.", esc(pHead(d.Correction)))
	}
	// The table scrolls in its own box, so many metrics and long system
	// names do not make the page wider than the window; the box is at most
	// a window high, so the header row still sticks while scrolling.
	r.p("</p>\n<div class=\"scroll\">\n<table class=\"num sortable\" id=\"slice-table\">\n<thead><tr>")
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
			r.p("<th>Δ %s <small>(%s)</small></th>", esc(m), html.EscapeString(d.pairName(pr)))
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
				if df.Sig {
					cls = " class=\"sig\""
				}
				r.p("<td%s%s title=\"95%% CI %s, %s, %s\">%s</td>", dataV(df.Mean), cls, ci(df.CI, true), esc(peq(pHead("t"), df.PText)), esc(peq(pHead(d.Correction), df.PAdjText)), s4(df.Mean))
			}
		}
		r.p("</tr>\n")
	}
	r.p("</tbody></table>\n</div>\n</section>\n")
}

const css = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2330;margin:24px auto;max-width:1240px;padding:0 20px}
h1{font-size:24px;margin:0 0 4px}h2{font-size:19px;margin:32px 0 10px;border-bottom:1px solid #dde;padding-bottom:4px}h3{font-size:15px;margin:20px 0 8px}
.meta{color:#556;margin:2px 0;font-size:13px;overflow-wrap:anywhere}.inputs summary{cursor:pointer;color:#1f5fa8}
.inputs ol{max-height:16em;overflow:auto;margin:4px 0;padding-left:4em}
.scroll{overflow:auto;max-height:90vh;margin:6px 0}.scroll table{margin:0}
@media print{.scroll{overflow:visible;max-height:none}}nav{margin:12px 0}nav a{margin-right:14px;color:#1f5fa8}
table{border-collapse:collapse;margin:6px 0}th,td{padding:4px 10px;border-bottom:1px solid #e6e8ef}
thead th{background:#f3f5f9;text-align:right;position:sticky;top:0}
table.num td{text-align:right;font-variant-numeric:tabular-nums}td.name,th[data-type=text]{text-align:left}
th.sys{text-align:left;vertical-align:top;background:#fafbfd}.swatch{display:inline-block;width:10px;height:10px;margin-right:6px;border-radius:2px}
.sig{font-weight:700}.note{color:#556;font-size:12.5px;max-width:900px}
table.sortable th{cursor:pointer;user-select:none}table.sortable th.asc::after{content:" ▲"}table.sortable th.desc::after{content:" ▼"}
.grid2{display:grid;grid-template-columns:repeat(auto-fill,minmax(560px,1fr));gap:8px 24px}
.tables{display:flex;flex-wrap:wrap;gap:8px 40px;align-items:flex-start}.tables .scroll{max-width:100%}
.matrix caption{font-weight:600;text-align:left;padding:2px 0}.matrix th{white-space:nowrap}.matrix thead th{text-align:center}.matrix td.diag{background:#f3f5f9}.matrix td.none{color:#99a}
.matrix td.up{background:#e3f4e8}.matrix td.down{background:#fbe5e7}
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
