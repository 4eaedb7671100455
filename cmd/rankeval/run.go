package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rankeval/rankeval/aggregate"
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
	for l := range c.logs {
		if c.logs[l], err = expandInputs(c.logs[l]); err != nil {
			return err
		}
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

	var report *atomicFile
	if c.report != "" {
		if report, err = createAtomic(c.report); err != nil {
			return err
		}
		defer report.abortUnlessCommitted()
	}

	evalMetrics := slices.Clone(c.metrics)
	for _, cv := range c.curves {
		evalMetrics = append(evalMetrics, cv.ms...)
	}
	cfg := pipeline.Config{
		Metrics:      evalMetrics,
		Options:      c.opts,
		Workers:      c.workers,
		MaxGroupRows: c.maxGroupRows,
		Systems:      c.systems,
		MissingZero:  c.missing == "zero",
		Slices:       c.by,
		MaxSlices:    c.maxSlices,
		Core:         len(c.metrics),
		Bootstrap:    c.bootstrap,
		Hist:         c.report != "",
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
		cfg.TotalBytes = totalSize(slices.Concat(append([][]string{c.inputs}, c.logs...)...))
	}
	if c.format == "trec" {
		cfg.FormatQuery = func(b, id []byte, vals []float64) []byte { return summary.TrecQuery(b, c.metrics, id, vals) }
	}
	var trec *trecInput
	if c.qrels != "" {
		if trec, err = openTrec(c, &cfg, stderr); err != nil {
			return err
		}
	}
	cols := c.cols
	cols.Extra = c.by
	logs := c.logs
	if logs == nil {
		logs = [][]string{c.inputs}
	}
	sources := make([][]pipeline.Source, len(logs))
	for l, inputs := range logs {
		for _, in := range inputs {
			src := pipeline.Source{Name: in, Reread: in != reader.Stdin, Open: func() (reader.Reader, error) {
				return reader.Open(in, cols, reader.Options{BatchSize: c.batchSize, Decoders: c.workers, BytesRead: cfg.BytesRead})
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
	r := newResults(c, res)
	gates := checkGates(c, res.Sys[0])
	var body []byte
	switch c.format {
	case "json":
		body = formatJSON(c, r, gates)
	case "trec":
		body = summary.TrecAll(c.metrics, res.Sys[0])
	default:
		body = formatText(c, r, gates)
	}
	if report != nil {
		if err := writeReport(report, c, r); err != nil {
			return err
		}
	}
	if out != nil {
		if _, err := out.Write(body); err != nil {
			return err
		}
		if err := out.commit(); err != nil {
			return err
		}
	} else if _, err := stdout.Write(body); err != nil {
		return err
	}
	if perQuery != nil {
		if err := perQuery.commit(); err != nil {
			return err
		}
	}
	if report != nil {
		if err := report.commit(); err != nil {
			return err
		}
	}
	return gateErr(gates)
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

// optionsJSON lists every convention in force, so a summary explains
// itself: summary's object (the one rankeval-beam prints too), then the
// analysis options only the CLI has.
func optionsJSON(c *config) []byte {
	b := summary.OptionsJSON(&summary.Run{Options: c.opts, Columns: c.cols, Profile: c.profile,
		ScoreFloat32: c.scoreFloat32, DedupFirst: c.dedupFirst, Qrels: c.qrels, Complete: c.complete, SkipUnjudged: c.skipUnjudged})
	b = b[:len(b)-1] // reopen the object
	if len(c.by) > 0 {
		b = append(b, `, "by": `...)
		b = appendStrings(b, c.by)
		b = append(b, `, "max_slices": `...)
		b = strconv.AppendInt(b, int64(c.maxSlices), 10)
	}
	if len(c.systems) > 1 {
		b = append(b, `, "systems": `...)
		b = appendStrings(b, c.systems)
		if c.logs != nil {
			b = append(b, `, "missing": `...)
			b = strconv.AppendQuote(b, c.missing)
		}
	}
	if c.bootstrap > 0 {
		b = append(b, `, "bootstrap": `...)
		b = strconv.AppendInt(b, int64(c.bootstrap), 10)
	}
	return append(b, '}')
}

func appendStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, v := range ss {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = pipeline.AppendJSONString(b, []byte(v))
	}
	return append(b, ']')
}

// formatJSON writes the summary one metric a line (one slice a line):
// valid JSON that a person can also read and diff.
func formatJSON(c *config, r *results, g *summary.Gates) []byte {
	b := []byte("{\n  \"metrics\": {")
	b = appendMetrics(b, c, r.sys[0], r.bootOf(0), "\n    ")
	b = append(b, "\n  }"...)
	b = summary.AppendCounts(b, r.res.Sys[0], c.dedupFirst)
	if r.nsys > 1 {
		b = append(b, ",\n  \"systems\": ["...)
		for s := range r.nsys {
			if s > 0 {
				b = append(b, ',')
			}
			b = append(b, "\n    "...)
			b = appendSystem(b, c, r, s, r.sys[s], r.bootOf(s), r.res.Sys[s], r.res.Missing[s])
		}
		b = append(b, "\n  ],\n  \"comparison\": ["...)
		b = appendComparison(b, c, r, r.pairs, "\n    ", c.bootstrap > 0)
		b = append(b, "\n  ]"...)
	}
	if len(c.by) > 0 {
		b = append(b, ",\n  \"slices\": ["...)
		for n, i := range r.order {
			if n > 0 {
				b = append(b, ',')
			}
			b = append(b, "\n    "...)
			b = appendSlice(b, c, r, &r.slices[i])
		}
		b = append(b, "\n  ]"...)
	}
	b = append(b, ",\n  \"options\": "...)
	b = append(b, optionsJSON(c)...)
	b = summary.AppendGates(b, g)
	return append(b, "\n}\n"...)
}

func (r *results) bootOf(s int) [][2]float64 {
	if r.boot == nil {
		return nil
	}
	return r.boot[s]
}

// appendMetrics writes the members of a metrics object, each after sep.
func appendMetrics(b []byte, c *config, sums []aggregate.Summary, boot [][2]float64, sep string) []byte {
	for i, m := range c.metrics {
		if i > 0 {
			b = append(b, ',')
		}
		s := sums[i]
		if i > 0 || sep[0] == '\n' { // one a line, or inline after a comma
			b = append(b, sep...)
		}
		b = pipeline.AppendJSONString(b, []byte(m.Name))
		b = append(b, `: {"mean": `...)
		b = pipeline.AppendJSONFloat(b, s.Mean)
		b = append(b, `, "queries": `...)
		b = strconv.AppendInt(b, s.N, 10)
		b = append(b, `, "ci95": `...)
		b = appendInterval(b, s.Lo, s.Hi)
		if boot != nil {
			b = append(b, `, "ci95_bootstrap": `...)
			b = appendInterval(b, boot[i][0], boot[i][1])
		}
		b = append(b, '}')
	}
	return b
}

func appendInterval(b []byte, lo, hi float64) []byte {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return append(b, "null"...)
	}
	b = append(b, '[')
	b = pipeline.AppendJSONFloat(b, lo)
	b = append(b, ", "...)
	b = pipeline.AppendJSONFloat(b, hi)
	return append(b, ']')
}

// appendCounts writes a system's rows and queries object.
func appendCounts(b []byte, set *aggregate.Set, missing int64) []byte {
	b = strconv.AppendInt(b, set.Rows, 10)
	b = append(b, `, "queries": {"total": `...)
	b = strconv.AppendInt(b, set.Queries, 10)
	b = append(b, `, "empty": `...)
	b = strconv.AppendInt(b, set.Empty, 10)
	b = append(b, `, "missing": `...)
	b = strconv.AppendInt(b, missing, 10)
	return append(b, '}')
}

func appendSystem(b []byte, c *config, r *results, s int, sums []aggregate.Summary, boot [][2]float64, set *aggregate.Set, missing int64) []byte {
	b = append(b, `{"name": `...)
	b = pipeline.AppendJSONString(b, []byte(r.systems[s]))
	b = append(b, `, "rows": `...)
	b = appendCounts(b, set, missing)
	b = append(b, `, "metrics": {`...)
	b = appendMetrics(b, c, sums, boot, " ")
	return append(b, "}}"...)
}

// appendComparison writes one object per system against the baseline.
func appendComparison(b []byte, c *config, r *results, pairs [][]aggregate.Paired, sep string, boot bool) []byte {
	for p, ps := range pairs {
		if p > 0 {
			b = append(b, ',')
		}
		b = append(b, sep...)
		b = append(b, `{"system": `...)
		b = pipeline.AppendJSONString(b, []byte(r.systems[p+1]))
		b = append(b, `, "baseline": `...)
		b = pipeline.AppendJSONString(b, []byte(r.systems[0]))
		b = append(b, `, "metrics": {`...)
		for i, m := range c.metrics {
			if i > 0 {
				b = append(b, ", "...)
			}
			d := ps[i]
			b = pipeline.AppendJSONString(b, []byte(m.Name))
			b = append(b, `: {"diff": `...)
			b = pipeline.AppendJSONFloat(b, d.Mean)
			b = append(b, `, "queries": `...)
			b = strconv.AppendInt(b, d.N, 10)
			b = append(b, `, "ci95": `...)
			b = appendInterval(b, d.Lo, d.Hi)
			b = append(b, `, "p": `...)
			b = pipeline.AppendJSONFloat(b, d.P)
			b = append(b, `, "p_holm": `...)
			b = pipeline.AppendJSONFloat(b, d.PHolm)
			if boot {
				b = append(b, `, "ci95_bootstrap": `...)
				b = appendInterval(b, d.BootLo, d.BootHi)
			}
			b = append(b, '}')
		}
		b = append(b, "}}"...)
	}
	return b
}

// appendSlice writes one slice in the summary's own shape.
func appendSlice(b []byte, c *config, r *results, sr *sliceResult) []byte {
	b = append(b, `{"key": {`...)
	for i, col := range c.by {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = pipeline.AppendJSONString(b, []byte(col))
		b = append(b, ": "...)
		b = pipeline.AppendJSONString(b, []byte(sr.key[i]))
	}
	b = append(b, `}, "rows": `...)
	b = appendSliceCounts(b, sr.sl, 0, false)
	b = append(b, `, "metrics": {`...)
	b = appendMetrics(b, c, sr.sys[0], nil, " ")
	b = append(b, '}')
	if r.nsys > 1 {
		b = append(b, `, "systems": [`...)
		for s := range r.nsys {
			if s > 0 {
				b = append(b, ", "...)
			}
			b = append(b, `{"name": `...)
			b = pipeline.AppendJSONString(b, []byte(r.systems[s]))
			b = append(b, `, "rows": `...)
			b = appendSliceCounts(b, sr.sl, s, true)
			b = append(b, `, "metrics": {`...)
			b = appendMetrics(b, c, sr.sys[s], nil, " ")
			b = append(b, "}}"...)
		}
		b = append(b, `], "comparison": [`...)
		b = appendComparison(b, c, r, sr.pairs, "", false)
		b = append(b, ']')
	}
	return append(b, '}')
}

func appendSliceCounts(b []byte, sl *aggregate.Slice, s int, missing bool) []byte {
	b = strconv.AppendInt(b, sl.Rows[s], 10)
	b = append(b, `, "queries": {"total": `...)
	b = strconv.AppendInt(b, sl.Queries[s], 10)
	b = append(b, `, "empty": `...)
	b = strconv.AppendInt(b, sl.Empty[s], 10)
	if missing {
		b = append(b, `, "missing": `...)
		b = strconv.AppendInt(b, sl.Missing[s], 10)
	}
	return append(b, '}')
}

func formatText(c *config, r *results, g *summary.Gates) []byte {
	var w bytes.Buffer
	width := len("metric")
	for _, m := range c.metrics {
		width = max(width, len(m.Name))
	}
	for s := range r.nsys {
		if r.nsys > 1 {
			role := ""
			if s == 0 {
				role = " (baseline)"
			}
			fmt.Fprintf(&w, "%s%s: %d rows, %d queries, %d missing\n", r.systems[s], role, r.res.Sys[s].Rows, r.res.Sys[s].Queries, r.res.Missing[s])
		}
		fmt.Fprintf(&w, "%-*s  %8s  %-19s  %9s", width, "metric", "mean", "95% CI", "queries")
		if r.boot != nil {
			fmt.Fprintf(&w, "  %-19s", "95% CI (bootstrap)")
		}
		w.WriteByte('\n')
		for i, m := range c.metrics {
			sm := r.sys[s][i]
			fmt.Fprintf(&w, "%-*s  %8s  %-19s  %9d", width, m.Name, num4(sm.Mean), interval4(sm.Lo, sm.Hi), sm.N)
			if r.boot != nil {
				fmt.Fprintf(&w, "  %-19s", interval4(r.boot[s][i][0], r.boot[s][i][1]))
			}
			w.WriteByte('\n')
		}
		if r.nsys > 1 {
			w.WriteByte('\n')
		}
	}
	for p, ps := range r.pairs {
		fmt.Fprintf(&w, "%s vs %s: difference of means over the queries both define\n", r.systems[p+1], r.systems[0])
		fmt.Fprintf(&w, "%-*s  %8s  %-21s  %9s  %9s", width, "metric", "diff", "95% CI (t)", "p", "p (Holm)")
		if c.bootstrap > 0 {
			fmt.Fprintf(&w, "  %-21s", "95% CI (bootstrap)")
		}
		w.WriteByte('\n')
		for i, m := range c.metrics {
			d := ps[i]
			fmt.Fprintf(&w, "%-*s  %8s  %-21s  %9s  %9s", width, m.Name, signed4(d.Mean), signedInterval4(d.Lo, d.Hi), pval(d.P), pval(d.PHolm))
			if c.bootstrap > 0 {
				fmt.Fprintf(&w, "  %-21s", signedInterval4(d.BootLo, d.BootHi))
			}
			w.WriteByte('\n')
		}
		w.WriteByte('\n')
	}
	if len(c.by) > 0 {
		formatSlicesText(&w, c, r)
	}
	if r.nsys == 1 && len(c.by) == 0 {
		w.WriteByte('\n')
	}
	summary.WriteFooter(&w, c.opts, c.dedupFirst, r.res.Sys[0], g)
	return w.Bytes()
}

// formatSlicesText prints one line per slice: its queries and the
// baseline's means, then each other system's differences, starred where
// Holm's p is below 0.05.
func formatSlicesText(w *bytes.Buffer, c *config, r *results) {
	keyW := len(strings.Join(c.by, "/"))
	for _, sr := range r.slices {
		keyW = max(keyW, len(strings.Join(sr.key, "/")))
	}
	colW := 8
	for _, m := range c.metrics {
		colW = max(colW, len(m.Name)+1)
	}
	head := func(title string) {
		fmt.Fprintf(w, "%s\n%-*s  %9s", title, keyW, strings.Join(c.by, "/"), "queries")
		for _, m := range c.metrics {
			fmt.Fprintf(w, "  %*s", colW, m.Name)
		}
		w.WriteByte('\n')
	}
	title := "slices: means"
	if r.nsys > 1 {
		title += " of " + r.systems[0]
	}
	head(title)
	for _, i := range r.order {
		sr := &r.slices[i]
		fmt.Fprintf(w, "%-*s  %9d", keyW, strings.Join(sr.key, "/"), sr.sl.Queries[0])
		for m := range c.metrics {
			fmt.Fprintf(w, "  %*s", colW, num4(sr.sys[0][m].Mean))
		}
		w.WriteByte('\n')
	}
	w.WriteByte('\n')
	for p := 1; p < r.nsys; p++ {
		head(fmt.Sprintf("slices: %s - %s (* Holm p < 0.05)", r.systems[p], r.systems[0]))
		for _, i := range r.order {
			sr := &r.slices[i]
			fmt.Fprintf(w, "%-*s  %9d", keyW, strings.Join(sr.key, "/"), sr.sl.Queries[0])
			for m := range c.metrics {
				d := sr.pairs[p-1][m]
				star := " "
				if d.PHolm < 0.05 {
					star = "*"
				}
				fmt.Fprintf(w, "  %*s", colW, signed4(d.Mean)+star)
			}
			w.WriteByte('\n')
		}
		w.WriteByte('\n')
	}
}

func num4(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.4f", v)
}

func signed4(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%+.4f", v)
}

func interval4(lo, hi float64) string {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return "-"
	}
	return fmt.Sprintf("[%.4f, %.4f]", lo, hi)
}

func signedInterval4(lo, hi float64) string {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return "-"
	}
	return fmt.Sprintf("[%+.4f, %+.4f]", lo, hi)
}

// pval prints a p-value with the digits that matter.
func pval(p float64) string {
	switch {
	case math.IsNaN(p):
		return "-"
	case p < 1e-4:
		return fmt.Sprintf("%.1e", p)
	}
	return fmt.Sprintf("%.4f", p)
}
