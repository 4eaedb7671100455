package summary

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/internal/printable"
)

// The interleaving outcome's counts beside its mean: wins (team B), losses
// (team A wins), ties, the impressions without a click and the sign test,
// which every summary derives from the metric's exact sums
// (aggregate.Stat.Outcomes).

// outcomesOf holds, per metric of c, the counts get reads for the
// interleave metric, nil for the others (and for sums no outcomes give,
// which only a crafted state holds: its merge refuses it first).
func outcomesOf(c *Run, get func(m int) (aggregate.Outcomes, error)) []*aggregate.Outcomes {
	var out []*aggregate.Outcomes
	for m, mt := range c.Metrics {
		if !mt.Teams() {
			continue
		}
		if out == nil {
			out = make([]*aggregate.Outcomes, len(c.Metrics))
		}
		if o, err := get(m); err == nil {
			out[m] = &o
		}
	}
	return out
}

// appendOutcomes appends the counts of o, when there are some, to a
// metric's JSON object.
func appendOutcomes(b []byte, outs []*aggregate.Outcomes, m int) []byte {
	if outs == nil || outs[m] == nil {
		return b
	}
	o := outs[m]
	for _, f := range []struct {
		k string
		v int64
	}{{"wins", o.Wins}, {"losses", o.Losses}, {"ties", o.Ties}, {"no_click", o.NoClick}} {
		b = append(b, `, "`+f.k+`": `...)
		b = strconv.AppendInt(b, f.v, 10)
	}
	b = append(b, `, "p_sign": `...)
	return AppendJSONFloat(b, o.P)
}

// writeOutcomes writes a line under a system's metrics table for each
// interleave metric: who won how often, and the sign test.
func writeOutcomes(w *bytes.Buffer, c *Run, outs []*aggregate.Outcomes) {
	for _, l := range outcomeLines(c, outs) {
		w.WriteString(l + "\n")
	}
}

// outcomeLines say, for each interleave metric, who won how often and the
// sign test: the text summary's lines and the report's.
func outcomeLines(c *Run, outs []*aggregate.Outcomes) []string {
	var ls []string
	for m, o := range outs {
		if o == nil {
			continue
		}
		p := pval(o.P, "-")
		if p[0] != '<' {
			p = "= " + p
		}
		ls = append(ls, fmt.Sprintf("%s: %s (B) won %d, %s (A) won %d, %d ties, %d impressions without a click; sign test p %s",
			c.Metrics[m].Name, printable.String(c.Teams.B), o.Wins, printable.String(c.Teams.A), o.Losses, o.Ties, o.NoClick, p))
	}
	return ls
}
