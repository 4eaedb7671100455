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
	df := Diff{N: 3, Mean: 0.1, CI: Interval{0.05, 0.15}, Boot: Interval{nan, nan}, P: 0, PAdj: 0.03, PText: "< 0.0001", PAdjText: "0.0300"}
	hist := [][]Bin{{{0, 1, 3}}}
	d := &Data{Title: "t", Metrics: []string{"map"},
		Systems:   []System{{Name: "a", Stats: []Stat{st}, Hists: hist}, {Name: "b", Stats: []Stat{st}, Hists: hist}},
		Pairs:     []Pair{{System: "b", Baseline: "a", Diffs: []Diff{df}}},
		SliceCols: []string{"market"},
		Slices:    []Slice{{Key: []string{"m1"}, Queries: 3, Stats: [][]Stat{{st}, {st}}, Diffs: [][]Diff{{{N: 3, Mean: nan, CI: Interval{nan, nan}, P: nan, PAdj: nan}}}}},
	}
	var buf bytes.Buffer
	if err := Write(&buf, d); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"<td>&lt; 0.0001</td><td class=\"sig\">0.0300</td>", "p &lt; 0.0001, corrected p = 0.0300", "p = –, corrected p = –"} {
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
