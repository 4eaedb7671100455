package synth

import (
	"math"
	"testing"
)

// TestPropSim checks the simulation's shape: the same rows from the same
// seed, every ranker's impressions showing Positions rows in order, and
// the click rate at each position falling as the propensity does
// (relative to position 1, within sampling noise), over every ranker.
func TestPropSim(t *testing.T) {
	cfg := PropConfig{Impressions: 20000, Queries: 50, Docs: 20, Positions: 5, Noise: DefaultNoise[:3], Eta: 1}
	a, b := NewPropSim(7, cfg), NewPropSim(7, cfg)
	var ra, rb Row
	clicks := make([]float64, cfg.Positions+1)
	rankers := map[string]int{}
	n := 0
	for a.Next(&ra) {
		if !b.Next(&rb) || ra != rb {
			t.Fatalf("row %d: %+v and %+v from one seed", n, ra, rb)
		}
		if want := int64(n%cfg.Positions + 1); ra.Position != want || ra.Ranker == "" || ra.Propensity != a.Prop(int(want)) {
			t.Fatalf("row %d: %+v, want position %d", n, ra, want)
		}
		clicks[ra.Position] += ra.Label
		if ra.Position == 1 {
			rankers[ra.Ranker]++
		}
		n++
	}
	if b.Next(&rb) || n != cfg.Impressions*cfg.Positions || len(rankers) != 3 {
		t.Fatalf("%d rows, rankers %v", n, rankers)
	}
	// the clicked share at k falls at least as fast as k^-1 does, since
	// the rankers put the more attractive documents first
	for k := 2; k <= cfg.Positions; k++ {
		if r := clicks[k] / clicks[1]; !(r < a.Prop(k)*1.05) || math.IsNaN(r) {
			t.Errorf("position %d: clicks %.0f / %.0f = %.3f, want below %.3f", k, clicks[k], clicks[1], r, a.Prop(k)*1.05)
		}
	}
}
