package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/reader"
	"github.com/rankeval/rankeval/summary"
)

var errHelp = errors.New("help shown")

const defaultMetrics = "map,mrr,ndcg@10,err@10,p@10,r@10"

// config is the parsed command line.
type config struct {
	metrics      []metrics.Metric
	opts         metrics.Options
	cols         reader.Columns
	format       string
	output       string
	perQuery     string
	workers      int
	maxGroupRows int
	batchSize    int
	inputs       []string

	dedupFirst bool

	// unsorted input
	unsorted bool
	tmpDir   string
	memLimit int64

	// operations
	quiet            bool
	progressInterval time.Duration
	gates            []gate
	failOnEmpty      bool

	// analysis: slices, comparison, bootstrap, report
	by        []string
	maxSlices int
	systems   []string   // names; the baseline first
	logs      [][]string // per system with --system; nil when the systems are score columns
	missing   string
	bootstrap int
	report    string
	curves    []curve // metric@k families the report plots; evaluated after c.metrics

	// TREC input (--qrels) and peer profiles
	qrels        string
	profile      string
	complete     bool
	scoreFloat32 bool
	skipUnjudged bool
}

const usageHead = `Usage: rankeval [flags] INPUT...

Computes ranking-evaluation metrics over a search or click log: one row per
(query, document) with the model's score and the relevance label. Rows of a
query must be contiguous (or use --unsorted). INPUT is a file, a directory
(read recursively), a quoted glob, an s3:// or gs:// object or prefix, or -
for standard input: JSONL (plain, gzip, zstd), Parquet, or Arrow IPC file or
stream, recognised from the first bytes.

Metrics (-m): p@k r@k f1@k fB@k (e.g. f0.5@10) hit@k ap ap@k map rr rr@k mrr
  rprec cg@k dcg@k ndcg@k err@k nerr@k kendall kendall@k spearman spearman@k.
  Aliases: precision@k recall@k success@k accuracy@k mrr@k; ndcg = whole list.
  Names are case-insensitive; the output uses them lower-cased.

Flags:
`

const usageTail = `
TREC input: rankeval --qrels QRELS [--profile trec_eval|gdeval] RUN...

Exit status: 0 ok, 1 input or runtime error, 2 usage error, 3 a gate failed
(--fail-under, --fail-on-empty), 130/143 interrupted (SIGINT/SIGTERM).
`

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("rankeval", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var (
		c                                       config
		metricList, ties, gain, empty, relThres string
		maxGrade                                float64
	)
	fs.StringVar(&metricList, "metrics", defaultMetrics, "comma-separated metrics to compute (see above)")
	fs.StringVar(&metricList, "m", defaultMetrics, "shorthand for --metrics")
	fs.StringVar(&ties, "ties", "input", "order of rows with equal scores: input (as they appear), trec (doc id descending,\nas trec_eval), optimistic (higher label first), pessimistic (lower label first),\naverage (exact expected value over every order of the tied rows)")
	fs.StringVar(&gain, "gain", "exp", "DCG gain of a label y: exp (2^y - 1) or linear (y)")
	fs.Float64Var(&maxGrade, "max-grade", 4, "maximum grade G of ERR, whose stop probability is (2^y - 1)/2^G;\na label above it is an input error when err or nerr is asked for")
	fs.StringVar(&relThres, "rel-threshold", "", "a row is relevant when its label >= this threshold (trec_eval's -l);\nwhen unset, relevant means label > 0")
	fs.StringVar(&empty, "empty", "skip", "queries with no relevant row: skip (left out of every mean and counted as\nempty), zero (count as 0), one (count as 1), error (fail the run)")
	fs.StringVar(&c.format, "format", "text", "summary format: text (a table), json (one object, for scripts), or trec\n(trec_eval's layout: measure, query, value; per-query blocks with --per-query -)")
	fs.StringVar(&c.qrels, "qrels", "", "TREC qrels file (qid iter docno label): the inputs are then TREC runs\n(qid Q0 docno rank score runid) and take their labels from it")
	fs.StringVar(&c.profile, "profile", "", "reproduce a peer tool: trec_eval (ties trec, gain linear, empty zero,\nrel-threshold 1, 32-bit scores, run queries without judgments ignored) or\ngdeval (ties trec, gain exp, max-grade 4, empty skip, run queries without\njudgments ignored); flags given explicitly override it")
	fs.BoolVar(&c.complete, "complete", false, "with --qrels: judged queries missing from the run count as 0 in every mean\n(trec_eval's -c)")
	fs.StringVar(&c.output, "output", "", "write the summary to this file instead of standard output\n(written to a temporary name and renamed when complete)")
	fs.StringVar(&c.perQuery, "per-query", "", "also write one JSON object per query, in input order, with its id and every\nmetric (null where undefined) to this file; - for standard output")
	fs.StringVar(&c.cols.Query, "query-col", "query_id", "field holding the query id (a string or an integer)")
	fs.StringVar(&c.cols.Doc, "doc-col", "doc_id", "field holding the document id: used by --ties trec (which requires it) and to\ncatch a document listed twice in a query (--dedup); rows may lack it otherwise")
	fs.StringVar(&c.cols.Score, "score-col", "score", "field holding the model's score (higher ranks first); several, comma-separated,\ncompare the models of those columns, the first the baseline")
	fs.StringVar(&c.cols.Label, "label-col", "label", "field holding the relevance label (a number >= 0, or a boolean)")
	fs.StringVar(&c.cols.Rank, "rank-col", "", "field holding a rank (1 = top); when set, rows are ordered by it\nascending and the score column is not needed")
	fs.IntVar(&c.workers, "workers", 0, "goroutines evaluating queries, and decoding each Parquet, Arrow or TREC run file (0 = one per CPU); results do not depend on it")
	fs.IntVar(&c.maxGroupRows, "max-group-rows", 1_000_000, "a query with more rows than this is an error rather than an out-of-memory")
	fs.IntVar(&c.batchSize, "batch-size", 8192, "rows per read batch; results do not depend on it")
	dedup := fs.String("dedup", "error", "a doc id repeated within a query: error (stop, naming both rows) or first\n(keep the first row, drop the others and report how many)")
	fs.BoolVar(&c.unsorted, "unsorted", false, "accept logs whose query ids are not contiguous: rows are partitioned by query\ninto compressed spill files under --tmp-dir, then grouped; memory stays within\n--mem-limit; the summary is bit-identical to the sorted log's (per-query\nrecords come out in partition order)")
	fs.StringVar(&c.tmpDir, "tmp-dir", os.TempDir(), "directory for --unsorted spill files (removed on success, failure and interrupt)")
	memLimit := fs.String("mem-limit", "512MiB", "memory budget of --unsorted (e.g. 256MiB, 2GiB)")
	fs.BoolVar(&c.quiet, "quiet", false, "no progress on stderr")
	fs.DurationVar(&c.progressInterval, "progress-interval", 30*time.Second, "when stderr is not a terminal (cron, Airflow, CI), log a progress line this\noften, and a final line; on a terminal a single line updates in place")
	failUnder := fs.String("fail-under", "", "quality gates, as 'ndcg@10=0.42,map=0.30': when a mean falls below its bar\n(or has no queries), exit 3 after writing the full summary, which says which failed")
	fs.BoolVar(&c.failOnEmpty, "fail-on-empty", false, "exit 3 (after writing the summary) when the run saw no rows or no query\nwith a relevant row")
	var by string
	var systemFlags []string
	fs.StringVar(&by, "by", "", "comma-separated columns to slice by: each distinct combination of their values\n(on a query's first row; its rows must agree) is evaluated besides the overall")
	fs.IntVar(&c.maxSlices, "max-slices", 10_000, "more distinct --by combinations than this fail the run")
	fs.Func("system", "NAME=PATH: a system's log, to compare systems over the same queries; give it\nonce per system, the baseline first (instead of INPUT). The logs are read in\nlockstep and must hold the same queries in the same order", func(v string) error {
		systemFlags = append(systemFlags, v)
		return nil
	})
	fs.StringVar(&c.missing, "missing", "error", "with --system, a query absent from some log: error, or zero (it counts as 0\nthere; the logs must then be sorted by query id)")
	fs.IntVar(&c.bootstrap, "bootstrap", 0, "Poisson-bootstrap replicates (e.g. 1000) for percentile 95% intervals of every\noverall mean and difference; each query's weights come from a hash of its id")
	fs.StringVar(&c.report, "report", "", "also write a self-contained HTML report (tables and charts) to this file")
	help := fs.Bool("help", false, "show this help")
	fs.BoolVar(help, "h", false, "show this help")

	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(fs, stderr)
			return nil, errHelp
		}
		return nil, usageError{err}
	}
	if *help {
		printUsage(fs, stderr)
		return nil, errHelp
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if c.profile != "" {
		p, ok := summary.Profiles[c.profile]
		if !ok {
			return nil, usagef("--profile %q: want trec_eval or gdeval", c.profile)
		}
		for name, v := range p.Flags {
			if !set[name] {
				fs.Set(name, v)
			}
		}
		c.scoreFloat32 = p.ScoreFloat32
		c.skipUnjudged = true
	}
	if c.complete && c.qrels == "" {
		return nil, usagef("--complete needs --qrels")
	}

	var err error
	if c.metrics, err = metrics.ParseList(metricList); err != nil {
		return nil, usageError{err}
	}
	c.opts = metrics.DefaultOptions()
	var ok bool
	if c.opts.Ties, ok = summary.Ties[strings.ToLower(ties)]; !ok {
		return nil, usagef("--ties %q: want input, trec, optimistic, pessimistic or average", ties)
	}
	if c.opts.Gain, ok = summary.Gains[strings.ToLower(gain)]; !ok {
		return nil, usagef("--gain %q: want exp or linear", gain)
	}
	if c.opts.Empty, ok = summary.Empties[strings.ToLower(empty)]; !ok {
		return nil, usagef("--empty %q: want skip, zero, one or error", empty)
	}
	if !(maxGrade > 0) || maxGrade > 1000 {
		return nil, usagef("--max-grade %v: want a number in (0, 1000]", maxGrade)
	}
	c.opts.MaxGrade = maxGrade
	if relThres != "" {
		t, err := strconv.ParseFloat(relThres, 64)
		if err != nil || t != t {
			return nil, usagef("--rel-threshold %q: want a number", relThres)
		}
		c.opts.RelThreshold, c.opts.HasThreshold = t, true
	}
	if c.format != "text" && c.format != "json" && c.format != "trec" {
		return nil, usagef("--format %q: want text, json or trec", c.format)
	}
	if c.workers < 0 || c.maxGroupRows < 1 || c.batchSize < 1 {
		return nil, usagef("--workers must be >= 0, --max-group-rows and --batch-size >= 1")
	}
	if c.cols.Rank != "" && !set["score-col"] {
		c.cols.Score = "" // ordered by rank: a score is neither needed nor required
	}
	switch *dedup {
	case "error":
	case "first":
		c.dedupFirst = true
	default:
		return nil, usagef("--dedup %q: want error or first", *dedup)
	}
	// Doc ids are read when present, to catch duplicates; only the trec tie
	// order cannot do without them.
	c.cols.DocOptional = c.opts.Ties != metrics.TiesTrec
	if c.output != "" && c.output == c.perQuery {
		return nil, usagef("--output and --per-query name the same file %q", c.output)
	}
	if c.gates, err = parseGates(*failUnder, c.metrics); err != nil {
		return nil, err
	}
	if c.memLimit, err = parseSize(*memLimit); err != nil || c.memLimit < 16<<20 {
		return nil, usagef("--mem-limit %q: want a size of at least 16MiB, as 256MiB or 2GiB", *memLimit)
	}
	if c.progressInterval <= 0 {
		return nil, usagef("--progress-interval must be positive")
	}
	c.inputs = fs.Args()
	if err := c.analysisFlags(by, systemFlags, set); err != nil {
		return nil, err
	}
	if len(c.inputs) == 0 && c.logs == nil {
		return nil, usagef("no input: give one or more files, or - for standard input")
	}
	return &c, nil
}

// analysisFlags checks and applies --by, --score-col lists, --system,
// --missing, --bootstrap and --report.
func (c *config) analysisFlags(by string, systemFlags []string, set map[string]bool) error {
	if by != "" {
		c.by = splitList(by)
		if len(c.by) == 0 {
			return usagef("--by %q names no column", by)
		}
		if c.qrels != "" {
			return usagef("--by cannot slice TREC runs: they have no other columns")
		}
	}
	if c.maxSlices < 1 {
		return usagef("--max-slices must be >= 1")
	}
	scores := splitList(c.cols.Score)
	if len(scores) > 1 {
		if c.cols.Rank != "" {
			return usagef("--rank-col orders every system the same way: compare score columns without it")
		}
		c.cols.Score, c.cols.ExtraScore = scores[0], scores[1:]
		c.systems = scores
	}
	if len(systemFlags) > 0 {
		if len(systemFlags) < 2 {
			return usagef("--system: give two or more, the baseline first")
		}
		if len(c.inputs) > 0 {
			return usagef("give either --system NAME=PATH logs or INPUT files, not both")
		}
		if len(scores) > 1 {
			return usagef("--system compares logs: give one --score-col with it")
		}
		if c.complete {
			return usagef("--complete counts queries missing from one run; with --system use --missing zero")
		}
		c.systems = nil
		for _, f := range systemFlags {
			name, path, ok := strings.Cut(f, "=")
			if !ok || name == "" || path == "" {
				return usagef("--system %q: want NAME=PATH", f)
			}
			c.systems = append(c.systems, name)
			c.logs = append(c.logs, []string{path})
		}
	}
	seen := map[string]bool{}
	for _, n := range c.systems {
		if seen[n] {
			return usagef("system %q is named twice", n)
		}
		seen[n] = true
	}
	switch c.missing {
	case "error":
	case "zero":
		if c.logs == nil {
			return usagef("--missing zero applies to --system logs")
		}
	default:
		return usagef("--missing %q: want error or zero", c.missing)
	}
	if c.unsorted && (len(c.by) > 0 || len(c.systems) > 1) {
		// the spill files keep the core columns only
		return usagef("--unsorted does not carry --by columns or several systems yet: sort the log by query id")
	}
	if c.bootstrap < 0 || c.bootstrap > 100_000 {
		return usagef("--bootstrap %d: want 0 (none) to 100000 replicates", c.bootstrap)
	}
	if c.format == "trec" && (len(c.by) > 0 || len(c.systems) > 1 || c.bootstrap > 0) {
		return usagef("--format trec has no place for slices, comparisons or bootstrap intervals; use json or text")
	}
	if c.report != "" {
		for _, other := range []string{c.output, c.perQuery} {
			if other == c.report {
				return usagef("--report and another output name the same file %q", c.report)
			}
		}
		c.curves = curvesFor(c.metrics)
	}
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// curve is a metric family the report plots at k = 1..K.
type curve struct {
	family string // ndcg, p, r, err
	kind   metrics.Kind
	ms     []metrics.Metric
}

func nextK(k, step int) int {
	if k == 1 && step > 1 {
		return step
	}
	return k + step
}

// curvesFor picks the report's metric@k curves: the families among nDCG,
// P, R and ERR that were asked for, from k = 1 to the largest k asked (10
// when none is). Families not asked are left out: ERR, for one, makes a
// label above --max-grade an error.
func curvesFor(ms []metrics.Metric) []curve {
	maxK := 0
	for _, m := range ms {
		maxK = max(maxK, m.K)
	}
	if maxK == 0 {
		maxK = 10
	}
	var out []curve
	for _, f := range []struct {
		name string
		kind metrics.Kind
	}{{"ndcg", metrics.KindNDCG}, {"p", metrics.KindP}, {"r", metrics.KindR}, {"err", metrics.KindERR}} {
		if !slices.ContainsFunc(ms, func(m metrics.Metric) bool { return m.Kind == f.kind }) {
			continue
		}
		cv := curve{family: f.name, kind: f.kind}
		// at most some 100 points: a k of 1000 is plotted every 10th
		step := (maxK + 99) / 100
		for k := 1; k <= maxK; k = nextK(k, step) {
			m, err := metrics.Parse(fmt.Sprintf("%s@%d", f.name, k))
			if err != nil {
				panic(err) // the names above always parse
			}
			cv.ms = append(cv.ms, m)
		}
		out = append(out, cv)
	}
	return out
}

func printUsage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprint(w, usageHead)
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name == "h" || f.Name == "m" {
			return
		}
		name := "--" + f.Name
		if f.Name == "metrics" {
			name = "-m, --metrics"
		}
		if f.Name == "help" {
			name = "-h, --help"
		}
		def := ""
		if f.DefValue != "" && f.DefValue != "false" {
			def = fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(w, "  %s%s\n", name, def)
		for _, line := range strings.Split(f.Usage, "\n") {
			fmt.Fprintf(w, "      %s\n", line)
		}
	})
	fmt.Fprint(w, usageTail)
}

// parseSize reads a byte count with an optional unit: B, KB/KiB, MB/MiB,
// GB/GiB (KB, MB, GB are decimal; KiB, MiB, GiB binary).
func parseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || v*float64(mult) > 1<<62 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return int64(v * float64(mult)), nil
}
