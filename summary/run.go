// Package summary owns every rendering of a run's results: the summary as
// a text table, one JSON object or trec_eval's layout, for one or several
// systems, with slices, comparisons, bootstrap intervals and gates; the
// per-query record; and the HTML report's figures. rankeval and
// rankeval-beam both build a Results and print it here, so equal
// aggregates print equal bytes.
package summary

import (
	"fmt"
	"math"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rankeval/rankeval/internal/pmath"
	"github.com/rankeval/rankeval/stats"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/reader"
)

// Run is what a summary explains besides the numbers: the metrics, the
// conventions they were computed under, and what the run compared.
type Run struct {
	// Metrics are the metrics asked for, in order; a run may evaluate more
	// after them (Curves), which only the report shows.
	Metrics      []metrics.Metric
	Options      metrics.Options
	Columns      reader.Columns
	Profile      string
	ScoreFloat32 bool
	// DedupFirst: repeated doc ids of a query were dropped (--dedup first)
	// rather than refused.
	DedupFirst bool
	// MissingScore and MissingLabel are the --missing-score and
	// --missing-label policies; "" or "error" (rows without one stop the
	// run) says nothing, any other is shown with its count of rows.
	MissingScore, MissingLabel string
	// TREC input only (Qrels non-empty).
	Qrels        string
	Complete     bool
	SkipUnjudged bool

	// Slices names the --by columns, MaxSlices their limit.
	Slices    []string
	MaxSlices int
	// Systems names the compared systems, the baseline first (score
	// columns or logs); empty or one name for a single system. Missing is
	// the --missing policy when the systems are logs (--system), else "".
	Systems []string
	Missing string
	// Bootstrap is the number of replicates (0: none).
	Bootstrap int
	// Compare is which pairs of systems were compared and by which test;
	// Correction how their p-values were adjusted together.
	Compare    aggregate.Compare
	Correction stats.Correction
	// Curves are the report's metric@k families, evaluated after Metrics.
	Curves []Curve
	// Inputs name what was read, sorted (expanded files; NAME=PATH for
	// each file of a --system log).
	Inputs []string
	// Version names the program that made the summary, as Version()
	// gives it.
	Version string

	// Gates, when set, is the verdict of the quality gates, printed with
	// the summary.
	Gates *Gates
	// Spelled are the metrics' names as the user typed them (case kept),
	// by index of Metrics, "" where unknown (a merge of states); and
	// TableNames the names a LaTeX or Markdown table shows for metrics
	// and systems (--table-names). Neither changes a figure; a state
	// records neither.
	Spelled    []string
	TableNames map[string]string
	// Detect are the --detect requests (ParseDetect), answered on the
	// run's comparisons; a state does not record them (they change no
	// figure it holds), so a merge takes its own.
	Detect []Detect
	// Warnings are things the run noticed that may make its numbers not
	// mean what the user expects; the JSON summary lists them.
	Warnings []string
	// Settings says where each setting given came from (flag name ->
	// origin, config.Config's Origins) when a settings file was read; the
	// JSON summary shows it as its settings object.
	Settings map[string]string
	// Labels is what the run noted of its labels when ERR runs under the
	// default maximum grade: "binary" (all 0 or 1: Warnings says so),
	// "graded", or "" (not noted, or no rows). Merged states combine it.
	Labels string
	// IPS says where the IPS estimates' propensities came from; zero
	// without IPS estimates. Their clip is Options.PropClip.
	IPS IPS
	// Teams names the team column of an interleaved list and the values
	// of its two teams; zero without the interleave metric.
	Teams Teams
}

// Teams are the team column of an interleaved list (Col) and the values
// that name its teams, A (the baseline) and B.
type Teams struct{ Col, A, B string }

// On reports whether the run reads teams.
func (t Teams) On() bool { return t.Col != "" }

// IPS names the source of the propensities of the IPS estimates: a
// column (PropensityCol), or a position-based model (PositionBias, in its
// canonical form) of a column of logged positions (PositionCol).
type IPS struct {
	PropensityCol, PositionCol, PositionBias string
}

// On reports whether the run has IPS estimates.
func (i IPS) On() bool { return i.PropensityCol != "" || i.PositionCol != "" }

// Source says in words where the propensities came from, for the text
// summary and the report.
func (i IPS) Source() string {
	if i.PropensityCol != "" {
		return "column " + strconv.Quote(i.PropensityCol)
	}
	return i.PositionBias + " of column " + strconv.Quote(i.PositionCol)
}

// BinaryERRWarning says that ERR was computed on 0/1 labels under the
// default maximum grade, which makes it small (a click log's labels).
func BinaryERRWarning(maxGrade float64) string {
	return fmt.Sprintf("every label is 0 or 1 but ERR uses the maximum grade %g, so a relevant row stops the user with probability 1/%g and err@k stays small; for click logs give --max-grade 1",
		maxGrade, pmath.Exp2(maxGrade))
}

// AppendOptions appends the JSON object of every convention in force, so
// a summary explains itself.
func AppendOptions(b []byte, c *Run) []byte {
	b = append(b, `{"ties": `...)
	b = strconv.AppendQuote(b, c.Options.Ties.String())
	b = append(b, `, "gain": `...)
	b = strconv.AppendQuote(b, c.Options.Gain.String())
	b = append(b, `, "max_grade": `...)
	b = AppendJSONFloat(b, c.Options.MaxGrade)
	b = append(b, `, "rel_threshold": `...)
	if c.Options.HasThreshold {
		b = AppendJSONFloat(b, c.Options.RelThreshold)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `, "empty": `...)
	b = strconv.AppendQuote(b, c.Options.Empty.String())
	b = append(b, `, "dedup": `...)
	if c.DedupFirst {
		b = append(b, `"first"`...)
	} else {
		b = append(b, `"error"`...)
	}
	for _, m := range c.missing() {
		b = append(b, `, "`...)
		b = append(b, m.key...)
		b = append(b, `": `...)
		b = strconv.AppendQuote(b, m.policy)
	}
	b = append(b, `, "profile": `...)
	if c.Profile == "" {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendQuote(b, c.Profile)
	}
	b = append(b, `, "score_precision": `...)
	if c.ScoreFloat32 {
		b = append(b, `"float32"`...)
	} else {
		b = append(b, `"float64"`...)
	}
	if c.Qrels != "" {
		b = append(b, `, "qrels": `...)
		b = AppendJSONString(b, []byte(c.Qrels))
		b = append(b, `, "complete": `...)
		b = strconv.AppendBool(b, c.Complete)
		b = append(b, `, "unjudged_queries": `...)
		if c.SkipUnjudged {
			b = append(b, `"ignored"`...)
		} else {
			b = append(b, `"evaluated"`...)
		}
	}
	for _, col := range []struct{ k, v string }{
		{"query_col", c.Columns.Query}, {"doc_col", c.Columns.Doc}, {"score_col", c.Columns.Score},
		{"label_col", c.Columns.Label}, {"rank_col", c.Columns.Rank},
	} {
		b = append(b, `, "`+col.k+`": `...)
		if col.v == "" {
			b = append(b, "null"...)
		} else {
			b = AppendJSONString(b, []byte(col.v))
		}
	}
	if c.IPS.On() {
		for _, col := range []struct{ k, v string }{
			{"propensity_col", c.IPS.PropensityCol}, {"position_col", c.IPS.PositionCol}, {"position_bias", c.IPS.PositionBias},
		} {
			b = append(b, `, "`+col.k+`": `...)
			if col.v == "" {
				b = append(b, "null"...)
			} else {
				b = AppendJSONString(b, []byte(col.v))
			}
		}
		b = append(b, `, "propensity_clip": `...)
		b = AppendJSONFloat(b, c.Options.PropClip)
	}
	if c.Teams.On() {
		b = append(b, `, "team_col": `...)
		b = AppendJSONString(b, []byte(c.Teams.Col))
		b = append(b, `, "teams": `...)
		b = appendStrings(b, []string{c.Teams.A, c.Teams.B})
	}
	if len(c.Slices) > 0 {
		b = append(b, `, "by": `...)
		b = appendStrings(b, c.Slices)
		b = append(b, `, "max_slices": `...)
		b = strconv.AppendInt(b, int64(c.MaxSlices), 10)
	}
	if len(c.Systems) > 1 {
		b = append(b, `, "systems": `...)
		b = appendStrings(b, c.Systems)
		if c.Missing != "" {
			b = append(b, `, "missing": `...)
			b = strconv.AppendQuote(b, c.Missing)
		}
		b = append(b, `, "pairs": `...)
		b = strconv.AppendQuote(b, c.PairsName())
		b = append(b, `, "test": `...)
		b = strconv.AppendQuote(b, c.Compare.Test.String())
		if c.Compare.Test != stats.TestT {
			b = append(b, `, "permutations": `...)
			b = strconv.AppendInt(b, int64(c.Compare.Permutations), 10)
			b = append(b, `, "seed": `...)
			b = strconv.AppendUint(b, c.Compare.Seed, 10)
		}
		b = append(b, `, "correction": `...)
		b = strconv.AppendQuote(b, c.Correction.String())
	}
	if c.Bootstrap > 0 {
		b = append(b, `, "bootstrap": `...)
		b = strconv.AppendInt(b, int64(c.Bootstrap), 10)
	}
	return append(b, '}')
}

// PairsName is --pairs as given: baseline or all.
func (c *Run) PairsName() string {
	if c.Compare.AllPairs {
		return "all"
	}
	return "baseline"
}

// TestNote says in words how the comparisons were tested, for the text
// table, the LaTeX and Markdown footnotes and the report.
func (c *Run) TestNote() string {
	var t string
	switch c.Compare.Test {
	case stats.TestRandom:
		t = fmt.Sprintf("paired randomization test, %d permutations (seed %d)", c.Compare.Permutations, c.Compare.Seed)
	case stats.TestTukey:
		t = fmt.Sprintf("randomized Tukey HSD, %d permutations (seed %d)", c.Compare.Permutations, c.Compare.Seed)
	default:
		t = "paired t-test"
	}
	switch c.Correction {
	case stats.CorrHolm:
		return t + "; p corrected by Holm's method over every comparison"
	case stats.CorrBH:
		return t + "; p corrected by Benjamini-Hochberg over every comparison"
	}
	return t + "; p not corrected"
}

// The version a release build (scripts/release) stamps with the linker's
// -X flag: the module version (a tag, or the pseudo-version go would
// stamp) and the commit, 12 hex digits, followed by ", modified" when the
// tree was. Release builds turn VCS stamping off so that a clone and an
// archive of one commit give the same bytes; both are empty in other builds.
var releaseVersion, releaseRevision string

// Version is the version of the rankeval module in this build, the same
// string for every command built from one commit (rankeval, and
// rankeval-beam, which depends on the module through a replace directive):
// the release's stamp, else what the go command recorded.
func Version() string {
	if releaseVersion != "" {
		if releaseRevision == "" {
			return releaseVersion
		}
		return releaseVersion + " (" + releaseRevision + ")"
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	return versionOf(bi)
}

// versionOf is Version for a given build: a released module version as the
// go command recorded it; else, when the build recorded its commit, a
// pseudo-version made from the commit's time and hash (what go stamps on
// the main module of an untagged checkout, but which a module reached
// through a replace directive does not get), else "(devel)"; then the
// commit, and whether the tree was modified.
func versionOf(bi *debug.BuildInfo) string {
	const path = "github.com/rankeval/rankeval"
	m := &bi.Main
	for _, d := range bi.Deps {
		if m.Path != path && d.Path == path {
			m = d
		}
	}
	v := m.Version
	if m.Replace != nil {
		v = m.Replace.Version
	}
	var rev, when string
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if !released(v) {
		v = "(devel)"
		if t, err := time.Parse(time.RFC3339, when); err == nil && rev != "" {
			v = "v0.0.0-" + t.UTC().Format("20060102150405") + "-" + rev
		}
	}
	if rev != "" {
		v += " (" + rev
		if modified {
			v += ", modified"
		}
		v += ")"
	}
	return v
}

// released reports whether v is a module version of a release: not empty,
// "(devel)", a pseudo-version (vX.Y.Z-[0.|pre.0.]yyyymmddhhmmss-hash) or
// a build of a modified tree (+dirty).
func released(v string) bool {
	if v == "" || v == "(devel)" || strings.HasSuffix(v, "+dirty") {
		return false
	}
	parts := strings.Split(v, "-")
	if len(parts) < 3 {
		return true
	}
	stamp := parts[len(parts)-2]
	if k := strings.LastIndexByte(stamp, '.'); k >= 0 {
		stamp = stamp[k+1:]
	}
	return len(stamp) != 14 || len(parts[len(parts)-1]) != 12
}

// appendProvenance appends the summary's "rankeval" member: the version
// that made it and the inputs it read.
func appendProvenance(b []byte, c *Run) []byte {
	b = append(b, ",\n  \"rankeval\": {\"version\": "...)
	b = AppendJSONString(b, []byte(c.Version))
	b = append(b, `, "inputs": `...)
	b = appendStrings(b, c.Inputs)
	return append(b, '}')
}

func appendStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, v := range ss {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = AppendJSONString(b, []byte(v))
	}
	return append(b, ']')
}

// FmtMean prints a gate's mean for a person.
func FmtMean(v float64) string {
	if math.IsNaN(v) {
		return "undefined (no queries)"
	}
	return strconv.FormatFloat(v, 'f', 4, 64)
}

// NoteConventions returns the note a TREC run (Qrels set) under no
// --profile adds to the summary's warnings, or "": which of the
// conventions in force (ties, gain, empty, rel-threshold) differ from
// trec_eval's, whose numbers such a user often compares with, and that
// --profile trec_eval reproduces them. A run whose conventions are all
// trec_eval's gets none, nor one whose every metric is named in
// ir_measures' syntax, which has its provider's conventions, not the
// run's.
func (c *Run) NoteConventions() string {
	if c.Qrels == "" || c.Profile != "" {
		return ""
	}
	if !slices.ContainsFunc(c.Metrics, func(m metrics.Metric) bool { return m.Conv.Peer == metrics.PeerNone }) {
		return ""
	}
	o := c.Options
	var d []string
	if o.Ties != metrics.TiesTrec {
		d = append(d, "--ties "+o.Ties.String()+" (trec_eval: trec)")
	}
	if o.Gain != metrics.GainLinear {
		d = append(d, "--gain "+o.Gain.String()+" (trec_eval: linear)")
	}
	if o.Empty != metrics.EmptyZero {
		d = append(d, "--empty "+o.Empty.String()+" (trec_eval: zero)")
	}
	switch {
	case !o.HasThreshold:
		d = append(d, "relevant when label > 0 (trec_eval: --rel-threshold 1)")
	case o.RelThreshold != 1:
		d = append(d, "--rel-threshold "+strconv.FormatFloat(o.RelThreshold, 'g', -1, 64)+" (trec_eval: 1)")
	}
	if len(d) == 0 {
		return ""
	}
	w := "conventions differ from trec_eval's: " + strings.Join(d, ", ") + "; --profile trec_eval reproduces its numbers"
	c.Warnings = append(c.Warnings, w)
	return w
}

// NoteLabels records what the run saw of its labels (binary: all 0 or 1;
// graded: some not) and returns the warning it adds to the summary, or "":
// ERR under the default maximum grade on 0/1 labels.
func (c *Run) NoteLabels(binary, graded bool) string {
	switch {
	case graded:
		c.Labels = "graded"
	case binary:
		c.Labels = "binary"
	}
	if c.Labels != "binary" {
		return ""
	}
	w := BinaryERRWarning(c.Options.MaxGrade)
	c.Warnings = append(c.Warnings, w)
	return w
}

// missingPolicy is a --missing-score or --missing-label policy in force.
type missingPolicy struct {
	key, policy string // JSON key (missing_score), policy (drop)
	what, did   string // "score", what the rows underwent
	rows        func(*aggregate.Set) int64
}

// missing lists the --missing-score and --missing-label policies other
// than error, which a summary shows with their counts of rows.
func (c *Run) missing() []missingPolicy {
	var ps []missingPolicy
	did := map[string]string{"drop": "dropped", "last": "ranked last", "zero": "counted as label 0"}
	if c.MissingScore != "" && c.MissingScore != "error" {
		ps = append(ps, missingPolicy{"missing_score", c.MissingScore, "score", did[c.MissingScore], func(s *aggregate.Set) int64 { return s.NoScore }})
	}
	if c.MissingLabel != "" && c.MissingLabel != "error" {
		ps = append(ps, missingPolicy{"missing_label", c.MissingLabel, "label", did[c.MissingLabel], func(s *aggregate.Set) int64 { return s.NoLabel }})
	}
	return ps
}

// flag is the policy's flag and value, as typed (--missing-score drop).
func (m missingPolicy) flag() string {
	return "--" + strings.ReplaceAll(m.key, "_", "-") + " " + m.policy
}

// line says what the policy did to n rows, as the text summary and the
// report say it.
func (m missingPolicy) line(n int64) string {
	return fmt.Sprintf("%d rows with no %s %s (%s)", n, m.what, m.did, m.flag())
}

// missingLines says, a line per policy in force, what it did to how many
// rows of each system of a (the text summary's footer, the tables' note).
func (c *Run) missingLines(a *aggregate.Analysis) []string {
	var out []string
	for _, m := range c.missing() {
		if len(a.Sys) == 1 {
			out = append(out, m.line(m.rows(a.Sys[0])))
			continue
		}
		counts := make([]string, len(a.Sys))
		for s := range a.Sys {
			counts[s] = fmt.Sprintf("%s %d", c.Systems[s], m.rows(a.Sys[s]))
		}
		out = append(out, fmt.Sprintf("rows with no %s %s (%s): %s", m.what, m.did, m.flag(), strings.Join(counts, ", ")))
	}
	return out
}

// appendMissing appends, after a comma each, a "missing_score" and a
// "missing_label" member {"policy", "rows"} for each policy in force, the
// rows those of set.
func appendMissing(b []byte, c *Run, set *aggregate.Set, sep string) []byte {
	for _, m := range c.missing() {
		b = append(b, ","+sep+`"`...)
		b = append(b, m.key...)
		b = append(b, `": {"policy": `...)
		b = strconv.AppendQuote(b, m.policy)
		b = append(b, `, "rows": `...)
		b = strconv.AppendInt(b, m.rows(set), 10)
		b = append(b, '}')
	}
	return b
}
