// Package rankbeam is rankeval as an Apache Beam pipeline, for logs that
// outgrow one machine. It runs wherever Beam's Go SDK runs: Prism locally,
// and Flink, Spark or Dataflow through their job services.
//
// The pipeline:
//
//	inputs ─ expand ─▶ files (on a worker: the graph holds the arguments, not the list)
//	files ─ split ─▶ parts (a JSONL file, or a range of Parquet row groups)
//	      ─ Reshuffle ─ read ─▶ (query id, chunk of rows)   rows validated here
//	      ─ GroupByKey ─ evaluate ─▶ per-query result       input order restored
//	      ─ Combine(merge) ─▶ aggregate.Set ─ format ─▶ the summary rankeval prints
//	                     └─▶ per-query JSONL, sharded
//
// Input need not be sorted: the shuffle groups rows by query id. Every row
// carries its position (file index, line or row), and a query's rows are
// sorted by it before evaluation, so the "input" tie policy means what it
// means for the local CLI even though a shuffle delivers rows in any order.
// Means merge through the root module's exact aggregator, so the summary is
// bit-identical to the local CLI's whatever the runner, parallelism or
// bundle boundaries.
//
// Several logs compared as systems (--system) are inputs of the one job,
// joined by query id in the same shuffle (systems.go); a TREC run's qrels
// are joined by query id too, in a CoGroupByKey (trec.go).
package rankbeam

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/config"
	"github.com/rankeval/rankeval/pipeline"
	"github.com/rankeval/rankeval/reader"
	"github.com/rankeval/rankeval/stats"
	"github.com/rankeval/rankeval/summary"
)

// Sentinel errors, matched with errors.Is. Input errors wrap the root
// module's sentinels (reader.ErrValue, pipeline.ErrDuplicateDoc, ...).
var (
	ErrConfig = errors.New("bad pipeline configuration")
)

// Config is what every stage needs. It travels to the workers inside the
// DoFns (Beam serializes their exported fields as JSON), so it holds only
// plain data: the settings as the launcher left them after evalflags'
// Finish (a profile's values and the rank column's rule applied),
// resolved again on each worker by the same code as the launcher's.
type Config struct {
	// Inputs are the INPUT arguments as given (files, directories, globs,
	// object-store prefixes); with --system the logs' paths are in
	// Sources instead. A worker expands them (expandInputs), log after
	// log, and a file's index is its place in the expansion. Relative ones
	// are read from Dir, the launcher's working directory, when set.
	Inputs []string
	Dir    string
	// Config holds every setting, as rankeval's: the --system logs and
	// TREC --qrels (Sources: systems.go, trec.go), the gates (the summary
	// says how the run fared, and the launcher exits 3 on a failure), the
	// batch size (Run.BatchSize), and where the state and the report are
	// written (Outputs.State, Outputs.Report: a state merges with the
	// CLI's states). Of Run, only the batch size applies: the runner
	// decides parallelism and logging.
	config.Config
	// RowGroupsPerPart is how many Parquet row groups one work item reads
	// (default 1).
	RowGroupsPerPart int
}

// Check resolves the configuration as every step will, so that what the
// pipeline cannot do is refused at launch (ErrConfig, config.ErrUsage).
func (c *Config) Check() error {
	// on a copy, as Build makes several TREC runs systems
	cp := *c
	var err error
	if cp.Inputs, err = cp.Sources.RunSystems(cp.Inputs); err != nil {
		return err
	}
	c = &cp
	s, err := c.settings()
	if err != nil {
		return err
	}
	if _, err := c.Gates.Spec(s.Rules.Metrics, len(s.Rules.Systems)); err != nil {
		return err
	}
	return nil
}

// settings resolves the shared flags and the source flags.
func (c *Config) settings() (*config.Settings, error) {
	s, _, err := c.resolve()
	return s, err
}

// resolve is settings, and the arguments of each log (applySources).
func (c *Config) resolve() (*config.Settings, [][]string, error) {
	s, err := c.Config.Resolve()
	if err != nil {
		return nil, nil, err
	}
	logs, err := c.applySources(s)
	if err != nil {
		return nil, nil, err
	}
	return s, logs, nil
}

// run resolves the flags into the settings the workers evaluate under and
// the Run the summary explains: with a state, the report's curves are
// evaluated too, as rankeval --state does, so the states merge.
func (c *Config) run() (*config.Settings, *summary.Run, error) {
	s, err := c.settings()
	if err != nil {
		return nil, nil, err
	}
	run := s.Summary()
	run.Version = summary.Version() // the inputs are named by the step that expanded them (describe)
	if c.figures() {
		run.Curves = summary.CurvesFor(run.Metrics)
		s.Rules.Metrics = run.Evaluated()
	}
	return s, &run, nil
}

// layout is the aggregate's layout, the CLI's for the same run.
func (c *Config) layout() (*aggregate.Layout, error) {
	s, run, err := c.run()
	if err != nil {
		return nil, err
	}
	pc := pipeline.Config{Rules: s.Rules, Analysis: pipeline.Analysis{Core: len(run.Metrics), Bootstrap: s.Bootstrap, Hist: c.figures(),
		Compare: s.Compare}}
	return pc.Layout(), nil
}

// Part is one work item: a whole file, or row groups [First, First+Units)
// of a Parquet file.
type Part struct {
	File, Log    int    // the file's index and log (File)
	Path, Name   string // read, and named in messages (File)
	First, Units int
}

// Result is one evaluated query.
type Result struct {
	Query   string
	First   uint64   // packed position of its first row, to order per-query output
	Slice   []string // its values of the --by columns; nil without slices
	Rows    []int64  // per system: rows evaluated (after --dedup first)
	Dropped []int64  // per system: rows dropped as repeats of a doc id
	// NoScore and NoLabel: per system the rows without a score or a
	// label (--missing-score, --missing-label)
	NoScore, NoLabel []int64
	Vals             [][]float64
	Empty            []bool
	Missing          []bool // per system: absent from its log (--missing zero)
	// Weight and Clipped: per system the click weight and the clicks
	// clipped, with IPS estimates (nil otherwise)
	Weight  []float64
	Clipped []int64
	// Unseen: a judged query absent from the TREC run, counted under
	// --complete; it has no per-query record, as with rankeval
	Unseen bool
	// Labels and NonBinary: what the evaluating worker has seen of labels
	// so far (pipeline.Unit.Labels); or-ed in the merge, they give the
	// summary's labels and warning as rankeval's
	Labels, NonBinary bool
}

// query is r as the aggregate takes it, in slice idx (-1: none).
func (r *Result) query(idx int, hash bool) *aggregate.Query {
	q := &aggregate.Query{Slice: idx, Vals: r.Vals, Empty: r.Empty, Missing: r.Missing, Weight: r.Weight}
	for _, n := range r.Rows {
		q.Rows = append(q.Rows, int(n))
	}
	for _, n := range r.Clipped {
		q.Clipped = append(q.Clipped, int(n))
	}
	if hash {
		q.Hash = stats.QueryHash([]byte(r.Query))
	}
	return q
}

func init() {
	beam.RegisterCoder(reflect.TypeOf(Partial{}), encodePartial, decodePartial)
	beam.RegisterType(reflect.TypeOf(Part{}))
	beam.RegisterType(reflect.TypeOf(Result{}))
	register.DoFn2x1[File, func(Part), error](&splitFn{})
	register.Emitter1[Part]()
	register.DoFn3x1[context.Context, Part, func(string, []byte), error](&readFn{})
	register.Emitter2[string, []byte]()
	register.DoFn4x1[string, func(*[]byte) bool, func() func(*File) bool, func(Result), error](&evalFn{})
	register.Iter1[[]byte]()
	register.Emitter1[Result]()
	register.Combiner3[Partial, Result, Partial](&MergeFn{})
	register.DoFn4x1[context.Context, Partial, func() func(*File) bool, func([]byte), error](&formatFn{})
	register.Emitter1[[]byte]()
	register.DoFn2x1[Result, func(int, []byte), error](&queryLineFn{})
	register.Emitter2[int, []byte]()
	register.DoFn2x1[int, func(*[]byte) bool, error](&writeShardFn{})
	register.DoFn1x1[[]byte, error](&writeFileFn{})
	register.Function2x0(emptyShardLine)
}

// Build adds the evaluation to s and returns the summary (one []byte
// element). With perQuery set, per-query records are written as shards
// perQuery-SSSSS-of-NNNNN.jsonl (or .trec with the trec format).
func Build(s beam.Scope, cfg Config, perQuery string, shards int) (beam.PCollection, error) {
	// several TREC runs are systems, as rankeval's Prepare makes them
	var err error
	if cfg.Inputs, err = cfg.Sources.RunSystems(cfg.Inputs); err != nil {
		return beam.PCollection{}, err
	}
	set, logs, err := cfg.resolve()
	if err != nil {
		return beam.PCollection{}, err
	}
	if len(slices.Concat(logs...)) == 0 {
		return beam.PCollection{}, fmt.Errorf("no input: %w", ErrConfig)
	}
	files := expandInputs(s, logs, cfg.Dir, cfg.ReadTimeout)
	cfg.Inputs = nil // the steps learn the files from the expansion: the graph holds them once
	parts := beam.ParDo(s.Scope("split"), &splitFn{Cfg: cfg}, files)
	// Without the reshuffle a runner may fuse reading into the step that
	// split the files and read every part on one worker.
	parts = beam.Reshuffle(s.Scope("spread"), parts)
	chunks := beam.ParDo(s.Scope("read"), &readFn{Cfg: cfg}, parts)
	results := evaluate(s, cfg, chunks, files)
	layout, err := cfg.layout()
	if err != nil {
		return beam.PCollection{}, err
	}
	// One element that adds nothing goes into the merge beside the queries:
	// a combine with no input emits nothing, and an empty input must still
	// print its zero-count summary (docs/metrics.md §8), as rankeval does.
	seed := beam.Create(s.Scope("seed"), Result{})
	merged := beam.Combine(s.Scope("merge"), &MergeFn{Layout: *layout, Digests: cfg.Outputs.State != ""}, beam.Flatten(s.Scope("with-seed"), results, seed))
	sum := beam.ParDo(s.Scope("summary"), &formatFn{Cfg: cfg}, merged, beam.SideInput{Input: files})
	if perQuery != "" {
		if shards < 1 {
			shards = 1
		}
		lines := beam.ParDo(s.Scope("per-query"), &queryLineFn{Cfg: cfg, Shards: shards}, results)
		// an empty line for every shard, so every shard is written, even
		// one no query hashes to: a rerun leaves no stale shard behind
		idx := make([]int, shards)
		for i := range idx {
			idx[i] = i
		}
		empty := beam.ParDo(s.Scope("per-query-every-shard"), emptyShardLine, beam.CreateList(s.Scope("shard-numbers"), idx))
		byShard := beam.GroupByKey(s.Scope("per-query-shards"), beam.Flatten(s.Scope("per-query-all"), lines, empty))
		beam.ParDo0(s.Scope("per-query-write"), &writeShardFn{Prefix: perQuery, Ext: ShardExt(set.Format), Shards: shards, ByID: cfg.byID()}, byShard)
	}
	return sum, nil
}

// WriteTo writes the summary to name (a local path, an object-store URL,
// or - for standard output, which only a local runner's process shows).
func WriteTo(s beam.Scope, sums beam.PCollection, name string) {
	beam.ParDo0(s.Scope("write-summary"), &writeFileFn{Name: name}, sums)
}

// splitFn turns a file into its parts: row-group ranges of a Parquet file,
// the whole file otherwise.
type splitFn struct {
	Cfg Config
	// Propensities says the job is rankeval propensities' (BuildPropensities)
	Propensities bool
}

// Setup checks the run's settings on the worker.
func (f *splitFn) Setup() error {
	if f.Propensities {
		return f.Cfg.CheckPropensities()
	}
	_, err := f.Cfg.settings()
	return err
}

func (f *splitFn) ProcessElement(file File, emit func(Part)) (err error) {
	defer mark(&err)
	n, err := reader.Units(file.Path, reader.Options{ReadTimeout: f.Cfg.ReadTimeout})
	if err != nil {
		return namedErr(err, Part{Path: file.Path, Name: file.Name})
	}
	per := max(1, f.Cfg.RowGroupsPerPart)
	if n <= 1 {
		// 0 row groups is an empty Parquet file: read it whole (no rows)
		emit(Part{File: file.Index, Log: file.Log, Path: file.Path, Name: file.Name})
		return nil
	}
	for first := 0; first < n; first += per {
		emit(Part{File: file.Index, Log: file.Log, Path: file.Path, Name: file.Name, First: first, Units: min(per, n-first)})
	}
	return nil
}

// readFn reads a part and emits each run of consecutive rows of one query
// as a chunk keyed by the query id: the rows taken by the run's Rules
// (validated where the batch still names the file and line or row of
// each), in the binary form of pipeline.Group.
type readFn struct {
	Cfg          Config
	take         *pipeline.Taker
	cols         reader.Columns
	format       reader.Format
	delim        byte
	decimalComma bool
	part         Part // being read
}

// where names a position of the part being read: the rows a reader
// checks are all in it.
func (f *readFn) where(v uint64) string {
	file, pos := pipeline.Unpack(v)
	if file != f.part.File {
		return fmt.Sprintf("input #%d:%d", file, pos)
	}
	return fmt.Sprintf("%s:%d", f.part.Name, pos)
}

func (f *readFn) Setup() error {
	s, err := f.Cfg.settings()
	if err != nil {
		return err
	}
	f.take, f.cols, f.format = s.Rules.NewTaker(f.where), s.Columns, s.InputFormat
	f.delim, f.decimalComma = s.Delimiter, s.DecimalComma
	return nil
}

func (f *readFn) ProcessElement(ctx context.Context, p Part, emit func(string, []byte)) (err error) {
	defer mark(&err)
	f.part = p
	opt := reader.Options{BatchSize: f.Cfg.Run.BatchSize, FirstUnit: p.First, Units: p.Units, Decoders: 1, Format: f.format, Delimiter: f.delim, DecimalComma: f.decimalComma,
		ReadTimeout: f.Cfg.ReadTimeout}
	r, err := f.Cfg.open(p.Path, f.cols, opt)
	if err != nil {
		return namedErr(err, p)
	}
	defer r.Close()
	var g pipeline.Group
	flush := func() {
		if g.N() > 0 {
			emit(string(g.ID), g.AppendBinary(nil))
			g.Reset()
		}
	}
	for r.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		b := r.Batch()
		for i := 0; i < b.N; {
			id := b.Query.At(i)
			j := i + 1
			for j < b.N && bytes.Equal(b.Query.At(j), id) {
				j++
			}
			if g.N() > 0 && !bytes.Equal(id, g.ID) {
				flush()
			}
			// a part of the query: its size is checked when the shuffle has
			// brought its parts together (Decode)
			if err := f.take.AppendPart(&g, b, i, j, p.File); err != nil {
				return err
			}
			i = j
		}
	}
	if err := r.Err(); err != nil {
		return namedErr(err, p)
	}
	flush()
	return nil
}

// evalFn evaluates one query from all its chunks (of every log) with the
// run's query unit, as a worker of the local pipeline does.
type evalFn struct {
	Cfg Config
	ev  evaluator
}

func (f *evalFn) Setup() error { return f.ev.setup(&f.Cfg) }

func (f *evalFn) ProcessElement(id string, chunks func(*[]byte) bool, files func() func(*File) bool, emit func(Result)) (err error) {
	defer mark(&err)
	f.ev.files.at(files)
	return f.ev.eval(id, collect(chunks), emit)
}
