// Package rankbeam is rankeval as an Apache Beam pipeline, for logs that
// outgrow one machine. It runs wherever Beam's Go SDK runs: Prism locally,
// and Flink, Spark or Dataflow through their job services.
//
// The pipeline:
//
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
package rankbeam

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/objstore"
	"github.com/rankeval/rankeval/pipeline"
	"github.com/rankeval/rankeval/reader"
	"github.com/rankeval/rankeval/summary"
)

// Sentinel errors, matched with errors.Is. Input errors wrap the root
// module's sentinels (reader.ErrValue, pipeline.ErrDuplicateDoc, ...).
var (
	ErrConfig = errors.New("bad pipeline configuration")
)

// Config is what every stage needs. It travels to the workers inside the
// DoFns (Beam serializes their exported fields as JSON), so it holds only
// plain data: metric names are parsed again on each worker.
type Config struct {
	Inputs       []string // expanded file list; a file's index is its place here
	Metrics      string   // comma-separated, as -m takes them
	Ties         string
	Gain         string
	MaxGrade     float64
	RelThreshold *float64
	Empty        string
	Profile      string
	ScoreFloat32 bool
	Columns      reader.Columns
	// DedupFirst keeps the first row of a doc id repeated within a query
	// and drops the others (--dedup first); otherwise a repeat is an error.
	DedupFirst   bool
	MaxGroupRows int
	BatchSize    int
	// RowGroupsPerPart is how many Parquet row groups one work item reads
	// (default 1).
	RowGroupsPerPart int
	// Format of the summary: json, text or trec.
	Format string
}

// Resolve parses the configuration into the root module's types.
func (c *Config) Resolve() (*summary.Run, error) {
	ms, err := metrics.ParseList(c.Metrics)
	if err != nil {
		return nil, err
	}
	o := metrics.DefaultOptions()
	var ok bool
	if o.Ties, ok = summary.Ties[c.Ties]; !ok {
		return nil, fmt.Errorf("ties %q: %w", c.Ties, ErrConfig)
	}
	if o.Gain, ok = summary.Gains[c.Gain]; !ok {
		return nil, fmt.Errorf("gain %q: %w", c.Gain, ErrConfig)
	}
	if o.Empty, ok = summary.Empties[c.Empty]; !ok {
		return nil, fmt.Errorf("empty %q: %w", c.Empty, ErrConfig)
	}
	o.MaxGrade = c.MaxGrade
	if c.RelThreshold != nil {
		o.RelThreshold, o.HasThreshold = *c.RelThreshold, true
	}
	return &summary.Run{Metrics: ms, Options: o, Columns: c.Columns, Profile: c.Profile,
		ScoreFloat32: c.ScoreFloat32, SkipUnjudged: c.Profile != "", DedupFirst: c.DedupFirst}, nil
}

func (c *Config) maxGroupRows() int {
	if c.MaxGroupRows > 0 {
		return c.MaxGroupRows
	}
	return 1_000_000
}

// Part is one work item: a whole file, or row groups [First, First+Units)
// of a Parquet file.
type Part struct {
	File         int
	First, Units int
}

// Result is one evaluated query.
type Result struct {
	Query   string
	First   uint64 // packed position of its first row, to order per-query output
	Rows    int64  // rows evaluated (after --dedup first)
	Dropped int64  // rows dropped as repeats of a doc id
	Vals    []float64
	Empty   bool
}

// Partial is the accumulator of the merge: a partial aggregate. It crosses
// process boundaries in aggregate's canonical binary form, so merging on
// any worker, in any order, loses nothing.
type Partial struct{ Set *aggregate.Set }

func encodePartial(p Partial) ([]byte, error) { return p.Set.MarshalBinary() }

func decodePartial(b []byte) (Partial, error) {
	s := new(aggregate.Set)
	if err := s.UnmarshalBinary(b); err != nil {
		return Partial{}, err
	}
	return Partial{Set: s}, nil
}

func init() {
	beam.RegisterCoder(reflect.TypeOf(Partial{}), encodePartial, decodePartial)
	beam.RegisterType(reflect.TypeOf(Part{}))
	beam.RegisterType(reflect.TypeOf(Result{}))
	register.DoFn2x1[int, func(Part), error](&splitFn{})
	register.Emitter1[Part]()
	register.DoFn3x1[context.Context, Part, func(string, []byte), error](&readFn{})
	register.Emitter2[string, []byte]()
	register.DoFn3x1[string, func(*[]byte) bool, func(Result), error](&evalFn{})
	register.Iter1[[]byte]()
	register.Emitter1[Result]()
	register.Combiner3[Partial, Result, Partial](&MergeFn{})
	register.DoFn2x1[Partial, func([]byte), error](&formatFn{})
	register.Emitter1[[]byte]()
	register.DoFn2x1[Result, func(int, []byte), error](&queryLineFn{})
	register.Emitter2[int, []byte]()
	register.DoFn2x1[int, func(*[]byte) bool, error](&writeShardFn{})
	register.DoFn1x1[[]byte, error](&writeFileFn{})
}

// Build adds the evaluation to s and returns the summary (one []byte
// element). With perQuery set, per-query records are written as shards
// perQuery-SSSSS-of-NNNNN.jsonl (or .trec with the trec format).
func Build(s beam.Scope, cfg Config, perQuery string, shards int) (beam.PCollection, error) {
	run, err := cfg.Resolve()
	if err != nil {
		return beam.PCollection{}, err
	}
	if len(cfg.Inputs) == 0 {
		return beam.PCollection{}, fmt.Errorf("no input: %w", ErrConfig)
	}
	if len(cfg.Inputs) >= 1<<24 {
		return beam.PCollection{}, fmt.Errorf("%d input files; at most %d: %w", len(cfg.Inputs), 1<<24-1, ErrConfig)
	}
	idx := make([]int, len(cfg.Inputs))
	for i := range idx {
		idx[i] = i
	}
	files := beam.CreateList(s.Scope("files"), idx)
	parts := beam.ParDo(s.Scope("split"), &splitFn{Cfg: cfg}, files)
	// Without the reshuffle a runner may fuse reading into the step that
	// split the files and read every part on one worker.
	parts = beam.Reshuffle(s.Scope("spread"), parts)
	chunks := beam.ParDo(s.Scope("read"), &readFn{Cfg: cfg}, parts)
	grouped := beam.GroupByKey(s.Scope("group"), chunks)
	results := beam.ParDo(s.Scope("evaluate"), &evalFn{Cfg: cfg}, grouped)
	merged := beam.Combine(s.Scope("merge"), &MergeFn{Metrics: len(run.Metrics)}, results)
	sum := beam.ParDo(s.Scope("summary"), &formatFn{Cfg: cfg}, merged)
	if perQuery != "" {
		if shards < 1 {
			shards = 1
		}
		lines := beam.ParDo(s.Scope("per-query"), &queryLineFn{Cfg: cfg, Shards: shards}, results)
		byShard := beam.GroupByKey(s.Scope("per-query-shards"), lines)
		ext := ".jsonl"
		if cfg.Format == "trec" {
			ext = ".trec"
		}
		beam.ParDo0(s.Scope("per-query-write"), &writeShardFn{Prefix: perQuery, Ext: ext, Shards: shards}, byShard)
	}
	return sum, nil
}

// WriteTo writes the summary to name (a local path, an s3:// or gs:// URL,
// or - for standard output, which only a local runner's process shows).
func WriteTo(s beam.Scope, sums beam.PCollection, name string) {
	beam.ParDo0(s.Scope("write-summary"), &writeFileFn{Name: name}, sums)
}

// splitFn turns a file into its parts: row-group ranges of a Parquet file,
// the whole file otherwise.
type splitFn struct{ Cfg Config }

func (f *splitFn) ProcessElement(file int, emit func(Part)) error {
	name := f.Cfg.Inputs[file]
	n, err := reader.Units(name)
	if err != nil {
		return err
	}
	per := max(1, f.Cfg.RowGroupsPerPart)
	if n <= 1 {
		// 0 row groups is an empty Parquet file: read it whole (no rows)
		emit(Part{File: file})
		return nil
	}
	for first := 0; first < n; first += per {
		emit(Part{File: file, First: first, Units: min(per, n-first)})
	}
	return nil
}

// readFn reads a part and emits each run of consecutive rows of one query
// as a chunk keyed by the query id. Rows are validated here, where the
// batch still names the file and line or row of each.
type readFn struct {
	Cfg Config
	val *pipeline.Validator
}

func (f *readFn) Setup() error {
	run, err := f.Cfg.Resolve()
	if err != nil {
		return err
	}
	f.val = pipeline.NewValidator(run.Options, run.Metrics)
	return nil
}

func (f *readFn) ProcessElement(ctx context.Context, p Part, emit func(string, []byte)) error {
	name := f.Cfg.Inputs[p.File]
	opt := reader.Options{BatchSize: f.Cfg.BatchSize, FirstUnit: p.First, Units: p.Units, Decoders: 1}
	r, err := reader.Open(name, f.Cfg.Columns, opt)
	if err != nil {
		return err
	}
	defer r.Close()
	var cur rows
	var curID []byte
	var buf []byte
	flush := func() {
		if cur.n() == 0 {
			return
		}
		buf = cur.encode(buf[:0])
		emit(string(curID), bytes.Clone(buf))
		cur = rows{}
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
			if err := f.val.Rows(b, i, j); err != nil {
				return err
			}
			if cur.n() > 0 && !bytes.Equal(id, curID) {
				flush()
			}
			if cur.n() == 0 {
				curID = append(curID[:0], id...)
				cur.hasScore, cur.hasRank, cur.hasDoc = len(b.Score) > 0, b.Rank != nil, len(b.Doc.Off) > 1
			}
			for k := i; k < j; k++ {
				cur.pos = append(cur.pos, packPos(p.File, b.Pos[k]))
				cur.label = append(cur.label, b.Label[k])
				if cur.hasScore {
					s := b.Score[k]
					if f.Cfg.ScoreFloat32 {
						s = float64(float32(s))
					}
					cur.score = append(cur.score, s)
				}
				if cur.hasRank {
					cur.rank = append(cur.rank, b.Rank[k])
				}
				if cur.hasDoc {
					cur.doc = append(cur.doc, bytes.Clone(b.Doc.At(k)))
				}
			}
			i = j
		}
	}
	if err := r.Err(); err != nil {
		return err
	}
	flush()
	return nil
}

// where names a packed position for a message.
func where(inputs []string, v uint64) string {
	file, pos := unpackPos(v)
	return fmt.Sprintf("%s:%d", inputs[file], pos)
}

// evalFn evaluates one query from all its chunks.
type evalFn struct {
	Cfg  Config
	run  *summary.Run
	ev   *metrics.Evaluator
	vals []float64
}

func (f *evalFn) Setup() error {
	run, err := f.Cfg.Resolve()
	if err != nil {
		return err
	}
	f.run = run
	f.ev = metrics.NewEvaluator(run.Metrics, run.Options)
	return nil
}

func (f *evalFn) ProcessElement(id string, chunks func(*[]byte) bool, emit func(Result)) error {
	var q rows
	var c []byte
	for chunks(&c) {
		if err := q.decodeAppend(c); err != nil {
			return fmt.Errorf("query %q: %w", id, err)
		}
		if q.n() > f.Cfg.maxGroupRows() {
			return fmt.Errorf("%s: query %q has more than %d rows (--max-group-rows): %w",
				where(f.Cfg.Inputs, q.pos[0]), id, f.Cfg.maxGroupRows(), pipeline.ErrGroupTooLarge)
		}
	}
	q.sortByPos()
	var dropped int
	if q.hasDoc {
		var err error
		if dropped, err = f.dedup(id, &q); err != nil {
			return err
		}
	}
	l := metrics.List{Label: q.label}
	if q.hasScore {
		l.Score = q.score
	}
	if q.hasRank {
		l.Rank = q.rank
	}
	if q.hasDoc {
		l.Doc = q.doc
	}
	vals := make([]float64, len(f.run.Metrics))
	empty := f.ev.Eval(&l, vals)
	if empty && f.run.Options.Empty == metrics.EmptyError {
		return fmt.Errorf("%s: query %q has no relevant row (--empty error): %w", where(f.Cfg.Inputs, q.pos[0]), id, pipeline.ErrEmptyQuery)
	}
	emit(Result{Query: id, First: q.pos[0], Rows: int64(q.n()), Dropped: int64(dropped), Vals: vals, Empty: empty})
	return nil
}

// dedup applies the local pipeline's rule to a doc id repeated within a
// query, in input order: an error naming both rows, or (--dedup first)
// the later rows dropped. Rows without a doc id are never repeats.
func (f *evalFn) dedup(id string, q *rows) (dropped int, err error) {
	seen := make(map[string]int, q.n())
	kept := 0
	for i, d := range q.doc {
		if len(d) > 0 {
			if first, dup := seen[string(d)]; dup {
				if !f.Cfg.DedupFirst {
					return 0, fmt.Errorf("%s: document %q appears twice in query %q (first at %s): %w",
						where(f.Cfg.Inputs, q.pos[i]), d, id, where(f.Cfg.Inputs, q.pos[first]), pipeline.ErrDuplicateDoc)
				}
				continue
			}
			seen[string(d)] = i
		}
		q.pos[kept], q.label[kept], q.doc[kept] = q.pos[i], q.label[i], q.doc[i]
		if q.hasScore {
			q.score[kept] = q.score[i]
		}
		if q.hasRank {
			q.rank[kept] = q.rank[i]
		}
		kept++
	}
	dropped = q.n() - kept
	q.pos, q.label, q.doc = q.pos[:kept], q.label[:kept], q.doc[:kept]
	if q.hasScore {
		q.score = q.score[:kept]
	}
	if q.hasRank {
		q.rank = q.rank[:kept]
	}
	return dropped, nil
}

// MergeFn is the Beam CombineFn that merges per-query results into one
// aggregate. Its sums are exact, so the result does not depend on how the
// runner splits, orders or nests AddInput and MergeAccumulators calls.
type MergeFn struct {
	Metrics int // number of metrics, for empty accumulators
}

// CreateAccumulator returns an empty aggregate.
func (f *MergeFn) CreateAccumulator() Partial { return Partial{Set: aggregate.NewSet(f.Metrics)} }

// AddInput records one query.
func (f *MergeFn) AddInput(a Partial, r Result) Partial {
	a.Set.AddQuery(int(r.Rows), r.Vals, r.Empty)
	a.Set.Dropped += r.Dropped
	return a
}

// MergeAccumulators adds b into a.
func (f *MergeFn) MergeAccumulators(a, b Partial) Partial {
	a.Set.Merge(b.Set)
	return a
}

// ExtractOutput returns the merged aggregate.
func (f *MergeFn) ExtractOutput(a Partial) Partial { return a }

// formatFn prints the summary as the local CLI does.
type formatFn struct{ Cfg Config }

func (f *formatFn) ProcessElement(p Partial, emit func([]byte)) error {
	run, err := f.Cfg.Resolve()
	if err != nil {
		return err
	}
	emit(summary.Format(f.Cfg.Format, run, p.Set))
	return nil
}

// queryLineFn formats a query's record and picks its shard from a hash of
// the query id, so shards are balanced and a rerun writes the same shards.
type queryLineFn struct {
	Cfg    Config
	Shards int
	run    *summary.Run
}

func (f *queryLineFn) Setup() (err error) {
	f.run, err = f.Cfg.Resolve()
	return err
}

func (f *queryLineFn) ProcessElement(r Result, emit func(int, []byte)) error {
	// the first position leads each line, for the writer to restore input order
	line := make([]byte, 8, 64)
	for i := range 8 {
		line[i] = byte(r.First >> (56 - 8*i))
	}
	if f.Cfg.Format == "trec" {
		line = summary.AppendTrecQuery(line, f.run, []byte(r.Query), r.Vals)
	} else {
		line = pipeline.AppendQueryLine(line, []byte(r.Query), f.run.Metrics, r.Vals, r.Empty)
	}
	h := fnv.New32a()
	h.Write([]byte(r.Query))
	emit(int(h.Sum32()%uint32(f.Shards)), line)
	return nil
}

// writeShardFn writes one shard of per-query records, in input order
// (by each query's first row).
type writeShardFn struct {
	Prefix, Ext string
	Shards      int
}

func (f *writeShardFn) ProcessElement(shard int, lines func(*[]byte) bool) error {
	var all [][]byte
	var l []byte
	for lines(&l) {
		all = append(all, l)
	}
	slices.SortFunc(all, func(a, b []byte) int { return bytes.Compare(a[:8], b[:8]) })
	var out bytes.Buffer
	for _, l := range all {
		out.Write(l[8:])
	}
	name := fmt.Sprintf("%s-%05d-of-%05d%s", f.Prefix, shard, f.Shards, f.Ext)
	return writeFile(name, out.Bytes())
}

// writeFileFn writes the summary.
type writeFileFn struct{ Name string }

func (f *writeFileFn) ProcessElement(b []byte) error {
	if f.Name == "" || f.Name == "-" {
		_, err := os.Stdout.Write(b)
		return err
	}
	return writeFile(f.Name, b)
}

// writeFile writes name whole or not at all: object stores publish an
// object when its writer closes; local files are renamed into place.
func writeFile(name string, b []byte) error {
	if objstore.IsURL(name) {
		w, err := objstore.Create(context.Background(), name)
		if err != nil {
			return err
		}
		if _, err := w.Write(b); err != nil {
			return errors.Join(fmt.Errorf("writing %s: %w", name, err), w.Close())
		}
		if err := w.Close(); err != nil {
			return fmt.Errorf("writing %s: %w", name, err)
		}
		return nil
	}
	dir, base := filepath.Split(name)
	if dir == "" {
		dir = "."
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", name, err)
	}
	if _, err := io.Copy(tmp, bytes.NewReader(b)); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if err := os.Rename(tmp.Name(), name); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return nil
}

var _ = math.NaN
