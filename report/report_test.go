package report

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestTicks(t *testing.T) {
	tests := []struct {
		lo, hi float64
		n      int
		want   string
	}{
		{0, 1, 5, "[0 0.2 0.4 0.6 0.8 1]"},
		{-0.013, 0.08, 7, "[0 0.02 0.04 0.06 0.08]"},
		{-0.031, 0.08, 7, "[-0.02 0 0.02 0.04 0.06 0.08]"},
		{0, 37.8, 5, "[0 10 20 30]"},
		{0.5, 0.5, 5, "[0.5]"},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.lo, tc.hi), func(t *testing.T) {
			if got := fmt.Sprint(ticks(tc.lo, tc.hi, tc.n)); got != tc.want {
				t.Fatalf("ticks = %s, want %s", got, tc.want)
			}
		})
	}
	if tickLabel(math.Copysign(0, -1)) != "0" {
		t.Fatal("negative zero tick printed with a sign")
	}
}

// TestSpanTicks: an axis's ticks are round steps (1, 2 or 5 × 10^k) with
// a tick at both ends of the range, widened to the next round value when
// an end is not one.
func TestSpanTicks(t *testing.T) {
	tests := []struct {
		lo, hi float64
		want   string
	}{
		{0, 1, "[0 0.2 0.4 0.6 0.8 1]"},
		{-1, 1, "[-1 -0.5 0 0.5 1]"},
		{0, 0.95, "[0 0.2 0.4 0.6 0.8 1]"},
		{0.05, 0.93, "[0 0.2 0.4 0.6 0.8 1]"},
		{0, 37.8, "[0 10 20 30 40]"},
		{3, 47, "[0 10 20 30 40 50]"},
		{-0.013, 0.08, "[-0.02 0 0.02 0.04 0.06 0.08]"},
		{0, 12, "[0 5 10 15]"},
		{0.5, 0.5, "[0.5]"},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.lo, tc.hi), func(t *testing.T) {
			got := spanTicks(tc.lo, tc.hi, 5)
			if fmt.Sprint(got) != tc.want {
				t.Fatalf("spanTicks = %v, want %s", got, tc.want)
			}
			if len(got) > 1 && (got[0] > tc.lo || got[len(got)-1] < tc.hi) {
				t.Fatalf("ticks %v do not span [%g, %g]", got, tc.lo, tc.hi)
			}
		})
	}
}

// unitBins are the bins of a metric in [lo, hi]: 20 of equal width.
func unitBins(lo, hi float64, count func(i int) int64) []Bin {
	var bins []Bin
	for i := range 20 {
		bins = append(bins, Bin{lo + (hi-lo)*float64(i)/20, lo + (hi-lo)*float64(i+1)/20, count(i)})
	}
	return bins
}

// TestHistogramAxis: the x axis of a bounded range's histogram has round
// ticks from one end to the other (not every third bin edge: 0, 0.15, ...,
// 0.9 and no 1), and the bars sit at their values under them.
func TestHistogramAxis(t *testing.T) {
	one := func(int) int64 { return 1 }
	for _, tc := range []struct {
		lo, hi float64
		want   string
	}{{0, 1, "[0 0.2 0.4 0.6 0.8 1]"}, {-1, 1, "[-1 -0.5 0 0.5 1]"}} {
		ax := histX(unitBins(tc.lo, tc.hi, one), true)
		if got := fmt.Sprint(ax.ticks); got != tc.want || ax.labels != nil {
			t.Errorf("[%g, %g]: ticks %s (labels %q), want %s", tc.lo, tc.hi, got, ax.labels, tc.want)
		}
		if ax.x0 != tc.lo || ax.x1 != tc.hi || ax.spans[0][0] != tc.lo || ax.spans[19][1] != tc.hi {
			t.Errorf("[%g, %g]: axis [%g, %g], bins from %g to %g", tc.lo, tc.hi, ax.x0, ax.x1, ax.spans[0][0], ax.spans[19][1])
		}
	}

	// and so drawn: a tick label at 1, none at 0.15
	nan := math.NaN()
	st := Stat{Mean: 0.5, N: 3, CI: Interval{0.4, 0.6}, Boot: Interval{nan, nan}}
	d := &Data{Title: "t", Metrics: []string{"ndcg@10"},
		Systems: []System{{Name: "s", Stats: []Stat{st}, Hists: [][]Bin{unitBins(0, 1, func(i int) int64 { return int64(i) })}}}}
	var buf bytes.Buffer
	if err := Write(&buf, d); err != nil {
		t.Fatal(err)
	}
	svg := buf.String()[strings.Index(buf.String(), `aria-label="histogram of per-query ndcg@10"`):]
	for _, l := range []string{"0", "0.2", "0.4", "0.6", "0.8", "1"} {
		if !strings.Contains(svg, `text-anchor="middle">`+l+`</text>`) {
			t.Errorf("no x tick %s", l)
		}
	}
	if strings.Contains(svg, `>0.15</text>`) {
		t.Error("x tick at 0.15")
	}
}

// TestHeaderInputs: the header names the version and the inputs, a long
// list only its count and first few, the rest behind a disclosure.
func TestHeaderInputs(t *testing.T) {
	header := func(d *Data) string {
		t.Helper()
		d.Title = "t"
		var buf bytes.Buffer
		if err := Write(&buf, d); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		return out[strings.Index(out, "<h1>"):strings.Index(out, "<nav>")]
	}
	var ins []string
	for i := range 300 {
		ins = append(ins, fmt.Sprintf("s3://lake/events/part-%05d.zst", i))
	}
	h := header(&Data{Version: "v1.4.0 (0123456789ab)", Inputs: ins, Lines: []string{"6000 rows"}})
	if !strings.Contains(h, "<p class=\"meta\">rankeval v1.4.0 (0123456789ab)</p>") {
		t.Errorf("no version in\n%s", h)
	}
	open := strings.Index(h, "<details>")
	if open < 0 || !strings.Contains(h, "<summary>297 more</summary>") || !strings.Contains(h, "</details>") {
		t.Fatalf("no disclosure of the other inputs in\n%.2000s", h)
	}
	if want := "300 inputs: s3://lake/events/part-00000.zst, s3://lake/events/part-00001.zst, s3://lake/events/part-00002.zst, …"; !strings.Contains(h[:open], want) {
		t.Errorf("header lacks %q:\n%s", want, h[:open])
	}
	if len(h[:open]) > 400 {
		t.Errorf("%d characters before the disclosure", len(h[:open]))
	}
	for i, in := range ins {
		if n := strings.Count(h, in); n != 1 {
			t.Fatalf("%s named %d times", in, n)
		}
		if i >= 3 && strings.Index(h, in) < open {
			t.Fatalf("%s before the disclosure", in)
		}
	}
	if !strings.Contains(h, "6000 rows") {
		t.Error("lines missing")
	}

	for _, tc := range []struct {
		ins  []string
		want string
	}{{[]string{"a.jsonl"}, "Input: a.jsonl"}, {[]string{"a", "b", "<c>"}, "3 inputs: a, b, &lt;c&gt;"}} {
		h := header(&Data{Inputs: tc.ins})
		if !strings.Contains(h, tc.want) || strings.Contains(h, "<details>") || strings.Contains(h, "rankeval") {
			t.Errorf("%q: header\n%s", tc.ins, h)
		}
	}
}

// TestPValues: the report prints p-values as the summary gave them (a
// bound as "< 0.0001", escaped), with "p < 0.0001" rather than "p = < ..."
// in hover text.
func TestPValues(t *testing.T) {
	nan := math.NaN()
	st := Stat{Mean: 0.5, N: 3, CI: Interval{0.4, 0.6}, Boot: Interval{nan, nan}}
	df := Diff{N: 3, Mean: 0.1, CI: Interval{0.05, 0.15}, Boot: Interval{nan, nan}, Effect: nan, EffectCI: Interval{nan, nan}, P: 0, PAdj: 0.03, Sig: true, PText: "< 0.0001", PAdjText: "0.0300"}
	hist := [][]Bin{{{0, 1, 3}}}
	d := &Data{Title: "t", Metrics: []string{"map"},
		Systems: []System{{Name: "a", Stats: []Stat{st}, Hists: hist}, {Name: "b", Stats: []Stat{st}, Hists: hist}},
		Pairs:   []Pair{{I: 0, J: 1, Diffs: []Diff{df}}}, Test: "t", Correction: "Holm",
		SliceCols: []string{"market"},
		Slices:    []Slice{{Key: []string{"m1"}, Queries: 3, Stats: [][]Stat{{st}, {st}}, Diffs: [][]Diff{{{N: 3, Mean: nan, CI: Interval{nan, nan}, P: nan, PAdj: nan}}}}},
	}
	var buf bytes.Buffer
	if err := Write(&buf, d); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"<td>&lt; 0.0001</td><td class=\"sig\">0.0300</td>", "p (t) &lt; 0.0001, p (Holm) = 0.0300", "p (t) = –, p (Holm) = –"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if strings.Contains(out, "e+00") || strings.Contains(out, "< 0.0001") {
		t.Error("p-value in scientific notation or unescaped")
	}
}

// TestSliceTableScrolls: the slice table sits in a box of its own that
// scrolls sideways, so a wide table does not widen the page (the layout
// itself is checked in Chromium: TestReportInChromium).
func TestSliceTableScrolls(t *testing.T) {
	nan := math.NaN()
	st := Stat{Mean: 0.5, N: 3, CI: Interval{0.4, 0.6}, Boot: Interval{nan, nan}}
	d := &Data{Title: "t", Metrics: []string{"map"},
		Systems:   []System{{Name: "a", Stats: []Stat{st}, Hists: [][]Bin{{{0, 1, 3}}}}},
		SliceCols: []string{"market"},
		Slices:    []Slice{{Key: []string{"m1"}, Queries: 3, Stats: [][]Stat{{st}}}},
	}
	var buf bytes.Buffer
	if err := Write(&buf, d); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "<div class=\"scroll\">\n<table class=\"num sortable\" id=\"slice-table\">") ||
		!strings.Contains(out, "</table>\n</div>\n</section>") {
		t.Error("slice table not in a scrolling box")
	}
	if !strings.Contains(css, ".scroll{overflow:auto;") {
		t.Error("no overflow rule for the box")
	}
}

// TestWriteEscapes feeds names and slice values from the data (which a log
// controls) with markup in them: they must come out as text.
func TestWriteEscapes(t *testing.T) {
	nan := math.NaN()
	st := Stat{Mean: 0.5, N: 3, CI: Interval{0.4, 0.6}, Boot: Interval{nan, nan}}
	d := &Data{
		Title:     "t",
		Metrics:   []string{"ndcg@10"},
		Systems:   []System{{Name: "<b>sys</b>", Stats: []Stat{st}, Hists: [][]Bin{{{0, 0.5, 1}, {0.5, 1, 2}}}}},
		SliceCols: []string{"market"},
		Slices:    []Slice{{Key: []string{`<script>alert("x")</script>`}, Queries: 3, Stats: [][]Stat{{st}}}},
	}
	var buf bytes.Buffer
	if err := Write(&buf, d); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, `<script>alert`) || strings.Contains(out, "<b>sys</b>") {
		t.Fatal("data written as markup")
	}
	for _, want := range []string{"&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;", "&lt;b&gt;sys&lt;/b&gt;", "<td>0.5000</td>", "[0.4000, 0.6000]",
		`aria-label="histogram of per-query ndcg@10"`, "[0.5, 1): 2 queries"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

// TestComparisons: three systems compared by pairs, all or with the
// baseline only. The forest plots have a row per pair, the c − b pair
// too; the matrix shows row minus column, flipping the pair's difference
// and interval, "–" for a pair not compared; the texts name the run's
// test and correction; names are escaped everywhere.
func TestComparisons(t *testing.T) {
	nan := math.NaN()
	st := Stat{Mean: 0.5, N: 3, CI: Interval{0.4, 0.6}, Boot: Interval{nan, nan}}
	hist := [][]Bin{{{0, 1, 3}}, {{0, 1, 3}}}
	diff := func(mean, lo, hi, padj float64) Diff {
		return Diff{N: 40, Mean: mean, CI: Interval{lo, hi}, Boot: Interval{nan, nan}, Effect: 10 * mean, EffectCI: Interval{10 * lo, 10 * hi},
			P: padj / 2, PAdj: padj, Sig: padj < 0.05,
			PText: fmt.Sprintf("%.4f", padj/2), PAdjText: fmt.Sprintf("%.4f", padj)}
	}
	// per pair (I, J), per metric (map, ndcg@10)
	all := map[[2]int][]Diff{
		{0, 1}: {diff(0.01, -0.01, 0.03, 0.4), diff(0.03, 0.02, 0.04, 0.002)},
		{0, 2}: {diff(0.03, 0.02, 0.04, 0.003), diff(-0.02, -0.03, -0.01, 0.02)},
		{1, 2}: {diff(0.02, 0.01, 0.03, 0.01), diff(-0.05, -0.06, -0.04, 0.0004)},
	}
	systems := []System{{Name: "base", Stats: []Stat{st, st}, Hists: hist}, {Name: "b", Stats: []Stat{st, st}, Hists: hist},
		{Name: "new<&>", Stats: []Stat{st, st}, Hists: hist}}
	const esc2 = "new&lt;&amp;&gt;"
	tests := []struct {
		name                       string
		nsys                       int
		pairs                      [][2]int
		test, corr, note           string
		want, absent               []string
		forestCharts, matrixTables int
	}{
		{name: "three systems, all pairs", nsys: 3, pairs: [][2]int{{0, 1}, {0, 2}, {1, 2}},
			test: "rand.", corr: "BH", note: "paired randomization test, 1000 permutations (seed 7); p corrected by Benjamini-Hochberg over every comparison",
			want: []string{
				"<h3>Differences between systems</h3>", "<th>p (rand.)</th><th>p (BH)</th>",
				"Comparisons: paired randomization test, 1000 permutations (seed 7); p corrected by Benjamini-Hochberg over every comparison.",
				`aria-label="map: difference per pair with 95% intervals"`, `aria-label="ndcg@10: difference per pair with 95% intervals"`,
				// the c − b rows, in colour (the third system's) where significant
				`<title>` + esc2 + ` − b, map: difference +0.0200, 95% CI [+0.0100, +0.0300], d_z +0.20, p (rand.) = 0.0050, p (BH) = 0.0100, 40 queries</title>`,
				`>` + esc2 + ` − b</text><line class="ci" stroke="#2a9d5c"`,
				// b − base on map is not significant: grey
				`>b − base</text><line class="ci" stroke="#555"`,
				// the matrix: row minus column, flipped from the pair (b, new)
				`<td class="sig down" title="b − ` + esc2 + `, map: -0.0200, 95% CI [-0.0300, -0.0100], d_z -0.20, p (rand.) = 0.0050, p (BH) = 0.0100, 40 queries">-0.0200</td>`,
				`<td class="sig up" title="` + esc2 + ` − b, map: +0.0200, 95% CI [+0.0100, +0.0300], d_z +0.20, p (rand.) = 0.0050, p (BH) = 0.0100, 40 queries">+0.0200</td>`,
				`<td title="base − b, map: -0.0100, 95% CI [-0.0300, +0.0100], d_z -0.10, p (rand.) = 0.2000, p (BH) = 0.4000, 40 queries">-0.0100</td>`,
				`<td class="sig up" title="b − ` + esc2 + `, ndcg@10: +0.0500`,
				"<a href=\"#all-pairs\">All pairs</a>",
				"<th>Δ map <small>(" + esc2 + " − b)</small></th>",
				"Within a slice every comparison is a paired t-test, whatever the run's test",
				"bold where p (BH) &lt; 0.05",
			},
			absent:       []string{"Holm", "not compared", "did not compare", "paired t-test;"},
			forestCharts: 2, matrixTables: 2},
		{name: "three systems, with the baseline", nsys: 3, pairs: [][2]int{{0, 1}, {0, 2}},
			test: "t", corr: "Holm", note: "paired t-test; p corrected by Holm's method over every comparison",
			want: []string{
				"<h3>Differences from the baseline</h3>", "<th>p (t)</th><th>p (Holm)</th>",
				"Comparisons: paired t-test; p corrected by Holm&#39;s method over every comparison.",
				`>` + esc2 + ` − base</text>`, `>b − base</text>`,
				`<td class="none" title="b − ` + esc2 + `: not compared">–</td>`,
				`<td class="none" title="` + esc2 + ` − b: not compared">–</td>`,
				`<td class="sig down" title="base − ` + esc2 + `, map: -0.0300`,
				"– where the run did not compare the two",
			},
			absent:       []string{esc2 + " − b<", "(" + esc2 + " − b)", "Benjamini", "rand."},
			forestCharts: 2, matrixTables: 2},
		{name: "two systems", nsys: 2, pairs: [][2]int{{0, 1}},
			test: "Tukey", corr: "uncorr.", note: "randomized Tukey HSD, 500 permutations (seed 1); p not corrected",
			want: []string{
				`aria-label="b − base: difference per metric with 95% intervals"`, "<th>p (Tukey)</th><th>p (uncorr.)</th>",
				`<title>ndcg@10: difference +0.0300, 95% CI [+0.0200, +0.0400], d_z +0.30, p (Tukey) = 0.0010, p (uncorr.) = 0.0020, 40 queries</title>`,
				`>ndcg@10</text><line class="ci" stroke="#d1495b"`,
				"Comparisons: randomized Tukey HSD, 500 permutations (seed 1); p not corrected.",
			},
			absent:       []string{"all-pairs", "class=\"num matrix\"", "Holm", esc2},
			forestCharts: 1, matrixTables: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := &Data{Title: "t", Metrics: []string{"map", "ndcg@10"}, Systems: systems[:tc.nsys],
				Test: tc.test, Correction: tc.corr, TestNote: tc.note, SliceCols: []string{"market"}}
			sl := Slice{Key: []string{"m1"}, Queries: 40}
			for range tc.nsys {
				sl.Stats = append(sl.Stats, []Stat{st, st})
			}
			for _, p := range tc.pairs {
				d.Pairs = append(d.Pairs, Pair{I: p[0], J: p[1], Diffs: all[p]})
				sl.Diffs = append(sl.Diffs, all[p])
			}
			d.Slices = []Slice{sl}
			var buf bytes.Buffer
			if err := Write(&buf, d); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q", w)
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(out, a) {
					t.Errorf("output has %q", a)
				}
			}
			if strings.Contains(out, "new<&>") {
				t.Error("a system name unescaped")
			}
			if n := strings.Count(out, "with 95% intervals\" viewBox"); n != tc.forestCharts {
				t.Errorf("%d forest charts, want %d", n, tc.forestCharts)
			}
			if n := strings.Count(out, "<table class=\"num matrix\">"); n != tc.matrixTables {
				t.Errorf("%d matrix tables, want %d", n, tc.matrixTables)
			}
			// a row per pair in each chart: every pair's row in the map chart
			if tc.nsys > 2 {
				chart := out[strings.Index(out, `aria-label="map: difference per pair`):]
				chart = chart[:strings.Index(chart, "</svg>")]
				if n := strings.Count(chart, `<g class="row">`); n != len(tc.pairs) {
					t.Errorf("map chart: %d rows, want %d", n, len(tc.pairs))
				}
			}
		})
	}
}

// TestComparisonNames: names that print quoted (a control character, a
// leading quote) are quoted once, each on its own, in every pair label,
// forest row and matrix cell; none is quoted again as part of a longer
// text.
func TestComparisonNames(t *testing.T) {
	nan := math.NaN()
	st := Stat{Mean: 0.5, N: 3, CI: Interval{0.4, 0.6}, Boot: Interval{nan, nan}}
	hist := [][]Bin{{{0, 1, 3}}}
	df := Diff{N: 9, Mean: 0.02, CI: Interval{0.01, 0.03}, Boot: Interval{nan, nan}, Effect: nan, EffectCI: Interval{nan, nan}, P: 0.001, PAdj: 0.003, Sig: true, PText: "0.0010", PAdjText: "0.0030"}
	d := &Data{Title: "t", Metrics: []string{"map"}, Test: "t", Correction: "Holm",
		Systems: []System{{Name: "base", Stats: []Stat{st}, Hists: hist}, {Name: `"q"`, Stats: []Stat{st}, Hists: hist}, {Name: "b\x1b[31m", Stats: []Stat{st}, Hists: hist}},
		Pairs:   []Pair{{I: 0, J: 1, Diffs: []Diff{df}}, {I: 0, J: 2, Diffs: []Diff{df}}, {I: 1, J: 2, Diffs: []Diff{df}}}}
	var buf bytes.Buffer
	if err := Write(&buf, d); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	const b, q = `&#34;b\x1b[31m&#34;`, `&#34;\&#34;q\&#34;&#34;`
	for _, want := range []string{
		`class="sys"><span class="swatch" style="background:#2a9d5c"></span>` + b + ` − ` + q + `</th>`, // differences table
		`>` + b + ` − ` + q + `</text>`,                          // forest row label
		`<title>` + b + ` − ` + q + `, map: difference +0.0200,`, // its hover text
		`title="` + q + ` − ` + b + `, map: -0.0200,`,            // the matrix, flipped
		`(c) ` + b + `</th>`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if strings.Contains(out, "\x1b") || strings.Contains(out, `&#34;\&#34;b`) || strings.Contains(out, `\\`) {
		t.Error("a raw control character, or a name quoted twice")
	}
}
