package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/rankeval/rankeval"
	"github.com/rankeval/rankeval/config"
	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/objstore"
	"github.com/rankeval/rankeval/summary"
	"github.com/rankeval/rankeval/treceval"
)

func run(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	// subcommands, not inputs: a file named metrics is ./metrics
	if len(args) > 0 && args[0] == "metrics" {
		_, err := fmt.Fprint(stdout, metrics.Help())
		return err
	}
	if len(args) > 0 && args[0] == "trec_eval" {
		err := treceval.Run(ctx, args[1:], os.Stdin, stdout, stderr)
		if errors.Is(err, treceval.ErrVersion) {
			_, err = fmt.Fprintln(stdout, "rankeval trec_eval (trec_eval's command line and output, releases", strings.Join(config.TrecReleases, " and ")+"), rankeval", summary.Version())
		}
		return err
	}
	if len(args) > 0 && args[0] == "merge" {
		return mergeStates(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "propensities" {
		return propensitiesCommand(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "help" {
		return helpCommand(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "completion" {
		return completionCommand(args[1:], stdout)
	}
	if err := notACommand(args); err != nil {
		return err
	}
	c, inputs, err := parseFlags(args, stderr)
	if errors.Is(err, errVersion) {
		_, err = fmt.Fprintln(stdout, "rankeval", summary.Version())
		return err
	}
	if err != nil {
		return err
	}
	sources := make([]rankeval.Source, len(inputs))
	for i, in := range inputs {
		sources[i] = rankeval.File(in)
	}
	e, err := rankeval.Prepare(c, sources...)
	if err != nil {
		return err
	}
	var perQuery *atomicFile
	if c.Outputs.PerQuery == "-" {
		e.PerQuery = stdout
	} else if c.Outputs.PerQuery != "" {
		if perQuery, err = createAtomic(objstore.WithReadTimeout(ctx, c.ReadTimeout), c.Outputs.PerQuery); err != nil {
			return err
		}
		defer perQuery.abortUnlessCommitted()
		e.PerQuery = perQuery
	}
	outs, err := openOutputs(objstore.WithReadTimeout(ctx, c.ReadTimeout), stdout, c.Outputs.Summary, c.Outputs.Report, c.Outputs.State)
	if err != nil {
		return err
	}
	defer outs.abort()
	e.Log = stderr
	if !c.Run.Quiet {
		terminal := isTerminal(stderr)
		e.Progress, e.ProgressEvery = progressPrinter(stderr, terminal), c.Run.ProgressInterval
		if terminal {
			e.ProgressEvery = 250 * time.Millisecond
		}
	}
	if c.Run.Unsorted {
		e.OnSpillDir = func(dir string, made bool) {
			if made {
				temps.add(dir)
			} else {
				temps.remove(dir)
			}
		}
		// The Go heap is most of the budget: let the collector work harder
		// near it rather than grow past it.
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(c.Run.MemLimit))
	}
	res, err := e.Run(ctx)
	if err != nil {
		return err
	}
	return outs.finish(res, c.Format, perQuery)
}
