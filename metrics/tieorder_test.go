package metrics

import (
	"math"
	"testing"
)

// TestTiesAverageOrderFree: under TiesAverage a tied group's figures are
// the same bits for every input order of its rows, so a shuffled log,
// --unsorted and Beam agree with the sorted log to the last bit.
func TestTiesAverageOrderFree(t *testing.T) {
	names := []string{"err@3", "err@5", "err", "nerr@3", "ndcg@3", "dcg", "cg", "map", "rr", "p@3"}
	for _, tc := range []struct {
		name         string
		score, label []float64
		orders       [][]int // row permutations to compare with the first
	}{
		// a log's query: five rows tied at 0.5 around one above and one below
		{"graded", []float64{0.5, 0.5, 0.51, 0.5, 0.5, 0.28, 0.5}, []float64{0, 0, 0, 2, 1, 0, 1},
			[][]int{{0, 1, 2, 3, 4, 5, 6}, {0, 2, 1, 5, 4, 6, 3}, {6, 4, 3, 1, 0, 2, 5}, {3, 6, 4, 0, 1, 5, 2}}},
		{"fractional labels", []float64{1, 1, 1, 1}, []float64{0.3, 1.7, 2.2, 0.1},
			[][]int{{0, 1, 2, 3}, {3, 2, 1, 0}, {1, 3, 0, 2}, {2, 0, 3, 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var first map[string]float64
			for _, ord := range tc.orders {
				l := List{}
				for _, i := range ord {
					l.Score = append(l.Score, tc.score[i])
					l.Label = append(l.Label, tc.label[i])
				}
				got, _ := evalNamed(t, names, Options{Ties: TiesAverage, MaxGrade: 4}, &l)
				if first == nil {
					first = got
					continue
				}
				for _, n := range names {
					if math.Float64bits(got[n]) != math.Float64bits(first[n]) {
						t.Errorf("order %v: %s = %v, but %v for the first order", ord, n, got[n], first[n])
					}
				}
			}
		})
	}
}
