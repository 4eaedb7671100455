package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/pipeline"
	"github.com/rankeval/rankeval/reader"
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
		cfg.FormatQuery = func(b, id []byte, vals []float64) []byte { return appendTrecQuery(b, c, id, vals) }
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
	var summary []byte
	switch c.format {
	case "json":
		summary = formatJSON(c, set, gates)
	case "trec":
		summary = formatTrec(c, set)
	default:
		summary = formatText(c, set, gates)
	}
	if out != nil {
		if _, err := out.Write(summary); err != nil {
			return err
		}
		if err := out.commit(); err != nil {
			return err
		}
	} else if _, err := stdout.Write(summary); err != nil {
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

// optionsJSON lists every convention in force, so a summary explains itself.
func optionsJSON(c *config) []byte {
	b := []byte(`{"ties": `)
	b = strconv.AppendQuote(b, nameOf(choices.ties, c.opts.Ties))
	b = append(b, `, "gain": `...)
	b = strconv.AppendQuote(b, nameOf(choices.gain, c.opts.Gain))
	b = append(b, `, "max_grade": `...)
	b = pipeline.AppendJSONFloat(b, c.opts.MaxGrade)
	b = append(b, `, "rel_threshold": `...)
	if c.opts.HasThreshold {
		b = pipeline.AppendJSONFloat(b, c.opts.RelThreshold)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `, "empty": `...)
	b = strconv.AppendQuote(b, nameOf(choices.empty, c.opts.Empty))
	b = append(b, `, "profile": `...)
	if c.profile == "" {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendQuote(b, c.profile)
	}
	b = append(b, `, "score_precision": `...)
	if c.scoreFloat32 {
		b = append(b, `"float32"`...)
	} else {
		b = append(b, `"float64"`...)
	}
	if c.qrels != "" {
		b = append(b, `, "qrels": `...)
		b = pipeline.AppendJSONString(b, []byte(c.qrels))
		b = append(b, `, "complete": `...)
		b = strconv.AppendBool(b, c.complete)
		b = append(b, `, "unjudged_queries": `...)
		if c.skipUnjudged {
			b = append(b, `"ignored"`...)
		} else {
			b = append(b, `"evaluated"`...)
		}
	}
	for _, col := range []struct{ k, v string }{
		{"query_col", c.cols.Query}, {"doc_col", c.cols.Doc}, {"score_col", c.cols.Score},
		{"label_col", c.cols.Label}, {"rank_col", c.cols.Rank},
	} {
		b = append(b, `, "`+col.k+`": `...)
		if col.v == "" {
			b = append(b, "null"...)
		} else {
			b = pipeline.AppendJSONString(b, []byte(col.v))
		}
	}
	return append(b, '}')
}

// formatJSON writes the summary one metric a line: valid JSON that a
// person can also read and diff.
func formatJSON(c *config, set *aggregate.Set, g gateResult) []byte {
	b := []byte("{\n  \"metrics\": {")
	for i, m := range c.metrics {
		if i > 0 {
			b = append(b, ',')
		}
		s := set.Stats[i].Summary()
		b = append(b, "\n    "...)
		b = pipeline.AppendJSONString(b, []byte(m.Name))
		b = append(b, `: {"mean": `...)
		b = pipeline.AppendJSONFloat(b, s.Mean)
		b = append(b, `, "queries": `...)
		b = strconv.AppendInt(b, s.N, 10)
		b = append(b, `, "ci95": `...)
		if math.IsNaN(s.Lo) {
			b = append(b, "null"...)
		} else {
			b = append(b, '[')
			b = pipeline.AppendJSONFloat(b, s.Lo)
			b = append(b, ", "...)
			b = pipeline.AppendJSONFloat(b, s.Hi)
			b = append(b, ']')
		}
		b = append(b, '}')
	}
	b = append(b, "\n  },\n  \"rows\": "...)
	b = strconv.AppendInt(b, set.Rows, 10)
	b = append(b, ",\n  \"queries\": {\"total\": "...)
	b = strconv.AppendInt(b, set.Queries, 10)
	b = append(b, `, "empty": `...)
	b = strconv.AppendInt(b, set.Empty, 10)
	b = append(b, "},\n  \"options\": "...)
	b = append(b, optionsJSON(c)...)
	if len(c.gates) > 0 || c.failOnEmpty {
		b = append(b, ",\n  \"gates\": {\"passed\": "...)
		b = strconv.AppendBool(b, !g.failed())
		b = append(b, `, "checks": [`...)
		for i, ch := range g.checks {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(b, `{"metric": `...)
			b = pipeline.AppendJSONString(b, []byte(ch.name))
			b = append(b, `, "min": `...)
			b = pipeline.AppendJSONFloat(b, ch.min)
			b = append(b, `, "mean": `...)
			b = pipeline.AppendJSONFloat(b, ch.mean)
			b = append(b, `, "passed": `...)
			b = strconv.AppendBool(b, ch.passed)
			b = append(b, '}')
		}
		b = append(b, `], "fail_on_empty": `...)
		b = strconv.AppendBool(b, c.failOnEmpty)
		b = append(b, `, "empty": `...)
		b = strconv.AppendBool(b, g.empty)
		b = append(b, '}')
	}
	return append(b, "\n}\n"...)
}

func formatText(c *config, set *aggregate.Set, g gateResult) []byte {
	var w bytes.Buffer
	width := len("metric")
	for _, m := range c.metrics {
		width = max(width, len(m.Name))
	}
	fmt.Fprintf(&w, "%-*s  %8s  %-19s  %9s\n", width, "metric", "mean", "95% CI", "queries")
	for i, m := range c.metrics {
		s := set.Stats[i].Summary()
		ci := "-"
		if !math.IsNaN(s.Lo) {
			ci = fmt.Sprintf("[%.4f, %.4f]", s.Lo, s.Hi)
		}
		mean := "-"
		if !math.IsNaN(s.Mean) {
			mean = fmt.Sprintf("%.4f", s.Mean)
		}
		fmt.Fprintf(&w, "%-*s  %8s  %-19s  %9d\n", width, m.Name, mean, ci, s.N)
	}
	rel := "label > 0"
	if c.opts.HasThreshold {
		rel = "label >= " + strconv.FormatFloat(c.opts.RelThreshold, 'g', -1, 64)
	}
	emptyNote := map[metrics.Empty]string{metrics.EmptySkip: "left out", metrics.EmptyZero: "counted as 0",
		metrics.EmptyOne: "counted as 1", metrics.EmptyError: "an error"}[c.opts.Empty]
	fmt.Fprintf(&w, "\n%d rows, %d queries, %d with no relevant row (%s).\n", set.Rows, set.Queries, set.Empty, emptyNote)
	fmt.Fprintf(&w, "ties %s, gain %s, max grade %g, relevant: %s.\n",
		nameOf(choices.ties, c.opts.Ties), nameOf(choices.gain, c.opts.Gain), c.opts.MaxGrade, rel)
	for _, ch := range g.checks {
		verdict := "passed"
		if !ch.passed {
			verdict = "FAILED"
		}
		fmt.Fprintf(&w, "gate %s >= %g: %s (mean %s)\n", ch.name, ch.min, verdict, fmtMean(ch.mean))
	}
	if g.empty {
		fmt.Fprintln(&w, "gate --fail-on-empty: FAILED (no rows or no query with a relevant row)")
	}
	return w.Bytes()
}
