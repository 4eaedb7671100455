package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/rankeval/rankeval/config"
	"github.com/rankeval/rankeval/dist/beam/rankbeam"
	"github.com/rankeval/rankeval/evalflags"
	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/summary"
)

func main() {
	args := os.Args[1:]
	var o *options
	if len(args) > 0 && args[0] == "propensities" {
		o, args = registerPropensities(flag.CommandLine), args[1:]
		flag.Usage = func() { propensitiesUsage(os.Stderr, flag.CommandLine) }
	} else {
		o = register(flag.CommandLine)
		flag.Usage = func() { usage(os.Stderr, flag.CommandLine) }
	}
	// flags may follow the inputs, as with rankeval (CommandLine exits 2
	// on a bad flag)
	args, _ = evalflags.Parse(flag.CommandLine, args)
	// A worker process started by a runner returns nowhere from Init: it
	// serves the pipeline's steps. Only the launching process goes on.
	beam.Init()
	if !o.debug {
		// Prism and the runners log every step of a job (Init set up
		// Beam's log); rankeval says what matters, as the CLI does
		slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError + 1})))
	}
	os.Exit(launch(o, flag.CommandLine, args, os.Stderr))
}

// launch runs the job and returns the exit code: rankeval's (0, 1 input,
// 2 usage, 3 gate, 130/143 interrupted).
func launch(o *options, fs *flag.FlagSet, args []string, stderr io.Writer) int {
	cfg, err := o.config(fs, args)
	if err != nil {
		return report(err, stderr)
	}
	p, places, err := build(o, cfg)
	if err != nil {
		return report(err, stderr)
	}
	if err := places.Check(); err != nil {
		return report(err, stderr)
	}
	before := places.Snapshot()

	// Beam's loopback runner leaves an empty beamloopbackworker-* file in
	// the temp directory on every run (its own TODO, apache/beam#27569).
	// The launch gets a temp directory of its own, removed afterwards.
	var tmp string
	if dir, err := os.MkdirTemp("", "rankeval-beam-"); err == nil {
		tmp = dir
		defer os.RemoveAll(dir)
		old, had := os.LookupEnv("TMPDIR")
		os.Setenv("TMPDIR", dir)
		defer func() {
			if had {
				os.Setenv("TMPDIR", old)
			} else {
				os.Unsetenv("TMPDIR")
			}
		}()
	}
	// A signal stops the launch; what the job wrote is removed. A local
	// runner's workers are this process and stop with it; a cluster's job
	// runs on, to be cancelled with the runner's tools.
	var once sync.Once
	cleanup := func() {
		once.Do(func() {
			places.Remove(before)
			if tmp != "" {
				os.RemoveAll(tmp)
			}
		})
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		s := <-sigs
		cleanup()
		fmt.Fprintln(stderr, "rankeval-beam: interrupted")
		code := 1
		if n, ok := s.(syscall.Signal); ok {
			code = 128 + int(n)
		}
		os.Exit(code)
	}()

	res, err := beamx.RunWithMetrics(context.Background(), p)
	if err != nil {
		if msg, _, ok := rankbeam.JobError(err); ok && rankbeam.StateSaved(msg) {
			places.State = "" // written for a merge with other days', as rankeval propensities keeps it
		}
		cleanup()
		if msg, code, ok := rankbeam.JobError(err); ok && !o.debug {
			fmt.Fprintln(stderr, "rankeval-beam:", msg)
			return code
		}
		return report(err, stderr)
	}
	if res != nil {
		left := rankbeam.JoinLeft(res.Metrics())
		if ms, err := metrics.ParseList(cfg.Metrics); err == nil { // checked when the job was built
			left.IRMeasures = metrics.AnyIR(ms)
		}
		cfg.Sources.ReportLeft(stderr, "rankeval-beam", cfg.Profile, left)
		return report(rankbeam.GateFailure(res.Metrics()), stderr)
	}
	return 0
}

// build makes the pipeline of cfg and says where it writes.
func build(o *options, cfg *rankbeam.Config) (*beam.Pipeline, rankbeam.Places, error) {
	places := rankbeam.Places{Summary: cfg.Outputs.Summary, Report: cfg.Outputs.Report, State: cfg.Outputs.State,
		PerQuery: cfg.Outputs.PerQuery, Ext: rankbeam.ShardExt(cfg.Format), Shards: o.shards}
	p, s := beam.NewPipelineWithRoot()
	var sum beam.PCollection
	var err error
	if o.propensities {
		sum, err = rankbeam.BuildPropensities(s, *cfg)
	} else {
		sum, err = rankbeam.Build(s, *cfg, cfg.Outputs.PerQuery, o.shards)
	}
	if err != nil {
		return nil, places, err
	}
	rankbeam.WriteTo(s, sum, cfg.Outputs.Summary)
	return p, places, nil
}

// report prints err as rankeval does and returns its exit code.
func report(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "rankeval-beam:", err)
	switch {
	case errors.Is(err, config.ErrUsage), errors.Is(err, rankbeam.ErrConfig):
		return rankbeam.ExitUsage
	case errors.Is(err, summary.ErrGateFailed):
		return rankbeam.ExitGate
	}
	return rankbeam.ExitInput
}
