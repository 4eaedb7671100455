package summary

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/reader"
	"github.com/rankeval/rankeval/stats"
)

// TestReportFromResults: the report gets the version and every input as
// fields of their own, every pair of the run with the test and correction
// it was made by, and prints p-values by the text summary's rule
// ("< 0.0001" for a p too small for four decimals, not 0.0e+00).
func TestReportFromResults(t *testing.T) {
	ms, err := metrics.ParseList("map")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		systems []string
		compare aggregate.Compare
		corr    stats.Correction
		want    []string
		absent  []string
	}{
		{name: "two systems, t, Holm", systems: []string{"base", "cand"},
			want: []string{"<th>p (t)</th><th>p (Holm)</th>", "<td>&lt; 0.0001</td><td class=\"sig\">&lt; 0.0001</td>", "p (t) &lt; 0.0001, p (Holm) &lt; 0.0001",
				"Comparisons: paired t-test; p corrected by Holm&#39;s method over every comparison.",
				`aria-label="cand − base: difference per metric with 95% intervals"`},
			absent: []string{"all-pairs"}},
		{name: "three systems, all pairs, randomization, BH", systems: []string{"base", "cand", "c<3>"},
			compare: aggregate.Compare{AllPairs: true, Test: stats.TestRandom, Permutations: 200, Seed: 5}, corr: stats.CorrBH,
			want: []string{"<th>p (rand.)</th><th>p (BH)</th>",
				"Comparisons: paired randomization test, 200 permutations (seed 5); p corrected by Benjamini-Hochberg over every comparison.",
				// c<3> is cand's value + 0.01: the pair c − cand, and its flip in the matrix
				">c&lt;3&gt; − cand</th>", "<td class=\"sig up\" title=\"c&lt;3&gt; − cand, map: +0.0100,", "<td class=\"sig down\" title=\"cand − c&lt;3&gt;, map: -0.0100,",
				"<td class=\"sig down\" title=\"base − cand, map: -0.3100,"},
			absent: []string{"Holm", "not compared", "c<3>"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			run := &Run{Metrics: ms, Options: metrics.DefaultOptions(), Columns: reader.Columns{Query: "q", Score: "s", Label: "l"},
				Systems: tc.systems, Version: "v9.9.9", Inputs: []string{"p0", "p1", "p2", "p3", "p4"}, Compare: tc.compare, Correction: tc.corr}
			n := len(tc.systems)
			a := aggregate.NewAnalysis(&aggregate.Layout{Metrics: 1, Core: []aggregate.Range{aggregate.RangeUnit}, Systems: n, Hist: true, Compare: tc.compare})
			// cand beats base by 0.31 ± 0.01 on every query: p underflows to 0
			for i := range 200 {
				v := 0.2 + float64(i%7)*0.05
				q := &aggregate.Query{Slice: -1, Hash: uint64(i) * 0x9e3779b97f4a7c15, Rows: make([]int, n), Vals: [][]float64{{v}, {v + 0.3 + float64(i%3)*0.01}},
					Empty: make([]bool, n), Missing: make([]bool, n)}
				if n > 2 {
					q.Vals = append(q.Vals, []float64{q.Vals[1][0] + 0.01})
				}
				if err := a.Add(q); err != nil {
					t.Fatal(err)
				}
			}
			r := NewResults(run, a, nil)
			if p := r.pairs[0][0].PT; p >= 1e-4 {
				t.Fatalf("p = %g, want a tiny one", p)
			}
			var buf bytes.Buffer
			if err := r.WriteReport(&buf); err != nil {
				t.Fatal(err)
			}
			html := buf.String()
			for _, want := range append(tc.want, "rankeval v9.9.9", "5 inputs: p0, p1, p2, …", "<li>p4</li>") {
				if !strings.Contains(html, want) {
					t.Errorf("report lacks %q", want)
				}
			}
			for _, a := range append(tc.absent, "e+00", "Input: ") {
				if strings.Contains(html, a) {
					t.Errorf("report has %q", a)
				}
			}
			if n == 2 {
				text := string(r.Text())
				if !strings.Contains(text, "  < 0.0001   < 0.0001") || strings.Contains(text, "e+00") {
					t.Errorf("text summary's p-values:\n%s", text)
				}
			}
		})
	}
}
