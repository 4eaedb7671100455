package config

import (
	"fmt"
	"os"

	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/pipeline"
	"github.com/rankeval/rankeval/reader"
	"github.com/rankeval/rankeval/summary"
)

// Clicks are the flags of the IPS estimates, as given: where each
// row's propensity of examination comes from (a column, or a
// position-based model of a column of logged positions) and the clip.
// Config carries them apart from the other settings, so that a further
// family of click flags (interleaving) follows the same pattern.
type Clicks struct {
	PositionCol   string
	PropensityCol string
	// PositionBias is the model as given (pow:η, table:..., or a file);
	// Finish replaces a file by its table, so that workers and a state's
	// header hold the model itself.
	PositionBias string
	// PropensityClip is the least propensity a click is divided by.
	PropensityClip float64
}

// DefaultPropensityClip is --propensity-clip when it is not given.
const DefaultPropensityClip = 0.01

// MinPropensityClip bounds --propensity-clip from below: a click weighs at
// most a million, so that a query's sums of squares stay finite and its
// IPS values within the bootstrap's range.
const MinPropensityClip = 1e-6

// ReadModelFile reads a --position-bias file into the model's canonical form:
// the launcher reads it, its workers and states hold the model.
func (c *Clicks) ReadModelFile() error {
	if c.PositionBias == "" || pipeline.IsModel(c.PositionBias) {
		return nil
	}
	f, err := os.Open(c.PositionBias)
	if err != nil {
		return fmt.Errorf("--position-bias: %w", err)
	}
	defer f.Close()
	b, err := pipeline.ReadPositionBias(c.PositionBias, f)
	if err != nil {
		return fmt.Errorf("--position-bias: %w", err)
	}
	c.PositionBias = b.String()
	return nil
}

// resolve checks the click flags against the metrics of s and puts them
// in force: the propensity rule, its column, the clip.
func (c *Clicks) resolve(s *Settings) error {
	r := &s.Rules
	ips := ""
	for _, m := range r.Metrics {
		if m.Propensities() {
			ips = m.Name
			break
		}
	}
	clip := c.PropensityClip
	if clip == 0 { // 0: the default (a state's header records the clip only with IPS); evalflags refuses a 0 given
		clip = DefaultPropensityClip
	}
	given := c.PositionCol != "" || c.PropensityCol != "" || c.PositionBias != "" || clip != DefaultPropensityClip
	switch {
	case ips == "" && given:
		return Usagef("--propensity-col, --position-col, --position-bias and --propensity-clip are for the IPS estimates (ips_*, snips_*), which -m does not ask for")
	case ips == "":
		return nil
	case !(clip >= MinPropensityClip && clip <= 1):
		return Usagef("--propensity-clip %v: want a number from %g to 1", clip, MinPropensityClip)
	case c.PropensityCol != "" && (c.PositionCol != "" || c.PositionBias != ""):
		return Usagef("--propensity-col gives the propensities; --position-col and --position-bias would give them again: give one or the other")
	case c.PositionBias != "" && c.PositionCol == "":
		return Usagef("--position-bias needs the logged positions: give --position-col")
	case c.PositionCol != "" && c.PositionBias == "":
		return Usagef("--position-col is read to look up --position-bias: give it too")
	case c.PropensityCol == "" && c.PositionBias == "":
		return Usagef("%s weighs clicks by their propensity of examination: give --propensity-col, or --position-col with --position-bias", ips)
	}
	r.Options.PropClip = clip
	s.IPS = summary.IPS{PropensityCol: c.PropensityCol, PositionCol: c.PositionCol}
	if c.PropensityCol != "" {
		r.Propensity.From = pipeline.PropColumn
		s.Columns.Numbers = []reader.Named{{Name: c.PropensityCol, Role: "the propensity column", Flag: "--propensity-col"}}
		return nil
	}
	b, err := pipeline.ParsePositionBias(c.PositionBias)
	if err != nil {
		return Usagef("--position-bias %w", err)
	}
	r.Propensity.From, r.Propensity.Model = pipeline.PropModel, b
	s.IPS.PositionBias = b.String()
	if c.PositionCol == s.Columns.Rank {
		r.Propensity.FromRank = true // one column, read once, in both roles
		return nil
	}
	s.Columns.Numbers = []reader.Named{{Name: c.PositionCol, Role: "the position column", Flag: "--position-col"}}
	return nil
}

// checkClickSystems refuses the self-normalized estimates across several
// logs: they divide by one log's click weights, which other logs' clicks
// do not share.
func checkClickSystems(ms []metrics.Metric, logs int) error {
	if logs < 2 {
		return nil
	}
	for _, m := range ms {
		if m.Ratio() {
			return Usagef("%s divides by one log's click weights: compare score columns of that log (--score-col a,b), not --system logs", m.Name)
		}
	}
	return nil
}
