package summary

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/reader"
)

// powerResults is a run of three systems over 40 queries on map and
// churn@3 (a rank similarity: the baseline's own value is undefined),
// with the --detect requests detect, comparing every pair when all.
func powerResults(t *testing.T, detect string, all bool) *Results {
	t.Helper()
	ms, err := metrics.ParseList("map,churn@3")
	if err != nil {
		t.Fatal(err)
	}
	ds, err := ParseDetect(detect, ms)
	if err != nil {
		t.Fatal(err)
	}
	cmp := aggregate.Compare{AllPairs: all}
	run := &Run{Metrics: ms, Options: metrics.DefaultOptions(), Columns: reader.Columns{Query: "q", Score: "s", Label: "l"},
		Systems: []string{"base", "cand", "other"}, Compare: cmp, Detect: ds}
	a := aggregate.NewAnalysis(&aggregate.Layout{Metrics: 2, Core: []aggregate.Range{aggregate.RangeUnit, aggregate.RangeUnit}, Systems: 3, Compare: cmp})
	for i := range 40 {
		v := 0.2 + float64(i%7)*0.05
		c := float64(i%3) / 3
		q := &aggregate.Query{Slice: -1, Hash: uint64(i) * 0x9e3779b97f4a7c15, Rows: make([]int, 3),
			Vals:  [][]float64{{v, math.NaN()}, {v + float64(i%5)*0.02, c}, {v - float64(i%4)*0.03, float64(i%2) / 3}},
			Empty: make([]bool, 3), Missing: make([]bool, 3)}
		if err := a.Add(q); err != nil {
			t.Fatal(err)
		}
	}
	return NewResults(run, a, nil)
}

// TestDetectRankSimilarity: a rank similarity compared with the baseline,
// which has none, gets no --detect answer in any format (the text table
// has no row for it, and JSON no "detect" with a made-up reason), while
// its comparisons of two candidates under --pairs all get one, as map's
// comparisons all do.
func TestDetectRankSimilarity(t *testing.T) {
	for _, all := range []bool{false, true} {
		name := map[bool]string{false: "pairs baseline", true: "pairs all"}[all]
		t.Run(name, func(t *testing.T) {
			r := powerResults(t, "churn@3=0.05,map=0.02", all)
			var js struct {
				Comparison []struct {
					System, Baseline string
					Metrics          map[string]struct {
						Detect []struct {
							Needed *int64
							Note   string
						}
					}
				}
			}
			if err := json.Unmarshal(r.JSON(), &js); err != nil {
				t.Fatal(err)
			}
			want := map[bool]int{false: 2, true: 3}[all]
			if len(js.Comparison) != want {
				t.Fatalf("%d comparisons, want %d", len(js.Comparison), want)
			}
			for _, c := range js.Comparison {
				if d := c.Metrics["map"].Detect; len(d) != 1 || d[0].Needed == nil {
					t.Errorf("%s vs %s: map's detect %+v, want an answer", c.System, c.Baseline, d)
				}
				churn := c.Metrics["churn@3"].Detect
				switch {
				case c.Baseline == "base" && len(churn) != 0:
					t.Errorf("%s vs base: churn@3's detect %+v, want none (a similarity to the baseline)", c.System, churn)
				case c.Baseline != "base" && (len(churn) != 1 || churn[0].Needed == nil):
					t.Errorf("%s vs %s: churn@3's detect %+v, want an answer", c.System, c.Baseline, churn)
				}
			}
			text := string(r.Text())
			if n := strings.Count(text, "  churn@3, a difference of 0.05: "); n != map[bool]int{false: 0, true: 1}[all] {
				t.Errorf("%d churn@3 answers in the text:\n%s", n, text)
			}
		})
	}
}
