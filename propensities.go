package rankeval

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/rankeval/rankeval/internal/engine"
	"github.com/rankeval/rankeval/propensity"
	"github.com/rankeval/rankeval/report"
	"github.com/rankeval/rankeval/summary"
)

// Propensities is what rankeval propensities computes: the count table
// of the logs read and the estimate over it.
type Propensities struct {
	Table    *propensity.Table
	Estimate *propensity.Estimate
	// Inputs name what was read, in order, for the report's header.
	Inputs []string
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
	return &Propensities{Table: t, Estimate: e, Inputs: slices.Concat(append([][]string{p.Inputs}, p.Logs...)...)}, nil
}

// Fits are the power laws k^−η compared with the estimate: the fitted
// one and the references (propensity.Estimate.FitPow); their Closest
// says which is closest.
func (p *Propensities) Fits() propensity.PowFits {
	f, _ := p.Estimate.FitPow()
	return f
}

// WriteFile writes the estimate as a position-bias file, which
// --position-bias reads as it is (propensity.Estimate.WriteFile).
func (p *Propensities) WriteFile(w io.Writer) error { return p.Estimate.WriteFile(w) }

// WriteReport writes the HTML page of the estimate: the curve with its
// intervals beside the power laws k^−η, which is closest, and the
// figures (report.WritePropensities).
func (p *Propensities) WriteReport(w io.Writer) error {
	e, fits := p.Estimate, p.Fits()
	line := e.Summary()
	d := &report.Propensities{Title: "rankeval propensities", Version: summary.Version(), Inputs: p.Inputs,
		Lines:   []string{strings.ToUpper(line[:1]) + line[1:] + fmt.Sprintf(", a %d-replicate bootstrap over queries for the intervals.", e.Replicates)},
		Closest: fits.Closest(), InFile: e.Estimated(), Notes: e.Notes()}
	last := max(e.LastShown(), 2)
	if len(fits.Positions) > 0 {
		for i, l := range append([]propensity.PowFit{fits.Best}, fits.References...) {
			law := report.PowLaw{Name: "pow:" + strconv.FormatFloat(l.Eta, 'g', 3, 64), Eta: l.Eta, SE: l.SE,
				RMS: l.RMS, MaxRel: l.MaxRel, Inside: l.Inside, Of: len(fits.Positions)}
			if i == 0 {
				law.Name += " (fitted)"
			}
			for j := 0; j <= (last-1)*10; j++ {
				law.Curve = append(law.Curve, propensity.At(1+float64(j)/10, l.Eta))
			}
			d.Laws = append(d.Laws, law)
		}
	}
	for _, q := range e.Positions[:last] {
		pos := report.PropPosition{Position: q.Position, Propensity: q.Propensity, CI: report.Interval{Lo: q.Lower, Hi: q.Upper},
			Rows: q.Impressions, Pairs: q.Pairs, Clicks: q.Clicks, Refused: q.Refused}
		for _, l := range d.Laws {
			pos.Laws = append(pos.Laws, propensity.At(float64(q.Position), l.Eta))
		}
		d.Positions = append(d.Positions, pos)
	}
	return report.WritePropensities(w, d)
}
