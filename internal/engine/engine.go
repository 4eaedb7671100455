// Package engine runs one evaluation: it turns a resolved plan into the
// pipeline's configuration and sources (logs, or TREC runs joined with
// their qrels) and runs it. The public API (package rankeval) and the
// trec_eval drop-in (package treceval) both call it, so a run reads its
// inputs one way whoever asks.
package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"

	"github.com/rankeval/rankeval/config"
	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/pipeline"
	"github.com/rankeval/rankeval/reader"
	"github.com/rankeval/rankeval/reader/trec"
	"github.com/rankeval/rankeval/summary"
)

// Input is one input of a log: a path (a file, "-", an object URL) that
// Open leaves nil, or a stream the caller opens.
type Input struct {
	Name string
	// Open opens the input as a log, with the reader options of the run;
	// nil opens Name (reader.Open). TREC runs are read from Name only.
	Open func(cols reader.Columns, opt reader.Options) (reader.Reader, error)
	// Reread says Open may be called again and reads from the start; a
	// path is asked (reader.Rereadable).
	Reread bool
}

// Paths makes inputs of paths.
func Paths(names []string) []Input {
	ins := make([]Input, len(names))
	for i, n := range names {
		ins[i] = Input{Name: n, Reread: reader.Rereadable(n)}
	}
	return ins
}

// Job is one evaluation: what it computes, what it reads, and where it
// reports while it runs.
type Job struct {
	Settings *config.Settings
	Sources  config.Sources
	Run      config.Run
	Keep     config.Keep
	// ReadTimeout bounds a request to object storage that receives
	// nothing (0: objstore's default).
	ReadTimeout time.Duration
	// Summary is the run the summary explains; its evaluated metrics
	// (Summary.Evaluated) are the ones computed.
	Summary *summary.Run
	// Logs holds one log's inputs, or one list per --system log.
	Logs [][]Input
	// PerQuery receives each query's record as it is evaluated.
	PerQuery pipeline.PerQuery
	// Log receives the notes of a run (nil: none): how many judgments
	// were loaded (unless Run.Quiet) and what a TREC join left out, each
	// line led by Command.
	Log     io.Writer
	Command string
	// Progress, when set, receives the run's advance every ProgressEvery
	// and at its end.
	Progress      func(pipeline.Progress)
	ProgressEvery time.Duration
	// OnSpillDir is told of each spill directory of an unsorted run as it
	// is made and removed, so that a signal handler can remove it.
	OnSpillDir func(dir string, made bool)
}

// Outcome is an evaluation's result, and the qrels of TREC input.
type Outcome struct {
	*pipeline.Result
	Qrels *trec.Qrels
}

// Evaluate runs j.
func Evaluate(ctx context.Context, j Job) (*Outcome, error) {
	s := j.Settings
	cfg := pipeline.Config{
		Rules:   s.Rules,
		Workers: j.Run.Workers,
		Analysis: pipeline.Analysis{
			MissingZero:   j.Sources.Missing == "zero",
			MaxSlices:     s.MaxSlices,
			MaxSliceBytes: s.MaxSliceBytes,
			Core:          len(j.Summary.Metrics),
			Bootstrap:     s.Bootstrap,
			Hist:          j.Keep.Report || j.Keep.State,
			Compare:       s.Compare,
			Digests:       j.Keep.State,
		},
	}
	cfg.Rules.Metrics = j.Summary.Evaluated()
	cfg.PerQuery = j.PerQuery
	if j.Run.Unsorted {
		cfg.Unsorted = pipeline.Unsorted{On: true, TmpDir: j.Run.TmpDir, MemLimit: j.Run.MemLimit, OnSpillDir: j.OnSpillDir}
	}
	if j.Progress != nil {
		cfg.Progress = pipeline.Reporting{Report: j.Progress, Every: j.ProgressEvery,
			BytesRead: new(atomic.Int64), TotalBytes: totalSize(j.Logs)}
	}
	log := j.Log
	if log == nil {
		log = io.Discard
	}
	var trec *trecInput
	if j.Sources.Qrels != "" {
		var err error
		if trec, err = openTrec(&j, &cfg, log); err != nil {
			return nil, err
		}
	}
	opt := reader.Options{BatchSize: j.Run.BatchSize, Decoders: j.Run.Workers, BytesRead: cfg.Progress.BytesRead, Format: s.InputFormat, Delimiter: s.Delimiter, DecimalComma: s.DecimalComma,
		ReadTimeout: j.ReadTimeout}
	cols := s.Columns
	sources := make([][]pipeline.Source, len(j.Logs))
	for l, inputs := range j.Logs {
		for _, in := range inputs {
			var src pipeline.Source
			switch {
			case trec != nil: // a path: Open is nil (rankeval.Prepare refuses streams of TREC runs)
				src = trec.source(in.Name)
			case in.Open != nil:
				src = pipeline.Source{Name: in.Name, Reread: in.Reread, Open: func() (reader.Reader, error) { return in.Open(cols, opt) }}
			default:
				src = pipeline.Source{Name: in.Name, Reread: in.Reread, Open: func() (reader.Reader, error) { return reader.Open(in.Name, cols, opt) }}
			}
			sources[l] = append(sources[l], src)
		}
	}
	res, err := pipeline.Analyze(ctx, cfg, sources)
	if err != nil {
		if trec != nil {
			return nil, trec.explain(err)
		}
		return nil, err
	}
	out := &Outcome{Result: res}
	if trec != nil {
		trec.report(log)
		out.Qrels = trec.qrels
	}
	return out, nil
}

// totalSize is the bytes of all inputs when every one is a regular file,
// else 0 (unknown: standard input, pipes, streams).
func totalSize(logs [][]Input) int64 {
	var n int64
	for _, l := range logs {
		for _, in := range l {
			st, err := os.Stat(in.Name)
			if in.Open != nil || in.Name == reader.Stdin || err != nil || !st.Mode().IsRegular() {
				return 0
			}
			n += st.Size()
		}
	}
	return n
}

// trecInput wires a qrels file and TREC runs into the pipeline.
type trecInput struct {
	j     *Job
	qrels *trec.Qrels
	// skipped counts what each run's reader left out: runs read at once
	// (--system) count apart; report unites them
	skipped []*trec.SkipCount
	// bytesRead feeds progress reports
	bytesRead *atomic.Int64
}

func openTrec(j *Job, cfg *pipeline.Config, log io.Writer) (*trecInput, error) {
	start := time.Now()
	q, err := trec.ReadQrelsAs(j.Sources.Qrels, j.Sources.QrelsFormat(j.Settings.Profile))
	if err != nil {
		return nil, err
	}
	if !j.Run.Quiet {
		// a large qrels file takes seconds before the run's progress starts
		fmt.Fprintf(log, "%s: %s: %d judgments of %d queries loaded in %.2f s\n",
			j.Command, j.Sources.Qrels, q.Judgments(), q.Queries(), time.Since(start).Seconds())
	}
	t := &trecInput{j: j, qrels: q, bytesRead: cfg.Progress.BytesRead}
	cfg.Rules.Qrels = q
	if j.Sources.Complete {
		cfg.Unseen = q.Unseen
	}
	return t, nil
}

func (t *trecInput) source(name string) pipeline.Source {
	skipped := new(trec.SkipCount)
	t.skipped = append(t.skipped, skipped)
	return pipeline.Source{Name: name, Reread: reader.Rereadable(name), Open: func() (reader.Reader, error) {
		return trec.OpenRun(name, t.qrels, trec.RunOptions{
			Options:      reader.Options{BatchSize: t.j.Run.BatchSize, Decoders: t.j.Run.Workers, BytesRead: t.bytesRead},
			SkipUnjudged: t.j.Settings.SkipUnjudged(),
			Skipped:      skipped,
			DeferJoin:    true, // the pipeline's workers join (Rules.Qrels)
			Comments:     t.j.Sources.Comments,
			ExtraFields:  t.j.Sources.ExtraFields,
			RefuseNul:    t.j.Sources.StrictLines,
		})
	}}
}

// explain adds the remedy to errors a TREC user can fix with a command.
func (t *trecInput) explain(err error) error {
	if errors.Is(err, pipeline.ErrReappear) {
		return fmt.Errorf("%w\nTREC runs keep each query's lines together; sort the run first, keeping the order within a query: sort -s -k1,1 RUN > RUN.sorted", err)
	}
	return err
}

// report says on log what the join left out, so nothing is dropped
// silently.
func (t *trecInput) report(log io.Writer) {
	var skipped trec.SkipCount
	for _, s := range t.skipped {
		skipped.Merge(s)
	}
	t.j.Sources.ReportLeft(log, t.j.Command, t.j.Settings.Profile, config.Left{
		UnjudgedQueries: skipped.Queries, UnjudgedRows: skipped.Rows, Unseen: int64(len(t.qrels.Unseen())), IRMeasures: metrics.AnyIR(t.j.Settings.Rules.Metrics)})
}
