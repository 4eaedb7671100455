package config

import (
	"context"
	"slices"

	"github.com/rankeval/rankeval/objstore"
	"github.com/rankeval/rankeval/reader"
	"github.com/rankeval/rankeval/summary"
)

// Plan is a Config checked and resolved for one run over its inputs:
// what it computes (Settings), what each log reads, and its gates.
type Plan struct {
	Config   Config
	Settings *Settings
	// Inputs are the INPUT arguments (expanded by Expand); Logs holds each
	// --system log's files, in the order of Settings.Rules.Systems, and is
	// nil when the systems are score columns of one log.
	Inputs []string
	Logs   [][]string
	Gates  *summary.GateSpec
}

// Prepare checks every setting of c against the INPUT arguments and
// resolves them, in the order the command line's checks run: the
// settings (Resolve), how the run goes, the sources, the state, the
// gates; then that something is read. Several TREC runs are several
// systems (Sources.RunSystems). It reads no file but a --position-bias
// file not yet read (Clicks.ReadModelFile) and the run tags of several
// TREC runs.
func (c Config) Prepare(inputs []string) (*Plan, error) {
	if err := c.Clicks.ReadModelFile(); err != nil {
		return nil, err
	}
	s, err := c.Resolve()
	if err != nil {
		return nil, err
	}
	if err := c.Run.Check(); err != nil {
		return nil, err
	}
	if c.ReadTimeout < 0 { // 0: objstore's default
		return nil, CheckReadTimeout(c.ReadTimeout)
	}
	if inputs, err = c.Sources.RunSystems(inputs); err != nil {
		return nil, err
	}
	p := &Plan{Config: c, Settings: s, Inputs: inputs}
	if p.Logs, err = c.Sources.Apply(s, inputs); err != nil {
		return nil, err
	}
	if err := c.Sources.CheckState(c.Outputs.State); err != nil {
		return nil, err
	}
	if err := s.CheckState(c.Outputs.State); err != nil {
		return nil, err
	}
	if p.Gates, err = c.Gates.Spec(s.Rules.Metrics, len(s.Rules.Systems)); err != nil {
		return nil, err
	}
	if len(inputs) == 0 && p.Logs == nil {
		return nil, Usagef("no input: give one or more files, or - for standard input")
	}
	if err := p.Summary("").CheckTableNames(); err != nil {
		return nil, Usagef("--table-names %w", err)
	}
	return p, nil
}

// Expand turns the inputs and logs that are paths (keep says which; nil:
// all) into the files to read, in order: directories recursively
// (data-lake part files in lexical order, hidden and _SUCCESS-style names
// skipped), globs, object-store prefixes. It then refuses a file given
// twice to one log and an output that is an input.
func (p *Plan) Expand(keep func(input string) bool) error {
	ctx := objstore.WithReadTimeout(context.Background(), p.Config.ReadTimeout)
	expand := func(ins []string) ([]string, error) {
		if keep == nil {
			if len(ins) > 0 {
				// at once, so that one error names every stray file
				xs, err := reader.ExpandContext(ctx, ins)
				var out []string
				for _, x := range xs {
					out = append(out, x.Path)
				}
				return out, err
			}
		}
		var out []string
		for _, in := range ins {
			if keep != nil && !keep(in) {
				out = append(out, in)
				continue
			}
			xs, err := reader.ExpandContext(ctx, []string{in})
			if err != nil {
				return nil, err
			}
			for _, x := range xs {
				out = append(out, x.Path)
			}
		}
		return out, nil
	}
	var err error
	if p.Inputs, err = expand(p.Inputs); err != nil {
		return err
	}
	for l := range p.Logs {
		if p.Logs[l], err = expand(p.Logs[l]); err != nil {
			return err
		}
	}
	for _, in := range append([][]string{p.Inputs}, p.Logs...) {
		if err := CheckDistinctInputs("input", in); err != nil {
			return err
		}
	}
	return CheckOutputs(p.Config.Outputs.Flags(), slices.Concat(append([][]string{p.Inputs, {p.Config.Sources.Qrels}}, p.Logs...)...)...)
}

// Summary is the run the summary explains: the settings, the report's
// curves when a report or state keeps them, the version, and what the
// sources say of themselves (qrels, the inputs read).
func (p *Plan) Summary(version string) *summary.Run {
	run := p.Settings.Summary()
	if k := p.Config.Keep(); k.Report || k.State {
		// a state carries the report's figures, for a report of merged states
		run.Curves = summary.CurvesFor(run.Metrics)
	}
	run.Version = version
	run.Settings = p.Config.Origins
	p.Config.Sources.Describe(&run, p.Inputs, p.Logs)
	return &run
}

// InputNames names the inputs in the order the run reads them, as its
// state names them.
func (p *Plan) InputNames(run *summary.Run) []string { return InputNames(run, p.Inputs, p.Logs) }
