package pipeline

import (
	"math"
	"slices"
	"testing"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/metrics"
)

// missingGroup is a query of four rows with doc ids a..d, whose label of
// row b and score of row c are missing.
func missingGroup() *Group {
	g := &Group{}
	g.Reset()
	g.ID = []byte("q")
	for i, d := range []string{"a", "b", "c", "d"} {
		g.Doc.Append([]byte(d))
		g.Where = append(g.Where, Pack(0, int64(i+1)))
	}
	g.Label = []float64{1, math.NaN(), 1, 0}
	g.Score = []float64{4, 3, math.NaN(), 1}
	return g
}

func TestParseMissing(t *testing.T) {
	for _, tc := range []struct {
		in    string
		label bool
		want  Missing
		ok    bool
	}{
		{"error", false, MissingError, true}, {"drop", false, MissingDrop, true}, {"last", false, MissingLast, true},
		{"zero", false, 0, false}, {"zero", true, MissingZero, true}, {"last", true, 0, false}, {"", true, 0, false},
	} {
		got, err := ParseMissing(tc.in, tc.label)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseMissing(%q, %v) = %v, %v", tc.in, tc.label, got, err)
		}
	}
}

// TestMissingPolicies: each policy's figures and counts on one query, and
// the row left out in every column (the doc ids too) under drop.
func TestMissingPolicies(t *testing.T) {
	ms, err := metrics.ParseList("map,p@4")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name           string
		score, label   Missing
		rows           int64
		noScore, noLab int64
		vals           []float64
		docs           []string // the rows of the group after Prepare
	}{
		// ranking a(1) c(1, no score) d(0); b (no label) left out
		{"drop/drop", MissingDrop, MissingDrop, 2, 1, 1, []float64{1, 0.25}, []string{"a", "c", "d"}},
		// a(1) d(0) c(1, last): AP (1 + 2/3)/2; b (no label) left out
		{"last/drop", MissingLast, MissingDrop, 3, 1, 1, []float64{0.8333333333333333, 0.5}, []string{"a", "c", "d"}},
		// a(1) b(0) d(0) c(1, last)
		{"last/zero", MissingLast, MissingZero, 4, 1, 1, []float64{(1 + 0.5) / 2, 0.5}, []string{"a", "b", "c", "d"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Rules{Metrics: ms, Options: metrics.DefaultOptions(), MissingScore: tc.score, MissingLabel: tc.label}
			u := r.NewUnit(func(uint64) string { return "" })
			g := missingGroup()
			res := &aggregate.Query{Slice: -1, Rows: make([]int, 1), Vals: [][]float64{make([]float64, len(ms))}, Empty: make([]bool, 1), Missing: make([]bool, 1)}
			if err := u.EvalSystems([]*Group{g}, res, make([]int64, 1)); err != nil {
				t.Fatal(err)
			}
			var docs []string
			for i := range g.N() {
				docs = append(docs, string(g.Doc.At(i)))
			}
			if !slices.Equal(docs, tc.docs) || !slices.Equal(res.Vals[0], tc.vals) || int64(res.Rows[0]) != tc.rows {
				t.Errorf("docs %v vals %v rows %d; want %v %v %d", docs, res.Vals[0], res.Rows[0], tc.docs, tc.vals, tc.rows)
			}
			noScore, noLabel := make([]int64, 1), make([]int64, 1)
			u.TakeMissing(noScore, noLabel)
			if noScore[0] != tc.noScore || noLabel[0] != tc.noLab {
				t.Errorf("counts %d %d, want %d %d", noScore[0], noLabel[0], tc.noScore, tc.noLab)
			}
		})
	}
}
