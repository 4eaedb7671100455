package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/reader"
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

	// operations
	quiet            bool
	progressInterval time.Duration
	gates            []gate
	failOnEmpty      bool

	// TREC input (--qrels) and peer profiles
	qrels        string
	profile      string
	complete     bool
	scoreFloat32 bool
	skipUnjudged bool
}

// profiles set every convention a peer tool uses at once (SPEC §6); a flag
// given explicitly overrides its profile's value.
var profiles = map[string]struct {
	flags        map[string]string
	scoreFloat32 bool // trec_eval stores scores as 32-bit floats
}{
	"trec_eval": {flags: map[string]string{"ties": "trec", "gain": "linear", "empty": "zero", "rel-threshold": "1"}, scoreFloat32: true},
	"gdeval":    {flags: map[string]string{"ties": "trec", "gain": "exp", "empty": "skip", "max-grade": "4"}},
}

var choices = struct {
	ties  map[string]metrics.Ties
	gain  map[string]metrics.Gain
	empty map[string]metrics.Empty
}{
	ties: map[string]metrics.Ties{"input": metrics.TiesInput, "trec": metrics.TiesTrec,
		"optimistic": metrics.TiesOptimistic, "pessimistic": metrics.TiesPessimistic, "average": metrics.TiesAverage},
	gain:  map[string]metrics.Gain{"exp": metrics.GainExp, "linear": metrics.GainLinear},
	empty: map[string]metrics.Empty{"skip": metrics.EmptySkip, "zero": metrics.EmptyZero, "one": metrics.EmptyOne, "error": metrics.EmptyError},
}

func nameOf[T comparable](m map[string]T, v T) string {
	for k, x := range m {
		if x == v {
			return k
		}
	}
	return "?"
}

const usageHead = `Usage: rankeval [flags] INPUT...

Computes ranking-evaluation metrics over a search or click log: one row per
(query, document) with the model's score and the relevance label. Rows of a
query must be contiguous. INPUT is a file, or - for standard input; JSONL,
plain or gzip or zstd compressed, recognised from the file's first bytes.

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
	fs.StringVar(&c.cols.Doc, "doc-col", "doc_id", "field holding the document id (read only when --ties trec needs it)")
	fs.StringVar(&c.cols.Score, "score-col", "score", "field holding the model's score (higher ranks first)")
	fs.StringVar(&c.cols.Label, "label-col", "label", "field holding the relevance label (a number >= 0, or a boolean)")
	fs.StringVar(&c.cols.Rank, "rank-col", "", "field holding a rank (1 = top); when set, rows are ordered by it\nascending and the score column is not needed")
	fs.IntVar(&c.workers, "workers", 0, "goroutines evaluating queries (0 = one per CPU); results do not depend on it")
	fs.IntVar(&c.maxGroupRows, "max-group-rows", 1_000_000, "a query with more rows than this is an error rather than an out-of-memory")
	fs.IntVar(&c.batchSize, "batch-size", 8192, "rows per read batch; results do not depend on it")
	fs.BoolVar(&c.quiet, "quiet", false, "no progress on stderr")
	fs.DurationVar(&c.progressInterval, "progress-interval", 30*time.Second, "when stderr is not a terminal (cron, Airflow, CI), log a progress line this\noften, and a final line; on a terminal a single line updates in place")
	failUnder := fs.String("fail-under", "", "quality gates, as 'ndcg@10=0.42,map=0.30': when a mean falls below its bar\n(or has no queries), exit 3 after writing the full summary, which says which failed")
	fs.BoolVar(&c.failOnEmpty, "fail-on-empty", false, "exit 3 (after writing the summary) when the run saw no rows or no query\nwith a relevant row")
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
		p, ok := profiles[c.profile]
		if !ok {
			return nil, usagef("--profile %q: want trec_eval or gdeval", c.profile)
		}
		for name, v := range p.flags {
			if !set[name] {
				fs.Set(name, v)
			}
		}
		c.scoreFloat32 = p.scoreFloat32
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
	if c.opts.Ties, ok = choices.ties[strings.ToLower(ties)]; !ok {
		return nil, usagef("--ties %q: want input, trec, optimistic, pessimistic or average", ties)
	}
	if c.opts.Gain, ok = choices.gain[strings.ToLower(gain)]; !ok {
		return nil, usagef("--gain %q: want exp or linear", gain)
	}
	if c.opts.Empty, ok = choices.empty[strings.ToLower(empty)]; !ok {
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
	if c.opts.Ties != metrics.TiesTrec && c.qrels == "" {
		c.cols.Doc = "" // only the trec tie order reads doc ids; skipping them is faster
	}
	if c.output != "" && c.output == c.perQuery {
		return nil, usagef("--output and --per-query name the same file %q", c.output)
	}
	if c.gates, err = parseGates(*failUnder, c.metrics); err != nil {
		return nil, err
	}
	if c.progressInterval <= 0 {
		return nil, usagef("--progress-interval must be positive")
	}
	c.inputs = fs.Args()
	if len(c.inputs) == 0 {
		return nil, usagef("no input: give one or more files, or - for standard input")
	}
	return &c, nil
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
