package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/rankeval/rankeval"
	"github.com/rankeval/rankeval/config"
	"github.com/rankeval/rankeval/evalflags"
	"github.com/rankeval/rankeval/objstore"
)

const mergeUsage = `Usage: rankeval merge [flags] STATE... (flags may also follow the states)

Prints the summary of the union of runs saved with rankeval --state, as one
run over all their logs would print it, without reading the logs. A STATE is
a file, a quoted glob, an object-store object or glob, or an https:// URL.
The states must have been made with the same metrics, options, systems,
slice columns and bootstrap size; not the same --correction, which adjusts
p-values as the summary is printed: merge's when given, else the first state's. States
made from one input (a day's log, known by its queries' digest whatever its
path or format) are refused: a merged state holds its parts' inputs, so a
week merged again with one of its days is too. Otherwise a query id in two
states counts twice (two evaluations).

States of rankeval propensities --state merge likewise, into the estimate
over all their logs (the position,propensity file, on standard output or
--output) and, with --state, the merged state: they must have been made
with the same columns, --ranker-col, --max-position, --method,
--min-clicks and --replicates, from different logs. Runs' states and
propensity states do not merge together.

Flags:
`

// mergeFlags defines rankeval merge's flags, writing into mc and help:
// one flag set for the command, its help and its completion.
func mergeFlags(mc *rankeval.MergeConfig, help *bool) *flag.FlagSet {
	fs := flag.NewFlagSet("rankeval merge", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	evalflags.RegisterFormat(fs, &mc.Format)
	evalflags.RegisterTableNames(fs, &mc.TableNames)
	evalflags.RegisterOutputs(fs, &mc.Outputs, evalflags.Output, evalflags.Report, evalflags.State)
	evalflags.RegisterGates(fs, &mc.Gates)
	evalflags.RegisterReadTimeout(fs, &mc.ReadTimeout)
	evalflags.RegisterQuiet(fs, new(bool))               // merge shows no progress
	evalflags.RegisterCorrection(fs, &mc.Correction, "") // "": the first state's
	evalflags.RegisterDetect(fs, &mc.Detect)
	fs.BoolVar(help, "help", false, "show this help")
	fs.BoolVar(help, "h", false, "show this help")
	return fs
}

// mergeStates is the merge subcommand: flags to a MergeConfig, the merge,
// and the outputs written as a run writes them.
func mergeStates(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	mc := rankeval.MergeConfig{Format: config.Default().Format, ReadTimeout: config.Default().ReadTimeout, Log: stderr}
	help := new(bool)
	fs := mergeFlags(&mc, help)
	names, err := evalflags.Parse(fs, args)
	if err != nil || *help {
		fmt.Fprint(stderr, mergeUsage)
		evalflags.PrintFlags(stderr, fs, nil)
		if err != nil {
			return config.Usagef("%w", err)
		}
		return errHelp
	}
	if err := config.CheckReadTimeout(mc.ReadTimeout); err != nil {
		return err
	}
	if mc.Outputs.Summary == "-" {
		mc.Outputs.Summary = ""
	}
	states := make([]rankeval.Source, len(names))
	for i, n := range names {
		states[i] = rankeval.File(n)
	}
	res, props, err := rankeval.MergeStates(ctx, mc, states...)
	if props != nil {
		defer props.Close()
		outs, oerr := openOutputs(objstore.WithReadTimeout(ctx, mc.ReadTimeout), stdout, mc.Outputs.Summary, mc.Outputs.Report, mc.Outputs.State)
		if oerr != nil {
			return oerr
		}
		defer outs.abort()
		return writePropensities(outs, props, err, stderr)
	}
	if err != nil {
		return err
	}
	outs, err := openOutputs(objstore.WithReadTimeout(ctx, mc.ReadTimeout), stdout, mc.Outputs.Summary, mc.Outputs.Report, mc.Outputs.State)
	if err != nil {
		return err
	}
	defer outs.abort()
	return outs.finish(res, mc.Format, nil)
}
