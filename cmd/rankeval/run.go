package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rankeval/rankeval/pipeline"
	"github.com/rankeval/rankeval/reader"
	"github.com/rankeval/rankeval/summary"
)

func run(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	c, err := parseFlags(args, stderr)
	if err != nil {
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
	if c.format == "trec" {
		rep := c.summaryRun()
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
		// directories, globs and object-store prefixes become their files
		ins, err := reader.Expand(c.inputs)
		if err != nil {
			return err
		}
		sources = make([]pipeline.Source, len(ins))
		for i, in := range ins {
			sources[i] = pipeline.Source{Name: in.Path, Open: func() (reader.Reader, error) {
				return reader.Open(in.Path, c.cols, reader.Options{BatchSize: c.batchSize})
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
	text := summary.Format(c.format, c.summaryRun(), set)
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
		return perQuery.commit()
	}
	return nil
}

// atomicFile is written under a temporary name in the target's directory
// and renamed over the target only when complete, so a failed or
// interrupted run never leaves a half-written output.
type atomicFile struct {
	*os.File
	target    string
	committed bool
}

func createAtomic(target string) (*atomicFile, error) {
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("cannot write %s: %w", target, err)
	}
	return &atomicFile{File: f, target: target}, nil
}

func (a *atomicFile) commit() error {
	if err := a.File.Close(); err != nil {
		os.Remove(a.Name())
		return fmt.Errorf("writing %s: %w", a.target, err)
	}
	if err := os.Rename(a.Name(), a.target); err != nil {
		os.Remove(a.Name())
		return fmt.Errorf("writing %s: %w", a.target, err)
	}
	a.committed = true
	return nil
}

func (a *atomicFile) abortUnlessCommitted() {
	if !a.committed {
		a.File.Close()
		os.Remove(a.Name())
	}
}
