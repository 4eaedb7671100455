// Command rankeval-beam computes rankeval's metrics as an Apache Beam
// pipeline: locally on Prism (the default runner), or on Flink, Spark or
// Dataflow with Beam's runner flags. It takes rankeval's flags for metrics
// and conventions and prints the same summary; this package only wires
// flags to the rankbeam package.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/rankeval/rankeval/config"
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
	cfg               config.Config
	flags             *evalflags.Flags
	shards, rgPerPart int
	debug             bool
	// propensities: the job is rankeval-beam propensities'
	propensities bool
}

func register(fs *flag.FlagSet) *options {
	o := &options{cfg: config.Default()}
	o.flags = evalflags.Register(fs, &o.cfg)
	evalflags.RegisterSources(fs, &o.cfg.Sources)
	evalflags.RegisterGates(fs, &o.cfg.Gates)
	evalflags.RegisterOutputs(fs, &o.cfg.Outputs, evalflags.Output, evalflags.PerQuery, evalflags.Report, evalflags.State)
	// rankeval's run flags, so a script written for rankeval runs
	// unchanged: of them only --batch-size applies (the runner decides
	// parallelism and logging; a query's rows are grouped by id, in any
	// order)
	o.flags.RegisterRun()
	fs.IntVar(&o.shards, "per-query-shards", 8, "number of per-query shards (--per-query PREFIX writes PREFIX-SSSSS-of-NNNNN.jsonl)")
	o.registerBeam(fs)
	return o
}

// registerPropensities registers the flags of rankeval-beam propensities:
// rankeval propensities' (evalflags.RegisterPropensities), then the ones
// only this command has.
func registerPropensities(fs *flag.FlagSet) *options {
	o := &options{cfg: config.Default(), propensities: true, shards: 1}
	o.flags = evalflags.RegisterPropensities(fs, &o.cfg)
	o.registerBeam(fs)
	return o
}

// registerBeam registers the flags both commands have and rankeval does
// not.
func (o *options) registerBeam(fs *flag.FlagSet) {
	fs.BoolVar(&o.debug, "beam-debug", false, "show Beam's log and a failed job's whole report (the runner's execution plan)\nbesides rankeval's message")
	fs.IntVar(&o.rgPerPart, "row-groups-per-part", 1, "Parquet row groups per work item")
}

// beamOnly lists the flags register adds besides the shared ones.
var beamOnly = []string{"output", "per-query", "per-query-shards", "batch-size", "row-groups-per-part", "state",
	"quiet", "progress-interval", "workers", "unsorted", "tmp-dir", "mem-limit", "fail-under", "fail-if-worse", "fail-on-empty", "report", "beam-debug"}

// config checks the flags as rankeval does and expands the inputs.
func (o *options) config(fs *flag.FlagSet, args []string) (*rankbeam.Config, error) {
	if err := o.flags.Finish(); err != nil {
		return nil, err
	}
	if o.propensities {
		return o.propensityConfig(fs, args)
	}
	s, err := o.cfg.Resolve()
	if err != nil {
		return nil, err
	}
	if err := s.Columns.Check(); err != nil {
		return nil, config.Usagef("%w", err)
	}
	if err := o.cfg.Run.Check(); err != nil {
		return nil, err
	}
	if args, err = o.cfg.Sources.RunSystems(args); err != nil {
		return nil, err
	}
	logs, err := o.cfg.Sources.Apply(s, args)
	if err != nil {
		return nil, err
	}
	if o.rgPerPart < 1 || o.shards < 1 {
		return nil, config.Usagef("--row-groups-per-part and --per-query-shards must be >= 1")
	}
	if o.cfg.Outputs.PerQuery == "-" {
		return nil, config.Usagef("--per-query -: give a prefix for the shards (a path, or an object-store prefix); standard output cannot hold shards")
	}
	c, err := o.checkInputs(args, logs)
	if err != nil {
		return nil, err
	}
	return c, c.Check()
}

// propensityConfig checks the flags of rankeval-beam propensities as
// rankeval propensities does (config.Config.PreparePropensities) and
// expands the inputs. Without --tmp-dir, the step that estimates spills
// into its worker's temporary directory (an empty Run.TmpDir), not into
// the launcher's, which --tmp-dir's default names and a worker of a
// cluster may not have.
func (o *options) propensityConfig(fs *flag.FlagSet, args []string) (*rankbeam.Config, error) {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "tmp-dir" })
	if !given {
		o.cfg.Run.TmpDir = ""
	}
	p, err := o.cfg.PreparePropensities(args)
	if err != nil {
		return nil, err
	}
	if o.rgPerPart < 1 {
		return nil, config.Usagef("--row-groups-per-part must be >= 1")
	}
	c, err := o.checkInputs(args, p.Logs)
	if err != nil {
		return nil, err
	}
	return c, c.CheckPropensities()
}

// checkInputs checks the outputs and the inputs (args, or each --system
// log's, logs) of a Beam job: the inputs exist and can be read again by
// the workers, in parts; it returns the job's configuration.
func (o *options) checkInputs(args []string, logs [][]string) (*rankbeam.Config, error) {
	out := &o.cfg.Outputs
	if out.Summary == "" {
		out.Summary = "-" // the standard output of the last step's process
	}
	c := &rankbeam.Config{Config: o.cfg, RowGroupsPerPart: o.rgPerPart}
	for _, f := range []struct{ flag, name string }{{"--state", out.State}, {"--report", out.Report}} {
		if f.name == "-" || f.name != "" && (f.name == out.Summary || f.name == out.State && f.flag != "--state") {
			return nil, config.Usagef("%s %q: give a file of its own (a local path every worker can write, s3://... or gs://...)", f.flag, f.name)
		}
	}
	if len(args) == 0 && logs == nil {
		return nil, config.Usagef("no input: give files, directories, globs, or object-store or https:// URLs")
	}
	if logs == nil {
		logs = [][]string{args}
	}
	// Expanded here to fail before the job on a missing input; a worker
	// expands the arguments again (rankbeam.Config.Inputs and Sources), so
	// the job graph does not hold the file list.
	var files []string
	for _, log := range logs {
		for _, a := range log {
			if a == reader.Stdin {
				return nil, config.Usagef("standard input cannot be split between workers; give files")
			}
		}
		ins, err := reader.ExpandContext(objstore.WithReadTimeout(context.Background(), o.cfg.ReadTimeout), log)
		if err != nil {
			return nil, err
		}
		var paths []string
		for _, in := range ins {
			// a worker opens its inputs by name, again and in parts
			if !reader.Rereadable(in.Path) {
				return nil, config.Usagef("%s is a pipe, not a file: it cannot be split between workers; give files", in.Path)
			}
			paths = append(paths, in.Path)
		}
		if err := config.CheckDistinctInputs("input", paths); err != nil {
			return nil, err
		}
		files = append(files, paths...)
	}
	if err := rankbeam.CheckFileCount(len(files)); err != nil {
		return nil, err
	}
	outs := map[string]string{"--output": out.Summary, "--state": out.State, "--report": out.Report}
	if err := config.CheckOutputs(outs, append(files, o.cfg.Sources.Qrels)...); err != nil {
		return nil, err
	}
	if o.cfg.Sources.Qrels != "" {
		// rankeval's TREC readers take files, not objects: refused here
		// rather than by every worker
		for _, p := range append([]string{o.cfg.Sources.Qrels}, files...) {
			if objstore.IsURL(p) {
				return nil, config.Usagef("%s: TREC runs and qrels are read from a file system (local, or shared by the workers), not object storage", p)
			}
		}
		if _, err := os.Stat(o.cfg.Sources.Qrels); err != nil {
			return nil, err
		}
	}
	// Workers of a cluster run elsewhere: relative inputs (and qrels) are
	// read from here, and named as given, as rankeval names them.
	c.Inputs = args
	var err error
	if c.Dir, err = os.Getwd(); err != nil {
		return nil, err
	}
	return c, nil
}

// propensitiesUsage prints rankeval-beam propensities' help.
func propensitiesUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, `Usage: rankeval-beam propensities [flags] LOG... (flags may also follow the logs)

Estimates the position bias of a click log as rankeval propensities does,
as an Apache Beam pipeline: the workers count the clicks and impressions
of each (query, doc, position, ranker) in parts of the logs, the counts are
added per query, and one step estimates from the table of the whole log.
The position,propensity file, --state and --report are rankeval
propensities' on the same logs, byte for byte; the summary and notes go to
the standard error of the process running that step. A LOG is a file, a
directory, a glob, an object-store object, prefix or glob, or an https://
URL; rows may come in any order. Runs on Prism by default; see
docs/distributed.md for Flink, Spark and Dataflow.

The flags are rankeval propensities', and mean what they mean there, with
these differences: --output, --state and --report name a local path every
worker can write, or an object-store URL, and --output - (the default) is
the standard output of the process running the last step; --workers and
--batch-size are accepted for rankeval's scripts (the runner decides
parallelism), and --mem-limit and --tmp-dir bound the table of the step
that estimates (--tmp-dir by default that worker's temporary directory).

rankeval propensities' flags:
`)
	ours := flag.NewFlagSet("", flag.ContinueOnError)
	registerPropensities(ours)
	evalflags.PrintFlags(w, fs, func(name string) bool { return ours.Lookup(name) != nil })
	fmt.Fprint(w, "\nBeam's flags, which choose and configure the runner:\n")
	evalflags.PrintFlags(w, fs, func(name string) bool { return slices.Contains(beamFlags, name) })
	fmt.Fprint(w, "\ndocs/distributed.md has a command for each runner.\n")
}

// beamFlags are the flags of Beam's SDK that --help lists: those that
// choose and configure the runner.
var beamFlags = []string{"runner", "endpoint", "environment_type", "environment_config", "worker_binary", "job_name",
	"parallelism", "project", "region", "staging_location", "temp_location", "sdk_container_image", "async"}

func usage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, `Usage: rankeval-beam [flags] INPUT... (flags may also follow the inputs)

Computes rankeval's metrics as an Apache Beam pipeline. INPUT is a file, a
directory, a glob, an s3://, gs://, az:// or abfss:// object, prefix or
glob, or an https:// URL; JSONL (plain, gzip, zstd) or Parquet (split by row
group between workers). Rows need not be
sorted by query: the shuffle groups them. With --system NAME=PATH (twice or
more) the logs of compared systems are joined by query id, in any order; with
--qrels the inputs are TREC runs, joined by query id to the judgments, and
several runs are compared as systems named by run tag, as rankeval does. Runs
on Prism by default; see docs/distributed.md for Flink, Spark and Dataflow.
rankeval-beam propensities [flags] LOG... estimates a click log's position
bias as rankeval propensities does (rankeval-beam propensities --help).

The flags are rankeval's, and mean what they mean there, with these
differences: --output, --state and --report name a local path every worker
can write, or an object-store URL, and --output - (the default) is the
standard output of the process running the last step (yours with Prism, a
worker's log on a cluster: give a path there); --per-query names a PREFIX
of shards PREFIX-SSSSS-of-NNNNN.jsonl; of the run flags only --batch-size
applies (--workers, --quiet, --progress-interval, --unsorted, --tmp-dir and
--mem-limit are accepted for rankeval's scripts: the runner decides
parallelism and logging, and the shuffle groups rows of any order).

`)
	fmt.Fprint(w, metrics.Help(), "\nrankeval's flags:\n")
	evalflags.PrintFlags(w, fs, func(name string) bool {
		return slices.Contains(evalflags.Names, name) || slices.Contains(evalflags.SourceNames, name) || slices.Contains(beamOnly, name)
	})
	fmt.Fprint(w, "\nBeam's flags, which choose and configure the runner:\n")
	evalflags.PrintFlags(w, fs, func(name string) bool { return slices.Contains(beamFlags, name) })
	fmt.Fprint(w, "\ndocs/distributed.md has a command for each runner.\n")
}
