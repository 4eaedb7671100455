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
	"github.com/rankeval/rankeval/propensity"
)

const propensitiesUsage = `Usage: rankeval propensities [flags] LOG... (flags may also follow the logs)

Estimates the position bias of a click log, with no intervention: each
position's propensity of examination relative to position 1, with a 95%
interval (a bootstrap over queries), written as the position,propensity
file that rankeval --position-bias reads as it is. A row is a document of
a query (--query-col: what repeats across impressions) shown at a logged
position (--position-col) and clicked or not (--label-col, 0 or 1), by a
ranker (--ranker-col, or one --system NAME=PATH log per ranker). The rows
may come in any order. A LOG is read as a run reads its inputs (a file, a
directory, a quoted glob, an object-store object or prefix, an https://
URL, or -).

Only documents of a query shown at two positions or more inform the
estimate: several rankers that order the same queries differently (A/B
buckets), or one whose order varies. Positions without such evidence are
refused, with the reason on stderr, and the file ends before the first.
Stderr also names the power law k^-η (--position-bias pow:η) closest to
the estimate; --report FILE draws both, with the figures, in HTML.

Flags:
`

// propensityFlags defines rankeval propensities' flags, writing into c and
// help: one flag set for the command, its help and its completion.
func propensityFlags(c *config.Config, help *bool) (*flag.FlagSet, *evalflags.Flags) {
	fs := flag.NewFlagSet("rankeval propensities", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := evalflags.RegisterPropensities(fs, c)
	fs.BoolVar(help, "help", false, "show this help")
	fs.BoolVar(help, "h", false, "show this help")
	return fs, f
}

// propensitiesCommand is rankeval propensities: flags to a Config, the
// estimate, and the file (and --report's page) written whole.
func propensitiesCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c := config.Default()
	help := new(bool)
	fs, f := propensityFlags(&c, help)
	names, err := evalflags.Parse(fs, args)
	if err != nil || *help {
		fmt.Fprint(stderr, propensitiesUsage)
		evalflags.PrintFlags(stderr, fs, nil)
		if err != nil {
			return config.Usagef("%w", err)
		}
		return errHelp
	}
	if err := f.Finish(); err != nil {
		return err
	}
	if c.Outputs.Summary == "-" {
		c.Outputs.Summary = ""
	}
	sources := make([]rankeval.Source, len(names))
	for i, n := range names {
		sources[i] = rankeval.File(n)
	}
	job, err := rankeval.PreparePropensities(c, sources...)
	if err != nil {
		return err
	}
	o, err := openOutputs(objstore.WithReadTimeout(ctx, c.ReadTimeout), stdout, c.Outputs.Summary, c.Outputs.Report, c.Outputs.State)
	if err != nil {
		return err
	}
	defer o.abort()
	// the table's run files are removed by the signal watchdog too
	ctx = propensity.WithRunHook(ctx, func(name string, made bool) {
		if made {
			temps.add(name)
		} else {
			temps.remove(name)
		}
	})
	res, err := job.Run(ctx)
	if res == nil {
		return err
	}
	defer res.Close()
	return writePropensities(o, res, err, stderr)
}

// writePropensities writes, into outputs o opened before the work, what
// rankeval propensities and a merge of propensity states give: the
// estimate (--output, or stdout) with its summary and notes on stderr,
// its report (--report) and the state (--state), each whole or not at
// all; err is the estimate's failure (propensity.ErrNoEstimate), after
// which only the state is written.
func writePropensities(o *outputs, res *rankeval.Propensities, err error, stderr io.Writer) error {
	if err != nil { // no estimate; the state is saved
		if werr := res.WriteState(o.state); werr != nil {
			return werr
		}
		if cerr := o.state.commit(); cerr != nil {
			return cerr
		}
		return rankeval.StateSaved(err, o.state.Target())
	}
	fmt.Fprintln(stderr, "rankeval:", res.Estimate.Summary())
	fmt.Fprintln(stderr, "rankeval:", res.Fits().Closest())
	for _, n := range res.Estimate.Notes() {
		fmt.Fprintln(stderr, "rankeval: note:", n)
	}
	return o.finishPropensities(res)
}
