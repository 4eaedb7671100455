package summary

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rankeval/rankeval/internal/printable"
	"github.com/rankeval/rankeval/metrics"
)

// ErrGateFailed marks a run whose summary was written but failed a gate
// (exit 3).
var ErrGateFailed = errors.New("quality gate failed")

// Gate is one --fail-under bar (Min) or --fail-if-worse margin (Margin).
type Gate struct {
	Metric      int // index into the run's metrics
	Min, Margin float64
}

// GateSpec is the quality gates asked for.
type GateSpec struct {
	Under, Worse []Gate
	FailOnEmpty  bool
}

// ParseGates reads --fail-under ("ndcg@10=0.42,map=0.30") and
// --fail-if-worse ("ndcg@10=0.005") against the metrics computed.
func ParseGates(under, worse string, failOnEmpty bool, ms []metrics.Metric) (*GateSpec, error) {
	g := &GateSpec{FailOnEmpty: failOnEmpty}
	var err error
	if g.Under, err = parseBars("--fail-under", "minimum, as ndcg@10=0.42", under, ms); err != nil {
		return nil, err
	}
	if g.Worse, err = parseBars("--fail-if-worse", "margin, as ndcg@10=0.005", worse, ms); err != nil {
		return nil, err
	}
	for i, w := range g.Worse {
		if w.Min < 0 || math.IsInf(w.Min, 0) {
			return nil, fmt.Errorf("--fail-if-worse: the margin of %s is %g: want a number >= 0", ms[w.Metric].Name, w.Min)
		}
		g.Worse[i].Margin, g.Worse[i].Min = w.Min+0, 0 // + 0 turns -0 into 0
	}
	return g, nil
}

func parseBars(flag, want, s string, ms []metrics.Metric) ([]Gate, error) {
	if s == "" {
		return nil, nil
	}
	var gs []Gate
	for _, item := range metrics.SplitMetrics(s) {
		idx, v, err := parseMetricValue(flag, want, item, ms, func(m metrics.Metric) error {
			switch b := m.Better(); {
			case b == 0:
				return fmt.Errorf("%s: %s has no better side (neither a higher nor a lower mean is better): it cannot be gated", flag, m.Name)
			case b < 0 && flag == "--fail-under":
				// a floor under a mean whose lower value is the better one
				// would fail the runs that improved
				return fmt.Errorf("%s: %s is better lower (a floor would fail the runs that improve); gate it with --fail-if-worse, or gate ctr@k or clicks@k", flag, m.Name)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		gs = append(gs, Gate{Metric: idx, Min: v})
	}
	return gs, nil
}

// parseMetricValue reads one item "metric=value" of a flag's list
// (metrics.SplitMetrics): the index in ms of the metric it names
// (metrics.Index), which check may refuse, and its value, a number.
func parseMetricValue(flag, want, item string, ms []metrics.Metric, check func(metrics.Metric) error) (int, float64, error) {
	name, val, ok := metrics.CutValue(strings.TrimSpace(item))
	if !ok {
		return 0, 0, fmt.Errorf("%s %q: want metric=%s", flag, item, want)
	}
	name = strings.TrimSpace(name)
	idx := metrics.Index(ms, name)
	if idx < 0 {
		return 0, 0, fmt.Errorf("%s: %q is not among the metrics computed (-m)", flag, name)
	}
	if check != nil {
		if err := check(ms[idx]); err != nil {
			return 0, 0, err
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
	if err != nil || math.IsNaN(v) {
		return 0, 0, fmt.Errorf("%s: %q is not a number", flag, val)
	}
	return idx, v, nil
}

// CheckGates gives the verdict of every gate on the results, or nil when
// none was asked for: --fail-under on the baseline's means, --fail-if-worse
// on the lower bound of each other system's difference from the baseline
// (the bootstrap's interval when there is one, else the t interval).
func (r *Results) CheckGates(g *GateSpec) *Gates {
	if g == nil || len(g.Under) == 0 && len(g.Worse) == 0 && !g.FailOnEmpty {
		return nil
	}
	ms, set := r.Run.Metrics, r.Agg.Sys[0]
	out := &Gates{FailOnEmpty: g.FailOnEmpty}
	for _, u := range g.Under {
		mean := r.sys[0][u.Metric].Mean
		out.Checks = append(out.Checks, GateCheck{Name: ms[u.Metric].Name, Min: u.Min, Mean: mean, Passed: mean >= u.Min})
	}
	for _, w := range g.Worse {
		for _, ps := range r.pairs {
			d := ps[w.Metric]
			if d.I != 0 {
				continue
			}
			lo, hi, interval := d.Lo, d.Hi, "t"
			if r.Run.Bootstrap > 0 {
				lo, hi, interval = d.BootLo, d.BootHi, "bootstrap"
			}
			wc := worseCheckOf(ms, w, lo, hi)
			wc.System, wc.Interval = r.systems[d.J], interval
			out.Worse = append(out.Worse, wc)
		}
	}
	out.Empty = g.FailOnEmpty && (set.Rows == 0 || set.Queries == set.Empty)
	return out
}

// worseCheckOf is the verdict of one --fail-if-worse margin on a
// difference's 95% interval [lo, hi]: worse is a difference below
// -margin, or above +margin for a metric whose lower mean is the better
// one (abandon, first_click). An undefined bound (too few queries) fails.
func worseCheckOf(ms []metrics.Metric, w Gate, lo, hi float64) WorseCheck {
	c := WorseCheck{Metric: ms[w.Metric].Name, Margin: w.Margin, Bound: lo, Interval: "t"}
	c.Passed = lo >= -w.Margin
	if ms[w.Metric].Better() < 0 {
		c.Upper, c.Bound, c.Passed = true, hi, hi <= w.Margin
	}
	return c
}

// Err describes the failures for stderr, wrapping ErrGateFailed; nil when
// every gate passed or none was asked for.
func (g *Gates) Err() error {
	if g == nil || !g.Failed() {
		return nil
	}
	var why []string
	for _, c := range g.Checks {
		if !c.Passed {
			why = append(why, fmt.Sprintf("%s mean %s < %g", c.Name, FmtMean(c.Mean), c.Min))
		}
	}
	for _, c := range g.Worse {
		if !c.Passed {
			why = append(why, c.String())
		}
	}
	if g.Empty {
		why = append(why, "no rows or no query with a relevant row (--fail-on-empty)")
	}
	return fmt.Errorf("%w: %s", ErrGateFailed, strings.Join(why, "; "))
}

// Gates is the verdict of a run's quality gates (--fail-under,
// --fail-if-worse, --fail-on-empty).
type Gates struct {
	Checks      []GateCheck
	Worse       []WorseCheck
	FailOnEmpty bool // --fail-on-empty was given
	Empty       bool // and it tripped
}

// WorseCheck is one --fail-if-worse margin for one system: passed when
// the lower bound of the 95% interval of its difference from the
// baseline is at least -Margin, or, for a metric whose lower mean is the
// better one (Upper), when the upper bound is at most Margin.
type WorseCheck struct {
	Metric, System string
	Margin, Bound  float64
	Upper          bool   // Bound is the upper bound
	Interval       string // t or bootstrap
	Passed         bool
}

// side is "lower" or "upper", the bound checked.
func (c *WorseCheck) side() string {
	if c.Upper {
		return "upper"
	}
	return "lower"
}

func (c *WorseCheck) String() string {
	if c.Upper {
		return fmt.Sprintf("%s of %s: upper bound %s of the 95%% %s interval of its difference from the baseline is above %g (%s is better lower)",
			c.Metric, printable.String(c.System), lowerText(c.Bound), c.Interval, c.Margin, c.Metric)
	}
	return fmt.Sprintf("%s of %s: lower bound %s of the 95%% %s interval of its difference from the baseline is below %g",
		c.Metric, printable.String(c.System), lowerText(c.Bound), c.Interval, -c.Margin+0)
}

// GateCheck is one --fail-under bar and how the run fared.
type GateCheck struct {
	Name      string
	Min, Mean float64
	Passed    bool
}

// Failed reports whether any gate failed.
func (g *Gates) Failed() bool {
	if g.Empty {
		return true
	}
	for _, c := range g.Checks {
		if !c.Passed {
			return true
		}
	}
	for _, c := range g.Worse {
		if !c.Passed {
			return true
		}
	}
	return false
}

// appendGates appends the summary's "gates" member (nothing when g is nil,
// no gate having been asked for).
func appendGates(b []byte, g *Gates) []byte {
	if g == nil {
		return b
	}
	b = append(b, ",\n  \"gates\": {\"passed\": "...)
	b = strconv.AppendBool(b, !g.Failed())
	b = append(b, `, "checks": [`...)
	for i, ch := range g.Checks {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, `{"metric": `...)
		b = AppendJSONString(b, []byte(ch.Name))
		b = append(b, `, "min": `...)
		b = AppendJSONFloat(b, ch.Min)
		b = append(b, `, "mean": `...)
		b = AppendJSONFloat(b, ch.Mean)
		b = append(b, `, "passed": `...)
		b = strconv.AppendBool(b, ch.Passed)
		b = append(b, '}')
	}
	b = append(b, ']')
	if len(g.Worse) > 0 {
		b = append(b, `, "worse": [`...)
		for i, w := range g.Worse {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(b, `{"metric": `...)
			b = AppendJSONString(b, []byte(w.Metric))
			b = append(b, `, "system": `...)
			b = AppendJSONString(b, []byte(w.System))
			b = append(b, `, "margin": `...)
			b = AppendJSONFloat(b, w.Margin)
			b = append(b, `, "interval": `...)
			b = strconv.AppendQuote(b, w.Interval)
			b = append(b, `, "`...)
			b = append(b, w.side()...)
			b = append(b, `": `...)
			b = AppendJSONFloat(b, w.Bound)
			b = append(b, `, "passed": `...)
			b = strconv.AppendBool(b, w.Passed)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `, "fail_on_empty": `...)
	b = strconv.AppendBool(b, g.FailOnEmpty)
	b = append(b, `, "empty": `...)
	b = strconv.AppendBool(b, g.Empty)
	return append(b, '}')
}

// writeGates writes a line per gate for the text summary (nothing when g
// is nil).
func writeGates(w *bytes.Buffer, g *Gates) {
	if g == nil {
		return
	}
	for _, ch := range g.Checks {
		verdict := "passed"
		if !ch.Passed {
			verdict = "FAILED"
		}
		fmt.Fprintf(w, "gate %s >= %g: %s (mean %s)\n", ch.Name, ch.Min, verdict, FmtMean(ch.Mean))
	}
	for _, c := range g.Worse {
		verdict := "passed"
		if !c.Passed {
			verdict = "FAILED"
		}
		fmt.Fprintf(w, "gate %s of %s not worse by %g: %s (%s bound %s, %s interval)\n", c.Metric, printable.String(c.System), c.Margin, verdict, c.side(), lowerText(c.Bound), c.Interval)
	}
	if g.Empty {
		fmt.Fprintln(w, "gate --fail-on-empty: FAILED (no rows or no query with a relevant row)")
	}
}

// lowerText is a gate's bound with the digits a margin needs: a
// bound of -0.00004 against a margin of 3e-05 must not read -0.0000.
func lowerText(v float64) string {
	if math.IsNaN(v) {
		return "undefined (too few queries)"
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}
