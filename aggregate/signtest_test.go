package aggregate

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
