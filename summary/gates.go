package summary

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/metrics"
)

// ErrGateFailed marks a run whose summary was written but failed a gate
// (exit 3).
var ErrGateFailed = errors.New("quality gate failed")

// Gate is one --fail-under bar.
type Gate struct {
	Metric int // index into the run's metrics
	Min    float64
}

// ParseGates reads --fail-under ("ndcg@10=0.42,map=0.30") against the
// metrics computed.
func ParseGates(s string, ms []metrics.Metric) ([]Gate, error) {
	if s == "" {
		return nil, nil
	}
	var gs []Gate
	for _, item := range strings.Split(s, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok {
			return nil, fmt.Errorf("--fail-under %q: want metric=minimum, as ndcg@10=0.42", item)
		}
		name = strings.ToLower(strings.TrimSpace(name))
		idx := -1
		for i, m := range ms {
			if m.Name == name {
				idx = i
			}
		}
		if idx < 0 {
			return nil, fmt.Errorf("--fail-under: %q is not among the metrics computed (-m)", name)
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil || math.IsNaN(v) {
			return nil, fmt.Errorf("--fail-under: %q is not a number", val)
		}
		gs = append(gs, Gate{idx, v})
	}
	return gs, nil
}

// CheckGates gives the verdict of every gate on set (the baseline's
// aggregate), or nil when none was asked for.
func CheckGates(gates []Gate, failOnEmpty bool, ms []metrics.Metric, set *aggregate.Set) *Gates {
	if len(gates) == 0 && !failOnEmpty {
		return nil
	}
	r := &Gates{FailOnEmpty: failOnEmpty}
	for _, g := range gates {
		mean := Summarize(ms[g.Metric], &set.Stats[g.Metric]).Mean
		r.Checks = append(r.Checks, GateCheck{Name: ms[g.Metric].Name, Min: g.Min, Mean: mean, Passed: mean >= g.Min})
	}
	r.Empty = failOnEmpty && (set.Rows == 0 || set.Queries == set.Empty)
	return r
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
	if g.Empty {
		why = append(why, "no rows or no query with a relevant row (--fail-on-empty)")
	}
	return fmt.Errorf("%w: %s", ErrGateFailed, strings.Join(why, "; "))
}

// Gates is the verdict of a run's quality gates (--fail-under,
// --fail-on-empty).
type Gates struct {
	Checks      []GateCheck
	FailOnEmpty bool // --fail-on-empty was given
	Empty       bool // and it tripped
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
	b = append(b, `], "fail_on_empty": `...)
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
	if g.Empty {
		fmt.Fprintln(w, "gate --fail-on-empty: FAILED (no rows or no query with a relevant row)")
	}
}
