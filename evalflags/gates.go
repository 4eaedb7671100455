package evalflags

import (
	"flag"

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
		return nil, usageErr{err}
	}
	if len(spec.Worse) > 0 && systems < 2 {
		return nil, Usagef("--fail-if-worse compares systems with the baseline: give several --score-col or --system")
	}
	return spec, nil
}

// RegisterGates defines --fail-under and --fail-on-empty on fs.
func RegisterGates(fs *flag.FlagSet) *Gates {
	g := &Gates{}
	fs.StringVar(&g.FailUnder, "fail-under", "", "quality gates, as 'ndcg@10=0.42,map=0.30': when a mean falls below its bar\n(or has no queries), exit 3 after writing the full summary, which says which failed")
	fs.StringVar(&g.FailIfWorse, "fail-if-worse", "", "non-inferiority gates, as 'ndcg@10=0.005,map=0.01': when, for some system, the lower\nbound of the 95% interval of its difference from the baseline (the bootstrap's\nwith --bootstrap, else the t interval) is below -margin, exit 3 after writing the\nsummary, whose gates say which system, metric and bound failed")
	fs.BoolVar(&g.FailOnEmpty, "fail-on-empty", false, "exit 3 (after writing the summary) when the run saw no rows or no query\nwith a relevant row")
	return g
}

// RegisterReport defines --report on fs, storing into p.
func RegisterReport(fs *flag.FlagSet, p *string) {
	fs.StringVar(p, "report", "", "also write a self-contained HTML report (tables and charts) to this file")
}
