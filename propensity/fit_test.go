package propensity

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/internal/synth"
	"github.com/rankeval/rankeval/stats"
)

// curve is an estimate of m positions whose propensities are k^−η times
// (1 + noise(k)), each with an interval of ±10% around it; the positions
// in refused have none.
func curve(m int, eta float64, noise func(k int) float64, refused ...int) *Estimate {
	e := &Estimate{Method: Harvest, Replicates: 40}
	for k := 1; k <= m; k++ {
		p := Position{Position: k, Impressions: 100, Pairs: 10, Clicks: 30}
		switch {
		case k == 1:
			p.Propensity, p.Lower, p.Upper = 1, 1, 1
		case contains(refused, k):
			p.Propensity, p.Lower, p.Upper = math.NaN(), math.NaN(), math.NaN()
			p.Refused = "3 clicks on documents also shown elsewhere, fewer than --min-clicks 20"
		default:
			p.Propensity = At(float64(k), eta) * (1 + noise(k))
			p.Lower, p.Upper = p.Propensity*0.9, p.Propensity*1.1
		}
		e.Positions = append(e.Positions, p)
	}
	return e
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func exact(int) float64 { return 0 }

// TestFitPowRecoversEta: on a curve k^−η the fit gives η back, with no
// residual and the curve inside every interval; refused positions are
// left out; with ±3% noise it stays within 0.03 of η and its error
// covers the difference.
func TestFitPowRecoversEta(t *testing.T) {
	wobble := func(k int) float64 { return 0.03 * float64(1-2*(k%2)) }
	for _, tc := range []struct {
		name    string
		eta     float64
		noise   func(int) float64
		refused []int
		tol     float64
	}{
		{"eta 0.5", 0.5, exact, nil, 1e-12},
		{"eta 1", 1, exact, nil, 1e-12},
		{"eta 1.37", 1.37, exact, nil, 1e-12},
		{"eta 2", 2, exact, nil, 1e-12},
		{"eta 0", 0, exact, nil, 1e-12},
		{"eta 0.8 refused 4 and 7", 0.8, exact, []int{4, 7}, 1e-12},
		{"eta 0.7 noisy", 0.7, wobble, nil, 0.03},
		{"eta 1.5 noisy", 1.5, wobble, nil, 0.03},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := curve(10, tc.eta, tc.noise, tc.refused...)
			f, ok := e.FitPow()
			if !ok {
				t.Fatal("no fit")
			}
			if d := math.Abs(f.Best.Eta - tc.eta); d > tc.tol {
				t.Fatalf("η = %v, want %v (±%g)", f.Best.Eta, tc.eta, tc.tol)
			}
			var want []int
			for k := 2; k <= 10; k++ {
				if !contains(tc.refused, k) {
					want = append(want, k)
				}
			}
			if !reflect.DeepEqual(f.Positions, want) {
				t.Errorf("positions %v, want %v", f.Positions, want)
			}
			if !(f.Best.SE > 0) || math.Abs(f.Best.Eta-tc.eta) > 3*f.Best.SE+1e-12 {
				t.Errorf("η = %v ± %v does not cover %v", f.Best.Eta, f.Best.SE, tc.eta)
			}
			if tc.tol < 1e-9 && (f.Best.RMS > 1e-9 || f.Best.Inside != len(want) || f.Best.MaxRel > 1e-12) {
				t.Errorf("exact curve: %+v", f.Best)
			}
			if len(f.References) != len(ReferenceEtas) {
				t.Fatalf("references %+v", f.References)
			}
			for i, r := range f.References {
				if r.Eta != ReferenceEtas[i] || !math.IsNaN(r.SE) {
					t.Errorf("reference %d: %+v", i, r)
				}
				if r.RMS < f.Best.RMS {
					t.Errorf("reference pow:%g (RMS %g) closer than the fit (RMS %g)", r.Eta, r.RMS, f.Best.RMS)
				}
			}
		})
	}
}

// TestFitPowFigures checks the figures against a hand computation: one
// position, p̂(2) = 0.5 with the interval [0.25, 1], σ = ln 4 / (2·1.96).
func TestFitPowFigures(t *testing.T) {
	e := curve(2, 1, exact)
	e.Positions[1].Lower, e.Positions[1].Upper = 0.25, 1
	f, _ := e.FitPow()
	sigma := math.Log(4) / (2 * stats.Z95)
	if math.Abs(f.Best.Eta-1) > 1e-15 || math.Abs(f.Best.SE-sigma/math.Log(2)) > 1e-12 {
		t.Errorf("fit %+v, want η 1 ± %v", f.Best, sigma/math.Log(2))
	}
	// pow:2 at 2 is 0.25: ln 2 off, ln2/σ standard errors, 50% below
	r := f.References[2]
	if math.Abs(r.RMS-math.Log(2)/sigma) > 1e-12 || math.Abs(r.MaxRel-0.5) > 1e-15 || r.Inside != 1 {
		t.Errorf("pow:2 %+v, want RMS %v, MaxRel 0.5, inside 1", r, math.Log(2)/sigma)
	}
}

// TestFitPowBits: the fit's figures are the bits recorded here, on
// every platform (pmath, and products rounded before they are added).
func TestFitPowBits(t *testing.T) {
	e := curve(12, 0.9, func(k int) float64 { return 0.01 * float64(k%5-2) }, 5)
	f, _ := e.FitPow()
	got := fmt.Sprintf("%x %x %x %x", math.Float64bits(f.Best.Eta), math.Float64bits(f.Best.SE), math.Float64bits(f.Best.RMS), math.Float64bits(f.References[1].RMS))
	const want = "3fecc9b53a3d8ccc 3f813d516d22c183 3fcf802fcb230527 400e3b2890f1d26a"
	if got != want {
		t.Errorf("bits %s, want %s", got, want)
	}
}

// TestFitPowNone: an estimate with no position past 1 has no fit.
func TestFitPowNone(t *testing.T) {
	if got := (PowFits{}).Closest(); got != "no position past 1 has an estimate with an interval to weigh it by: no power law is fitted" {
		t.Errorf("Closest of no fit: %q", got)
	}
	e := curve(3, 1, exact, 2, 3)
	if f, ok := e.FitPow(); ok {
		t.Errorf("fit %+v of no position", f)
	}
}

// TestClosest: the sentence names the fitted law with its error, the
// references closest first, and the model --position-bias reads; a
// poor fit says so instead.
func TestClosest(t *testing.T) {
	e := curve(6, 0.8, exact, 4)
	f, _ := e.FitPow()
	want := "closest power law over 4 positions from 2 to 6: k^−η with η = 0.800 ± 0.019, 0.00 standard errors RMS from the estimate, inside the 95% interval at 4 of 4; of pow:0.5, pow:1, pow:2 the closest is pow:1 (5.35, inside at 0), then pow:0.5 (8.02, inside at 0), then pow:2 (32.07, inside at 0); --position-bias pow:0.8 is the power law nearest the file"
	if got := f.Closest(); got != want {
		t.Errorf("Closest =\n%s\nwant\n%s", got, want)
	}
	// a kinked curve: flat to 3, then falling fast
	e = curve(6, 0.8, exact)
	for k, p := range []float64{0.9, 0.85, 0.2, 0.1, 0.05} {
		e.Positions[k+1].Propensity, e.Positions[k+1].Lower, e.Positions[k+1].Upper = p, p*0.97, p*1.03
	}
	f, _ = e.FitPow()
	if f.Best.RMS <= PoorFit {
		t.Fatalf("kinked curve fits: %+v", f.Best)
	}
	if got := f.Closest(); !contains2(got, "no power law fits this estimate well") || contains2(got, "--position-bias") {
		t.Errorf("poor fit: %s", got)
	}
}

func contains2(s, sub string) bool { return strings.Contains(s, sub) }

// TestFitPowSimulated: on simulated logs whose examination is k^−η
// (three rankers, 6 positions), the power law fitted to the harvested
// estimate recovers η within its error, and is closer than every
// reference law but the one equal to η.
func TestFitPowSimulated(t *testing.T) {
	for _, eta := range []float64{0.5, 1, 1.6} {
		t.Run(fmt.Sprint("eta ", eta), func(t *testing.T) {
			cfg := synth.PropConfig{Impressions: 30000, Queries: 300, Docs: 20, Positions: 6, Noise: synth.DefaultNoise[:3], Eta: eta}
			tab, _ := simTable(7, cfg, 6, false)
			e, err := tab.Estimate(Options{Method: Harvest, Replicates: 40, MinClicks: 20})
			if err != nil {
				t.Fatal(err)
			}
			f, ok := e.FitPow()
			if !ok || len(f.Positions) != 5 {
				t.Fatalf("fit %+v over %+v", f, e.Positions)
			}
			if d := math.Abs(f.Best.Eta - eta); d > 3*f.Best.SE || d > 0.1 {
				t.Errorf("η = %.4f ± %.4f, truth %g", f.Best.Eta, f.Best.SE, eta)
			}
			for _, r := range f.References {
				if r.Eta != eta && r.RMS <= f.Best.RMS {
					t.Errorf("pow:%g RMS %.3f, the fit's %.3f", r.Eta, r.RMS, f.Best.RMS)
				}
			}
		})
	}
}

// TestFitPowFlat: an estimate of 1 at every position (EM at its bound
// gives exactly 1) fits η = 0, not −0: the sentence and the model say
// "0" and "pow:0", as --position-bias writes it.
func TestFitPowFlat(t *testing.T) {
	e := curve(4, 0, exact)
	e.Positions[1].Lower, e.Positions[1].Upper = 1, 1
	f, ok := e.FitPow()
	if !ok || f.Best.Eta != 0 || math.Signbit(f.Best.Eta) {
		t.Fatalf("fit %+v, want η +0", f.Best)
	}
	got := f.Closest()
	for _, want := range []string{"k^−η with η = 0.000 ± ", "; --position-bias pow:0 is the power law nearest the file"} {
		if !strings.Contains(got, want) {
			t.Errorf("Closest lacks %q:\n%s", want, got)
		}
	}
	if m := f.Model(); m != "pow:0" {
		t.Errorf("Model = %q, want pow:0", m)
	}
}

// TestFitPowInsideNoWidth: a fitted law that differs from an estimate
// with an interval of no width only by rounding (EM at its bound: 1 in
// [1, 1], the figures of a simulated log of 400 impressions) is inside
// that interval, as its RMS of 0.00 says.
func TestFitPowInsideNoWidth(t *testing.T) {
	e := curve(3, 0, exact)
	e.Positions[1].Lower, e.Positions[1].Upper = 1, 1
	e.Positions[2].Propensity, e.Positions[2].Lower, e.Positions[2].Upper = 0.9999999870920896, 0.4376815253485297, 1
	f, _ := e.FitPow()
	if !(f.Best.Eta > 0 && f.Best.Eta < 1e-7) {
		t.Fatalf("η = %v, want a rounding above 0", f.Best.Eta)
	}
	if f.Best.Inside != 2 {
		t.Errorf("fitted law inside at %d of 2: %s", f.Best.Inside, f.Closest())
	}
}

// TestFitPowDegenerateIntervals: an interval that says little (a lower
// bound of 0 with the estimate at its upper bound: [0, 1] around 1) must
// not outweigh a position with a real interval, nor make η's error
// smaller than that position alone gives.
func TestFitPowDegenerateIntervals(t *testing.T) {
	for _, tc := range []struct {
		name         string
		p, lo, hi    float64
		wantEta, tol float64
	}{
		{"lower bound 0, estimate at the upper", 1, 0, 1, 1, 0.1},
		{"lower bound 0, estimate above the upper", 0.4, 0, 0.35, 1, 0.1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := curve(3, 1, exact)
			e.Positions[1].Propensity, e.Positions[1].Lower, e.Positions[1].Upper = 0.5, 0.45, 0.55
			e.Positions[2].Propensity, e.Positions[2].Lower, e.Positions[2].Upper = tc.p, tc.lo, tc.hi
			f, _ := e.FitPow()
			alone := (math.Log(0.55) - math.Log(0.45)) / (2 * stats.Z95) / math.Log(2)
			if math.Abs(f.Best.Eta-tc.wantEta) > tc.tol || f.Best.SE < alone {
				t.Errorf("η = %v ± %v; position 2 alone gives %v ± %v", f.Best.Eta, f.Best.SE, 1.0, alone)
			}
		})
	}
}

// TestEtaDigits: the fitted η is written to the decimal of its error's
// second significant digit, and the error in the same decimals, so that
// a fit of 1.0016 ± 0.0039 does not read "1 ± 0.0039" (as if it were
// pow:1, which the references list beside it with other figures); a
// reference law is written as pow:η names it.
func TestEtaDigits(t *testing.T) {
	for _, tc := range []struct {
		eta, se float64
		want    string
	}{
		{1.0016, 0.0039, "1.0016 ± 0.0039"},
		{0.8, 0.019, "0.800 ± 0.019"},
		{1.0123, 0.02, "1.012 ± 0.020"},
		{0.558, 0.27, "0.56 ± 0.27"},
		{2.5, 1.2, "2.50 ± 1.20"},
		{0, 0.0014, "0.0000 ± 0.0014"},
		{0.5, math.NaN(), "0.5"},
		{1.37, math.NaN(), "1.37"},
	} {
		f := PowFit{Eta: tc.eta, SE: tc.se}
		if got := f.EtaString(); got != tc.want {
			t.Errorf("η %v ± %v: %q, want %q", tc.eta, tc.se, got, tc.want)
		}
	}
}

// TestLawName: the fitted law is named with η to its error's digits, so
// that it never shares a name with a reference law it rounds to.
func TestLawName(t *testing.T) {
	for _, tc := range []struct {
		f    PowFit
		want string
	}{
		{PowFit{Eta: 1.0016, SE: 0.0039}, "pow:1.0016"},
		{PowFit{Eta: 0.558, SE: 0.27}, "pow:0.56"},
		{PowFit{Eta: 1, SE: math.NaN()}, "pow:1"},
		{PowFit{Eta: 0.5, SE: math.NaN()}, "pow:0.5"},
	} {
		if got := tc.f.Name(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.f, got, tc.want)
		}
	}
}
