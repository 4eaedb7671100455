package config

import (
	"strings"

	"github.com/rankeval/rankeval/pipeline"
	"github.com/rankeval/rankeval/reader"
	"github.com/rankeval/rankeval/summary"
)

// Teams are the flags of the interleaving outcome, as given: the
// column that says which team contributed each row of an interleaved
// list, and the two values that name the teams.
type Teams struct {
	TeamCol string
	// Teams is "A,B": team A's value first (the baseline), then team B's.
	Teams string
}

// resolve checks the team flags against the metrics of s and puts them in
// force: the team column and the rule that reads it.
func (t *Teams) resolve(s *Settings) error {
	name := ""
	for _, m := range s.Rules.Metrics {
		if m.Teams() {
			name = m.Name
			break
		}
	}
	switch {
	case name == "" && (t.TeamCol != "" || t.Teams != ""):
		return Usagef("--team-col and --teams are for the interleave metric, which -m does not ask for")
	case name == "":
		return nil
	case t.TeamCol == "" && t.Teams == "":
		return Usagef("%s credits each click to the team of its row: give --team-col and --teams A,B", name)
	case t.TeamCol == "":
		return Usagef("--teams names the values of the team column: give --team-col")
	case t.Teams == "":
		return Usagef("--team-col needs the values that name the two teams: give --teams A,B (A the baseline)")
	}
	teams := strings.Split(t.Teams, ",")
	for i := range teams {
		teams[i] = strings.TrimSpace(teams[i])
	}
	if len(teams) != 2 || teams[0] == "" || teams[1] == "" || teams[0] == teams[1] {
		return Usagef("--teams %q: want two different values, A,B (A the baseline), as control,treatment", t.Teams)
	}
	s.Rules.Teams = pipeline.Teams{A: teams[0], B: teams[1]}
	s.Teams = summary.Teams{Col: t.TeamCol, A: teams[0], B: teams[1]}
	s.Columns.Texts = []reader.Named{{Name: t.TeamCol, Role: "the team column", Flag: "--team-col"}}
	return nil
}
