package config

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/internal/bytesize"
	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/pipeline"
	"github.com/rankeval/rankeval/reader"
	"github.com/rankeval/rankeval/stats"
	"github.com/rankeval/rankeval/summary"
)

// Settings are a Config's figures-deciding settings resolved.
type Settings struct {
	// Rules holds the metrics, conventions, score precision, duplicate
	// policy, largest query, and the score columns' names when several
	// are compared (Systems).
	Rules   pipeline.Rules
	Columns reader.Columns
	Profile string
	Format  string
	// InputFormat names the format of text inputs (FormatAuto: told from
	// each input's first line).
	InputFormat reader.Format
	// Spelled are the metrics' names as typed; TableNames the tables'
	// names (summary.Run).
	Spelled    []string
	TableNames map[string]string
	// Delimiter and DecimalComma are the CSV dialect (reader.Options).
	Delimiter    byte
	DecimalComma bool
	// Slices names the --by columns (also Rules.Slices and Columns.Extra);
	// MaxSlices and MaxSliceBytes are their limits; Bootstrap the number
	// of replicates.
	Slices        []string
	MaxSlices     int
	MaxSliceBytes int64
	Bootstrap     int
	// Compare is which pairs of systems are compared and by which test,
	// Correction how their p-values are adjusted together.
	Compare    aggregate.Compare
	Correction stats.Correction
	// Detect are the --detect requests.
	Detect []summary.Detect
	// IPS says where the IPS estimates' propensities come from (zero
	// without them); Rules.Propensity puts it in force.
	IPS summary.IPS
	// Teams names the team column of an interleaved list and its two
	// teams (zero without the interleave metric); Rules.Teams puts it in
	// force.
	Teams summary.Teams
}

// DefaultPermutations is --permutations under a randomization test when
// it is not given: ranx's default; a paper wants 10000.
const DefaultPermutations = 1000

// ParseCorrection reads a --correction value; "" is Holm, the default.
func ParseCorrection(v string) (stats.Correction, error) {
	if v == "" {
		return stats.CorrHolm, nil
	}
	c, err := stats.ParseCorrection(v)
	if err != nil {
		return 0, Usagef("--correction %w", err)
	}
	return c, nil
}

// CheckReadTimeout checks a --read-timeout value.
func CheckReadTimeout(d time.Duration) error {
	if d <= 0 {
		return Usagef("--read-timeout %v: want a duration > 0, such as 60s or 5m", d)
	}
	return nil
}

// Resolve checks v and returns the settings; it depends on v alone (not
// on its Sources, Gates, Run or Outputs: Prepare checks those; nor on its
// read timeout, which the readers take with their options).
func (v Config) Resolve() (*Settings, error) {
	s := &Settings{Columns: v.Columns, Profile: v.Profile, Format: v.Format}
	r := &s.Rules
	var err error
	if s.InputFormat, err = reader.ParseFormat(v.InputFormat); err != nil {
		return nil, Usagef("--input-format %w", err)
	}
	if s.Delimiter, s.DecimalComma, err = v.dialect(s.InputFormat); err != nil {
		return nil, err
	}
	if r.Metrics, err = metrics.ParseList(v.Metrics); err != nil {
		return nil, &SettingError{Setting: "metrics", Err: err}
	}
	s.Spelled = spelled(v.Metrics, r.Metrics)
	if s.TableNames, err = summary.ParseTableNames(v.TableNames); err != nil {
		return nil, Usagef("--table-names %w", err)
	}
	if s.Detect, err = summary.ParseDetect(v.Detect, r.Metrics); err != nil {
		return nil, Usagef("%w", err)
	}
	if v.Profile != "" {
		p, err := profileOf(v.Profile)
		if err != nil {
			return nil, err
		}
		if v.ProfileApplied != v.Profile {
			return nil, Usagef("--profile %s: its conventions are not set (Config.ApplyProfile sets them, as the flag does)", v.Profile)
		}
		r.ScoreFloat32 = p.scoreFloat32
	}
	o := metrics.DefaultOptions()
	o.IPrecRound = profiles[v.Profile].iprecRound
	if o.Ties, err = metrics.ParseTies(v.Ties); err != nil {
		return nil, Usagef("--ties %w", err)
	}
	if o.Gain, err = metrics.ParseGain(v.Gain); err != nil {
		return nil, Usagef("--gain %w", err)
	}
	if o.Empty, err = metrics.ParseEmpty(v.Empty); err != nil {
		return nil, Usagef("--empty %w", err)
	}
	// trec_eval evaluates a query with no relevant row by each measure's
	// formula (0 where R divides), and its ndcg counts the gains of the
	// judgments below -l: with --rel-threshold 2, "zero" gave such a
	// query's ndcg 0 where trec_eval gives its gains' ndcg
	if strings.HasPrefix(v.Profile, "trec_eval") && o.Empty == metrics.EmptyZero {
		o.NoEmpty = true
	}
	if !(v.MaxGrade > 0) || v.MaxGrade > 1000 {
		return nil, Usagef("--max-grade %v: want a number in (0, 1000]", v.MaxGrade)
	}
	o.MaxGrade = v.MaxGrade
	if v.RelThreshold != "" {
		t, err := strconv.ParseFloat(v.RelThreshold, 64)
		if err != nil || t != t {
			return nil, Usagef("--rel-threshold %q: want a number", v.RelThreshold)
		}
		// a threshold too small for a float64 reads as 0, which would make
		// label 0 relevant
		if mant, _, _ := strings.Cut(strings.ToLower(v.RelThreshold), "e"); t == 0 && strings.ContainsAny(mant, "123456789") {
			return nil, Usagef("--rel-threshold %q is below the smallest float64 and would read as 0 (label 0 relevant); leave it unset for label > 0", v.RelThreshold)
		}
		o.RelThreshold, o.HasThreshold = t, true
	}
	r.Options = o
	if err := metrics.CheckOptions(r.Metrics, o); err != nil {
		return nil, usage(err)
	}
	if err := CheckFormat(v.Format); err != nil {
		return nil, err
	}
	if v.MaxGroupRows < 1 {
		return nil, Usagef("--max-group-rows must be >= 1")
	}
	r.MaxGroupRows = v.MaxGroupRows
	if r.MaxGroupBytes, err = parseSizeOr(v.MaxGroupBytes, pipeline.DefaultMaxGroupBytes); err != nil || r.MaxGroupBytes < 1<<10 || r.MaxGroupBytes > pipeline.MaxGroupBytesCeiling {
		return nil, Usagef("--max-group-bytes %q: want a size from 1KiB to 1GiB, as 256MiB", v.MaxGroupBytes)
	}
	// ERR's maximum grade left at 4 on click labels (0/1) makes err@k tiny;
	// the run notes whether every label was 0 or 1, to say so
	r.NoteBinaryLabels = metrics.NeedsMaxGrade(r.Metrics) && !v.MaxGradeSet
	switch v.Dedup {
	case "error":
	case "first":
		r.DedupFirst = true
	default:
		return nil, Usagef("--dedup %q: want error or first", v.Dedup)
	}
	if r.MissingScore, err = pipeline.ParseMissing(orDefault(v.MissingScore), false); err != nil {
		return nil, usage(err)
	}
	if r.MissingLabel, err = pipeline.ParseMissing(orDefault(v.MissingLabel), true); err != nil {
		return nil, usage(err)
	}
	s.Columns.MissingScore = r.MissingScore != pipeline.MissingError
	s.Columns.MissingLabel = r.MissingLabel != pipeline.MissingError
	if r.MissingScore == pipeline.MissingLast && v.Columns.Rank != "" {
		return nil, Usagef("--missing-score last with --rank-col: the rank column orders the rows and the score is not read; a row without a rank is an error whatever --missing-score says: give it a rank after every other, or leave the row out")
	}
	// A run whose every metric compares two rankings (rank similarity)
	// under a tie order that reads no label reads no label column: a log
	// of scores alone will do. A --missing-label policy keeps it read.
	r.NoLabels = len(r.Metrics) > 0 && !slices.ContainsFunc(r.Metrics, func(m metrics.Metric) bool { return !m.Pair() }) &&
		(o.Ties == metrics.TiesInput || o.Ties == metrics.TiesTrec) && r.MissingLabel == pipeline.MissingError
	s.Columns.LabelUnread = r.NoLabels
	// Doc ids are read when present, to catch duplicates; only the trec tie
	// order (--ties trec, or a measure named in ir_measures' syntax) cannot
	// do without them.
	s.Columns.DocOptional = !metrics.NeedsDocs(r.Metrics, o)
	if v.By != "" {
		if s.Slices = SplitList(v.By); len(s.Slices) == 0 {
			return nil, Usagef("--by %q names no column", v.By)
		}
		r.Slices, s.Columns.Extra = s.Slices, s.Slices
	}
	if v.MaxSlices < 1 {
		return nil, Usagef("--max-slices must be >= 1")
	}
	s.MaxSlices = v.MaxSlices
	if s.MaxSliceBytes, err = parseSizeOr(v.MaxSliceBytes, pipeline.DefaultMaxSliceBytes); err != nil || s.MaxSliceBytes < 1<<10 {
		return nil, Usagef("--max-slice-bytes %q: want a size of at least 1KiB, as 64MiB", v.MaxSliceBytes)
	}
	if v.Bootstrap < 0 || v.Bootstrap > 100_000 {
		return nil, Usagef("--bootstrap %d: want 0 (none) to 100000 replicates", v.Bootstrap)
	}
	if v.Bootstrap > 0 && v.Bootstrap < stats.MinBootstrap {
		return nil, Usagef("--bootstrap %d: want 0 (none) or at least %d replicates: %w, or its ends are drawn from the extreme replicates and need not hold the mean; 1000 or more give a stable interval",
			v.Bootstrap, stats.MinBootstrap, stats.ErrFewReplicates)
	}
	s.Bootstrap = v.Bootstrap
	if err := v.resolveCompare(s); err != nil {
		return nil, err
	}
	if scores := SplitList(v.Columns.Score); len(scores) > 1 {
		if v.Columns.Rank != "" {
			return nil, Usagef("--rank-col orders every system the same way: compare score columns without it")
		}
		s.Columns.Score, s.Columns.ExtraScore = scores[0], scores[1:]
		r.Systems = scores
	}
	if err := v.Clicks.resolve(s); err != nil {
		return nil, err
	}
	if err := v.Teams.resolve(s); err != nil {
		return nil, err
	}
	if err := s.Columns.Check(); err != nil {
		return nil, usage(err)
	}
	if err := s.CheckSystems(); err != nil {
		return nil, err
	}
	return s, nil
}

// resolveCompare reads the comparison flags into s.
func (v *Config) resolveCompare(s *Settings) error {
	c := &s.Compare
	switch v.Pairs {
	case "baseline", "": // "": the default
	case "all":
		c.AllPairs = true
	default:
		return Usagef("--pairs %q: want baseline or all", v.Pairs)
	}
	var err error
	switch {
	case v.Test == "" && v.Permutations != 0:
		c.Test = stats.TestRandom
	case v.Test == "":
	default:
		if c.Test, err = stats.ParseTest(v.Test); err != nil {
			return Usagef("--test %w", err)
		}
	}
	if c.Test == stats.TestT {
		if v.Permutations != 0 || v.Seed != 0 {
			return Usagef("--permutations and --seed are for --test randomization or tukey; the t-test draws nothing")
		}
	} else {
		c.Permutations, c.Seed = v.Permutations, v.Seed
		if c.Permutations == 0 {
			c.Permutations = DefaultPermutations
		}
		if c.Permutations < 1 || c.Permutations > 100_000 {
			return Usagef("--permutations %d: want 1 to 100000 replicates", v.Permutations)
		}
	}
	if s.Correction, err = ParseCorrection(v.Correction); err != nil {
		return err
	}
	return nil
}

// CheckSystems refuses what the systems compared (known once --system
// logs are added, which a command then checks again) have no place for:
// --format trec with slices, comparisons or bootstrap intervals, a
// comparison flag without two systems to compare.
func (s *Settings) CheckSystems() error {
	run := s.Summary()
	return CheckTrecFormat(s.Format, &run)
}

// CheckTrecFormat refuses --format trec for a run with what its layout
// has no place for.
func CheckTrecFormat(format string, run *summary.Run) error {
	if format != "trec" {
		return nil
	}
	if len(run.Slices) > 0 || len(run.Systems) > 1 || run.Bootstrap > 0 {
		return Usagef("--format trec has no place for slices, comparisons or bootstrap intervals; use json or text")
	}
	// trec_eval's names cannot tell a measure named in ir_measures' syntax
	// from rankeval's of the same family (P(rel=2)@5 and P@5 are both P_5)
	seen := map[string]string{}
	for _, m := range run.Metrics {
		n := metrics.TrecName(m)
		if o, ok := seen[n]; ok {
			return Usagef("--format trec would print %s and %s both as %s; use json or text, or drop one", o, m.Name, n)
		}
		seen[n] = m.Name
	}
	return nil
}

// CheckCompare refuses a comparison flag when there is one system, and
// replicates whose sums would not fit in memory: called once every source
// of systems is known.
func (s *Settings) CheckCompare() error {
	S := len(s.Rules.Systems)
	if S < 2 && (s.Compare != aggregate.Compare{}) {
		return Usagef("--pairs all, --test, --permutations and --seed compare systems: give several --score-col or --system")
	}
	if err := CheckDetect(s.Detect, s.Rules.Metrics, S, s.Compare.AllPairs, s.Format); err != nil {
		return err
	}
	if S < 2 {
		for _, m := range s.Rules.Metrics {
			if m.Pair() {
				return Usagef("metric %s compares a candidate's ranking with the baseline's: give several --score-col, --system logs or TREC runs", m.Name)
			}
		}
	}
	l := aggregate.Layout{Metrics: len(s.Rules.Metrics), Systems: max(S, 1), Bootstrap: s.Bootstrap, Compare: s.Compare}
	l.Core = make([]aggregate.Range, l.Metrics)
	if b := l.ReplicateBytes(); b > MaxReplicateBytes {
		return Usagef("--bootstrap %d and --permutations %d over %d systems (%d pairs) and %d metrics would hold %.1fGiB of replicate sums per worker, more than %s: fewer replicates, metrics or pairs",
			s.Bootstrap, s.Compare.Permutations, l.Systems, len(l.Pairs()), l.Metrics, float64(b)/(1<<30), bytesize.Format(MaxReplicateBytes))
	}
	return nil
}

// CheckDetect refuses --detect requests ds (on metrics ms) that no
// comparison of a run or merge of the given number of systems answers:
// any without two systems, and a rank similarity's unless allPairs
// compares two candidates, as its comparisons with the baseline have no
// difference (the baseline's own value is undefined).
func CheckDetect(ds []summary.Detect, ms []metrics.Metric, systems int, allPairs bool, format string) error {
	if len(ds) == 0 {
		return nil
	}
	if systems < 2 {
		return Usagef("--detect answers for a comparison of systems: give several --score-col or --system")
	}
	if format == "markdown" || format == "latex" {
		return Usagef("--detect: --format %s prints a table of means, with no place for its answers: use text or json", format)
	}
	for _, d := range ds {
		if m := ms[d.Metric]; m.Geometric() {
			return Usagef("--detect: %s compares the mean logarithm of ap, not the geometric means it prints: a difference there is a ratio; plan with map", m.Name)
		}
	}
	if allPairs && systems >= 3 {
		return nil
	}
	for _, d := range ds {
		if m := ms[d.Metric]; m.Pair() {
			return Usagef("--detect: %s is a rank similarity to the baseline: its comparisons with the baseline have no difference to detect (--pairs all over three or more systems compares two candidates' similarities)", m.Name)
		}
	}
	return nil
}

// MaxReplicateBytes bounds the replicate sums of the bootstrap and the
// randomization tests that one worker holds.
const MaxReplicateBytes = 1 << 30

// Summary is what a summary of these settings explains; the caller adds
// what its command knows besides (TREC input, slices, systems, gates).
func (s *Settings) Summary() summary.Run {
	return summary.Run{Metrics: s.Rules.Metrics, Options: s.Rules.Options, Columns: s.Columns, Profile: s.Profile,
		ScoreFloat32: s.Rules.ScoreFloat32, DedupFirst: s.Rules.DedupFirst, MissingScore: s.Rules.MissingScore.String(), MissingLabel: s.Rules.MissingLabel.String(), SkipUnjudged: s.SkipUnjudged(), Systems: s.Rules.Systems,
		Slices: s.Slices, MaxSlices: s.MaxSlices, Bootstrap: s.Bootstrap, Compare: s.Compare, Correction: s.Correction, IPS: s.IPS,
		Teams: s.Teams, Spelled: s.Spelled, TableNames: s.TableNames, Detect: s.Detect}
}

// spelled returns each metric's name as list spells it, "" where no name
// of the list is it but for case (P.5,10's second metric).
func spelled(list string, ms []metrics.Metric) []string {
	out := make([]string, len(ms))
	typed := strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' })
	for i, m := range ms {
		for _, t := range typed {
			if strings.EqualFold(t, m.Name) {
				out[i] = t
				break
			}
		}
	}
	return out
}

// CheckFormat checks a --format value.
func CheckFormat(f string) error {
	if !slices.Contains(Formats, f) {
		return Usagef("--format %q: want text, json, trec, latex or markdown", f)
	}
	return nil
}

// Formats are the summary's formats.
var Formats = []string{"text", "json", "trec", "latex", "markdown"}

// SplitList splits a comma-separated flag value, dropping blanks.
func SplitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// orDefault is a policy flag's value, "error" when it is "" (a Config
// made before the flag existed).
func orDefault(v string) string {
	if v == "" {
		return "error"
	}
	return v
}

// parseSizeOr reads a size flag's value, def when it is "".
func parseSizeOr(v string, def int64) (int64, error) {
	if v == "" {
		return def, nil
	}
	return bytesize.Parse(v)
}
