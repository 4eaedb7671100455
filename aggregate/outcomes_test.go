package aggregate

import (
	"errors"
	"math"
	"testing"
)

// TestOutcomes: the counts read back from the sums of +1, −1 and 0
// outcomes are those added, whatever the split and merge order, and Δ is
// the mean. Worked: 3 wins, 1 loss, 2 ties, 4 impressions without a
// click: Σv = 3 − 1 = 2, Σv² = 3 + 1 = 4, N = 6, so wins = (4 + 2)/2 = 3,
// losses = (4 − 2)/2 = 1, ties = 6 − 4 = 2, Δ = 2/6, and the sign test of
// 3 against 1 is 2·(1 + 4)/16 = 0.625.
func TestOutcomes(t *testing.T) {
	vals := []float64{1, math.NaN(), -1, 0, 1, math.NaN(), math.NaN(), 0, 1, math.NaN()}
	var whole Stat
	for _, v := range vals {
		whole.Add(v)
	}
	for cut := range vals {
		var a, b Stat
		for i, v := range vals {
			if i < cut {
				a.Add(v)
			} else {
				b.Add(v)
			}
		}
		b.Merge(&a)
		o, err := b.Outcomes(int64(len(vals)))
		if err != nil {
			t.Fatal(err)
		}
		want := Outcomes{Wins: 3, Losses: 1, Ties: 2, NoClick: 4, P: o.P}
		if o != want || math.Abs(o.P-0.625) > 1e-15 {
			t.Fatalf("cut %d: %+v, want %+v and p 0.625", cut, o, want)
		}
		if m := b.Summary().Mean; m != 2.0/6 {
			t.Fatalf("cut %d: Δ = %v, want 1/3", cut, m)
		}
	}
	// none at all: no evidence, p = 1
	var none Stat
	none.Add(math.NaN())
	if o, err := none.Outcomes(1); err != nil || o != (Outcomes{NoClick: 1, P: 1}) {
		t.Errorf("no click: %+v, %v", o, err)
	}
}

// TestOutcomesRefused: sums no outcomes of +1, −1 and 0 give (a crafted
// state's) are refused.
func TestOutcomesRefused(t *testing.T) {
	stat := func(n int64, vals ...float64) Stat {
		var s Stat
		for _, v := range vals {
			s.Add(v)
		}
		s.N = n
		return s
	}
	for _, tc := range []struct {
		name        string
		st          Stat
		impressions int64
	}{
		{"a fraction", stat(2, 0.5, 1), 2},
		{"a value of 2", stat(1, 2), 1}, // Σv² = 4 > N
		{"more than the impressions", stat(3, 1, -1, 0), 2},
		{"infinite", stat(1, math.Inf(1)), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := tc.st.Outcomes(tc.impressions); !errors.Is(err, ErrImpossible) {
				t.Errorf("%v, want ErrImpossible", err)
			}
		})
	}
	// parity proper: Σv = 1 and Σv² = 2 (no such counts: wins 1.5)
	var s Stat
	s.Add(1)
	s.Add(1)
	s.Add(-1)
	s.SumSq = Sum{}
	s.SumSq.Add(2)
	if _, err := s.Outcomes(3); !errors.Is(err, ErrImpossible) {
		t.Errorf("Σv = 1, Σv² = 2: %v, want ErrImpossible", err)
	}
}
