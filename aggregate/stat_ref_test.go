package aggregate

import (
	"encoding/json"
	"os"
	"testing"
)

// TestStatSummaryReference: a Stat's summary of the raw differences in
// the statistics' reference file (scripts/statref.py) has python's exact
// count, mean and standard deviation, which the stats package's tests of
// the t-test and effect size start from.
func TestStatSummaryReference(t *testing.T) {
	b, err := os.ReadFile("../stats/testdata/statref.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Effect []struct {
			Name     string
			N        int64
			Mean, SD float64
			X        []float64
		}
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range ref.Effect {
		if c.X == nil {
			continue
		}
		n++
		t.Run(c.Name, func(t *testing.T) {
			var st Stat
			for _, v := range c.X {
				st.Add(v)
			}
			if s := st.Summary(); s.N != c.N || s.Mean != c.Mean || s.Stdev != c.SD {
				t.Fatalf("Stat summary n=%d mean=%.17g sd=%.17g, python's exact n=%d mean=%.17g sd=%.17g",
					s.N, s.Mean, s.Stdev, c.N, c.Mean, c.SD)
			}
		})
	}
	if n == 0 {
		t.Fatal("no raw differences in the reference file")
	}
}
