package evalflags

import "flag"

// Gates are the quality-gate flags, which both commands check the same
// way (summary.ParseGates, summary.CheckGates) and fail with exit 3.
type Gates struct {
	FailUnder   string
	FailOnEmpty bool
}

// RegisterGates defines --fail-under and --fail-on-empty on fs.
func RegisterGates(fs *flag.FlagSet) *Gates {
	g := &Gates{}
	fs.StringVar(&g.FailUnder, "fail-under", "", "quality gates, as 'ndcg@10=0.42,map=0.30': when a mean falls below its bar\n(or has no queries), exit 3 after writing the full summary, which says which failed")
	fs.BoolVar(&g.FailOnEmpty, "fail-on-empty", false, "exit 3 (after writing the summary) when the run saw no rows or no query\nwith a relevant row")
	return g
}

// RegisterReport defines --report on fs, storing into p.
func RegisterReport(fs *flag.FlagSet, p *string) {
	fs.StringVar(p, "report", "", "also write a self-contained HTML report (tables and charts) to this file")
}
