package config

import (
	"github.com/rankeval/rankeval/propensity"
	"github.com/rankeval/rankeval/reader"
	"github.com/rankeval/rankeval/stats"
)

// Propensities are the settings of rankeval propensities of its own; the
// rest are a run's: the columns (query, doc, the click as the label),
// Clicks.PositionCol, the input format and CSV dialect, Sources.System
// (one log per ranker), Run, Outputs.Summary and Outputs.Report.
type Propensities struct {
	// RankerCol names the column of the ranker (bucket, model) that
	// produced each row's impression; "" reads none (one ranker, or
	// --system logs).
	RankerCol string
	// Method is harvest or em (propensity.ParseMethod).
	Method string
	// MaxPosition is the last position estimated; rows past it are
	// counted apart.
	MaxPosition int
	// MinClicks is the least clicks at a position, on documents also
	// shown at another, for an estimate there.
	MinClicks int64
	// Replicates is the bootstrap's resamples of the queries.
	Replicates int
}

// MaxReplicates bounds --replicates.
const MaxReplicates = 100_000

// DefaultPropensities are rankeval propensities' defaults.
func DefaultPropensities() Propensities {
	return Propensities{Method: string(propensity.Harvest), MaxPosition: propensity.DefaultMaxPosition,
		MinClicks: propensity.DefaultMinClicks, Replicates: propensity.DefaultReplicates}
}

// Options checks v's estimate settings (a command line's, or a
// propensity state's) and gives the estimator's options, Workers left 0.
func (v Propensities) Options() (propensity.Options, error) {
	method, err := propensity.ParseMethod(v.Method)
	if err != nil {
		return propensity.Options{}, Usagef("--method %w", err)
	}
	switch {
	case v.MaxPosition < 2 || v.MaxPosition > propensity.MaxMaxPosition:
		return propensity.Options{}, Usagef("--max-position %d: want 2 to %d (position 1 is the reference)", v.MaxPosition, propensity.MaxMaxPosition)
	case v.MinClicks < 1:
		return propensity.Options{}, Usagef("--min-clicks %d: want 1 or more", v.MinClicks)
	case v.Replicates < stats.MinBootstrap || v.Replicates > MaxReplicates:
		return propensity.Options{}, Usagef("--replicates %d: want %d to %d", v.Replicates, stats.MinBootstrap, MaxReplicates)
	}
	return propensity.Options{Method: method, Replicates: v.Replicates, MinClicks: v.MinClicks}, nil
}

// PropensityPlan is a Config checked for rankeval propensities: what to
// read, and how to estimate.
type PropensityPlan struct {
	Config  Config
	Options propensity.Options
	// Columns are what each input's reader reads: the query, the doc, the
	// click (Label), the position (Numbers[0]) and, with --ranker-col, the
	// ranker (Texts[0]).
	Columns      reader.Columns
	InputFormat  reader.Format
	Delimiter    byte
	DecimalComma bool
	// Inputs are the INPUT arguments (expanded by Expand); with --system,
	// Logs holds each ranker's files and Rankers their names.
	Inputs  []string
	Logs    [][]string
	Rankers []string
}

// PreparePropensities checks c for rankeval propensities over the INPUT
// arguments, reading nothing.
func (c Config) PreparePropensities(inputs []string) (*PropensityPlan, error) {
	p := &PropensityPlan{Config: c, Inputs: inputs}
	v := c.Propensities
	opts, err := v.Options()
	if err != nil {
		return nil, err
	}
	switch {
	case c.Clicks.PositionCol == "":
		return nil, Usagef("--position-col: rankeval propensities needs the column of each row's logged position")
	case c.Sources.Qrels != "":
		return nil, Usagef("--qrels: rankeval propensities reads click logs, not TREC runs")
	}
	p.Options = opts
	p.Options.Workers = c.Run.Workers
	if p.InputFormat, err = reader.ParseFormat(c.InputFormat); err != nil {
		return nil, Usagef("--input-format %w", err)
	}
	if p.Delimiter, p.DecimalComma, err = c.dialect(p.InputFormat); err != nil {
		return nil, err
	}
	if err := c.Run.Check(); err != nil {
		return nil, err
	}
	if err := CheckReadTimeout(c.ReadTimeout); err != nil {
		return nil, err
	}
	if len(c.Sources.System) > 0 {
		switch {
		case len(inputs) > 0:
			return nil, Usagef("give either --system NAME=PATH logs (one a ranker) or INPUT files, not both")
		case v.RankerCol != "":
			return nil, Usagef("--ranker-col names each row's ranker; --system names each log's: give one or the other")
		}
		if p.Rankers, p.Logs, err = c.Sources.systems(); err != nil {
			return nil, err
		}
		if err := distinctSystems(p.Rankers); err != nil {
			return nil, err
		}
	} else if len(inputs) == 0 {
		return nil, Usagef("no input: give one or more logs, or - for standard input, or --system NAME=PATH per ranker")
	}
	p.Columns = reader.Columns{Query: c.Columns.Query, Doc: c.Columns.Doc, Label: c.Columns.Label, Unordered: true,
		Numbers: []reader.Named{{Name: c.Clicks.PositionCol, Role: "the position column", Flag: "--position-col"}}}
	if v.RankerCol != "" {
		p.Columns.Texts = []reader.Named{{Name: v.RankerCol, Role: "the ranker column", Flag: "--ranker-col"}}
	}
	for _, col := range []struct{ flag, name string }{{"--query-col", c.Columns.Query}, {"--doc-col", c.Columns.Doc}, {"--label-col", c.Columns.Label}} {
		if col.name == "" {
			return nil, Usagef("%s: rankeval propensities needs it", col.flag)
		}
	}
	return p, nil
}

// Expand turns the inputs and logs that are paths (keep says which;
// nil: all) into the files to read, as a run's Plan.Expand does.
func (p *PropensityPlan) Expand(keep func(input string) bool) error {
	plan := &Plan{Config: p.Config, Inputs: p.Inputs, Logs: p.Logs}
	plan.Config.Outputs = Outputs{Summary: p.Config.Outputs.Summary, Report: p.Config.Outputs.Report, State: p.Config.Outputs.State}
	if err := plan.Expand(keep); err != nil {
		return err
	}
	p.Inputs, p.Logs = plan.Inputs, plan.Logs
	return nil
}
