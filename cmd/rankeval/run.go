package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rankeval/rankeval/evalflags"
	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/pipeline"
	"github.com/rankeval/rankeval/reader"
	"github.com/rankeval/rankeval/state"
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
		err := treceval.Main(ctx, args[1:], stdout, stderr, trecEvalEvaluate(stderr))
		if errors.Is(err, treceval.ErrVersion) {
			_, err = fmt.Fprintln(stdout, "rankeval trec_eval (trec_eval's command line and output, releases", strings.Join(evalflags.TrecReleases, " and ")+"), rankeval", summary.Version())
		}
		return err
	}
	if len(args) > 0 && args[0] == "merge" {
		return mergeStates(ctx, args[1:], stdout, stderr)
	}
	c, err := parseFlags(args, stderr)
	if errors.Is(err, errVersion) {
		_, err = fmt.Fprintln(stdout, "rankeval", summary.Version())
		return err
	}
	if err != nil {
		return err
	}
	if c.inputs, err = expandInputs(c.inputs); err != nil {
		return err
	}
	for l := range c.logs {
		if c.logs[l], err = expandInputs(c.logs[l]); err != nil {
			return err
		}
	}
	for _, in := range append([][]string{c.inputs}, c.logs...) {
		if err := evalflags.CheckDistinctInputs("input", in); err != nil {
			return err
		}
	}
	if err := evalflags.CheckOutputs(c.outputs(), slices.Concat(append([][]string{c.inputs, {c.src.Qrels}}, c.logs...)...)...); err != nil {
		return err
	}
	var perQuery *atomicFile
	var pqWriter *bufio.Writer
	if c.perQuery != "" {
		if c.perQuery == "-" {
			pqWriter = bufio.NewWriterSize(stdout, 1<<16)
		} else {
			if perQuery, err = createAtomic(c.perQuery); err != nil {
				return err
			}
			defer perQuery.abortUnlessCommitted()
			pqWriter = bufio.NewWriterSize(perQuery, 1<<16)
		}
	}
	outs, err := openOutputs(stdout, c.output, c.report, c.state)
	if err != nil {
		return err
	}
	defer outs.abort()

	run := c.summaryRun()
	var pq pipeline.PerQuery
	if pqWriter != nil {
		pq = pipeline.PerQuery{W: pqWriter, Format: run.QueryFormat(c.shared.Format)}
	}
	res, _, err := evaluate(ctx, c, run, pq, stderr)
	if err != nil {
		return err
	}
	if pqWriter != nil {
		if err := pqWriter.Flush(); err != nil {
			return fmt.Errorf("writing per-query output: %w", err)
		}
	}
	if w := run.NoteLabels(res.BinaryLabels, res.GradedLabels); w != "" {
		fmt.Fprintln(stderr, "rankeval: warning:", w)
	}
	r := summary.NewResults(run, res.Analysis, res.SliceKeys)
	run.Gates = r.CheckGates(c.gates)
	var st *state.State
	if c.state != "" {
		st = &state.State{Run: run, Agg: res.Analysis, SliceKeys: res.SliceKeys,
			Digests: state.SourcesOf(evalflags.InputNames(run, c.inputs, c.logs), res.Digests)}
	}
	return outs.finish(r, c.shared.Format, st, perQuery)
}

// evaluate runs the pipeline over c's inputs (or logs, or TREC runs) for
// the summary run, writing per-query lines to pq when it has a writer. It
// returns the TREC input too, when there is one.
func evaluate(ctx context.Context, c *config, run *summary.Run, pq pipeline.PerQuery, stderr io.Writer) (*pipeline.Result, *trecInput, error) {
	cfg := pipeline.Config{
		Rules:   c.shared.Rules,
		Workers: c.workers,
		Analysis: pipeline.Analysis{
			MissingZero:   c.src.Missing == "zero",
			MaxSlices:     c.shared.MaxSlices,
			MaxSliceBytes: c.shared.MaxSliceBytes,
			Core:          len(run.Metrics),
			Bootstrap:     c.shared.Bootstrap,
			Hist:          c.report != "" || c.state != "",
			Compare:       c.shared.Compare,
			Digests:       c.state != "",
		},
	}
	cfg.Rules.Metrics = run.Evaluated()
	cfg.PerQuery = pq
	if c.unsorted {
		cfg.Unsorted = pipeline.Unsorted{On: true, TmpDir: c.tmpDir, MemLimit: c.memLimit, OnSpillDir: func(dir string, made bool) {
			if made {
				temps.add(dir)
			} else {
				temps.remove(dir)
			}
		}}
		// The Go heap is most of the budget: let the collector work harder
		// near it rather than grow past it.
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(c.memLimit))
	}
	var bytesRead atomic.Int64
	if !c.quiet {
		terminal := isTerminal(stderr)
		cfg.Progress = pipeline.Reporting{Report: progressPrinter(stderr, terminal), Every: c.progressInterval,
			BytesRead: &bytesRead, TotalBytes: totalSize(slices.Concat(append([][]string{c.inputs}, c.logs...)...))}
		if terminal {
			cfg.Progress.Every = 250 * time.Millisecond
		}
	}
	var trec *trecInput
	if c.src.Qrels != "" {
		var err error
		if trec, err = openTrec(c, &cfg, stderr); err != nil {
			return nil, nil, err
		}
	}
	cols := c.shared.Columns
	logs := c.logs
	if logs == nil {
		logs = [][]string{c.inputs}
	}
	sources := make([][]pipeline.Source, len(logs))
	for l, inputs := range logs {
		for _, in := range inputs {
			src := pipeline.Source{Name: in, Reread: reader.Rereadable(in), Open: func() (reader.Reader, error) {
				return reader.Open(in, cols, reader.Options{BatchSize: c.batch, Decoders: c.workers, BytesRead: cfg.Progress.BytesRead, Format: c.shared.InputFormat})
			}}
			if trec != nil {
				src = trec.source(in)
			}
			sources[l] = append(sources[l], src)
		}
	}
	res, err := pipeline.Analyze(ctx, cfg, sources)
	if err != nil {
		if trec != nil {
			return nil, nil, trec.explain(err)
		}
		return nil, nil, err
	}
	if trec != nil {
		trec.report(stderr)
	}
	return res, trec, nil
}

// trecEvalEvaluate is rankeval trec_eval's evaluation: the ordinary one,
// quiet but for what the join left out, over one TREC run, each query
// handed to pq.
func trecEvalEvaluate(stderr io.Writer) treceval.Evaluate {
	return func(ctx context.Context, s *evalflags.Settings, src *evalflags.Sources, runFile string, pq pipeline.PerQuery, unsorted bool) (*reader.Qrels, error) {
		c := &config{shared: s, batch: 8192, quiet: true, src: src, inputs: []string{runFile}}
		if unsorted {
			c.unsorted, c.tmpDir, c.memLimit = true, os.TempDir(), pipeline.DefaultMemLimit
		}
		_, trec, err := evaluate(ctx, c, c.summaryRun(), pq, stderr)
		if err != nil {
			return nil, err
		}
		return trec.qrels, nil
	}
}

// totalSize is the bytes of all inputs when every one is a regular file,
// else 0 (unknown: standard input, pipes).
func totalSize(inputs []string) int64 {
	var n int64
	for _, in := range inputs {
		st, err := os.Stat(in)
		if in == reader.Stdin || err != nil || !st.Mode().IsRegular() {
			return 0
		}
		n += st.Size()
	}
	return n
}

// summaryRun is what the summary explains: the shared settings, then
// what only this command knows.
func (c *config) summaryRun() *summary.Run {
	run := c.shared.Summary()
	if c.report != "" || c.state != "" {
		// a state carries the report's figures, for a report of merged states
		run.Curves = summary.CurvesFor(run.Metrics)
	}
	run.Version = summary.Version()
	c.src.Describe(&run, c.inputs, c.logs)
	return &run
}
