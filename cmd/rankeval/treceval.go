package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/rankeval/rankeval/evalflags"
	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/pipeline"
	"github.com/rankeval/rankeval/reader"
	"github.com/rankeval/rankeval/summary"
)

// rankeval trec_eval takes trec_eval 9.0.8's command line and prints what
// trec_eval prints: the measures it names (treceval_measures.go) are
// rankeval metrics evaluated by the ordinary pipeline under the trec_eval
// profile; this file only reads the command line and lays the lines out
// in trec_eval's order.

const trecEvalUsage = `Usage: rankeval trec_eval [-h] [-q] [-n] [-c] [-J] [-l N] [-M N] {-m measure}* QRELS RUN

Evaluates a TREC run against qrels and prints exactly what trec_eval 9.0.8
prints for the same command line: the same lines, in the same order, with
the same values. QRELS and RUN may be plain, gzip or zstd files, and RUN
need not be sorted.

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
recip_rank iprec_at_recall P recall ndcg ndcg_cut map_cut success.
trec_eval's other measures, and its -R, -T, -N, -Z and -D options, are
refused. Exit status: 0 ok, 1 input error, 2 usage error.
`

// trecEvalArgs is trec_eval's command line, read.
type trecEvalArgs struct {
	perQuery, noSummary, complete, judgedOnly bool
	level, maxDocs                            int64
	measures                                  []string // -m arguments, in order
	qrels, run                                string
}

// trecEvalOptions are trec_eval's getopt options: those that take an
// argument, by short and long name. The long names are trec_eval's.
var trecEvalLong = map[string]byte{
	"help": 'h', "version": 'v', "query_eval_wanted": 'q', "measure": 'm', "complete_rel_info_wanted": 'c',
	"level_for_rel": 'l', "nosummary": 'n', "Debug_level": 'D', "Judged_docs_only": 'J',
	"Number_docs_in_coll": 'N', "Max_retrieved_per_topic": 'M', "Rel_info_format": 'R',
	"Results_format": 'T', "Output_old_results_format": 'o', "Zscore": 'Z',
}

const trecEvalWithArg = "mlDNMRTZ"

var errTrecEvalHelp = errors.New("trec_eval help")

// trecUsagef is a usage error of rankeval trec_eval, whose help is its own.
func trecUsagef(format string, a ...any) error {
	return usageError{err: fmt.Errorf(format, a...), help: "rankeval trec_eval -h"}
}

// parseTrecEvalArgs reads args as GNU getopt does for trec_eval: options
// anywhere, short ones bundled (-qc) or with their argument attached
// (-l2, -mmap), long ones as --name=value or --name value, -- ending them.
func parseTrecEvalArgs(args []string) (*trecEvalArgs, error) {
	a := &trecEvalArgs{level: 1}
	var pos []string
	set := func(opt byte, val string) error {
		switch opt {
		case 'h':
			return errTrecEvalHelp
		case 'v':
			return errVersion
		case 'q':
			a.perQuery = true
		case 'n':
			a.noSummary = true
		case 'c':
			a.complete = true
		case 'J':
			a.judgedOnly = true
		case 'm':
			a.measures = append(a.measures, val)
		case 'l':
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil {
				return trecUsagef("trec_eval: -l %q: want a whole number (the lowest relevant judgment)", val)
			}
			a.level = n
		case 'M':
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil || n < 1 {
				return trecUsagef("trec_eval: -M %q: want a number of documents >= 1", val)
			}
			a.maxDocs = n
		case 'R':
			if val != "qrels" {
				return trecUsagef("trec_eval: -R %s: only the qrels format is supported", val)
			}
		case 'T':
			if val != "trec_results" {
				return trecUsagef("trec_eval: -T %s: only the trec_results format is supported", val)
			}
		case 'N', 'Z', 'D', 'o':
			return trecUsagef("trec_eval: -%c is not supported by rankeval trec_eval", opt)
		default:
			return trecUsagef("trec_eval: unknown option -%c", opt)
		}
		return nil
	}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--":
			pos = append(pos, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(arg, "--"):
			name, val, hasVal := strings.Cut(arg[2:], "=")
			opt, ok := trecEvalLong[name]
			if !ok {
				return nil, trecUsagef("trec_eval: unknown option --%s", name)
			}
			if strings.IndexByte(trecEvalWithArg, opt) >= 0 && !hasVal {
				if i+1 >= len(args) {
					return nil, trecUsagef("trec_eval: --%s needs an argument", name)
				}
				i++
				val = args[i]
			}
			if err := set(opt, val); err != nil {
				return nil, err
			}
		case len(arg) > 1 && arg[0] == '-':
			for j := 1; j < len(arg); j++ {
				opt := arg[j]
				if strings.IndexByte(trecEvalWithArg, opt) < 0 {
					if err := set(opt, ""); err != nil {
						return nil, err
					}
					continue
				}
				val := arg[j+1:]
				if val == "" {
					if i+1 >= len(args) {
						return nil, trecUsagef("trec_eval: -%c needs an argument", opt)
					}
					i++
					val = args[i]
				}
				if err := set(opt, val); err != nil {
					return nil, err
				}
				break
			}
		default:
			pos = append(pos, arg)
		}
	}
	if len(pos) != 2 {
		return nil, trecUsagef("trec_eval: want two files, QRELS and RUN (got %d); rankeval trec_eval -h for help", len(pos))
	}
	a.qrels, a.run = pos[0], pos[1]
	return a, nil
}

// trecEval is rankeval trec_eval.
func trecEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	a, err := parseTrecEvalArgs(args)
	switch {
	case errors.Is(err, errTrecEvalHelp):
		_, err = fmt.Fprint(stdout, trecEvalUsage)
		return err
	case errors.Is(err, errVersion):
		_, err = fmt.Fprintln(stdout, "rankeval trec_eval (trec_eval 9.0.8's command line and output), rankeval", summary.Version())
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
	if err := fs.Parse([]string{"--profile", "trec_eval", "--format", "trec",
		"--rel-threshold", strconv.FormatInt(a.level, 10), "--metrics", strings.Join(sel.names, ",")}); err != nil {
		return err
	}
	shared, err := vals.Finish(fs)
	if err != nil {
		return err
	}
	shared.Rules.Options.MaxRanked = int(min(a.maxDocs, 1<<31-1))
	shared.Rules.Options.JudgedOnly = a.judgedOnly
	c := &config{shared: shared, batch: 8192, quiet: true, src: &evalflags.Sources{Qrels: a.qrels, Complete: a.complete, Missing: "error"}, inputs: []string{a.run}}
	run := c.summaryRun()

	var lines bytes.Buffer
	var pq pipeline.PerQuery
	if a.perQuery {
		pq = pipeline.PerQuery{W: &lines, Format: run.QueryFormat("trec")}
	}
	res, trec, err := evaluate(ctx, c, run, pq, stderr)
	if errors.Is(err, pipeline.ErrReappear) {
		// trec_eval sorts the run itself: read it again, grouping by query
		lines.Reset()
		c.unsorted, c.tmpDir, c.memLimit = true, os.TempDir(), pipeline.DefaultMemLimit
		res, trec, err = evaluate(ctx, c, run, pq, stderr)
	}
	if err != nil {
		return err
	}
	if res.Sys[0].Queries == 0 {
		return fmt.Errorf("%s, %s: no queries with both results and relevance info (trec_eval stops here too)", a.qrels, a.run)
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
		queries := int64(0)
		for i := range run.Metrics {
			queries = max(queries, r.Figure(0, i).N)
		}
		for i, m := range run.Metrics {
			f := r.Figure(0, i)
			v := f.Mean
			if f.N < queries {
				v = math.NaN() // trec_eval sums a query's NaN into the mean
			}
			if m.Kind == metrics.KindNumRel && a.complete {
				// trec_eval's total num_rel under -c counts every judgment
				// above 0 in the qrels, whatever -l says
				v = float64(trec.qrels.Positive())
			}
			b = summary.AppendTrecLine(b, m, "all", v)
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return w.Flush()
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
