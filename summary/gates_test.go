package summary

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/metrics"
)

// TestParseWorse: --fail-if-worse margins at their extremes: -0 is the
// margin 0 (printed "below 0"), names match in any case, and what is not a
// finite margin >= 0 is refused, naming the flag.
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
		{spec: "NdCg@10=0.005", metric: 1, margin: 0.005},
		{spec: "NDCG@10=0.005", err: "not among the metrics computed"}, // ir_measures' NDCG@10, not ndcg@10
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
			c := WorseCheck{Metric: ms[w.Metric].Name, System: "b", Margin: w.Margin, Bound: -0.5, Interval: "t"}
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
// precision@10 takes a gate on p@10 or P_10. The name as -m gave it comes
// first.
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

// TestGateDirection: a gate fails what is worse. On a metric whose lower
// mean is the better one (abandon, first_click), --fail-under is refused
// and --fail-if-worse taken (it checks the upper bound of the difference,
// TestWorseDirection); a metric with no better side (last_click) takes no
// gate.
func TestGateDirection(t *testing.T) {
	ms, err := metrics.ParseList("ctr@10,abandon,first_click,last_click,ips_dcg@10,snips_dcg@10")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		gate         string
		under, worse string // "" accepted, else part of the error
	}{
		{gate: "ctr@10"}, {gate: "ips_dcg@10"}, {gate: "snips_dcg@10"},
		{gate: "abandon", under: "abandon is better lower"},
		{gate: "first_click", under: "first_click is better lower"},
		{gate: "last_click", under: "last_click has no better side", worse: "last_click has no better side"},
	} {
		t.Run(tc.gate, func(t *testing.T) {
			for _, flag := range []string{"--fail-under", "--fail-if-worse"} {
				under, worse, want := tc.gate+"=0.01", "", tc.under
				if flag == "--fail-if-worse" {
					under, worse, want = "", under, tc.worse
				}
				_, err := ParseGates(under, worse, false, ms)
				if want == "" && err != nil {
					t.Errorf("%s: %v", flag, err)
				}
				if want != "" && (err == nil || !strings.Contains(err.Error(), flag+": "+want)) {
					t.Errorf("%s: error %v, want %q", flag, err, want)
				}
			}
		})
	}
}

// TestWorseDirection: --fail-if-worse on a better-lower metric fails when
// the upper bound of the candidate's difference is above +margin, and says
// so in the JSON summary and the message; on the others, when the lower
// bound is below -margin.
func TestWorseDirection(t *testing.T) {
	for _, tc := range []struct {
		name           string
		metric         string
		lo, hi, margin float64
		passed         bool
		bound          float64
		text           string
	}{
		// a candidate abandons more: worse
		{"abandon up", "abandon", 0.004, 0.03, 0.01, false, 0.03, "upper bound 0.03 of the 95% t interval of its difference from the baseline is above 0.01 (abandon is better lower)"},
		// abandons less: better, whatever the lower bound
		{"abandon down", "abandon", -0.2, -0.1, 0.01, true, -0.1, ""},
		{"abandon at margin", "abandon", -0.1, 0.01, 0.01, true, 0.01, ""},
		// the first click further down: worse
		{"first_click down", "first_click", 0.3, 0.41, 0.01, false, 0.41, "above 0.01"},
		// ctr down: worse, on the lower bound as before
		{"ctr down", "ctr@10", -0.03, 0.01, 0.01, false, -0.03, "lower bound -0.03 of the 95% t interval of its difference from the baseline is below -0.01"},
		{"ctr up", "ctr@10", 0.01, 0.03, 0.01, true, 0.01, ""},
		{"undefined", "abandon", math.NaN(), math.NaN(), 0.01, false, math.NaN(), "undefined"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms, err := metrics.ParseList(tc.metric)
			if err != nil {
				t.Fatal(err)
			}
			g, err := ParseGates("", fmt.Sprintf("%s=%g", tc.metric, tc.margin), false, ms)
			if err != nil {
				t.Fatal(err)
			}
			c := worseCheckOf(ms, g.Worse[0], tc.lo, tc.hi)
			if c.Passed != tc.passed || !(c.Bound == tc.bound || math.IsNaN(c.Bound) && math.IsNaN(tc.bound)) {
				t.Fatalf("passed %v bound %v, want %v %v", c.Passed, c.Bound, tc.passed, tc.bound)
			}
			gs := &Gates{Worse: []WorseCheck{c}}
			js := string(appendGates(nil, gs))
			side := `"lower": `
			if ms[0].Better() < 0 {
				side = `"upper": `
			}
			if !strings.Contains(js, side) {
				t.Errorf("JSON %s lacks %s", js, side)
			}
			if tc.text != "" && (gs.Err() == nil || !strings.Contains(gs.Err().Error(), tc.text)) {
				t.Errorf("message %v, want %q", gs.Err(), tc.text)
			}
		})
	}
}
