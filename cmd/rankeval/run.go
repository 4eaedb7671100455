package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/rankeval/rankeval/pipeline"
	"github.com/rankeval/rankeval/reader"
	"github.com/rankeval/rankeval/summary"
)

func run(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	c, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	if c.inputs, err = expandInputs(c.inputs); err != nil {
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
	// Create the summary's temporary file up front so an unwritable output
	// directory fails before hours of reading, not after.
	var out *atomicFile
	if c.output != "" {
		if out, err = createAtomic(c.output); err != nil {
			return err
		}
		defer out.abortUnlessCommitted()
	}

	cfg := pipeline.Config{
		Metrics:      c.metrics,
		Options:      c.opts,
		Workers:      c.workers,
		MaxGroupRows: c.maxGroupRows,
	}
	if pqWriter != nil {
		cfg.PerQuery = pqWriter
	}
	cfg.ScoreFloat32 = c.scoreFloat32
	cfg.DedupFirst = c.dedupFirst
	if c.unsorted {
		cfg.Unsorted, cfg.TmpDir, cfg.MemLimit = true, c.tmpDir, c.memLimit
		cfg.OnSpillDir = func(dir string, made bool) {
			if made {
				temps.add(dir)
			} else {
				temps.remove(dir)
			}
		}
		// The Go heap is most of the budget: let the collector work harder
		// near it rather than grow past it.
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(c.memLimit))
	}
	var bytesRead atomic.Int64
	if !c.quiet {
		terminal := isTerminal(stderr)
		cfg.Progress = progressPrinter(stderr, terminal)
		cfg.ProgressEvery = c.progressInterval
		if terminal {
			cfg.ProgressEvery = 250 * time.Millisecond
		}
		cfg.BytesRead = &bytesRead
		cfg.TotalBytes = totalSize(c.inputs)
	}
	if c.format == "trec" {
		rep := c.summaryRun(gateResult{})
		cfg.FormatQuery = func(b, id []byte, vals []float64) []byte { return summary.AppendTrecQuery(b, rep, id, vals) }
	}
	sources := make([]pipeline.Source, len(c.inputs))
	var trec *trecInput
	if c.qrels != "" {
		if trec, err = openTrec(c, &cfg, stderr); err != nil {
			return err
		}
		for i, in := range c.inputs {
			sources[i] = trec.source(in)
		}
	} else {
		for i, in := range c.inputs {
			sources[i] = pipeline.Source{Name: in, Open: func() (reader.Reader, error) {
				return reader.Open(in, c.cols, reader.Options{BatchSize: c.batchSize, Decoders: c.workers, BytesRead: cfg.BytesRead})
			}}
		}
	}
	set, err := pipeline.Run(ctx, cfg, sources)
	if err != nil {
		if trec != nil {
			return trec.explain(err)
		}
		return err
	}
	if trec != nil {
		trec.report(stderr)
	}
	if pqWriter != nil {
		if err := pqWriter.Flush(); err != nil {
			return fmt.Errorf("writing per-query output: %w", err)
		}
	}
	gates := checkGates(c, set)
	text := summary.Format(c.format, c.summaryRun(gates), set)
	if out != nil {
		if _, err := out.Write(text); err != nil {
			return err
		}
		if err := out.commit(); err != nil {
			return err
		}
	} else if _, err := stdout.Write(text); err != nil {
		return err
	}
	if perQuery != nil {
		if err := perQuery.commit(); err != nil {
			return err
		}
	}
	return gates.err()
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
