package metrics

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// trec_eval's measures that take more than a cutoff carry their
// parameters in Metric.Param, in a form of this file: package treceval
// reads trec_eval's own syntax (atof, atol, name=value pairs, its release's
// rules) and writes them with GainParam and FloatsParam; NewEvaluator reads
// them back once.

// ErrBadParam is wrapped when a Metric's Param cannot be read.
var ErrBadParam = errors.New("bad measure parameters")

// GainPair is one entry of trec_eval's gain table: documents judged at
// Level gain Gain.
type GainPair struct {
	Level int64
	Gain  float64
}

// GainParam is the Param of a gain table, its pairs in the order given
// (trec_eval looks a level up in that order, after its sort).
func GainParam(pairs []GainPair) string {
	var b []byte
	for i, p := range pairs {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, p.Level, 10)
		b = append(b, '=')
		b = appendParamFloat(b, p.Gain)
	}
	return string(b)
}

// appendParamFloat appends x as parseParamFloat reads it back: a NaN with
// its sign ("-NaN" for one with the sign bit set, which C prints -nan),
// the others as strconv writes them.
func appendParamFloat(b []byte, x float64) []byte {
	if x != x && math.Signbit(x) {
		return append(b, "-NaN"...)
	}
	return strconv.AppendFloat(b, x, 'g', -1, 64)
}

// parseParamFloat reads a number appendParamFloat wrote.
func parseParamFloat(s string) (float64, error) {
	if s == "-NaN" {
		return -math.NaN(), nil
	}
	return strconv.ParseFloat(s, 64)
}

// FloatsParam is the Param of a list of numbers (utility's coefficients,
// 11pt_avg's recall levels), in the order given.
func FloatsParam(xs []float64) string {
	var b []byte
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendParamFloat(b, x)
	}
	return string(b)
}

// trecParam is a metric's Param, read.
type trecParam struct {
	gains  []GainPair // the gain table's pairs
	floats []float64  // utility's coefficients, 11pt_avg's levels
}

// takesGains reports whether k reads a gain table from Param.
func takesGains(k Kind) bool {
	switch k {
	case KindG, KindGainNDCG, KindGainDCG, KindGainIDCG, KindNDCGRel, KindRNDCG, KindRBP:
		return true
	}
	return false
}

// readParam reads m.Param for m's family.
func readParam(m Metric) (trecParam, error) {
	var p trecParam
	switch {
	case takesGains(m.Kind):
		if m.Param == "" {
			return p, nil
		}
		for _, it := range strings.Split(m.Param, ",") {
			l, g, ok := strings.Cut(it, "=")
			level, err1 := strconv.ParseInt(l, 10, 64)
			gain, err2 := parseParamFloat(g)
			if !ok || err1 != nil || err2 != nil {
				return p, fmt.Errorf("%s: gain table %q: %w", m.Name, m.Param, ErrBadParam)
			}
			p.gains = append(p.gains, GainPair{level, gain})
		}
	case m.Kind == KindUtility, m.Kind == Kind11pt:
		switch {
		case m.Param == "" && m.Kind == KindUtility:
			p.floats = utilityCoefficients
		case m.Param == "":
			p.floats = elevenPointLevels
		default:
			for _, it := range strings.Split(m.Param, ",") {
				x, err := parseParamFloat(it)
				if err != nil {
					return p, fmt.Errorf("%s: %q: %w", m.Name, m.Param, ErrBadParam)
				}
				p.floats = append(p.floats, x)
			}
		}
		if m.Kind == KindUtility && len(p.floats) != 4 {
			return p, fmt.Errorf("%s: utility takes 4 coefficients, not %d: %w", m.Name, len(p.floats), ErrBadParam)
		}
	case m.Param != "":
		return p, fmt.Errorf("%s takes no parameters (%q): %w", m.Name, m.Param, ErrBadParam)
	}
	return p, nil
}

// CheckParam reports whether NewEvaluator can read m.Param.
func CheckParam(m Metric) error {
	_, err := readParam(m)
	return err
}
