package rankeval

import (
	"context"
	"io"

	"github.com/rankeval/rankeval/internal/engine"
	"github.com/rankeval/rankeval/propensity"
)

// Propensities is what rankeval propensities computes: the count table
// of the logs read and the estimate over it.
type Propensities struct {
	Table    *propensity.Table
	Estimate *propensity.Estimate
}

// EstimatePropensities reads the sources (or cfg's --system logs, one a
// ranker) as rankeval propensities does and estimates the position bias
// under cfg.Propensities: the columns are cfg's query, doc and label (the
// click) columns, Clicks.PositionCol and Propensities.RankerCol. It
// fails, with propensity.ErrNoEstimate, when no position past 1 can be
// estimated.
func EstimatePropensities(ctx context.Context, cfg Config, sources ...Source) (*Propensities, error) {
	names := make([]string, len(sources))
	streams := map[string]Source{}
	for i, s := range sources {
		if err := s.check(); err != nil {
			return nil, err
		}
		names[i] = s.name
		if s.open != nil {
			streams[s.name] = s
		}
	}
	p, err := cfg.PreparePropensities(names)
	if err != nil {
		return nil, err
	}
	if err := p.Expand(func(in string) bool { _, ok := streams[in]; return !ok }); err != nil {
		return nil, err
	}
	logs := p.Logs
	if logs == nil {
		logs = [][]string{p.Inputs}
	}
	var ins [][]engine.Input
	for _, l := range logs {
		in := engine.Paths(l)
		for i, n := range l {
			if s, ok := streams[n]; ok {
				in[i] = engine.Input{Name: n, Open: s.open}
			}
		}
		ins = append(ins, in)
	}
	t, err := engine.CountPropensities(ctx, p, ins)
	if err != nil {
		return nil, err
	}
	e, err := t.Estimate(p.Options)
	if err != nil {
		return nil, err
	}
	if err := e.Check(); err != nil {
		return nil, err
	}
	return &Propensities{Table: t, Estimate: e}, nil
}

// WriteFile writes the estimate as a position-bias file, which
// --position-bias reads as it is (propensity.Estimate.WriteFile).
func (p *Propensities) WriteFile(w io.Writer) error { return p.Estimate.WriteFile(w) }
