// Package evalflags registers and checks the flags every rankeval command
// shares (rankeval and rankeval-beam): the metrics, the conventions, the
// columns, peer profiles, repeated documents, the largest query and the
// summary format; the IPS estimates' propensities (clicks.go); the teams
// of an interleaved list (interleave.go); and what a
// run reads besides its INPUT files (--system logs, TREC --qrels and the
// notes on what their join left out: sources.go). Each flag, its default,
// its help and its messages exist here once.
package evalflags

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/internal/bytesize"
	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/objstore"
	"github.com/rankeval/rankeval/pipeline"
	"github.com/rankeval/rankeval/reader"
	"github.com/rankeval/rankeval/summary"
)

// ErrUsage is wrapped by every error that a corrected command line fixes.
var ErrUsage = errors.New("usage error")

type usageErr struct{ error }

func (u usageErr) Is(target error) bool { return target == ErrUsage }
func (u usageErr) Unwrap() error        { return u.error }

// Usagef makes a usage error (ErrUsage) with the message as given.
func Usagef(format string, a ...any) error { return usageErr{fmt.Errorf(format, a...)} }

// DefaultMetrics are the metrics computed when -m is not given.
const DefaultMetrics = "map,mrr,ndcg@10,err@10,p@10,r@10"

// Values are the shared flags as given. They are plain data, so a
// distributed runner ships them to its workers and resolves them there
// with Resolve, exactly as the launcher did.
type Values struct {
	Metrics      string
	Ties         string
	Gain         string
	MaxGrade     float64
	RelThreshold string
	Empty        string
	Profile      string
	Dedup        string
	Format       string
	InputFormat  string
	// ReadTimeout bounds how long a read from object storage may receive
	// nothing (--read-timeout).
	ReadTimeout  time.Duration
	Columns      reader.Columns
	MaxGroupRows int
	// MaxGroupBytes and MaxSliceBytes are sizes as typed (256MiB),
	// read by Resolve; "" is the default (a state's header records
	// neither: they bound memory, not the figures).
	MaxGroupBytes string
	By            string
	MaxSlices     int
	MaxSliceBytes string
	Bootstrap     int
	// Pairs, Test, Permutations, Seed and Correction are how systems are
	// compared (--pairs, --test, ...), as typed.
	Pairs        string
	Test         string
	Permutations int
	Seed         uint64
	Correction   string
	// MaxGradeSet: --max-grade was given (by hand or by a profile), so a
	// run on 0/1 labels with ERR need not be warned.
	MaxGradeSet bool
	// Clicks are the IPS estimates' flags (clicks.go).
	Clicks ClickValues
	// Teams are the interleaving outcome's flags (interleave.go).
	Teams TeamValues
}

// Settings are the shared flags resolved.
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
	Correction aggregate.Correction
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

// Names lists the flags Register defines, for a command's help.
var Names = slices.Concat([]string{"metrics", "m", "ties", "gain", "max-grade", "rel-threshold", "empty", "profile", "dedup",
	"format", "input-format", ReadTimeoutName}, ColumnNames, []string{"max-group-rows", "max-group-bytes", "by", "max-slices", "max-slice-bytes", "bootstrap",
	"pairs", "test", "permutations", "seed", "correction"}, ClickNames, TeamNames)

// profile sets every convention a peer tool uses at once (SPEC §6); a flag
// given explicitly overrides its profile's value.
type profile struct {
	flags        map[string]string
	scoreFloat32 bool // trec_eval 9.0.8 stores scores as 32-bit floats (10.0 as doubles)
	iprecRound   bool // trec_eval 10.0 rounds x·R for iprec@x
	atolLabels   bool // trec_eval reads a qrels label with atol ("2.5" is 2)
}

var trecEvalFlags = map[string]string{"ties": "trec", "gain": "linear", "empty": "zero", "rel-threshold": "1"}

// profiles: trec_eval is its newest release, 10.0; trec_eval:RELEASE names
// one (TrecReleases).
var profiles = map[string]profile{
	"trec_eval":       {flags: trecEvalFlags, iprecRound: true, atolLabels: true},
	"trec_eval:10.0":  {flags: trecEvalFlags, iprecRound: true, atolLabels: true},
	"trec_eval:9.0.8": {flags: trecEvalFlags, scoreFloat32: true, atolLabels: true},
	"gdeval":          {flags: map[string]string{"ties": "trec", "gain": "exp", "empty": "skip", "max-grade": "4"}},
}

// TrecReleases are the releases of trec_eval rankeval reproduces, the
// default (newest) first; they differ in iprec@x's rounding (SPEC §7).
var TrecReleases = []string{"10.0", "9.0.8"}

func profileOf(name string) (profile, error) {
	p, ok := profiles[name]
	if !ok {
		return profile{}, Usagef("--profile %q: want trec_eval, trec_eval:10.0, trec_eval:9.0.8 or gdeval", name)
	}
	return p, nil
}

// SkipUnjudged says whether a TREC run's queries without judgments are
// left out, as the peer tools of the profiles do.
func (s *Settings) SkipUnjudged() bool { return s.Profile != "" }

// metricList is the value of --metrics and -m: the first list given
// replaces the default, and every later one adds to it, as trec_eval's
// repeated -m do (a habit that must not drop a metric silently).
type metricList struct {
	s   *string
	set bool
}

func (l *metricList) String() string {
	if l == nil || l.s == nil {
		return ""
	}
	return *l.s
}

func (l *metricList) Set(v string) error {
	if l.set {
		*l.s += "," + v
	} else {
		*l.s, l.set = v, true
	}
	return nil
}

// Register defines the shared flags on fs.
func Register(fs *flag.FlagSet) *Values {
	v := &Values{}
	v.Metrics = DefaultMetrics
	ml := &metricList{s: &v.Metrics}
	fs.Var(ml, "metrics", "comma-separated metrics to compute (see above); may be repeated, the lists add up,\nand trec_eval's form name.k1,k2 (P.5,10) gives one metric per cutoff")
	fs.Var(ml, "m", "shorthand for --metrics")
	fs.StringVar(&v.Ties, "ties", "input", "order of rows with equal scores: input (as they appear), trec (doc id descending,\nas trec_eval), optimistic (higher label first), pessimistic (lower label first),\naverage (exact expected value over every order of the tied rows)")
	fs.StringVar(&v.Gain, "gain", "exp", "DCG gain of a label y: exp (2^y - 1) or linear (y)")
	fs.Float64Var(&v.MaxGrade, "max-grade", 4, "maximum grade G of ERR, whose stop probability is (2^y - 1)/2^G;\na label above it is an input error when err or nerr is asked for")
	fs.StringVar(&v.RelThreshold, "rel-threshold", "", "a row is relevant when its label >= this threshold (trec_eval's -l);\nwhen unset, relevant means label > 0")
	fs.StringVar(&v.Empty, "empty", "skip", "queries with no relevant row: skip (left out of every mean and counted as\nempty), zero (count as 0), one (count as 1), error (fail the run)")
	fs.StringVar(&v.Profile, "profile", "", "reproduce a peer tool: trec_eval (ties trec, gain linear, empty zero,\nrel-threshold 1, qrels labels read as C's atol reads them (2.5 is 2, 1e2 is 1),\nrun queries without judgments ignored; its release 10.0:\ntrec_eval:9.0.8 picks 9.0.8, which keeps scores as 32-bit floats, so that\nscores differing beyond float32 precision tie, and whose iprec@x truncates\nx·R + 0.9 where 10.0 rounds x·R) or\ngdeval (ties trec, gain exp, max-grade 4, empty skip, run queries without\njudgments ignored); flags given explicitly override it")
	fs.StringVar(&v.Dedup, "dedup", "error", "a doc id repeated within a query: error (stop, naming both rows) or first\n(keep the first row, drop the others and report how many)")
	RegisterFormat(fs, &v.Format)
	fs.StringVar(&v.InputFormat, "input-format", "auto", "format of text inputs: auto (told from the first line: '{' starts JSON lines,\na header with commas CSV, with tabs TSV), jsonl, csv or tsv, for a first line\nthat cannot tell; Parquet and Arrow are known by their first bytes")
	RegisterReadTimeout(fs, &v.ReadTimeout)
	RegisterColumns(fs, &v.Columns)
	fs.StringVar(&v.By, "by", "", "comma-separated columns to slice by: each distinct combination of their values\n(on a query's first row; its rows must agree) is evaluated besides the overall")
	fs.IntVar(&v.MaxSlices, "max-slices", pipeline.DefaultMaxSlices, "more distinct --by combinations than this fail the run")
	fs.StringVar(&v.MaxSliceBytes, "max-slice-bytes", bytesize.Format(pipeline.DefaultMaxSliceBytes), "the values of the distinct --by combinations, held for the summary, may take\nthis many bytes together; more fail the run")
	fs.IntVar(&v.Bootstrap, "bootstrap", 0, "Poisson-bootstrap replicates (at least 40, e.g. 1000) for percentile 95% intervals\nof every overall mean and difference; each query's weights come from a hash of its id")
	fs.StringVar(&v.Pairs, "pairs", "baseline", "systems compared: baseline (each with the first) or all (every pair)")
	fs.StringVar(&v.Test, "test", "", "significance test of every comparison: t (paired t-test; the default),\nrandomization (Fisher's paired randomization test; the default with --permutations)\nor tukey (randomized Tukey HSD over all the systems); the randomization tests draw\neach query's signs or shuffle from a hash of its id, --seed and the replicate, so\ntheir p-values are the same on every path and after rankeval merge")
	fs.IntVar(&v.Permutations, "permutations", 0, fmt.Sprintf("replicates of --test randomization or tukey (%d when not given; 10000 for a\npaper); giving it picks --test randomization", DefaultPermutations))
	fs.Uint64Var(&v.Seed, "seed", 0, "seed of the randomization tests' draws")
	RegisterCorrection(fs, &v.Correction, "holm")
	RegisterClicks(fs, &v.Clicks)
	RegisterTeams(fs, &v.Teams)
	fs.IntVar(&v.MaxGroupRows, "max-group-rows", pipeline.DefaultMaxGroupRows, "a query with more rows than this is an error rather than an out-of-memory")
	fs.StringVar(&v.MaxGroupBytes, "max-group-bytes", bytesize.Format(pipeline.DefaultMaxGroupBytes), "a query holding more bytes than this is an error rather than an out-of-memory:\nits ids' and values' bytes and some 100 bytes a row for its evaluation\n(at most 1GiB; under --unsorted at most an eighth of --mem-limit)")
	return v
}

// RegisterFormat defines --format on fs, storing into f: Register calls
// it, and so does rankeval merge.
func RegisterFormat(fs *flag.FlagSet, f *string) {
	fs.StringVar(f, "format", "text", "summary format: text (a table), json (one object, for scripts), trec\n(trec_eval's layout: measure, query, value; per-query blocks with --per-query -),\nlatex or markdown (the table of a paper or a pull request: systems as rows, metrics\nas columns, the best in bold, significance against the baseline marked)")
}

// RegisterQuiet defines --quiet on fs, storing into q: rankeval's run
// shows no progress with it, and rankeval merge, which shows none, takes
// it too, so that a script passes both commands the same flags.
func RegisterQuiet(fs *flag.FlagSet, q *bool) {
	fs.BoolVar(q, "quiet", false, "no progress on stderr")
}

// CorrectionName is the flag RegisterCorrection defines.
const CorrectionName = "correction"

// RegisterCorrection defines --correction on fs, storing into c, with the
// default def. Register calls it (def "holm"); so does rankeval merge (def
// "": the states' own), since a correction applies when a summary is
// printed, not to the sums a state holds.
func RegisterCorrection(fs *flag.FlagSet, c *string, def string) {
	fs.StringVar(c, CorrectionName, def, "adjustment of the p-values of the comparisons a run makes together (every pair\nand metric; each slice's apart): holm (family-wise error), bh (Benjamini-Hochberg,\nfalse discovery rate) or none")
}

// ParseCorrection reads a --correction value; "" is Holm, the default.
func ParseCorrection(v string) (aggregate.Correction, error) {
	if v == "" {
		return aggregate.CorrHolm, nil
	}
	c, err := aggregate.ParseCorrection(v)
	if err != nil {
		return 0, Usagef("--%s %w", CorrectionName, err)
	}
	return c, nil
}

// ReadTimeoutName is the flag RegisterReadTimeout defines.
const ReadTimeoutName = "read-timeout"

// RegisterReadTimeout defines --read-timeout on fs, storing into d. Register
// calls it; so does a command that reads objects without the shared flags
// (rankeval merge). ApplyReadTimeout puts it in force.
func RegisterReadTimeout(fs *flag.FlagSet, d *time.Duration) {
	fs.DurationVar(d, ReadTimeoutName, objstore.DefaultReadTimeout, "an s3:// or gs:// request that receives no byte for this long fails, naming\nthe object (a stalled connection would otherwise hang the run)")
}

// ApplyReadTimeout checks a --read-timeout value and sets it for every
// object-store request the process makes.
func ApplyReadTimeout(d time.Duration) error {
	if d <= 0 {
		return Usagef("--%s %v: want a duration > 0, such as 60s or 5m", ReadTimeoutName, d)
	}
	objstore.SetReadTimeout(d)
	return nil
}

// ColumnNames lists the flags RegisterColumns defines.
var ColumnNames = []string{"query-col", "doc-col", "score-col", "label-col", "rank-col"}

// RegisterColumns defines the column flags on fs, storing into c: the
// names of the query, doc, score, label and rank fields, with rankeval's
// defaults. Register calls it; a tool that reads logs as rankeval does
// without evaluating them (scripts/gen -from) calls it alone, and then
// FinishColumns.
func RegisterColumns(fs *flag.FlagSet, c *reader.Columns) {
	fs.StringVar(&c.Query, "query-col", "query_id", "field holding the query id (a string or an integer)")
	fs.StringVar(&c.Doc, "doc-col", "doc_id", "field holding the document id: used by --ties trec (which requires it) and to\ncatch a document listed twice in a query (--dedup); rows may lack it otherwise")
	fs.StringVar(&c.Score, "score-col", "score", "field holding the model's score (higher ranks first); several, comma-separated,\ncompare the models of those columns, the first the baseline")
	fs.StringVar(&c.Label, "label-col", "label", "field holding the relevance label (a number >= 0, or a boolean)")
	fs.StringVar(&c.Rank, "rank-col", "", "field holding a rank (1 = top); when set, rows are ordered by it\nascending and the score column is not needed")
}

// FinishColumns completes c after fs has parsed the command line: a rank
// column without an explicit score column needs no score, so none is read.
func FinishColumns(fs *flag.FlagSet, c *reader.Columns) {
	scoreSet := false
	fs.Visit(func(f *flag.Flag) { scoreSet = scoreSet || f.Name == "score-col" })
	if c.Rank != "" && !scoreSet {
		c.Score = "" // ordered by rank: a score is neither needed nor required
	}
}

// Finish completes v after fs has parsed the command line: a profile sets
// the flags not given explicitly, and a rank column without an explicit
// score column needs no score. Then it resolves v.
func (v *Values) Finish(fs *flag.FlagSet) (*Settings, error) {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if v.Profile != "" {
		p, err := profileOf(v.Profile)
		if err != nil {
			return nil, err
		}
		for name, val := range p.flags {
			if !set[name] {
				if err := fs.Set(name, val); err != nil {
					return nil, err
				}
			}
		}
	}
	v.MaxGradeSet = set["max-grade"] || profiles[v.Profile].flags["max-grade"] != ""
	if set["permutations"] && v.Permutations == 0 { // 0 is "not given" in Values
		return nil, Usagef("--permutations 0: want 1 to 100000 replicates")
	}
	if set["propensity-clip"] && v.Clicks.PropensityClip == 0 { // likewise
		return nil, Usagef("--propensity-clip 0: want a number from %g to 1", MinPropensityClip)
	}
	FinishColumns(fs, &v.Columns)
	if err := ApplyReadTimeout(v.ReadTimeout); err != nil {
		return nil, err
	}
	if err := v.Clicks.finish(); err != nil {
		return nil, err
	}
	return v.Resolve()
}

// Resolve checks v and returns the settings; it depends on v alone. A
// read timeout in v (Finish has checked the flag's) is put in force for
// the process, so that a distributed run's workers, which resolve the
// launcher's Values, read objects under it; 0 leaves it as it is (a
// state's header, which records none).
func (v *Values) Resolve() (*Settings, error) {
	s := &Settings{Columns: v.Columns, Profile: v.Profile, Format: v.Format}
	r := &s.Rules
	var err error
	if v.ReadTimeout > 0 {
		objstore.SetReadTimeout(v.ReadTimeout)
	}
	if s.InputFormat, err = reader.ParseFormat(v.InputFormat); err != nil {
		return nil, Usagef("--input-format %w", err)
	}
	if r.Metrics, err = metrics.ParseList(v.Metrics); err != nil {
		return nil, usageErr{err}
	}
	if v.Profile != "" {
		p, err := profileOf(v.Profile)
		if err != nil {
			return nil, err
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
		return nil, usageErr{err}
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
	// Doc ids are read when present, to catch duplicates; only the trec tie
	// order cannot do without them.
	s.Columns.DocOptional = o.Ties != metrics.TiesTrec
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
	if v.Bootstrap > 0 && v.Bootstrap < aggregate.MinBootstrap {
		return nil, Usagef("--bootstrap %d: want 0 (none) or at least %d replicates: %w, or its ends are drawn from the extreme replicates and need not hold the mean; 1000 or more give a stable interval",
			v.Bootstrap, aggregate.MinBootstrap, aggregate.ErrFewReplicates)
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
		return nil, usageErr{err}
	}
	if err := s.CheckSystems(); err != nil {
		return nil, err
	}
	return s, nil
}

// resolveCompare reads the comparison flags into s.
func (v *Values) resolveCompare(s *Settings) error {
	c := &s.Compare
	switch v.Pairs {
	case "baseline", "": // "": Values made without the flags
	case "all":
		c.AllPairs = true
	default:
		return Usagef("--pairs %q: want baseline or all", v.Pairs)
	}
	var err error
	switch {
	case v.Test == "" && v.Permutations != 0:
		c.Test = aggregate.TestRandom
	case v.Test == "":
	default:
		if c.Test, err = aggregate.ParseTest(v.Test); err != nil {
			return Usagef("--test %w", err)
		}
	}
	if c.Test == aggregate.TestT {
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
	if format == "trec" && (len(run.Slices) > 0 || len(run.Systems) > 1 || run.Bootstrap > 0) {
		return Usagef("--format trec has no place for slices, comparisons or bootstrap intervals; use json or text")
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
	l := aggregate.Layout{Metrics: len(s.Rules.Metrics), Systems: max(S, 1), Bootstrap: s.Bootstrap, Compare: s.Compare}
	l.Core = make([]aggregate.Range, l.Metrics)
	if b := l.ReplicateBytes(); b > MaxReplicateBytes {
		return Usagef("--bootstrap %d and --permutations %d over %d systems (%d pairs) and %d metrics would hold %.1fGiB of replicate sums per worker, more than %s: fewer replicates, metrics or pairs",
			s.Bootstrap, s.Compare.Permutations, l.Systems, len(l.Pairs()), l.Metrics, float64(b)/(1<<30), bytesize.Format(MaxReplicateBytes))
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
		ScoreFloat32: s.Rules.ScoreFloat32, DedupFirst: s.Rules.DedupFirst, SkipUnjudged: s.SkipUnjudged(), Systems: s.Rules.Systems,
		Slices: s.Slices, MaxSlices: s.MaxSlices, Bootstrap: s.Bootstrap, Compare: s.Compare, Correction: s.Correction, IPS: s.IPS,
		Teams: s.Teams}
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

// parseSizeOr reads a size flag's value, def when it is "".
func parseSizeOr(v string, def int64) (int64, error) {
	if v == "" {
		return def, nil
	}
	return bytesize.Parse(v)
}
