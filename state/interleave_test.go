package state

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/config"
	"github.com/rankeval/rankeval/reader"
	"github.com/rankeval/rankeval/summary"
)

// interleaveState is the state of rankeval -m interleave,ctr --rank-col
// position --team-col team --teams prod,cand --by market, over 30
// impressions of outcomes +1, −1, 0 and none (no click) in turn.
func interleaveState(t testing.TB) *State {
	v := config.Config{Metrics: "interleave,ctr", Ties: "input", Gain: "exp", MaxGrade: 4, Empty: "skip", Dedup: "error",
		Format: "json", InputFormat: "auto", MaxGroupRows: 1000, Columns: reader.Columns{Query: "q", Label: "click", Rank: "position"},
		By: "market", MaxSlices: 100, Teams: config.Teams{TeamCol: "team", Teams: "prod,cand"}}
	s, err := v.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	run := s.Summary()
	run.Curves = summary.CurvesFor(run.Metrics)
	a := aggregate.NewAnalysis(layout(&run, s))
	for i := range 30 {
		out := []float64{1, -1, 0, math.NaN()}[i%4]
		q := aggregate.Query{Slice: i % 2, Rows: []int{5}, Vals: [][]float64{{out, 0.2}}, Empty: []bool{math.IsNaN(out)}, Missing: []bool{false}}
		if err := a.Add(&q); err != nil {
			t.Fatal(err)
		}
	}
	return &State{Run: &run, Agg: a, SliceKeys: [][]string{{"de"}, {"fr"}}}
}

// TestInterleaveState: a state records the team column and teams, reads
// back to the same bytes and counts; one whose sums no outcomes of +1, −1
// and 0 give (within the metric's range, so the general checks pass) is
// refused.
func TestInterleaveState(t *testing.T) {
	s := interleaveState(t)
	b := encode(t, s)
	if h, _ := split(t, b); !strings.Contains(string(h), `"teams":{"team_col":"team","a":"prod","b":"cand"}`) {
		t.Fatalf("header %s", h)
	}
	d, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if d.Run.Teams != (summary.Teams{Col: "team", A: "prod", B: "cand"}) || Mismatch(s, d) != "" {
		t.Fatalf("teams %+v, mismatch %q", d.Run.Teams, Mismatch(s, d))
	}
	// 30 impressions: 8 wins (i%4 = 0), 8 losses, 7 ties, 7 without a click
	if o, err := d.Agg.SysOutcomes(0, 0); err != nil || o != (aggregate.Outcomes{Wins: 8, Losses: 8, Ties: 7, NoClick: 7, P: 1}) {
		t.Fatalf("outcomes %+v, %v", o, err)
	}
	for _, tc := range []struct {
		name string
		edit func(a *aggregate.Analysis)
	}{
		{"half a win", func(a *aggregate.Analysis) { a.Sys[0].Stats[0].Sum.Add(0.5) }},
		// Σv = 1 and Σv² = 16: wins − losses odd, wins + losses even
		{"a win without its square", func(a *aggregate.Analysis) { a.Sys[0].Stats[0].Sum.Add(1) }},
		// slice fr (odd i): 8 losses; Σv = −7 and Σv² = 8 likewise
		{"in a slice", func(a *aggregate.Analysis) { a.Slices[1].Stats[0][0].Sum.Add(1) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := interleaveState(t)
			tc.edit(s.Agg)
			if _, err := Decode(encode(t, s)); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "interleaving outcomes") {
				t.Fatalf("err = %v, want ErrDamaged naming the outcomes", err)
			}
		})
	}
}
