package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/rankeval/rankeval/evalflags"
	"github.com/rankeval/rankeval/internal/bytesize"
	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/pipeline"
	"github.com/rankeval/rankeval/summary"
)

var (
	errHelp    = errors.New("help shown")
	errVersion = errors.New("version asked")
)

// config is the parsed command line.
type config struct {
	shared   *evalflags.Settings // metrics, conventions, columns, profile, format
	output   string
	perQuery string
	workers  int
	batch    int
	inputs   []string

	// unsorted input
	unsorted bool
	tmpDir   string
	memLimit int64

	// operations
	quiet            bool
	progressInterval time.Duration
	gateFlags        *evalflags.Gates
	gates            *summary.GateSpec

	// what is read besides the inputs: --system logs, TREC --qrels
	src  *evalflags.Sources
	logs [][]string // per system with --system; nil when the systems are score columns

	report string
	state  string
}

const usageHead = `Usage: rankeval [flags] INPUT... (flags may also follow the inputs; -- ends them)
       rankeval metrics (list the metrics)
       rankeval merge [flags] STATE... (the summary of runs saved with --state)

Computes ranking-evaluation metrics over a search or click log: one row per
(query, document) with the model's score and the relevance label. Rows of a
query must be contiguous (or use --unsorted). INPUT is a file, a directory
(read recursively), a quoted glob, an s3:// or gs:// object or prefix, or -
for standard input: JSONL (plain, gzip, zstd), Parquet, or Arrow IPC file or
stream, recognised from the first bytes.

`

const usageTail = `
TREC input: rankeval --qrels QRELS [--profile trec_eval|gdeval] RUN...

Exit status: 0 ok, 1 input or runtime error, 2 usage error, 3 a gate failed
(--fail-under, --fail-on-empty), 130/143 interrupted (SIGINT/SIGTERM).
`

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("rankeval", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var c config
	shared := evalflags.Register(fs)
	c.src = evalflags.RegisterSources(fs)
	fs.StringVar(&c.output, "output", "", "write the summary to this file instead of standard output (- is standard\noutput; a file is written to a temporary name and renamed when complete)")
	fs.StringVar(&c.perQuery, "per-query", "", "also write one JSON object per query, in input order, with its id and every\nmetric (null where undefined) to this file; - for standard output")
	fs.IntVar(&c.workers, "workers", 0, "goroutines evaluating queries, and decoding each Parquet, Arrow or TREC run file (0 = one per CPU); results do not depend on it")
	fs.IntVar(&c.batch, "batch-size", 8192, "rows per read batch; results do not depend on it")
	fs.BoolVar(&c.unsorted, "unsorted", false, "accept logs whose query ids are not contiguous: rows are partitioned by query\ninto compressed spill files under --tmp-dir, then grouped; memory stays within\n--mem-limit; the summary is bit-identical to the sorted log's (per-query\nrecords come out in partition order)")
	fs.StringVar(&c.tmpDir, "tmp-dir", os.TempDir(), "directory for --unsorted spill files (removed on success, failure and interrupt)")
	memLimit := fs.String("mem-limit", bytesize.Format(pipeline.DefaultMemLimit), "memory budget of --unsorted (e.g. 256MiB, 2GiB), in the bytes the rows held take\n(ids, values, some 100 bytes a row): half for the spill file being grouped,\nthe rest for queries; one query may hold an eighth (--max-group-bytes)")
	evalflags.RegisterQuiet(fs, &c.quiet)
	fs.DurationVar(&c.progressInterval, "progress-interval", 30*time.Second, "when stderr is not a terminal (cron, Airflow, CI), log a progress line this\noften, and a final line; on a terminal a single line updates in place")
	gates := evalflags.RegisterGates(fs)
	evalflags.RegisterReport(fs, &c.report)
	fs.StringVar(&c.state, "state", "", "also write the run's complete state to this file, to merge with others later\n(rankeval merge) without reading the logs again")
	version := fs.Bool("version", false, "print rankeval's version (module version and VCS revision) and exit")
	help := fs.Bool("help", false, "show this help")
	fs.BoolVar(help, "h", false, "show this help")

	pos, err := evalflags.Parse(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(fs, stderr)
			return nil, errHelp
		}
		return nil, usageError{err: err}
	}
	if *help {
		printUsage(fs, stderr)
		return nil, errHelp
	}
	if *version {
		return nil, errVersion
	}
	if c.shared, err = shared.Finish(fs); err != nil {
		return nil, err
	}
	if c.workers < 0 || c.batch < 1 {
		return nil, usagef("--workers must be >= 0, --batch-size >= 1")
	}
	if c.output == "-" {
		c.output = "" // standard output, as for --per-query -
	}
	c.gateFlags = gates
	if c.memLimit, err = bytesize.Parse(*memLimit); err != nil || c.memLimit < 16<<20 {
		return nil, usagef("--mem-limit %q: want a size of at least 16MiB, as 256MiB or 2GiB (units B, KB, KiB, MB, MiB, GB, GiB; at most 4294967296GiB)", *memLimit)
	}
	if c.progressInterval <= 0 {
		return nil, usagef("--progress-interval must be positive")
	}
	c.inputs = pos
	if err := c.analysisFlags(); err != nil {
		return nil, err
	}
	if len(c.inputs) == 0 && c.logs == nil {
		return nil, usagef("no input: give one or more files, or - for standard input")
	}
	return &c, nil
}

// analysisFlags checks and applies --system, --missing, --qrels and
// --complete, and what only this command knows of them and of outputs.
func (c *config) analysisFlags() error {
	var err error
	if c.logs, err = c.src.Apply(c.shared, c.inputs); err != nil {
		return err
	}
	if c.unsorted && c.logs != nil {
		return usagef("--unsorted reads one log: compare score columns of it (--score-col a,b), or sort the --system logs by query id")
	}
	if err := c.src.CheckState(c.state); err != nil {
		return err
	}
	c.gates, err = c.gateFlags.Spec(c.shared.Rules.Metrics, len(c.shared.Rules.Systems))
	return err
}

// outputs are the files the run writes, for evalflags.CheckOutputs.
func (c *config) outputs() map[string]string {
	return map[string]string{"--output": c.output, "--per-query": c.perQuery, "--report": c.report, "--state": c.state}
}

func printUsage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprint(w, usageHead, metrics.Help(), "\nFlags:\n")
	evalflags.PrintFlags(w, fs, nil)
	fmt.Fprint(w, usageTail)
}
