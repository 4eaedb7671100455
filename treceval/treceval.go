// Package treceval is rankeval trec_eval, the drop-in for trec_eval: it
// owns trec_eval's command line (args.go), its measure table and -m
// selection (measures.go), and the layout of its output (this file). The
// measures themselves are rankeval metrics computed by the ordinary
// pipeline under the trec_eval profile, through the Evaluate function the
// command gives it, so that no measure exists twice.
package treceval

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/rankeval/rankeval/evalflags"
	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/pipeline"
	"github.com/rankeval/rankeval/reader"
	"github.com/rankeval/rankeval/summary"
)

const trecEvalUsage = `Usage: rankeval trec_eval [--release 10.0|9.0.8] [-h] [-q] [-n] [-c] [-J] [-l N] [-M N] {-m measure}* QRELS RUN

Evaluates a TREC run against qrels and prints exactly what trec_eval prints
for the same command line: the same lines, in the same order, with the
same values. QRELS and RUN may be plain, gzip or zstd files, and RUN need
not be sorted.

  --release R   the trec_eval release to reproduce, given first: 10.0 (the
                default) or 9.0.8. They differ in iprec_at_recall (10.0
                rounds x*R, 9.0.8 truncates x*R + 0.9) and in the judged
                queries the run lacks (10.0 stops with an error unless -c;
                with -c -q it prints their lines; 9.0.8 skips them)

  -q            also print each query's values (queries in trec_eval's order)
  -n            no summary (with -q: only the per-query lines)
  -c            average over every query of the qrels: a query the run
                lacks counts as 0
  -l N          a judgment >= N is relevant (default 1)
  -M N          evaluate only the first N documents of each query
  -J            drop the unjudged documents from each ranking first
  -m MEASURE    a measure, a measure with trec_eval's parameters
                (P.5,10  iprec_at_recall.0.5  ndcg_cut.10), or the set
                'official' (the default when no -m is given); repeatable
  -v            print the version
  -h            this help

Measures: runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref
recip_rank iprec_at_recall P recall gm_bpref 11pt_avg ndcg ndcg_cut map_cut
relative_P success set_P
set_relative_P set_recall set_map set_F num_nonrel_judged_ret.
trec_eval's other measures, and its -R, -T, -N, -Z and -D options, are
refused. Exit status: 0 ok, 1 input error, 2 usage error.
`

// Evaluate is the ordinary command's evaluation of one TREC run: the
// pipeline over run against the qrels of src, under s, writing each
// query's trec_eval lines to perQuery when it is not nil; unsorted groups
// the run's lines by query first. It returns what the summary explains,
// the pipeline's result and the qrels read.
type Evaluate func(ctx context.Context, s *evalflags.Settings, src *evalflags.Sources, run string,
	perQuery io.Writer, unsorted bool) (*summary.Run, *pipeline.Result, *reader.Qrels, error)

// Main is rankeval trec_eval: args are what follows "trec_eval" on the
// command line.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer, evaluate Evaluate) error {
	a, err := parseTrecEvalArgs(args)
	switch {
	case errors.Is(err, errTrecEvalHelp):
		_, err = fmt.Fprint(stdout, trecEvalUsage)
		return err
	case errors.Is(err, ErrVersion):
		return err
	case err != nil:
		return err
	}
	// The run is read twice (its last line's tag is the runid; a shuffled
	// run is read again grouped by query), which a pipe cannot be.
	if a.qrels == reader.Stdin || !reader.Rereadable(a.run) {
		return trecUsagef("trec_eval: QRELS and RUN are files, as for trec_eval (not -, and RUN not a pipe: %s)", a.run)
	}
	sel, err := selectTrecMeasures(a.measures, stderr)
	if err != nil {
		return err
	}
	// the ordinary flags, as a user would give them, so that every default
	// and the profile's conventions are rankeval's own
	fs := flag.NewFlagSet("trec_eval", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	vals := evalflags.Register(fs)
	if err := fs.Parse([]string{"--profile", "trec_eval:" + a.release, "--format", "trec",
		"--rel-threshold", strconv.FormatInt(a.level, 10), "--metrics", strings.Join(sel.names, ",")}); err != nil {
		return err
	}
	shared, err := vals.Finish(fs)
	if err != nil {
		return err
	}
	shared.Rules.Options.MaxRanked = int(min(a.maxDocs, 1<<31-1))
	shared.Rules.Options.JudgedOnly = a.judgedOnly
	src := &evalflags.Sources{Qrels: a.qrels, Complete: a.complete, Missing: "error", Comments: a.release != "9.0.8"}

	var lines bytes.Buffer
	var pq io.Writer
	if a.perQuery {
		pq = &lines
	}
	run, res, qrels, err := evaluate(ctx, shared, src, a.run, pq, false)
	if errors.Is(err, pipeline.ErrReappear) {
		// trec_eval sorts the run itself: read it again, grouping by query
		lines.Reset()
		run, res, qrels, err = evaluate(ctx, shared, src, a.run, pq, true)
	}
	if err != nil {
		return err
	}
	if res.Sys[0].Queries == 0 {
		return fmt.Errorf("%s, %s: no queries with both results and relevance info (trec_eval stops here too)", a.qrels, a.run)
	}
	if a.release != "9.0.8" {
		if err := unseenQueries(&lines, a, run, qrels); err != nil {
			return err
		}
	}
	w := bufio.NewWriterSize(stdout, 1<<16)
	if a.perQuery {
		if _, err := w.Write(sortTrecBlocks(lines.Bytes())); err != nil {
			return err
		}
	}
	if !a.noSummary {
		var b []byte
		if sel.runid {
			tag, err := reader.RunTag(a.run)
			if err != nil {
				return err
			}
			b = summary.AppendTrecRunID(b, tag)
		}
		r := summary.NewResults(run, res.Analysis, res.SliceKeys)
		queries := res.Sys[0].Queries // every query averaged, NaN or not
		for i, m := range run.Metrics {
			f := r.Figure(0, i)
			v := f.Mean
			if f.N < queries {
				v = math.NaN() // trec_eval sums a query's NaN into the mean
			}
			if m.Kind == metrics.KindNumRel && a.complete {
				// trec_eval's total num_rel under -c counts every judgment
				// above 0 in the qrels, whatever -l says
				v = float64(qrels.Positive())
			}
			b = summary.AppendTrecLine(b, m, "all", v)
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return w.Flush()
}

// unseenQueries is what trec_eval 10.0 does with the judged queries the
// run lacks: without -c it stops at the first ("result qid ... not found
// in qrels", its words); with -c -q it prints their lines: the values of
// its "bogus ranking", one unjudged document, computed by the metrics' own
// code, with num_ret then set to 0 as trec_eval does.
func unseenQueries(lines *bytes.Buffer, a *trecEvalArgs, run *summary.Run, qrels *reader.Qrels) error {
	unseen := qrels.Unseen()
	if len(unseen) == 0 {
		return nil
	}
	if !a.complete {
		return fmt.Errorf("%s: trec_eval: result qid '%s' not found in qrels (trec_eval 10.0 stops here; --release 9.0.8 skips the query)", a.run, unseen[0])
	}
	if !a.perQuery {
		return nil
	}
	ev := metrics.NewEvaluator(run.Evaluated(), run.Options)
	vals := make([]float64, len(run.Evaluated()))
	var b []byte
	bogus := metrics.List{Score: []float64{1}, Label: []float64{0}, Doc: [][]byte{[]byte("ceci_nest_pas_un_docno")},
		Status: []metrics.Judgment{metrics.Unjudged}}
	for _, id := range unseen {
		bogus.Judged = qrels.Judged([]byte(id))
		ev.Eval(&bogus, vals)
		for i, m := range run.Metrics {
			if m.Kind == metrics.KindNumRet {
				vals[i] = 0
			}
		}
		b = summary.TrecQuery(b[:0], run.Metrics, []byte(id), vals)
		lines.Write(b)
	}
	return nil
}

// sortTrecBlocks orders per-query lines as trec_eval does, by query id
// (byte-wise), keeping each query's lines in their order: the pipeline
// writes them in the run's order, one query's lines together.
func sortTrecBlocks(b []byte) []byte {
	type block struct {
		qid  []byte
		text []byte
	}
	var blocks []block
	out := make([]byte, 0, len(b))
	for len(b) > 0 {
		nl := bytes.IndexByte(b, '\n')
		line := b[:nl+1]
		b = b[nl+1:]
		_, rest, _ := bytes.Cut(line, []byte{'\t'})
		qid, _, _ := bytes.Cut(rest, []byte{'\t'})
		if n := len(blocks); n > 0 && bytes.Equal(blocks[n-1].qid, qid) {
			blocks[n-1].text = blocks[n-1].text[:len(blocks[n-1].text)+len(line)]
			continue
		}
		blocks = append(blocks, block{qid: qid, text: line})
	}
	slices.SortStableFunc(blocks, func(x, y block) int { return bytes.Compare(x.qid, y.qid) })
	for _, bl := range blocks {
		out = append(out, bl.text...)
	}
	return out
}
