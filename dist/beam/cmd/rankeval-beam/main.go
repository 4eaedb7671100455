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
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/rankeval/rankeval/dist/beam/rankbeam"
	"github.com/rankeval/rankeval/evalflags"
	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/objstore"
	"github.com/rankeval/rankeval/reader"
)

// options are the flags of a Beam run, registered on the global flag set
// beside Beam's own (--runner, --endpoint, ...): rankeval's shared flags,
// then the ones only this command has.
type options struct {
	shared                       *evalflags.Values
	src                          *evalflags.Sources
	output, perQuery, state      string
	shards, batchSize, rgPerPart int
}

func register(fs *flag.FlagSet) *options {
	o := &options{shared: evalflags.Register(fs), src: evalflags.RegisterSources(fs)}
	fs.StringVar(&o.output, "output", "-", "write the summary here: a local path, s3://... or gs://...; - is the\nstandard output of the process running the last step (yours with Prism;\na worker's log on a cluster, so give a path there)")
	fs.StringVar(&o.state, "state", "", "also write the run's complete state here (a local path, s3://... or gs://...),\nto merge with rankeval's states (rankeval merge)")
	fs.StringVar(&o.perQuery, "per-query", "", "also write per-query records as shards PREFIX-SSSSS-of-NNNNN.jsonl")
	fs.IntVar(&o.shards, "per-query-shards", 8, "number of per-query shards")
	fs.IntVar(&o.batchSize, "batch-size", 0, "rows per read batch (0: the reader's default)")
	fs.IntVar(&o.rgPerPart, "row-groups-per-part", 1, "Parquet row groups per work item")
	// rankeval's run-time flags, accepted so a script written for rankeval
	// runs unchanged: the runner, not these, decides parallelism and logging
	fs.Bool("quiet", false, "accepted for rankeval's scripts; the runner logs progress")
	fs.Duration("progress-interval", 0, "accepted for rankeval's scripts; the runner logs progress")
	fs.Int("workers", 0, "accepted for rankeval's scripts; the runner decides parallelism (--parallelism, ...)")
	return o
}

// beamOnly lists the flags register adds besides the shared ones.
var beamOnly = []string{"output", "per-query", "per-query-shards", "batch-size", "row-groups-per-part", "state",
	"quiet", "progress-interval", "workers"}

// config checks the flags as rankeval does and expands the inputs.
func (o *options) config(fs *flag.FlagSet, args []string) (*rankbeam.Config, error) {
	s, err := o.shared.Finish(fs)
	if err != nil {
		return nil, err
	}
	if err := s.Columns.Check(); err != nil {
		return nil, evalflags.Usagef("%w", err)
	}
	logs, err := o.src.Apply(s, args)
	if err != nil {
		return nil, err
	}
	c := &rankbeam.Config{Flags: *o.shared, Sources: *o.src, BatchSize: o.batchSize, RowGroupsPerPart: o.rgPerPart, State: o.state}
	if o.batchSize < 0 || o.rgPerPart < 1 || o.shards < 1 {
		return nil, evalflags.Usagef("--row-groups-per-part and --per-query-shards must be >= 1, --batch-size >= 0")
	}
	if o.perQuery == "-" {
		return nil, evalflags.Usagef("--per-query -: give a prefix for the shards (a path, or an s3:// or gs:// prefix); standard output cannot hold shards")
	}
	if o.state == "-" || o.state != "" && o.state == o.output {
		return nil, evalflags.Usagef("--state %q: give a file of its own (a local path every worker can write, s3://... or gs://...)", o.state)
	}
	if len(args) == 0 && logs == nil {
		return nil, evalflags.Usagef("no input: give files, directories, globs, s3:// or gs:// paths")
	}
	if logs == nil {
		logs = [][]string{args}
	}
	for _, log := range logs {
		for _, a := range log {
			if a == reader.Stdin {
				return nil, evalflags.Usagef("standard input cannot be split between workers; give files")
			}
		}
		// each --system log's files follow the previous log's
		ins, err := reader.Expand(log)
		if err != nil {
			return nil, err
		}
		for _, in := range ins {
			c.Inputs = append(c.Inputs, in.Path)
		}
		if len(o.src.System) > 0 {
			c.LogFiles = append(c.LogFiles, len(ins))
		}
	}
	if o.src.Qrels != "" {
		// rankeval's TREC readers take files, not objects: refused here
		// rather than by every worker
		for _, p := range append([]string{o.src.Qrels}, c.Inputs...) {
			if objstore.IsURL(p) {
				return nil, evalflags.Usagef("%s: TREC runs and qrels are read from a file system (local, or shared by the workers), not object storage", p)
			}
		}
		if _, err := os.Stat(o.src.Qrels); err != nil {
			return nil, err
		}
	}
	return c, c.Check()
}

func main() {
	o := register(flag.CommandLine)
	flag.Usage = func() { usage(os.Stderr) }
	// flags may follow the inputs, as with rankeval (CommandLine exits on
	// a bad flag)
	args, _ := evalflags.Parse(flag.CommandLine, os.Args[1:])
	// A worker process started by a runner returns nowhere from Init: it
	// serves the pipeline's steps. Only the launching process goes on.
	beam.Init()
	if err := launch(context.Background(), o, flag.CommandLine, args); err != nil {
		fmt.Fprintln(os.Stderr, "rankeval-beam:", err)
		if errors.Is(err, evalflags.ErrUsage) || errors.Is(err, rankbeam.ErrConfig) {
			os.Exit(2)
		}
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
	fmt.Fprint(w, `Usage: rankeval-beam [flags] INPUT... (flags may also follow the inputs)

Computes rankeval's metrics as an Apache Beam pipeline. INPUT is a file, a
directory, a glob, or an s3:// or gs:// object, prefix or glob; JSONL (plain,
gzip, zstd) or Parquet (split by row group between workers). Rows need not be
sorted by query: the shuffle groups them. With --system NAME=PATH (twice or
more) the logs of compared systems are joined by query id, in any order; with
--qrels the inputs are TREC runs, joined by query id to the judgments. Runs on Prism by default; see the
docs/distributed.md for Flink, Spark and Dataflow.

`)
	fmt.Fprint(w, metrics.Help(), "\nrankeval's flags:\n")
	flag.VisitAll(func(f *flag.Flag) {
		if slices.Contains(evalflags.Names, f.Name) || slices.Contains(evalflags.SourceNames, f.Name) || slices.Contains(beamOnly, f.Name) {
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
	fmt.Fprint(w, "\ndocs/distributed.md has a command for each runner.\n")
}
