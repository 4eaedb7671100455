package summary

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/reader"
)

// TestReportFromResults: the report gets the version and every input as
// fields of their own, and prints p-values by the text summary's rule
// ("< 0.0001" for a p too small for four decimals, not 0.0e+00).
func TestReportFromResults(t *testing.T) {
	ms, err := metrics.ParseList("map")
	if err != nil {
		t.Fatal(err)
	}
	run := &Run{Metrics: ms, Options: metrics.DefaultOptions(), Columns: reader.Columns{Query: "q", Score: "s", Label: "l"},
		Systems: []string{"base", "cand"}, Version: "v9.9.9", Inputs: []string{"p0", "p1", "p2", "p3", "p4"}}
	a := aggregate.NewAnalysis(&aggregate.Layout{Metrics: 1, Core: []aggregate.Range{aggregate.RangeUnit}, Systems: 2, Hist: true})
	// b beats a by 0.3 ± 0.01 on every query: p underflows to 0
	for i := range 200 {
		v := 0.2 + float64(i%7)*0.05
		q := &aggregate.Query{Slice: -1, Rows: []int{10, 10}, Vals: [][]float64{{v}, {v + 0.3 + float64(i%3)*0.01}},
			Empty: []bool{false, false}, Missing: []bool{false, false}}
		if err := a.Add(q); err != nil {
			t.Fatal(err)
		}
	}
	r := NewResults(run, a, nil)
	if p := r.pairs[0][0].P; p >= 1e-4 {
		t.Fatalf("p = %g, want a tiny one", p)
	}
	var buf bytes.Buffer
	if err := r.WriteReport(&buf); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	for _, want := range []string{"<td>&lt; 0.0001</td><td class=\"sig\">&lt; 0.0001</td>", "p &lt; 0.0001, corrected p &lt; 0.0001",
		"rankeval v9.9.9", "5 inputs: p0, p1, p2, …", "<li>p4</li>"} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(html, "e+00") || strings.Contains(html, "Input: ") {
		t.Error("report has a p-value in scientific notation or the old input line")
	}
	text := string(r.Text())
	if !strings.Contains(text, "  < 0.0001   < 0.0001") || strings.Contains(text, "e+00") {
		t.Errorf("text summary's p-values:\n%s", text)
	}
}
