package summary

import (
	"bytes"
	"fmt"
	"strconv"
)

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
