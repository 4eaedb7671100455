package propensity

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rankeval/rankeval/internal/pmath"
	"github.com/rankeval/rankeval/pipeline"
	"github.com/rankeval/rankeval/stats"
)

// The power law p(k) = k^−η (--position-bias pow:η) fitted to an
// estimate, for comparison with the estimated curve: weighted least
// squares on the log scale, ln p̂(k) ≈ −η·ln k through position 1's
// ln 1 = 0, each estimated position past 1 weighted by 1/σ_k², σ_k its
// interval's half-width in logs as a normal's standard error.

// ReferenceEtas are the power laws every comparison shows beside the
// fitted one.
var ReferenceEtas = []float64{0.5, 1, 2}

// insideTol widens each interval by this relative amount when counting
// the positions whose interval holds a law, so that a law that differs
// from an interval of no width (every resample the same, as EM gives at
// its bound of 1) only by rounding is inside it.
const insideTol = 1e-6

// PoorFit is the root-mean-square residual, in standard errors, above
// which the closest power law is said to fit poorly.
const PoorFit = 2

// PowFit is how close the curve k^−Eta comes to an estimate over the
// positions past 1 that have one.
type PowFit struct {
	Eta float64
	// SE is the fitted η's standard error (NaN for a reference η).
	SE float64
	// RMS is the root mean square of the residuals ln p̂(k) + η·ln k,
	// each in units of its position's σ_k.
	RMS float64
	// MaxRel is the largest |k^−η − p̂(k)| / p̂(k).
	MaxRel float64
	// Inside counts the positions whose 95% interval holds k^−η (to a
	// relative insideTol).
	Inside int
}

// PowFits are the fitted power law and the references, compared over
// Positions (the estimated positions past 1).
type PowFits struct {
	Best       PowFit
	References []PowFit
	Positions  []int
}

// At is k^−η, as --position-bias pow:η weighs position k.
func At(k, eta float64) float64 {
	b := pipeline.PositionBias{Eta: eta}
	p, _ := b.At(k)
	return p
}

// fitPoint is one estimated position on the log scale: x = ln k,
// y = ln p̂(k), w = 1/σ_k².
type fitPoint struct {
	k       int
	x, y, w float64
	p       Position
}

// minLogSE is the least σ_k an interval has width at: below it (every
// resample the same, to rounding) it has none; it is every position's
// σ_k when none has a width, so that such an estimate still fits.
const minLogSE = 1e-3

// logSE is σ_k: the half-width of p's 95% interval in logs over
// stats.Z95, 0 for an interval of no width (σ_k below minLogSE); ok is
// false for a lower bound of 0, unbounded below in logs: a position
// barely known.
func logSE(p Position) (s float64, ok bool) {
	if !(p.Lower > 0) {
		return 0, false
	}
	if s = (pmath.Log(p.Upper) - pmath.Log(p.Lower)) / (2 * stats.Z95); !(s >= minLogSE) {
		s = 0
	}
	return s, true
}

// FitPow fits the power law to e's estimated positions past 1 and
// compares it and the ReferenceEtas with them; false (and no Positions)
// when e has no estimated position past 1. The figures are the same bits on every
// machine (pmath, products rounded before they are added).
func (e *Estimate) FitPow() (PowFits, bool) {
	var pts []fitPoint
	var f PowFits
	for _, p := range e.Positions {
		s, ok := logSE(p)
		if p.Position == 1 || p.Refused != "" || !ok {
			continue
		}
		pts = append(pts, fitPoint{k: p.Position, x: pmath.Log(float64(p.Position)), y: pmath.Log(p.Propensity), w: s, p: p})
		f.Positions = append(f.Positions, p.Position)
	}
	if len(pts) == 0 {
		return PowFits{}, false
	}
	// an interval of no width (EM at its bound of 1, or data with no
	// variation) weighs as the best known position with a width, not
	// infinitely; with none, every position weighs alike
	least := 0.0
	for _, q := range pts {
		if q.w > 0 && (least == 0 || q.w < least) {
			least = q.w
		}
	}
	if least == 0 {
		least = minLogSE
	}
	for i := range pts {
		s := max(pts[i].w, least)
		pts[i].w = 1 / float64(s*s)
	}
	var sxx, sxy float64
	for _, q := range pts {
		wx := float64(q.w * q.x)
		sxx = float64(wx*q.x) + sxx
		sxy = float64(wx*q.y) + sxy
	}
	eta := -sxy / sxx
	if !(eta > 0) {
		// an estimate is at most 1, so only rounding goes below 0, and a
		// flat estimate (every ln p̂ = 0) gives −0, which prints as "-0"
		eta = 0
	}
	f.Best = compare(pts, eta)
	f.Best.SE = math.Sqrt(1 / sxx)
	if n := len(pts); n >= 2 {
		// residuals wider than the intervals say widen η's error by the
		// square root of the reduced χ²
		chi2 := float64(float64(f.Best.RMS*f.Best.RMS) * float64(n))
		if r := chi2 / float64(n-1); r > 1 {
			f.Best.SE = float64(f.Best.SE * math.Sqrt(r))
		}
	}
	for _, eta := range ReferenceEtas {
		f.References = append(f.References, compare(pts, eta))
	}
	return f, true
}

// compare measures how close k^−η comes to the points.
func compare(pts []fitPoint, eta float64) PowFit {
	f := PowFit{Eta: eta, SE: math.NaN()}
	var chi2 float64
	for _, q := range pts {
		r := float64(eta*q.x) + q.y
		chi2 = float64(float64(q.w*r)*r) + chi2
		c := At(float64(q.k), eta)
		f.MaxRel = max(f.MaxRel, math.Abs(c-q.p.Propensity)/q.p.Propensity)
		if c >= float64(q.p.Lower*(1-insideTol)) && c <= float64(q.p.Upper*(1+insideTol)) {
			f.Inside++
		}
	}
	f.RMS = math.Sqrt(chi2 / float64(len(pts)))
	return f
}

// Model is the fitted law as --position-bias reads it, η rounded to two
// decimals ("pow:0.97"), or "" when η is past what pow:η takes.
func (f PowFits) Model() string {
	eta := math.Round(f.Best.Eta*100) / 100
	if eta > pipeline.MaxEta {
		return ""
	}
	return pipeline.PositionBias{Eta: eta}.String()
}

// g3 writes a figure with 3 significant digits, f2 with 2 decimals.
func g3(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) }
func f2(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

// EtaString writes η as the sentence and the report show it: a fitted η
// to the decimal of its error's second significant digit (at least 2
// decimals) followed by the error in the same decimals, "1.0016 ± 0.0039",
// so that a fit never reads as a reference law it only rounds to; a
// reference law (no error) as pow:η names it, "0.5".
func (f PowFit) EtaString() string {
	if math.IsNaN(f.SE) {
		return g3(f.Eta)
	}
	d := f.digits()
	return strconv.FormatFloat(f.Eta, 'f', d, 64) + " ± " + strconv.FormatFloat(f.SE, 'f', d, 64)
}

// Name is the law as the report names it: pow:η, a fitted η written
// as EtaString writes it ("pow:1.0016"), a reference's as
// --position-bias names it ("pow:0.5").
func (f PowFit) Name() string {
	if math.IsNaN(f.SE) {
		return "pow:" + g3(f.Eta)
	}
	return "pow:" + strconv.FormatFloat(f.Eta, 'f', f.digits(), 64)
}

// digits are the decimals of a fitted η: down to its error's second
// significant digit, at least 2, at most 12.
func (f PowFit) digits() int {
	d := 2
	if f.SE > 0 && !math.IsInf(f.SE, 0) {
		e := strconv.FormatFloat(f.SE, 'e', 1, 64) // d.de±XX
		exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
		d = min(max(d, 1-exp), 12)
	}
	return d
}

// span names the positions compared: "position 2", "positions 2 to 9",
// or "8 positions from 2 to 12" when some between are not estimated.
func (f PowFits) span() string {
	n := len(f.Positions)
	a, b := f.Positions[0], f.Positions[n-1]
	switch {
	case n == 1:
		return "position " + strconv.Itoa(a)
	case b-a+1 == n:
		return fmt.Sprintf("positions %d to %d", a, b)
	}
	return fmt.Sprintf("%d positions from %d to %d", n, a, b)
}

// Closest says in words which power law is closest to the estimate and
// by how much: the fitted η with its error, the residuals in standard
// errors, the positions whose interval holds the curve, then the
// references, closest first. The command's stderr and the HTML report
// both print it.
func (f PowFits) Closest() string {
	n := len(f.Positions)
	if n == 0 {
		return "no position past 1 has an estimate with an interval to weigh it by: no power law is fitted"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "closest power law over %s: k^−η with η = %s, %s standard errors RMS from the estimate, inside the 95%% interval at %d of %d",
		f.span(), f.Best.EtaString(), f2(f.Best.RMS), f.Best.Inside, n)
	refs := append([]PowFit(nil), f.References...)
	for i := 1; i < len(refs); i++ { // by RMS, then η: a stable order
		for j := i; j > 0 && (refs[j].RMS < refs[j-1].RMS || refs[j].RMS == refs[j-1].RMS && refs[j].Eta < refs[j-1].Eta); j-- {
			refs[j], refs[j-1] = refs[j-1], refs[j]
		}
	}
	names := make([]string, len(f.References))
	for i, r := range f.References {
		names[i] = "pow:" + g3(r.Eta)
	}
	for i, r := range refs {
		if i == 0 {
			fmt.Fprintf(&b, "; of %s the closest is ", strings.Join(names, ", "))
		} else {
			b.WriteString(", then ")
		}
		fmt.Fprintf(&b, "pow:%s (%s, inside at %d)", g3(r.Eta), f2(r.RMS), r.Inside)
	}
	if f.Best.RMS > PoorFit {
		b.WriteString("; no power law fits this estimate well: the file's propensities are the better model")
	} else if m := f.Model(); m != "" {
		fmt.Fprintf(&b, "; --position-bias %s is the power law nearest the file", m)
	}
	return b.String()
}
