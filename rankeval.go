// Package rankeval computes ranking-evaluation metrics (MAP, nDCG@k, ERR@k,
// MRR, P/R/F1@k, every trec_eval measure, click metrics, IPS estimates,
// interleaving) over search and click logs and TREC runs, streaming any
// input in bounded memory, with the same bits on every path and machine.
//
// A run is a Config (every setting of the rankeval command, with its
// defaults: DefaultConfig) and its sources: files, directories, globs and
// object-store URLs (File), streams (Stream) and Arrow record readers
// (Records). Evaluate reads them and returns Results, which render every
// output shape of the command (text, JSON, TREC, LaTeX, Markdown, the
// HTML report, a state) to an io.Writer. Merge combines saved states as
// rankeval merge does. Prepare and Evaluation.Run split Evaluate in two,
// for a caller that checks everything before it reads anything and wants
// each query's record, progress or notes while the run goes.
//
// The rankeval command, rankeval merge and rankeval-beam are built on
// this package; rankeval trec_eval is package treceval's Run.
package rankeval

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/rankeval/rankeval/config"
	"github.com/rankeval/rankeval/internal/engine"
	"github.com/rankeval/rankeval/pipeline"
	"github.com/rankeval/rankeval/state"
	"github.com/rankeval/rankeval/summary"
)

// Config is every setting of a run, named as the command's flags name
// them (package config documents each).
type Config = config.Config

// DefaultConfig is the rankeval command's defaults.
func DefaultConfig() Config { return config.Default() }

// ErrUsage is wrapped by every error that corrected settings fix (a
// *config.SettingError names the setting).
var ErrUsage = config.ErrUsage

// ErrGateFailed is wrapped by Results.Err when a quality gate failed.
var ErrGateFailed = summary.ErrGateFailed

// ErrRunTwice is returned by a second Evaluation.Run: an evaluation reads
// its streams once, so a run again would see them empty.
var ErrRunTwice = errors.New("the evaluation has run already: Prepare another")

// Progress is a snapshot of a run's advance.
type Progress = pipeline.Progress

// Evaluation is a run checked and ready: Prepare has resolved its
// settings and named its inputs, and nothing is read until Run. Its
// fields say where the run reports while it goes; the zero values report
// nothing.
type Evaluation struct {
	// PerQuery receives one record per query as it is evaluated, in the
	// per-query shape of Config.Format (JSON lines; trec_eval's layout
	// with format trec).
	PerQuery io.Writer
	// Log receives notes and warnings, one a line, each led by
	// "rankeval: ".
	Log io.Writer
	// Progress, when set, receives the run's advance every ProgressEvery
	// (1 s when 0) and once at its end.
	Progress      func(Progress)
	ProgressEvery time.Duration
	// OnSpillDir is told of each spill directory of an unsorted run as it
	// is made (made true) and removed, for a signal handler that removes
	// what a killed run left.
	OnSpillDir func(dir string, made bool)

	plan    *config.Plan
	run     *summary.Run
	streams map[string]Source
	ran     atomic.Bool
}

// Prepare checks cfg and the sources as a run would, and expands the
// sources that are paths (directories, globs, object-store prefixes),
// reading no input: every mistake a corrected Config fixes is found
// here. With cfg.Sources.System (--system logs) the sources are empty.
func Prepare(cfg Config, sources ...Source) (*Evaluation, error) {
	names := make([]string, len(sources))
	streams := map[string]Source{}
	for i, s := range sources {
		if err := s.check(); err != nil {
			return nil, err
		}
		names[i] = s.name
		if s.open != nil {
			if _, dup := streams[s.name]; dup {
				return nil, config.Usagef("two streams are named %q: name each apart", s.name)
			}
			streams[s.name] = s
		}
	}
	plan, err := cfg.Prepare(names)
	if err != nil {
		return nil, err
	}
	if cfg.Sources.Qrels != "" {
		for _, s := range sources {
			if s.open != nil {
				return nil, config.Usagef("%s: TREC runs (--qrels) are read from files, not streams", s.name)
			}
		}
	}
	if err := plan.Expand(func(in string) bool { _, ok := streams[in]; return !ok }); err != nil {
		return nil, err
	}
	return &Evaluation{plan: plan, run: plan.Summary(summary.Version()), streams: streams}, nil
}

// Evaluate reads the sources under cfg and returns the results: Prepare,
// then Run.
func Evaluate(ctx context.Context, cfg Config, sources ...Source) (*Results, error) {
	e, err := Prepare(cfg, sources...)
	if err != nil {
		return nil, err
	}
	return e.Run(ctx)
}

// Run reads the inputs and evaluates them. It runs once: a second call
// returns ErrRunTwice.
func (e *Evaluation) Run(ctx context.Context) (*Results, error) {
	if e.ran.Swap(true) {
		return nil, ErrRunTwice
	}
	p, run := e.plan, e.run
	job := engine.Job{Settings: p.Settings, Sources: p.Config.Sources, Run: p.Config.Run, Keep: p.Config.Keep(), Summary: run,
		ReadTimeout: p.Config.ReadTimeout,
		Log:         e.Log, Command: "rankeval", Progress: e.Progress, ProgressEvery: e.ProgressEvery, OnSpillDir: e.OnSpillDir}
	logs := p.Logs
	if logs == nil {
		logs = [][]string{p.Inputs}
	}
	for _, names := range logs {
		ins := engine.Paths(names)
		for i, n := range names {
			if s, ok := e.streams[n]; ok {
				ins[i] = engine.Input{Name: n, Open: s.open}
			}
		}
		job.Logs = append(job.Logs, ins)
	}
	var pq *bufio.Writer
	if e.PerQuery != nil {
		pq = bufio.NewWriterSize(e.PerQuery, 1<<16)
		job.PerQuery = pipeline.PerQuery{W: pq, Format: run.QueryFormat(p.Config.Format)}
	}
	out, err := engine.Evaluate(ctx, job)
	if err != nil {
		return nil, err
	}
	if pq != nil {
		if err := pq.Flush(); err != nil {
			return nil, fmt.Errorf("writing per-query output: %w", err)
		}
	}
	r := NewResults(run, Part{Agg: out.Analysis, SliceKeys: out.SliceKeys, BinaryLabels: out.BinaryLabels, GradedLabels: out.GradedLabels,
		Report: p.Config.Keep().Report},
		p.Gates, e.Log)
	if p.Config.Keep().State {
		r.KeepState(state.SourcesOf(p.InputNames(run), out.Digests))
	}
	return r, nil
}

// Summary is the run the summary will explain: the settings, inputs and
// version.
func (e *Evaluation) Summary() *summary.Run { return e.run }
