package stats

import (
	"fmt"
	"math"
	"testing"
)

// TestSignTestMatchesScipy: the sign test of interleaving's wins and losses
// against scipy.stats.binomtest and an exact sum of the binomial tail
// (statref.json), from no trials to ten million, within 1e-12 relative (the
// incomplete beta it first used was 2e-8 off at ten million trials).
func TestSignTestMatchesScipy(t *testing.T) {
	r := loadStatRef(t)
	for _, c := range r.Sign {
		t.Run(fmt.Sprintf("%d-%d", c.A, c.B), func(t *testing.T) {
			got := SignTest(c.A, c.B)
			if e := relErr(got, c.PExact, 1e-300); e > 1e-12 {
				t.Errorf("SignTest(%d, %d) = %v, exact %v (rel err %.2g)", c.A, c.B, got, c.PExact, e)
			}
			if e := relErr(got, c.PScipy, 1e-300); e > 1e-12 {
				t.Errorf("SignTest(%d, %d) = %v, scipy %v (rel err %.2g)", c.A, c.B, got, c.PScipy, e)
			}
			if SignTest(c.B, c.A) != got {
				t.Errorf("not symmetric in wins and losses")
			}
		})
	}
	if p := SignTest(-1, 3); !math.IsNaN(p) {
		t.Errorf("negative count: %v, want NaN", p)
	}
}

// TestSignTestSweep: when every decided impression went one way the
// p-value is the dyadic 2·2^−n, exactly, not within rounding of it (it
// was exp(−n·ln 2), 0.25000000000000006 for three wins); below the
// smallest float it is 0.
func TestSignTestSweep(t *testing.T) {
	for _, tc := range []struct {
		wins, losses int64
		want         float64
	}{
		{3, 0, 0.25},
		{0, 3, 0.25},
		{7, 0, 1.0 / 64},
		{0, 40, 0x1p-39},
		{1000, 0, 0x1p-999},
		{1074, 0, 0x1p-1073},
		{1075, 0, 0x1p-1074},
		{1076, 0, 0},
		{1 << 40, 0, 0},
	} {
		t.Run(fmt.Sprintf("%d-%d", tc.wins, tc.losses), func(t *testing.T) {
			if got := SignTest(tc.wins, tc.losses); got != tc.want {
				t.Errorf("SignTest(%d, %d) = %v, want %v", tc.wins, tc.losses, got, tc.want)
			}
		})
	}
}
