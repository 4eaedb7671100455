package stats

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// statRef is testdata/statref.json, written by scripts/statref.py from
// scipy, statsmodels and mpmath (CI has none of them).
type statRef struct {
	Adjust []struct {
		Name        string
		P, Holm, BH []float64
	}
	Effect []struct {
		Name        string
		N           int64
		Mean, SD, D float64  // SD from exact sums, as Stat computes it
		Lo, Hi      float64  // scipy's nct.cdf inverted by brentq
		LoMP        float64  `json:"lo_mp"` // the same on mpmath's 40 digits
		HiMP        float64  `json:"hi_mp"`
		P           *float64 // from Mean and SD
		PScipy      *float64 `json:"p_scipy"`
		TLo, THi    *float64
		X           []float64
	}
	NCT []struct {
		T, DF, NC float64
		Scipy     *float64 // null where scipy returned NaN
		MP        float64
	}
	Sign []struct {
		A, B   int64
		PScipy float64 `json:"p_scipy"`
		PExact float64 `json:"p_exact"` // exact rational tail, or 40-digit mpmath
	}
}

func loadStatRef(t testing.TB) *statRef {
	t.Helper()
	b, err := os.ReadFile("testdata/statref.json")
	if err != nil {
		t.Fatal(err)
	}
	var r statRef
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Adjust) == 0 || len(r.Effect) == 0 || len(r.NCT) == 0 || len(r.Sign) == 0 {
		t.Fatal("statref.json has an empty section")
	}
	return &r
}

// relErr is |got-want| relative to want, or absolute below floor.
func relErr(got, want, floor float64) float64 {
	if got == want {
		return 0
	}
	return math.Abs(got-want) / max(math.Abs(want), floor)
}

func TestAdjustMatchesStatsmodels(t *testing.T) {
	for _, c := range loadStatRef(t).Adjust {
		t.Run(c.Name, func(t *testing.T) {
			for _, m := range []struct {
				name string
				fn   func([]float64) []float64
				want []float64
			}{{"holm", Holm, c.Holm}, {"bh", BH, c.BH}} {
				got := m.fn(c.P)
				if len(got) != len(m.want) {
					t.Fatalf("%s: %d values, want %d", m.name, len(got), len(m.want))
				}
				for i := range got {
					if relErr(got[i], m.want[i], 1e-300) > 1e-15 {
						t.Errorf("%s[%d] of p=%v: %.17g, statsmodels %.17g", m.name, i, c.P[i], got[i], m.want[i])
					}
				}
			}
		})
	}
}

func TestBHProperties(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name string
		p    []float64
		want []float64
	}{
		{"empty", []float64{}, []float64{}},
		{"all NaN", []float64{nan, nan}, []float64{nan, nan}},
		// NaN is not a test: m is 2, as if it were absent
		{"NaN skipped", []float64{0.04, nan, 0.01}, []float64{0.04, nan, 0.02}},
		{"step-up", []float64{0.01, 0.02, 0.03, 0.04}, []float64{0.04, 0.04, 0.04, 0.04}},
		{"capped at 1", []float64{0.9, 0.8}, []float64{0.9, 0.9}},
		{"p above 1", []float64{1.5, 0.01}, []float64{1, 0.02}},
		{"ties", []float64{0.03, 0.01, 0.03}, []float64{0.03, 0.03, 0.03}},
		{"zero", []float64{0, 0.5}, []float64{0, 0.5}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := BH(c.p)
			if len(got) != len(c.want) {
				t.Fatalf("BH(%v) = %v", c.p, got)
			}
			for i := range got {
				if !(got[i] == c.want[i] || math.IsNaN(got[i]) && math.IsNaN(c.want[i])) &&
					relErr(got[i], c.want[i], 1e-300) > 1e-15 {
					t.Errorf("BH(%v)[%d] = %v, want %v", c.p, i, got[i], c.want[i])
				}
			}
		})
	}

	// On every reference vector: the input order does not matter, each
	// adjusted value is at least its p, and BH never exceeds Holm (it
	// controls a weaker error rate).
	for _, c := range loadStatRef(t).Adjust {
		t.Run("order/"+c.Name, func(t *testing.T) {
			n := len(c.P)
			rev := make([]float64, n)
			for i, v := range c.P {
				rev[n-1-i] = v
			}
			got, gotRev, holm := BH(c.P), BH(rev), Holm(c.P)
			for i := range got {
				if got[i] != gotRev[n-1-i] {
					t.Errorf("BH depends on order at %d: %v vs %v", i, got[i], gotRev[n-1-i])
				}
				if got[i] < min(c.P[i], 1) || got[i] > holm[i] {
					t.Errorf("BH[%d] = %v outside [p=%v, holm=%v]", i, got[i], c.P[i], holm[i])
				}
			}
		})
	}
}

func TestHolm(t *testing.T) {
	// Holm's procedure by hand: sorted 0.01, 0.02, 0.03, 0.04 (m = 4) ->
	// 0.04, 0.06, 0.06 (monotone), 0.06; the NaN is not a test.
	got := Holm([]float64{0.03, 0.01, math.NaN(), 0.04, 0.02})
	want := []float64{0.06, 0.04, math.NaN(), 0.06, 0.06}
	for i := range want {
		if !(got[i] == want[i] || math.IsNaN(got[i]) && math.IsNaN(want[i])) && math.Abs(got[i]-want[i]) > 1e-15 {
			t.Fatalf("Holm = %v, want %v", got, want)
		}
	}
	if got := Holm([]float64{0.5, 0.6}); got[0] != 1 || got[1] != 1 {
		t.Fatalf("Holm caps at 1: %v", got)
	}
}

// TestCorrect: the correction runs over every pair and metric together,
// undefined p-values left out.
func TestCorrect(t *testing.T) {
	nan := math.NaN()
	ps := [][]Paired{{{P: 0.01}, {P: 0.04}}, {{P: nan}, {P: 0.03}}}
	for _, tc := range []struct {
		c    Correction
		want []float64
	}{
		{CorrHolm, []float64{0.03, 0.06, nan, 0.06}},
		{CorrBH, []float64{0.03, 0.04, nan, 0.04}},
		{CorrNone, []float64{0.01, 0.04, nan, 0.03}},
	} {
		t.Run(tc.c.String(), func(t *testing.T) {
			Correct(ps, tc.c)
			got := []float64{ps[0][0].PAdj, ps[0][1].PAdj, ps[1][0].PAdj, ps[1][1].PAdj}
			for i := range got {
				if !(math.Abs(got[i]-tc.want[i]) < 1e-15 || math.IsNaN(got[i]) && math.IsNaN(tc.want[i])) {
					t.Fatalf("%v, want %v", got, tc.want)
				}
			}
		})
	}
}
