package metrics

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestInterleaveWorked checks the interleaving outcome on lists worked by
// hand: team A's rows are 0, team B's 1, a click is a label > 0 (or >= the
// threshold), and the outcome is the sign of B's clicks minus A's.
func TestInterleaveWorked(t *testing.T) {
	for _, tc := range []struct {
		name  string
		label []float64
		team  []uint8
		o     Options
		want  float64
	}{
		// A B B A: clicks on rows 1 (A), 2 (B) and 3 (B): B 2 − A 1 > 0
		{"B wins", []float64{1, 1, 1, 0}, []uint8{0, 1, 1, 0}, Options{}, 1},
		// B A B A: clicks on rows 2 (A) and 4 (A): B 0 − A 2 < 0
		{"A wins", []float64{0, 1, 0, 1}, []uint8{1, 0, 1, 0}, Options{}, -1},
		// A B A B: a click each: 1 − 1 = 0, a tie with clicks
		{"tie", []float64{0, 1, 1, 0}, []uint8{0, 1, 0, 1}, Options{}, 0},
		// every row clicked, two each: a tie
		{"all clicked", []float64{1, 1, 1, 1}, []uint8{0, 1, 1, 0}, Options{}, 0},
		// no click: undefined, left out of the mean
		{"no click", []float64{0, 0, 0}, []uint8{0, 1, 0}, Options{}, math.NaN()},
		// --empty zero does not make an impression without a click a tie
		{"no click, empty zero", []float64{0, 0}, []uint8{0, 1}, Options{Empty: EmptyZero}, math.NaN()},
		// graded clicks (1 short, 2 long) under --rel-threshold 2: A's
		// short click does not count, B's long one does: 1 − 0 > 0
		{"threshold", []float64{1, 2, 0}, []uint8{0, 1, 0}, Options{HasThreshold: true, RelThreshold: 2}, 1},
		// the same list with every click counting: A 1, B 1
		{"no threshold", []float64{1, 2, 0}, []uint8{0, 1, 0}, Options{}, 0},
		// one team only (a degenerate list): its click wins
		{"one team", []float64{0, 1}, []uint8{1, 1}, Options{}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.o
			o.MaxGrade = 4
			// the order does not matter: the scores reverse the input
			score := make([]float64, len(tc.label))
			for i := range score {
				score[i] = float64(i)
			}
			for _, ties := range []Ties{TiesInput, TiesAverage, TiesOptimistic} {
				o.Ties = ties
				got, _ := evalNamed(t, []string{"interleave", "interleaving", "clicks"}, o, &List{Score: score, Label: tc.label, Team: tc.team})
				checkNamed(t, got, map[string]float64{"interleave": tc.want, "interleaving": tc.want}, 0)
			}
		})
	}
}

// TestInterleaveBrute: on random lists, the outcome is the sign of B's
// clicks minus A's (NaN without a click), whatever the scores' order and
// the tie policy.
func TestInterleaveBrute(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	ms := mustParseList(t, []string{"interleave"})
	for trial := range 2000 {
		n := rng.IntN(8)
		l := List{Score: make([]float64, n), Label: make([]float64, n), Team: make([]uint8, n)}
		var a, b int
		for i := range n {
			l.Score[i] = float64(rng.IntN(3))
			l.Label[i] = float64(rng.IntN(2))
			l.Team[i] = uint8(rng.IntN(2))
			if l.Label[i] > 0 {
				if l.Team[i] == 1 {
					b++
				} else {
					a++
				}
			}
		}
		want := math.NaN()
		switch {
		case a+b == 0:
		case b > a:
			want = 1
		case a > b:
			want = -1
		default:
			want = 0
		}
		for _, ties := range []Ties{TiesInput, TiesAverage, TiesPessimistic} {
			out := []float64{0}
			NewEvaluator(ms, Options{Ties: ties, MaxGrade: 4}).Eval(&l, out)
			if !near(out[0], want, 0) {
				t.Fatalf("trial %d (%v): labels %v teams %v: %v, want %v", trial, ties, l.Label, l.Team, out[0], want)
			}
		}
	}
}

func TestInterleaveMissing(t *testing.T) {
	m := mustParseList(t, []string{"interleave"})[0]
	if !math.IsNaN(m.Missing()) || m.FollowsEmpty() || !m.Teams() || !m.Clicks() || m.Range() != RangeSigned {
		t.Errorf("interleave: Missing %v, FollowsEmpty %v, Teams %v, Clicks %v, Range %v", m.Missing(), m.FollowsEmpty(), m.Teams(), m.Clicks(), m.Range())
	}
	defer func() {
		if recover() == nil {
			t.Error("no panic without List.Team")
		}
	}()
	NewEvaluator([]Metric{m}, Options{MaxGrade: 4}).Eval(&List{Score: []float64{1}, Label: []float64{1}}, []float64{0})
}
