package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/rankeval/rankeval/config"
	"github.com/rankeval/rankeval/evalflags"
	"github.com/rankeval/rankeval/metrics"
)

var (
	errHelp    = errors.New("help shown")
	errVersion = errors.New("version asked")
)

const usageHead = `Usage: rankeval [flags] INPUT... (flags may also follow the inputs; -- ends them)
       rankeval merge [flags] STATE... (the summary of runs saved with --state)
       rankeval propensities [flags] LOG... (a click log's position bias, estimated)
       rankeval trec_eval [trec_eval's flags] QRELS RUN (a drop-in trec_eval)
       rankeval metrics (list the metrics)
       rankeval help [COMMAND] (this help or a command's; help --man: the man page)
       rankeval completion bash|zsh|fish (a shell completion script)

Computes ranking-evaluation metrics over a search or click log: one row per
(query, document) with the model's score and the relevance label. Rows of a
query must be contiguous (or use --unsorted). INPUT is a file, a directory
(read recursively), a quoted glob, an s3://, gs://, az:// or abfss:// object
or prefix, an https:// URL, or - for standard input: JSONL, CSV or TSV (plain, gzip, zstd), Parquet, or Arrow
IPC file or stream, recognised from the first bytes (TREC runs with --qrels).

`

const usageTail = `
TREC input: rankeval --qrels QRELS [--profile trec_eval|gdeval] RUN...

Settings file: --config FILE or RANKEVAL_CONFIG holds flags, one a line;
the command line overrides it.

Exit status: 0 ok, 1 input or runtime error, 2 usage error, 3 a gate failed
(--fail-under, --fail-if-worse, --fail-on-empty), 130/143 interrupted
(SIGINT/SIGTERM).
`

// cliFlags are rankeval's flags, defined on fs and writing into a Config.
type cliFlags struct {
	fs            *flag.FlagSet
	f             *evalflags.Flags
	help, version *bool
	configPath    string
}

// newFlags defines rankeval's flags, writing into c: one flag set for the
// run, its help, its completion scripts and its man page.
func newFlags(c *config.Config) *cliFlags {
	fs := flag.NewFlagSet("rankeval", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cf := &cliFlags{fs: fs, f: evalflags.Register(fs, c)}
	evalflags.RegisterSources(fs, &c.Sources)
	evalflags.RegisterOutputs(fs, &c.Outputs, evalflags.Output, evalflags.PerQuery)
	cf.f.RegisterRun()
	evalflags.RegisterGates(fs, &c.Gates)
	evalflags.RegisterOutputs(fs, &c.Outputs, evalflags.Report, evalflags.State)
	evalflags.RegisterConfig(fs, &cf.configPath)
	cf.version = fs.Bool("version", false, "print rankeval's version (module version and VCS revision) and exit")
	cf.help = fs.Bool("help", false, "show this help")
	fs.BoolVar(cf.help, "h", false, "show this help")
	return cf
}

// parseFlags maps the command line to a Config and the INPUT arguments.
func parseFlags(args []string, stderr io.Writer) (config.Config, []string, error) {
	c := config.Default()
	cf := newFlags(&c)
	fs, f, help, version := cf.fs, cf.f, cf.help, cf.version

	pos, origins, err := evalflags.ParseSettings(fs, args, os.Getenv)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(fs, stderr)
			return c, nil, errHelp
		}
		if errors.Is(err, config.ErrUsage) {
			return c, nil, err
		}
		return c, nil, config.Usagef("%w", err)
	}
	if _, ok := origins[evalflags.ConfigFlag]; ok {
		c.Origins = origins // a settings file was read: the summary says what came from where
	}
	if *help {
		printUsage(fs, stderr)
		return c, nil, errHelp
	}
	if *version {
		return c, nil, errVersion
	}
	if c.Outputs.Summary == "-" {
		c.Outputs.Summary = "" // standard output, as for --per-query -
	}
	return c, pos, f.Finish()
}

func printUsage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprint(w, usageHead, metrics.Help(), "\nFlags:\n")
	evalflags.PrintFlags(w, fs, nil)
	fmt.Fprint(w, usageTail)
}
