// Package evalflags maps command-line flags to a config.Config: each flag
// of rankeval, rankeval merge and rankeval-beam is defined here once, with
// its help, writing into the Config setting of the same name; the
// defaults are config.Default's. Checking and resolving the settings is
// config's work, not this package's: a flag layer that holds no rule.
package evalflags

import (
	"flag"
	"fmt"
	"slices"
	"time"

	"github.com/rankeval/rankeval/config"
	"github.com/rankeval/rankeval/internal/bytesize"
	"github.com/rankeval/rankeval/pipeline"
	"github.com/rankeval/rankeval/reader"
)

// Flags are the flags registered on one FlagSet: Finish completes the
// Config they write into once the command line is parsed.
type Flags struct {
	fs       *flag.FlagSet
	c        *config.Config
	memLimit *string // --mem-limit as typed, when registered
}

// Names lists the flags Register defines, for a command's help.
var Names = slices.Concat([]string{"metrics", "m", "ties", "gain", "max-grade", "rel-threshold", "empty", "profile", "dedup",
	"format", "table-names", "input-format", "delimiter", "decimal-comma", "read-timeout"}, ColumnNames, []string{"max-group-rows", "max-group-bytes", "by", "max-slices", "max-slice-bytes", "bootstrap",
	"pairs", "test", "permutations", "seed", "correction", "detect"}, ClickNames, TeamNames)

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

// Register defines on fs the flags of what a run computes (metrics,
// conventions, columns, profile, slices, comparisons, clicks, teams,
// format), writing into c, whose values are their defaults.
func Register(fs *flag.FlagSet, c *config.Config) *Flags {
	ml := &metricList{s: &c.Metrics}
	fs.Var(ml, "metrics", "comma-separated metrics to compute (see above); may be repeated, the lists add up,\nand trec_eval's form name.k1,k2 (P.5,10) gives one metric per cutoff")
	fs.Var(ml, "m", "shorthand for --metrics")
	fs.StringVar(&c.Ties, "ties", c.Ties, "order of rows with equal scores: input (as they appear), trec (doc id descending,\nas trec_eval), optimistic (higher label first), pessimistic (lower label first),\naverage (exact expected value over every order of the tied rows)")
	fs.StringVar(&c.Gain, "gain", c.Gain, "DCG gain of a label y: exp (2^y - 1) or linear (y)")
	fs.Float64Var(&c.MaxGrade, "max-grade", c.MaxGrade, "maximum grade G of ERR, whose stop probability is (2^y - 1)/2^G;\na label above it is an input error when err or nerr is asked for")
	fs.StringVar(&c.RelThreshold, "rel-threshold", c.RelThreshold, "a row is relevant when its label >= this threshold (trec_eval's -l);\nwhen unset, relevant means label > 0")
	fs.StringVar(&c.Empty, "empty", c.Empty, "queries with no relevant row: skip (left out of every mean and counted as\nempty), zero (count as 0), one (count as 1), error (fail the run)")
	fs.StringVar(&c.Profile, "profile", c.Profile, "reproduce a peer tool: trec_eval (ties trec, gain linear, empty zero,\nrel-threshold 1, qrels labels read as C's atol reads them (2.5 is 2, 1e2 is 1),\nrun queries without judgments ignored; its release 10.0:\ntrec_eval:9.0.8 picks 9.0.8, which keeps scores as 32-bit floats, so that\nscores differing beyond float32 precision tie, and whose iprec@x truncates\nx·R + 0.9 where 10.0 rounds x·R) or\ngdeval (ties trec, gain exp, max-grade 4, empty skip, run queries without\njudgments ignored); flags given explicitly override it")
	fs.StringVar(&c.Dedup, "dedup", c.Dedup, "a doc id repeated within a query: error (stop, naming both rows) or first\n(keep the first row, drop the others and report how many)")
	fs.StringVar(&c.MissingScore, "missing-score", c.MissingScore, "a row with no score (a JSON null, an empty CSV/TSV field, a Parquet or Arrow\nnull, a NaN): error (stop, naming the row), drop (leave it out of its query,\nso recall's and MAP's denominators count only the rows kept) or last (rank it\nafter every scored row); dropped or last rows are counted per system in the summary")
	fs.StringVar(&c.MissingLabel, "missing-label", c.MissingLabel, "a row with no label (as for --missing-score): error, drop (leave it out of\nits query) or zero (count it as not relevant, label 0); counted in the summary")
	RegisterFormat(fs, &c.Format)
	RegisterTableNames(fs, &c.TableNames)
	RegisterInputFormat(fs, c)
	RegisterReadTimeout(fs, &c.ReadTimeout)
	RegisterColumns(fs, &c.Columns)
	fs.StringVar(&c.By, "by", c.By, "comma-separated columns to slice by: each distinct combination of their values\n(on a query's first row; its rows must agree) is evaluated besides the overall")
	fs.IntVar(&c.MaxSlices, "max-slices", c.MaxSlices, "more distinct --by combinations than this fail the run")
	fs.StringVar(&c.MaxSliceBytes, "max-slice-bytes", bytesize.Format(pipeline.DefaultMaxSliceBytes), "the values of the distinct --by combinations, held for the summary, may take\nthis many bytes together; more fail the run")
	fs.IntVar(&c.Bootstrap, "bootstrap", c.Bootstrap, "Poisson-bootstrap replicates (at least 40, e.g. 1000) for percentile 95% intervals\nof every overall mean and difference; each query's weights come from a hash of its id")
	fs.StringVar(&c.Pairs, "pairs", c.Pairs, "systems compared: baseline (each with the first) or all (every pair)")
	fs.StringVar(&c.Test, "test", c.Test, "significance test of every comparison: t (paired t-test; the default),\nrandomization (Fisher's paired randomization test; the default with --permutations)\nor tukey (randomized Tukey HSD over all the systems); the randomization tests draw\neach query's signs or shuffle from a hash of its id, --seed and the replicate, so\ntheir p-values are the same on every path and after rankeval merge")
	fs.IntVar(&c.Permutations, "permutations", c.Permutations, fmt.Sprintf("replicates of --test randomization or tukey (%d when not given; 10000 for a\npaper); giving it picks --test randomization", config.DefaultPermutations))
	fs.Uint64Var(&c.Seed, "seed", c.Seed, "seed of the randomization tests' draws")
	RegisterCorrection(fs, &c.Correction, c.Correction)
	RegisterDetect(fs, &c.Detect)
	RegisterClicks(fs, &c.Clicks)
	RegisterTeams(fs, &c.Teams)
	fs.IntVar(&c.MaxGroupRows, "max-group-rows", c.MaxGroupRows, "a query with more rows than this is an error rather than an out-of-memory")
	fs.StringVar(&c.MaxGroupBytes, "max-group-bytes", bytesize.Format(pipeline.DefaultMaxGroupBytes), "a query holding more bytes than this is an error rather than an out-of-memory:\nits ids' and values' bytes and some 100 bytes a row for its evaluation\n(at most 1GiB; under --unsorted at most an eighth of --mem-limit)")
	return &Flags{fs: fs, c: c}
}

// RegisterInputFormat defines the flags of the inputs' format and CSV
// dialect on fs, writing into c: Register calls it, and so does rankeval
// propensities.
func RegisterInputFormat(fs *flag.FlagSet, c *config.Config) {
	fs.StringVar(&c.InputFormat, "input-format", c.InputFormat, "format of text inputs: auto (told from the first line: '{' starts JSON lines,\na header with commas CSV, with tabs TSV), jsonl, csv or tsv, for a first line\nthat cannot tell; Parquet and Arrow are known by their first bytes")
	fs.StringVar(&c.Delimiter, "delimiter", c.Delimiter, "the character separating the fields of CSV inputs, such as ';' (as Excel writes\nCSV where the comma is the decimal mark) or '|'; '\\t' is a tab (TSV); default a\ncomma, or what the header is separated by: a header separated by ';' or '|'\nis read so when it holds the columns asked for")
	fs.BoolVar(&c.DecimalComma, "decimal-comma", c.DecimalComma, "numbers in CSV and TSV inputs are written with a decimal comma (0,75); a point\nis then refused; the delimiter must not be a comma")
}

// RegisterFormat defines --format on fs, storing into f: Register calls
// it, and so does rankeval merge.
func RegisterFormat(fs *flag.FlagSet, f *string) {
	fs.StringVar(f, "format", *f, "summary format: text (a table), json (one object, for scripts), trec\n(trec_eval's layout: measure, query, value; per-query blocks with --per-query -),\nlatex or markdown (the table of a paper or a pull request: systems as rows, metrics\nas columns, the best in bold, significance against the baseline marked)")
}

// RegisterTableNames defines --table-names on fs, storing into v:
// Register calls it, and so does rankeval merge.
func RegisterTableNames(fs *flag.FlagSet, v *string) {
	fs.StringVar(v, "table-names", *v, "names shown in --format latex and markdown tables, NAME=SHOWN comma-separated:\na metric's column (ndcg@10=nDCG@10,map=MAP; the metric named as in -m, in any\ncase but for ir_measures' spellings) or a system's row (bm25=BM25); a header is\notherwise the metric as typed, trec_eval's names in trec_eval's case (P_10)")
}

// RegisterQuiet defines --quiet on fs, storing into q: rankeval's run
// shows no progress with it, and rankeval merge, which shows none, takes
// it too, so that a script passes both commands the same flags.
func RegisterQuiet(fs *flag.FlagSet, q *bool) {
	fs.BoolVar(q, "quiet", *q, "no progress on stderr")
}

// RegisterCorrection defines --correction on fs, storing into c, with the
// default def. Register calls it (def "holm"); so does rankeval merge (def
// "": the states' own), since a correction applies when a summary is
// printed, not to the sums a state holds.
func RegisterCorrection(fs *flag.FlagSet, c *string, def string) {
	fs.StringVar(c, "correction", def, "adjustment of the p-values of the comparisons a run makes together (every pair\nand metric; each slice's apart): holm (family-wise error), bh (Benjamini-Hochberg,\nfalse discovery rate) or none")
}

// RegisterDetect defines --detect on fs, storing into v: Register calls
// it, and so does rankeval merge, since a merged summary answers it as
// one run does (a state records no request).
func RegisterDetect(fs *flag.FlagSet, v *string) {
	fs.Var(&joinedList{s: v}, "detect", "the queries (impressions, for click metrics) each comparison needs to detect a\ntrue difference of means, as 'ndcg@10=0.005,map=0.01' (may be repeated; the\nlists add up): the least n at which the paired t-test (two-sided, alpha 0.05)\nhas 80% power, taking the observed sd of the per-query differences")
}

// joinedList is the value of a flag whose repeats add up: each is joined
// to the ones before by a comma.
type joinedList struct{ s *string }

func (l *joinedList) String() string {
	if l == nil || l.s == nil {
		return ""
	}
	return *l.s
}

func (l *joinedList) Set(v string) error {
	if *l.s != "" {
		*l.s += ","
	}
	*l.s += v
	return nil
}

// RegisterReadTimeout defines --read-timeout on fs, storing into d.
// Register calls it; so does a command that reads objects without the
// shared flags (rankeval merge).
func RegisterReadTimeout(fs *flag.FlagSet, d *time.Duration) {
	fs.DurationVar(d, "read-timeout", *d, "an object-store or https:// request that receives no byte for this long\nfails, naming the object (a stalled connection would otherwise hang the run)")
}

// ColumnNames lists the flags RegisterColumns defines.
var ColumnNames = []string{"query-col", "doc-col", "score-col", "label-col", "rank-col"}

// RegisterColumns defines the column flags on fs, storing into c, whose
// names are their defaults. Register calls it; a tool that reads logs as
// rankeval does without evaluating them (scripts/gen -from) calls it
// alone, and then FinishColumns.
func RegisterColumns(fs *flag.FlagSet, c *reader.Columns) { RegisterColumnFlags(fs, c, ColumnNames...) }

// RegisterColumnFlags defines the named column flags (of ColumnNames) on
// fs, storing into c: a command that reads only some columns
// (rankeval propensities) defines only those.
func RegisterColumnFlags(fs *flag.FlagSet, c *reader.Columns, names ...string) {
	for _, n := range names {
		switch n {
		case "query-col":
			fs.StringVar(&c.Query, "query-col", c.Query, "field holding the query id (a string or an integer)")
		case "doc-col":
			fs.StringVar(&c.Doc, "doc-col", c.Doc, "field holding the document id: used by --ties trec (which requires it) and to\ncatch a document listed twice in a query (--dedup); rows may lack it otherwise")
		case "score-col":
			fs.StringVar(&c.Score, "score-col", c.Score, "field holding the model's score (higher ranks first); several, comma-separated,\ncompare the models of those columns, the first the baseline")
		case "label-col":
			fs.StringVar(&c.Label, "label-col", c.Label, "field holding the relevance label (a number >= 0, or a boolean); in a click log,\nthe click (0 or 1)")
		case "rank-col":
			fs.StringVar(&c.Rank, "rank-col", c.Rank, "field holding a rank (1 = top); when set, rows are ordered by it\nascending and the score column is not needed")
		default:
			panic("evalflags: no column flag " + n)
		}
	}
}

// FinishColumns completes c after fs has parsed the command line: a rank
// column without an explicit score column needs no score, so none is read.
func FinishColumns(fs *flag.FlagSet, c *reader.Columns) {
	if c.Rank != "" && !given(fs)["score-col"] {
		c.Score = "" // ordered by rank: a score is neither needed nor required
	}
}

// ClickNames lists the flags RegisterClicks defines.
var ClickNames = []string{"position-col", "propensity-col", "position-bias", "propensity-clip"}

// RegisterClicks defines the IPS estimates' flags on fs, storing into c.
func RegisterClicks(fs *flag.FlagSet, c *config.Clicks) {
	fs.StringVar(&c.PropensityCol, "propensity-col", c.PropensityCol, "field holding each row's propensity of examination at its logged position,\na number from 0 to 1, for the IPS estimates (ips_*, snips_*)")
	RegisterPositionCol(fs, c)
	fs.StringVar(&c.PositionBias, "position-bias", c.PositionBias, "position-based model of examination, for the IPS estimates: pow:η\n(propensity k^-η at logged position k, as pow:1), or a CSV file of\nposition,propensity lines (positions 1, 2, ... in order)")
	fs.Float64Var(&c.PropensityClip, "propensity-clip", c.PropensityClip, fmt.Sprintf("a click whose propensity is below this counts as this (at most 1/clip);\nthe clicks clipped are reported (from %g to 1)", config.MinPropensityClip))
}

// RegisterPositionCol defines --position-col on fs, storing into c:
// RegisterClicks calls it, and so does rankeval propensities.
func RegisterPositionCol(fs *flag.FlagSet, c *config.Clicks) {
	fs.StringVar(&c.PositionCol, "position-col", c.PositionCol, "field holding each row's logged position (1 = top), whose propensity\n--position-bias gives; it may name the --rank-col column")
}

// TeamNames lists the flags RegisterTeams defines.
var TeamNames = []string{"team-col", "teams"}

// RegisterTeams defines the interleaving outcome's flags on fs, storing
// into t.
func RegisterTeams(fs *flag.FlagSet, t *config.Teams) {
	fs.StringVar(&t.TeamCol, "team-col", t.TeamCol, "field holding the team that contributed each row of an interleaved list,\nfor the interleave metric; its values are those --teams names")
	fs.StringVar(&t.Teams, "teams", t.Teams, "A,B: the values of --team-col that name team A (the baseline) and team B;\ninterleave is 1 where B wins, so a preference > 0 favours B")
}

// SourceNames lists the flags RegisterSources defines.
var SourceNames = []string{"qrels", "complete", "system", "missing"}

// RegisterSources defines the flags of what a run reads besides its INPUT
// files on fs, storing into src.
func RegisterSources(fs *flag.FlagSet, src *config.Sources) {
	fs.StringVar(&src.Qrels, "qrels", src.Qrels, "TREC qrels file (qid iter docno label): the inputs are then TREC runs\n(qid Q0 docno rank score runid) and take their labels from it")
	fs.BoolVar(&src.Complete, "complete", src.Complete, "with --qrels: judged queries missing from the run count as 0 in every mean\n(trec_eval's -c)")
	RegisterSystem(fs, src)
	fs.StringVar(&src.Missing, "missing", src.Missing, "with --system, a query absent from some log: error, or zero (it counts as 0\nthere, or is empty there when no log that holds it has a relevant row;\nrankeval then needs the logs sorted by query id)")
}

// RegisterSystem defines --system on fs, storing into src:
// RegisterSources calls it, and so does rankeval propensities (a log per
// ranker).
func RegisterSystem(fs *flag.FlagSet, src *config.Sources) {
	fs.Func("system", "NAME=PATH: a system's log, to compare systems over the same queries; give it\nonce per system, the baseline first (instead of INPUT). rankeval reads the logs\nin lockstep: they must hold the same queries in the same order, or give\n--unsorted to join them by query id in any order. With --qrels, several TREC\nruns given as INPUT are compared as if given as --system TAG=PATH.\nrankeval propensities: a ranker's log, once per ranker", func(v string) error {
		src.System = append(src.System, v)
		return nil
	})
}

// PropensityNames lists the flags of rankeval propensities' own settings.
var PropensityNames = []string{"ranker-col", "method", "max-position", "min-clicks", "replicates"}

// RegisterPropensities defines rankeval propensities' flags on fs,
// writing into c: the columns it reads, its own settings, the inputs'
// format, the workers and batches, --output and --report.
func RegisterPropensities(fs *flag.FlagSet, c *config.Config) *Flags {
	RegisterColumnFlags(fs, &c.Columns, "query-col", "doc-col", "label-col")
	RegisterPositionCol(fs, &c.Clicks)
	p := &c.Propensities
	fs.StringVar(&p.RankerCol, "ranker-col", p.RankerCol, "field holding the ranker (A/B bucket, model version) that produced each row's\nimpression; or give one --system NAME=PATH log per ranker")
	RegisterSystem(fs, &c.Sources)
	fs.StringVar(&p.Method, "method", p.Method, "harvest (all-pairs intervention harvesting: documents of a query shown at two\npositions, by several rankers or orders that vary) or em (the position-based\nmodel fitted by EM to the same counts)")
	fs.IntVar(&p.MaxPosition, "max-position", p.MaxPosition, "the last position estimated; rows past it are counted apart and reported")
	fs.Int64Var(&p.MinClicks, "min-clicks", p.MinClicks, "a position gets no estimate with fewer clicks than this on documents also\nshown at another position")
	fs.IntVar(&p.Replicates, "replicates", p.Replicates, "Poisson-bootstrap resamples of the queries for each position's 95% interval;\neach query's weights come from a hash of its id")
	RegisterInputFormat(fs, c)
	RegisterReadTimeout(fs, &c.ReadTimeout)
	f := &Flags{fs: fs, c: c}
	f.registerReading()
	f.registerSpill("directory for the count table's sorted runs past --mem-limit (removed on\nsuccess and failure)",
		"memory budget of the count table (e.g. 256MiB, 2GiB), some 100 bytes a distinct\n(query, doc, position, ranker) cell: past it, the cells go to a sorted run\nunder --tmp-dir, merged when estimating; the estimate does not depend on it")
	RegisterOutputs(fs, &c.Outputs, Output, Report, State)
	return f
}

// RegisterGates defines the quality gates' flags on fs, storing into g.
func RegisterGates(fs *flag.FlagSet, g *config.Gates) {
	fs.StringVar(&g.FailUnder, "fail-under", g.FailUnder, "quality gates, as 'ndcg@10=0.42,map=0.30': when a mean falls below its bar\n(or has no queries), exit 3 after writing the full summary, which says which failed")
	fs.StringVar(&g.FailIfWorse, "fail-if-worse", g.FailIfWorse, "non-inferiority gates, as 'ndcg@10=0.005,map=0.01': when, for some system, the lower\nbound of the 95% interval of its difference from the baseline (the bootstrap's\nwith --bootstrap, else the t interval) is below -margin, exit 3 after writing the\nsummary, whose gates say which system, metric and bound failed")
	fs.BoolVar(&g.FailOnEmpty, "fail-on-empty", g.FailOnEmpty, "exit 3 (after writing the summary) when the run saw no rows or no query\nwith a relevant row")
}

// given is the set of flags given on fs's command line.
func given(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// Finish completes the Config after fs has parsed the command line, as
// the flags mean it: a profile sets the conventions not given explicitly,
// a rank column without an explicit score column needs no score, a
// --position-bias file is read into its model, sizes are read. A 0 given
// where 0 is the default's stand-in is refused. It checks no other
// setting: config.Config's Resolve and Prepare do.
func (f *Flags) Finish() error {
	set, c := given(f.fs), f.c
	if err := c.ApplyProfile(func(name string) bool { return set[name] }); err != nil {
		return err
	}
	if set["permutations"] && c.Permutations == 0 { // 0 is "not given" in Config
		return config.Usagef("--permutations 0: want 1 to 100000 replicates")
	}
	if set["propensity-clip"] && c.Clicks.PropensityClip == 0 { // likewise
		return config.Usagef("--propensity-clip 0: want a number from %g to 1", config.MinPropensityClip)
	}
	FinishColumns(f.fs, &c.Columns)
	if err := config.CheckReadTimeout(c.ReadTimeout); err != nil {
		return err
	}
	if f.memLimit != nil {
		n, err := bytesize.Parse(*f.memLimit)
		if err != nil || n < config.MinMemLimit {
			return config.Usagef("--mem-limit %q: want a size of at least 16MiB, as 256MiB or 2GiB (units B, KB, KiB, MB, MiB, GB, GiB; at most 4294967296GiB)", *f.memLimit)
		}
		c.Run.MemLimit = n
	}
	return c.Clicks.ReadModelFile()
}

// RegisterRun defines the flags of how a run goes (workers, batches,
// unsorted input, progress) on fs, storing into the Config of f.
func (f *Flags) RegisterRun() {
	f.registerReading()
	fs, r := f.fs, &f.c.Run
	fs.BoolVar(&r.Unsorted, "unsorted", r.Unsorted, "accept logs whose query ids are not contiguous: rows are partitioned by query\ninto compressed spill files under --tmp-dir, then grouped; memory stays within\n--mem-limit; the summary is bit-identical to the sorted log's (per-query\nrecords come out in partition order); with --system, joins the logs by query\nid in any order")
	f.registerSpill("directory for --unsorted spill files (removed on success, failure and interrupt)",
		"memory budget of --unsorted (e.g. 256MiB, 2GiB), in the bytes the rows held take\n(ids, values, some 100 bytes a row): half for the spill file being grouped,\nthe rest for queries; one query may hold an eighth (--max-group-bytes)")
	RegisterQuiet(fs, &r.Quiet)
	fs.DurationVar(&r.ProgressInterval, "progress-interval", r.ProgressInterval, "when stderr is not a terminal (cron, Airflow, CI), log a progress line this\noften, and a final line; on a terminal a single line updates in place")
}

// registerSpill defines --tmp-dir and --mem-limit (read by Finish), with
// the help of the command that takes them.
func (f *Flags) registerSpill(tmpHelp, memHelp string) {
	fs, r := f.fs, &f.c.Run
	fs.StringVar(&r.TmpDir, "tmp-dir", r.TmpDir, tmpHelp)
	f.memLimit = fs.String("mem-limit", bytesize.Format(r.MemLimit), memHelp)
}

// registerReading defines --workers and --batch-size: RegisterRun
// calls it, and so does rankeval propensities, which takes no other flag
// of how a run goes.
func (f *Flags) registerReading() {
	fs, r := f.fs, &f.c.Run
	fs.IntVar(&r.Workers, "workers", r.Workers, "goroutines evaluating queries, and decoding each Parquet, Arrow or TREC run file (0 = one per CPU); results do not depend on it")
	fs.IntVar(&r.BatchSize, "batch-size", r.BatchSize, "rows per read batch; results do not depend on it")
}

// Output flags, for RegisterOutputs.
const (
	Output   = "output"
	PerQuery = "per-query"
	Report   = "report"
	State    = "state"
)

// RegisterOutputs defines the named output flags on fs, storing into o:
// rankeval takes them all, rankeval merge every one but per-query.
func RegisterOutputs(fs *flag.FlagSet, o *config.Outputs, names ...string) {
	for _, n := range names {
		switch n {
		case Output:
			fs.StringVar(&o.Summary, Output, o.Summary, "write the summary to this file instead of standard output (- is standard\noutput; a file is written to a temporary name and renamed when complete)")
		case PerQuery:
			fs.StringVar(&o.PerQuery, PerQuery, o.PerQuery, "also write one JSON object per query, in input order, with its id and every\nmetric (null where undefined) to this file; - for standard output")
		case Report:
			fs.StringVar(&o.Report, Report, o.Report, "also write a self-contained HTML report (tables and charts) to this file")
		case State:
			fs.StringVar(&o.State, State, o.State, "also write the complete state (of the run, or of the states merged) to this file,\nto merge with others later (rankeval merge) without reading the logs again")
		default:
			panic("evalflags: no output flag " + n)
		}
	}
}
