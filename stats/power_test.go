package stats

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"testing"
)

// powerRef is testdata/power_reference.json, written by scripts/powerref.py
// from statsmodels' TTestPower.
type powerRef struct {
	MDE []struct {
		N          int64
		SD         float64 `json:"sd"`
		MDE        float64 `json:"mde"`
		SolvePower float64 `json:"solve_power"`
	}
	Detect []struct {
		SD    float64 `json:"sd"`
		Delta float64 `json:"delta"`
		N     int64   `json:"n"`
	}
}

// TestPowerReference holds MDE to statsmodels' within 1e-6 relative (it
// is within 1e-10) and DetectN to its least n exactly.
func TestPowerReference(t *testing.T) {
	b, err := os.ReadFile("testdata/power_reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref powerRef
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.MDE) < 20 || len(ref.Detect) < 20 {
		t.Fatalf("power_reference.json has %d MDE and %d detect cases", len(ref.MDE), len(ref.Detect))
	}
	worst := 0.0
	for _, c := range ref.MDE {
		got := MDE(Summary{N: c.N, Stdev: c.SD, Mean: 0})
		rel := math.Abs(got-c.MDE) / c.MDE
		worst = max(worst, rel)
		if !(rel <= 1e-6) {
			t.Errorf("MDE(n=%d, sd=%v) = %.12g, statsmodels %.12g (rel %.2g)", c.N, c.SD, got, c.MDE, rel)
		}
	}
	t.Logf("MDE: worst relative difference %.2g over %d cases", worst, len(ref.MDE))
	for _, c := range ref.Detect {
		if got := DetectN(c.Delta, c.SD); got != c.N {
			t.Errorf("DetectN(delta=%v, sd=%v) = %d, statsmodels %d", c.Delta, c.SD, got, c.N)
		}
	}
}

// TestPowerEdges: no spread or fewer than two queries has no MDE; a
// difference beyond every spread needs the fewest queries a t-test has
// (2); a tiny one needs a huge n, still the least reaching 80%, and one
// past MaxDetectN reports -1; a nonsense delta or sd gives 0.
func TestPowerEdges(t *testing.T) {
	for _, s := range []Summary{{N: 1, Stdev: 1}, {N: 0, Stdev: math.NaN()}, {N: 10, Stdev: 0}, {N: 10, Stdev: math.NaN()}, {N: 10, Stdev: math.Inf(1)}} {
		if got := MDE(s); !math.IsNaN(got) {
			t.Errorf("MDE(%+v) = %v, want NaN", s, got)
		}
	}
	if !math.IsNaN(TPower(1, 1)) || !math.IsNaN(TPower(math.NaN(), 5)) {
		t.Error("TPower must be NaN for n < 2 or a NaN effect")
	}
	cases := []struct {
		name      string
		delta, sd float64
		want      int64
	}{
		{"huge delta", 1e6, 0.1, 2},
		{"delta at max float", math.MaxFloat64, 1, 2},
		{"zero sd", 0.01, 0, 0},
		{"NaN sd", 0.01, math.NaN(), 0},
		{"infinite sd", 0.01, math.Inf(1), 0},
		{"zero delta", 0, 1, 0},
		{"negative delta", -0.1, 1, 0},
		{"infinite delta", math.Inf(1), 1, 0},
		{"past MaxDetectN", 1e-9, 1, -1},
		{"underflowing ratio", 1e-320, 1e10, -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := DetectN(c.delta, c.sd); got != c.want {
				t.Errorf("DetectN(%v, %v) = %d, want %d", c.delta, c.sd, got, c.want)
			}
		})
	}
	for _, d := range []float64{1e-3, 1e-5, 1e-7} {
		t.Run("huge n", func(t *testing.T) {
			n := DetectN(d, 1)
			// the normal approximation: nc with Φ(nc-z.975) + Φ(-nc-z.975) =
			// 0.8 (both tails), n = (nc/d)² + z.975²/2 (t's wider critical
			// value, to first order)
			phi := func(x float64) float64 { return math.Erfc(-x/math.Sqrt2) / 2 }
			nc := z95 + z80
			for range 5 {
				f := phi(nc-z95) + phi(-nc-z95) - PowerTarget
				nc -= f / (math.Exp(-(nc-z95)*(nc-z95)/2) / math.Sqrt(2*math.Pi))
			}
			approx := nc*nc/(d*d) + z95*z95/2
			if n <= 0 || math.Abs(float64(n)-approx) > 3+1e-12*approx {
				t.Fatalf("DetectN(%v, 1) = %d, normal approximation %.1f", d, n, approx)
			}
			if TPower(d, n) < PowerTarget || TPower(d, n-1) >= PowerTarget {
				t.Errorf("DetectN(%v, 1) = %d: power %v there and %v at n-1", d, n, TPower(d, n), TPower(d, n-1))
			}
		})
	}
	// MDE and DetectN invert each other: the MDE of n queries needs n
	k := MDEFactor(50)
	if got := DetectN(k*1.0000001, 1); got != 50 {
		t.Errorf("DetectN(MDEFactor(50)) = %d, want 50", got)
	}
	if got := DetectN(k*0.9999999, 1); got != 51 {
		t.Errorf("DetectN(just below MDEFactor(50)) = %d, want 51", got)
	}
}

// TestPowerFarBeyond holds the power at 1 and DetectN at 2 for
// differences far past every spread, where the noncentral t's quadrature
// alone has no peak to anchor on: a larger difference never needs more
// queries.
func TestPowerFarBeyond(t *testing.T) {
	for _, n := range []int64{2, 3, 1000, 1_000_000_000} {
		for _, d := range []float64{1e3, 1e8, 1e10, 1e160, 1e300} {
			t.Run(fmt.Sprintf("TPower(%g,%d)", d, n), func(t *testing.T) {
				if got := TPower(d, n); got != 1 {
					t.Errorf("TPower(%g, %d) = %v, want 1", d, n, got)
				}
			})
		}
	}
	for _, c := range []struct{ delta, sd float64 }{{1e10, 1}, {1e160, 1}, {1e300, 1}, {10, 1e-9}, {1, 1e-300}} {
		t.Run(fmt.Sprintf("DetectN(%g,%g)", c.delta, c.sd), func(t *testing.T) {
			if got := DetectN(c.delta, c.sd); got != 2 {
				t.Errorf("DetectN(%g, %g) = %d, want 2", c.delta, c.sd, got)
			}
		})
	}
	t.Run("monotone", func(t *testing.T) {
		prev := int64(math.MaxInt64)
		for e := -3.0; e <= 300; e += 0.25 {
			d := math.Pow(10, e)
			got := DetectN(d, 1)
			if got < 2 || got > prev {
				t.Fatalf("DetectN(%g, 1) = %d after %d for a smaller difference", d, got, prev)
			}
			prev = got
		}
	})
}

// TestTCrit975 holds the Cornish–Fisher quantile to TQuantile975 where
// both are accurate, and to mpmath's quantile at 10^6 and 10^12.
func TestTCrit975(t *testing.T) {
	for _, df := range []float64{1e4, 2e4, 1e5} {
		if a, b := tCrit975(df), TQuantile975(df); math.Abs(a-b) > 1e-12*b {
			t.Errorf("df %v: Cornish-Fisher %.17g, TQuantile975 %.17g", df, a, b)
		}
	}
	for _, c := range []struct{ df, q float64 }{
		{1e6, 1.9599663568141070}, {1e12, 1.9599639845424265},
	} {
		if got := tCrit975(c.df); math.Abs(got-c.q) > 1e-15*c.q {
			t.Errorf("tCrit975(%v) = %.17g, want %.17g", c.df, got, c.q)
		}
	}
}

// TestMDEs: the cache gives MDE's bits, for each number of queries apart.
func TestMDEs(t *testing.T) {
	var m MDEs
	for _, s := range []Summary{{N: 30, Stdev: 0.2}, {N: 31, Stdev: 0.2}, {N: 30, Stdev: 0.5}, {N: 30, Stdev: 0}, {N: 1, Stdev: 1}} {
		got, want := m.Of(s), MDE(s)
		if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("MDEs.Of(%+v) = %v, MDE %v", s, got, want)
		}
	}
	if len(m.factor) != 2 {
		t.Errorf("%d factors solved, want 2 (n = 30, 31)", len(m.factor))
	}
}
