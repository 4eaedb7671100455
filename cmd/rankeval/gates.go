package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/metrics"
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

// gateResult is the verdict of every gate of a run.
type gateResult struct {
	checks []gateCheck
	empty  bool // --fail-on-empty tripped
}

type gateCheck struct {
	name      string
	min, mean float64
	passed    bool
}

func (g gateResult) failed() bool {
	if g.empty {
		return true
	}
	for _, c := range g.checks {
		if !c.passed {
			return true
		}
	}
	return false
}

func checkGates(c *config, set *aggregate.Set) gateResult {
	var r gateResult
	for _, g := range c.gates {
		mean := set.Stats[g.metric].Summary().Mean
		r.checks = append(r.checks, gateCheck{name: c.metrics[g.metric].Name, min: g.min, mean: mean, passed: mean >= g.min})
	}
	r.empty = c.failOnEmpty && (set.Rows == 0 || set.Queries == set.Empty)
	return r
}

// err describes the failures for stderr; nil when every gate passed.
func (g gateResult) err() error {
	if !g.failed() {
		return nil
	}
	var why []string
	for _, c := range g.checks {
		if !c.passed {
			why = append(why, fmt.Sprintf("%s mean %s < %g", c.name, fmtMean(c.mean), c.min))
		}
	}
	if g.empty {
		why = append(why, "no rows or no query with a relevant row (--fail-on-empty)")
	}
	return fmt.Errorf("%w: %s", errGate, strings.Join(why, "; "))
}

func fmtMean(v float64) string {
	if math.IsNaN(v) {
		return "undefined (no queries)"
	}
	return strconv.FormatFloat(v, 'f', 4, 64)
}
