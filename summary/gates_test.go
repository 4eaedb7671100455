package summary

import (
	"math"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/metrics"
)

// TestParseWorse: --fail-if-worse margins at their extremes: -0 is the
// margin 0 (it printed "below --0"), names match in any case, and what is
// not a finite margin >= 0 is refused, naming the flag.
func TestParseWorse(t *testing.T) {
	ms, err := metrics.ParseList("map,ndcg@10")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		spec   string
		metric int
		margin float64
		err    string
	}{
		{spec: "ndcg@10=0", metric: 1, margin: 0},
		{spec: "ndcg@10=-0", metric: 1, margin: 0},
		{spec: "NDCG@10=0.005", metric: 1, margin: 0.005},
		{spec: "map=1e308", metric: 0, margin: 1e308},
		{spec: "map=inf", err: "want a number >= 0"},
		{spec: "map=-1e-9", err: "want a number >= 0"},
		{spec: "map=nan", err: `"nan" is not a number`},
		{spec: "p@10=0.1", err: "not among the metrics computed"},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			g, err := ParseGates("", tc.spec, false, ms)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "--fail-if-worse") {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			w := g.Worse[0]
			if w.Metric != tc.metric || w.Margin != tc.margin || math.Signbit(w.Margin) {
				t.Fatalf("gate %+v, want metric %d margin %v", w, tc.metric, tc.margin)
			}
			c := WorseCheck{Metric: ms[w.Metric].Name, System: "b", Margin: w.Margin, Lower: -0.5, Interval: "t"}
			if s := c.String(); strings.Contains(s, "--") {
				t.Fatalf("%s", s)
			}
		})
	}
}
