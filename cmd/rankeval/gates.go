package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/summary"
)

// gate is one --fail-under bar.
type gate struct {
	metric int // index into config.metrics
	min    float64
}

func parseGates(s string, ms []metrics.Metric) ([]gate, error) {
	if s == "" {
		return nil, nil
	}
	var gs []gate
	for _, item := range strings.Split(s, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok {
			return nil, usagef("--fail-under %q: want metric=minimum, as ndcg@10=0.42", item)
		}
		name = strings.ToLower(strings.TrimSpace(name))
		idx := -1
		for i, m := range ms {
			if m.Name == name {
				idx = i
			}
		}
		if idx < 0 {
			return nil, usagef("--fail-under: %q is not among the metrics computed (-m)", name)
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil || math.IsNaN(v) {
			return nil, usagef("--fail-under: %q is not a number", val)
		}
		gs = append(gs, gate{idx, v})
	}
	return gs, nil
}

// checkGates gives the verdict of every gate of a run, or nil when none
// was asked for.
func checkGates(c *config, set *aggregate.Set) *summary.Gates {
	if len(c.gates) == 0 && !c.failOnEmpty {
		return nil
	}
	r := &summary.Gates{FailOnEmpty: c.failOnEmpty}
	for _, g := range c.gates {
		mean := set.Stats[g.metric].Summary().Mean
		r.Checks = append(r.Checks, summary.GateCheck{Name: c.shared.Rules.Metrics[g.metric].Name, Min: g.min, Mean: mean, Passed: mean >= g.min})
	}
	r.Empty = c.failOnEmpty && (set.Rows == 0 || set.Queries == set.Empty)
	return r
}

// gateErr describes the failures for stderr; nil when every gate passed.
func gateErr(g *summary.Gates) error {
	if g == nil || !g.Failed() {
		return nil
	}
	var why []string
	for _, c := range g.Checks {
		if !c.Passed {
			why = append(why, fmt.Sprintf("%s mean %s < %g", c.Name, summary.FmtMean(c.Mean), c.Min))
		}
	}
	if g.Empty {
		why = append(why, "no rows or no query with a relevant row (--fail-on-empty)")
	}
	return fmt.Errorf("%w: %s", errGate, strings.Join(why, "; "))
}
