package summary

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/metrics"
)

// TestParseWorse: --fail-if-worse margins at their extremes: -0 is the
// margin 0 (it printed "below --0", then "below -0"), names match in any case, and what is
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
			want := "is below -" + strconv.FormatFloat(tc.margin, 'g', -1, 64)
			if tc.margin == 0 {
				want = "is below 0" // not "-0": the bound is zero
			}
			if s := c.String(); !strings.HasSuffix(s, want) {
				t.Fatalf("%s, want it to end %q", s, want)
			}
		})
	}
}

// TestGateMetricNames: a gate names a metric computed by any of its names
// (the metric list says trec_eval's work too, in any case): -m
// precision@10 with a gate on p@10 or P_10 was refused as "not among the
// metrics computed". The name as -m gave it comes first.
func TestGateMetricNames(t *testing.T) {
	ms, err := metrics.ParseList("precision@10,ndcg_cut_10,P_5,iprec@0.5,map,p@3,success@3")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		gate   string
		metric int // -1: refused
	}{
		{"precision@10", 0}, {"p@10", 0}, {"P_10", 0}, {"P.10", 0},
		{"ndcg@10", 1}, {"NDCG_CUT_10", 1}, {"ndcg_cut.10", 1},
		{"p@5", 2}, {"precision@5", 2},
		{"iprec@.5", 3}, {"iprec_at_recall_0.50", 3},
		{"map", 4}, {"ap", 4},
		{"P_3", 5}, {"hit@3", 6},
		{"p@010", 0}, {"ndcg@20", -1}, {"p@1", -1}, {"mrr", -1}, {"nonsense", -1},
	} {
		t.Run(tc.gate, func(t *testing.T) {
			for _, flag := range []string{"--fail-under", "--fail-if-worse"} {
				under, worse := tc.gate+"=0.1", ""
				if flag == "--fail-if-worse" {
					under, worse = "", under
				}
				g, err := ParseGates(under, worse, false, ms)
				if tc.metric < 0 {
					if err == nil || !strings.Contains(err.Error(), "not among the metrics computed") {
						t.Fatalf("%s: error %v, want not among the metrics computed", flag, err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", flag, err)
				}
				got := append(g.Under, g.Worse...)[0].Metric
				if got != tc.metric {
					t.Errorf("%s: gate on %s, want %s", flag, ms[got].Name, ms[tc.metric].Name)
				}
			}
		})
	}
}

// TestGateDirection: the gates fail a value too low, so a metric whose
// lower mean is the better one (abandon, first_click) or that has no
// better side (last_click) is refused, naming it: --fail-if-worse
// first_click=0.01 passed a candidate whose first click was 0.41 ranks
// further down, and --fail-under abandon=0.5 failed the runs with less
// abandonment.
func TestGateDirection(t *testing.T) {
	ms, err := metrics.ParseList("ctr@10,abandon,first_click,last_click,ips_dcg@10,snips_dcg@10")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		gate string
		ok   bool
	}{
		{"ctr@10", true}, {"ips_dcg@10", true}, {"snips_dcg@10", true},
		{"abandon", false}, {"first_click", false}, {"last_click", false},
	} {
		t.Run(tc.gate, func(t *testing.T) {
			for _, flag := range []string{"--fail-under", "--fail-if-worse"} {
				under, worse := tc.gate+"=0.01", ""
				if flag == "--fail-if-worse" {
					under, worse = "", under
				}
				_, err := ParseGates(under, worse, false, ms)
				if tc.ok && err != nil {
					t.Errorf("%s: %v", flag, err)
				}
				if !tc.ok && (err == nil || !strings.Contains(err.Error(), flag+": "+tc.gate+" is not better higher")) {
					t.Errorf("%s: error %v, want it refused naming %s", flag, err, tc.gate)
				}
			}
		})
	}
}
