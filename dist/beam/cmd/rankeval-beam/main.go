// Command rankeval-beam computes rankeval's metrics as an Apache Beam
// pipeline: locally on Prism (the default runner), or on Flink, Spark or
// Dataflow with Beam's runner flags. It takes rankeval's flags for metrics
// and conventions and prints the same summary; this package only wires
// flags to the rankbeam package.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/rankeval/rankeval/dist/beam/rankbeam"
	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/reader"
	"github.com/rankeval/rankeval/summary"
)

const defaultMetrics = "map,mrr,ndcg@10,err@10,p@10,r@10"

// options are rankeval's flags that apply to a Beam run, registered on the
// global flag set beside Beam's own (--runner, --endpoint, ...).
type options struct {
	metricList, ties, gain, empty, relThreshold string
	maxGrade                                    float64
	profile, format, output, perQuery, dedup    string
	shards, maxGroupRows, batchSize, rgPerPart  int
	cols                                        reader.Columns
}

func register(fs *flag.FlagSet) *options {
	o := &options{}
	fs.StringVar(&o.metricList, "metrics", defaultMetrics, "comma-separated metrics to compute (as rankeval)")
	fs.StringVar(&o.metricList, "m", defaultMetrics, "shorthand for --metrics")
	fs.StringVar(&o.ties, "ties", "input", "order of rows with equal scores: input, trec, optimistic, pessimistic, average")
	fs.StringVar(&o.gain, "gain", "exp", "DCG gain of a label y: exp (2^y - 1) or linear (y)")
	fs.Float64Var(&o.maxGrade, "max-grade", 4, "maximum grade G of ERR")
	fs.StringVar(&o.relThreshold, "rel-threshold", "", "a row is relevant when its label >= this threshold (unset: label > 0)")
	fs.StringVar(&o.empty, "empty", "skip", "queries with no relevant row: skip, zero, one or error")
	fs.StringVar(&o.profile, "profile", "", "reproduce a peer tool's conventions: trec_eval or gdeval")
	fs.StringVar(&o.format, "format", "text", "summary format: text, json or trec")
	fs.StringVar(&o.output, "output", "-", "write the summary here: a local path, s3://... or gs://...; - is the\nstandard output of the process running the last step (yours with Prism;\na worker's log on a cluster, so give a path there)")
	fs.StringVar(&o.perQuery, "per-query", "", "also write per-query records as shards PREFIX-SSSSS-of-NNNNN.jsonl")
	fs.IntVar(&o.shards, "per-query-shards", 8, "number of per-query shards")
	fs.StringVar(&o.cols.Query, "query-col", "query_id", "field holding the query id")
	fs.StringVar(&o.cols.Doc, "doc-col", "doc_id", "field holding the document id: used by --ties trec (which requires it) and to\ncatch a document listed twice in a query (--dedup); rows may lack it otherwise")
	fs.StringVar(&o.dedup, "dedup", "error", "a doc id repeated within a query: error or first (keep the first row)")
	fs.StringVar(&o.cols.Score, "score-col", "score", "field holding the model's score")
	fs.StringVar(&o.cols.Label, "label-col", "label", "field holding the relevance label")
	fs.StringVar(&o.cols.Rank, "rank-col", "", "field holding a rank (1 = top); orders rows instead of the score")
	fs.IntVar(&o.maxGroupRows, "max-group-rows", 1_000_000, "a query with more rows than this is an error")
	fs.IntVar(&o.batchSize, "batch-size", 0, "rows per read batch (0: the reader's default)")
	fs.IntVar(&o.rgPerPart, "row-groups-per-part", 1, "Parquet row groups per work item")
	return o
}

// config checks the flags as rankeval does and expands the inputs.
func (o *options) config(fs *flag.FlagSet, args []string) (*rankbeam.Config, error) {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	c := &rankbeam.Config{Metrics: o.metricList, Format: o.format, Columns: o.cols,
		MaxGroupRows: o.maxGroupRows, BatchSize: o.batchSize, RowGroupsPerPart: o.rgPerPart}
	if o.profile != "" {
		p, ok := summary.Profiles[o.profile]
		if !ok {
			return nil, fmt.Errorf("--profile %q: want trec_eval or gdeval", o.profile)
		}
		for name, v := range p.Flags {
			if !set[name] {
				fs.Set(name, v)
			}
		}
		c.Profile, c.ScoreFloat32 = o.profile, p.ScoreFloat32
	}
	c.Ties, c.Gain, c.Empty = strings.ToLower(o.ties), strings.ToLower(o.gain), strings.ToLower(o.empty)
	if _, ok := summary.Ties[c.Ties]; !ok {
		return nil, fmt.Errorf("--ties %q: want input, trec, optimistic, pessimistic or average", o.ties)
	}
	if _, ok := summary.Gains[c.Gain]; !ok {
		return nil, fmt.Errorf("--gain %q: want exp or linear", o.gain)
	}
	if _, ok := summary.Empties[c.Empty]; !ok {
		return nil, fmt.Errorf("--empty %q: want skip, zero, one or error", o.empty)
	}
	if !(o.maxGrade > 0) || o.maxGrade > 1000 {
		return nil, fmt.Errorf("--max-grade %v: want a number in (0, 1000]", o.maxGrade)
	}
	c.MaxGrade = o.maxGrade
	if o.relThreshold != "" {
		t, err := strconv.ParseFloat(o.relThreshold, 64)
		if err != nil || t != t {
			return nil, fmt.Errorf("--rel-threshold %q: want a number", o.relThreshold)
		}
		c.RelThreshold = &t
	}
	if _, err := metrics.ParseList(o.metricList); err != nil {
		return nil, err
	}
	if o.format != "text" && o.format != "json" && o.format != "trec" {
		return nil, fmt.Errorf("--format %q: want text, json or trec", o.format)
	}
	if o.maxGroupRows < 1 || o.batchSize < 0 || o.rgPerPart < 1 || o.shards < 1 {
		return nil, errors.New("--max-group-rows, --row-groups-per-part and --per-query-shards must be >= 1, --batch-size >= 0")
	}
	if c.Columns.Rank != "" && !set["score-col"] {
		c.Columns.Score = ""
	}
	switch o.dedup {
	case "error":
	case "first":
		c.DedupFirst = true
	default:
		return nil, fmt.Errorf("--dedup %q: want error or first", o.dedup)
	}
	// as rankeval: only the trec tie order requires a doc id on every row
	c.Columns.DocOptional = c.Ties != "trec"
	if len(args) == 0 {
		return nil, errors.New("no input: give files, directories, globs, s3:// or gs:// paths")
	}
	for _, a := range args {
		if a == reader.Stdin {
			return nil, errors.New("standard input cannot be split between workers; give files")
		}
	}
	ins, err := reader.Expand(args)
	if err != nil {
		return nil, err
	}
	for _, in := range ins {
		c.Inputs = append(c.Inputs, in.Path)
	}
	return c, nil
}

func main() {
	o := register(flag.CommandLine)
	flag.Usage = func() { usage(os.Stderr) }
	flag.Parse()
	// A worker process started by a runner returns nowhere from Init: it
	// serves the pipeline's steps. Only the launching process goes on.
	beam.Init()
	if err := launch(context.Background(), o, flag.CommandLine, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "rankeval-beam:", err)
		os.Exit(1)
	}
}

func launch(ctx context.Context, o *options, fs *flag.FlagSet, args []string) error {
	cfg, err := o.config(fs, args)
	if err != nil {
		return err
	}
	p, s := beam.NewPipelineWithRoot()
	sum, err := rankbeam.Build(s, *cfg, o.perQuery, o.shards)
	if err != nil {
		return err
	}
	rankbeam.WriteTo(s, sum, o.output)
	// Beam's loopback runner leaves an empty beamloopbackworker-* file in
	// the temp directory on every run (its own TODO, apache/beam#27569).
	// The launch gets a temp directory of its own, removed afterwards.
	if dir, err := os.MkdirTemp("", "rankeval-beam-"); err == nil {
		defer os.RemoveAll(dir)
		old, had := os.LookupEnv("TMPDIR")
		os.Setenv("TMPDIR", dir)
		defer func() {
			if had {
				os.Setenv("TMPDIR", old)
			} else {
				os.Unsetenv("TMPDIR")
			}
		}()
	}
	return beamx.Run(ctx, p)
}

func usage(w io.Writer) {
	fmt.Fprint(w, `Usage: rankeval-beam [flags] INPUT...

Computes rankeval's metrics as an Apache Beam pipeline. INPUT is a file, a
directory, a glob, or an s3:// or gs:// object, prefix or glob; JSONL (plain,
gzip, zstd) or Parquet (split by row group between workers). Rows need not be
sorted by query: the shuffle groups them. Runs on Prism by default; see the
README for Flink, Spark and Dataflow.

rankeval's flags:
`)
	flag.VisitAll(func(f *flag.Flag) {
		switch f.Name {
		case "metrics", "m", "ties", "gain", "max-grade", "rel-threshold", "empty", "dedup", "profile", "format", "output",
			"per-query", "per-query-shards", "query-col", "doc-col", "score-col", "label-col", "rank-col",
			"max-group-rows", "batch-size", "row-groups-per-part":
			fmt.Fprintf(w, "  --%s (default %q)\n      %s\n", f.Name, f.DefValue, strings.ReplaceAll(f.Usage, "\n", "\n      "))
		}
	})
	fmt.Fprint(w, "\nBeam's flags, which choose and configure the runner:\n")
	flag.VisitAll(func(f *flag.Flag) {
		switch f.Name {
		case "runner", "endpoint", "environment_type", "environment_config", "worker_binary", "job_name",
			"parallelism", "project", "region", "staging_location", "temp_location", "sdk_container_image", "async":
			fmt.Fprintf(w, "  --%s\n      %s\n", f.Name, strings.ReplaceAll(f.Usage, "\n", "\n      "))
		}
	})
	fmt.Fprint(w, "\nThe README's \"Distributed runs\" section has a command for each runner.\n")
}
