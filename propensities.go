package rankeval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/config"
	"github.com/rankeval/rankeval/state"

	"github.com/rankeval/rankeval/internal/engine"
	"github.com/rankeval/rankeval/propensity"
	"github.com/rankeval/rankeval/report"
	"github.com/rankeval/rankeval/summary"
)

// Propensities is what rankeval propensities computes: the count table
// of the logs read and the estimate over it; with Config.Outputs.State,
// the state that WriteState writes.
type Propensities struct {
	// Table is the count table; a table spilled past
	// Config.Run.MemLimit is closed (its cells refused) when returned
	// without a kept state, or after Close.
	Table    *propensity.Table
	Estimate *propensity.Estimate
	// Inputs name what was read, in order, for the report's header.
	Inputs []string
	state  *state.Propensities
}

// EstimatePropensities reads the sources (or cfg's --system logs, one a
// ranker) as rankeval propensities does and estimates the position bias
// under cfg.Propensities: the columns are cfg's query, doc and label (the
// click) columns, Clicks.PositionCol and Propensities.RankerCol. It
// fails, with propensity.ErrNoEstimate, when no position past 1 can be
// estimated; with cfg.Outputs.State it then returns the table and its
// state too (Estimate nil), so that a day too thin for an estimate is
// still saved, for a merge with others. It is PreparePropensities, then
// the job's Run.
func EstimatePropensities(ctx context.Context, cfg Config, sources ...Source) (*Propensities, error) {
	j, err := PreparePropensities(cfg, sources...)
	if err != nil {
		return nil, err
	}
	return j.Run(ctx)
}

// PropensityJob is a rankeval propensities whose settings are checked and
// whose inputs are expanded, nothing read yet: a caller opens its outputs
// before Run reads the logs, so that an unwritable place fails first.
type PropensityJob struct {
	cfg  Config
	plan *config.PropensityPlan
	ins  [][]engine.Input
}

// PreparePropensities checks cfg and the sources as EstimatePropensities
// does and expands the inputs (a directory, a glob, an object-store
// prefix are listed), reading no log.
func PreparePropensities(cfg Config, sources ...Source) (*PropensityJob, error) {
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
	j := &PropensityJob{cfg: cfg, plan: p}
	for _, ls := range logs {
		in := engine.Paths(ls)
		for i, n := range ls {
			if s, ok := streams[n]; ok {
				in[i] = engine.Input{Name: n, Open: s.open}
			}
		}
		j.ins = append(j.ins, in)
	}
	return j, nil
}

// Run reads the logs and estimates, as EstimatePropensities says.
func (j *PropensityJob) Run(ctx context.Context) (*Propensities, error) {
	t, digests, err := engine.CountPropensities(ctx, j.plan, j.ins, j.cfg.Outputs.State != "")
	if err != nil {
		return nil, err
	}
	return PropensitiesOf(j.plan, t, digests)
}

// PropensitiesOf is what EstimatePropensities returns once the logs of p
// are counted into t, for a table counted elsewhere (rankeval-beam's
// workers count parts of the logs, and one step adds their tables). p's
// Inputs and Logs name the files read, as PropensityPlan.Expand leaves
// them; with p.Config.Outputs.State, digests holds each file's digest, the
// files in that order (each --system log's after the previous log's), as
// the sum of propensity.RowDigest over its rows. Without a state, the
// table is closed on return.
func PropensitiesOf(p *config.PropensityPlan, t *propensity.Table, digests []aggregate.Digest) (*Propensities, error) {
	cfg := p.Config
	keep := cfg.Outputs.State != ""
	var inputNames []string
	if keep {
		logs := p.Logs
		if logs == nil {
			logs = [][]string{p.Inputs}
		}
		for l, ls := range logs {
			for _, n := range ls {
				if p.Rankers != nil {
					n = p.Rankers[l] + "=" + n // as a run's state names a --system log's file
				}
				inputNames = append(inputNames, n)
			}
		}
	}
	res := &Propensities{Table: t, Inputs: slices.Concat(append([][]string{p.Inputs}, p.Logs...)...)}
	if !keep {
		defer t.Close() // the estimate is all that is kept
	}
	if keep {
		res.state = &state.Propensities{Settings: cfg.Propensities, Table: t, Digests: state.SourcesOf(inputNames, &aggregate.InputDigests{D: digests}),
			Columns: state.PropensityColumns{Query: cfg.Columns.Query, Doc: cfg.Columns.Doc, Click: cfg.Columns.Label, Position: cfg.Clicks.PositionCol}}
	}
	if err := res.estimate(p.Options); err != nil {
		if keep && errors.Is(err, propensity.ErrNoEstimate) {
			return res, err
		}
		t.Close()
		return nil, err
	}
	return res, nil
}

// StateSaved is err, the failure of an estimate whose state was kept
// (propensity.ErrNoEstimate), saying that the state was written to name.
func StateSaved(err error, name string) error {
	return fmt.Errorf("%w (the count table is saved in %s, to merge with other logs' states)", err, name)
}

// Close removes the files of a count table spilled to disk (past
// Config.Run.MemLimit, under Config.Run.TmpDir), which a kept state
// reads until it is written; the estimate stays.
func (p *Propensities) Close() error { return p.Table.Close() }

// estimate fits p.Table under opt, refusing an estimate of no position
// past 1.
func (p *Propensities) estimate(opt propensity.Options) error {
	e, err := p.Table.Estimate(opt)
	if err != nil {
		return err
	}
	if err := e.Check(); err != nil {
		return err
	}
	p.Estimate = e
	return nil
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
func (p *Propensities) WriteFile(w io.Writer) error {
	if p.Estimate == nil {
		return propensity.ErrNoEstimate
	}
	return p.Estimate.WriteFile(w)
}

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
			law := report.PowLaw{Name: l.Name(), Eta: l.Eta, SE: l.SE, EtaText: l.EtaString(),
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

// WriteState writes the propensity state (the count table, the settings
// it was counted and is estimated under, the inputs it was made from),
// which MergePropensities (rankeval merge) combines with others; it must
// have been kept (Config.Outputs.State).
func (p *Propensities) WriteState(w io.Writer) error {
	if p.state == nil {
		return fmt.Errorf("the propensity state: %w (set Config.Outputs.State)", ErrNotKept)
	}
	_, err := p.state.WriteTo(w)
	return err
}

// MergePropensities reads propensity states (as Merge reads runs'
// states), checks that they merge (made under the same settings, from
// different inputs: a log is known by the digest of its rows, whatever
// its path or format, and a merged state holds its parts' inputs), and
// returns the count table of the union of their logs with its estimate,
// as rankeval propensities over all those logs gives them, and the same
// state, byte for byte. Runs' states are refused. As
// EstimatePropensities, it returns the table with
// propensity.ErrNoEstimate when cfg.Outputs.State is set.
func MergePropensities(ctx context.Context, cfg MergeConfig, states ...Source) (*Propensities, error) {
	ctx, names, streams, err := gatherStates(ctx, cfg, states)
	if err != nil {
		return nil, err
	}
	return mergePropensities(ctx, cfg, names, streams, nil)
}

// mergePropensities merges propensity states; first, when not nil, is
// the first state's bytes, read already.
func mergePropensities(ctx context.Context, cfg MergeConfig, names []string, streams map[string]io.Reader, first []byte) (*Propensities, error) {
	switch { // a summary's settings: an estimate has none of them
	case cfg.Format != "" && cfg.Format != "text":
		return nil, config.Usagef("--format %s: propensity states merge into a position,propensity file, which has one format", cfg.Format)
	case cfg.TableNames != "":
		return nil, config.Usagef("--table-names: propensity states merge into a position,propensity file, which has no table")
	case cfg.Correction != "":
		return nil, config.Usagef("--correction: propensity states merge into an estimate with no p-value")
	case cfg.Detect != "":
		return nil, config.Usagef("--detect: propensity states merge into an estimate with no comparison")
	case cfg.Gates != config.Gates{}:
		return nil, config.Usagef("--fail-under, --fail-if-worse, --fail-on-empty: propensity states merge into an estimate with no metric to gate")
	case cfg.Outputs.PerQuery != "":
		return nil, config.Usagef("--per-query: propensity states merge into a position,propensity file (--output), its report (--report) and a state (--state)")
	}
	held := map[aggregate.Digest]heldInput{}
	var merged *state.Propensities
	for i, name := range names {
		data := first
		if i > 0 || first == nil {
			var err error
			if data, err = readStateBytes(ctx, name, streams[name]); err != nil {
				return nil, err
			}
		}
		s, err := state.DecodePropensities(data)
		if err != nil {
			return nil, stateError(name, err)
		}
		if merged == nil {
			sharedInput(held, name, "rows", s.Digests) // the first: nothing held yet
			merged = s
			continue
		}
		if diff := state.PropensityMismatch(merged, s); diff != "" {
			return nil, fmt.Errorf("%s: made with %s in %s; propensity states merge only when made under the same settings: %w", name, diff, names[0], state.ErrMismatch)
		}
		if err := sharedInput(held, name, "rows", s.Digests); err != nil {
			return nil, err
		}
		if err := merged.Merge(s); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	res := &Propensities{Table: merged.Table, state: merged}
	for _, d := range merged.Digests { // the logs the states were made from
		res.Inputs = append(res.Inputs, d.Input)
	}
	slices.Sort(res.Inputs)
	opt, err := merged.Settings.Options()
	if err != nil {
		return nil, err
	}
	if err := res.estimate(opt); err != nil {
		if cfg.Outputs.State != "" && errors.Is(err, propensity.ErrNoEstimate) {
			return res, err
		}
		return nil, err
	}
	return res, nil
}
