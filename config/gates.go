package config

import (
	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/summary"
)

// Gates are the quality-gate flags, which every command checks the same
// way (Spec, then summary's Results.CheckGates) and fails with exit 3. Plain
// data, so that a distributed run ships them.
type Gates struct {
	FailUnder   string
	FailIfWorse string
	FailOnEmpty bool
}

// Spec reads the gates against the metrics computed and the systems
// compared (a margin needs two); errors are usage errors.
func (g *Gates) Spec(ms []metrics.Metric, systems int) (*summary.GateSpec, error) {
	spec, err := summary.ParseGates(g.FailUnder, g.FailIfWorse, g.FailOnEmpty, ms)
	if err != nil {
		return nil, usage(err)
	}
	if len(spec.Worse) > 0 && systems < 2 {
		return nil, Usagef("--fail-if-worse compares systems with the baseline: give several --score-col or --system")
	}
	return spec, nil
}
