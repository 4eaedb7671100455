package rankbeam

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/rankeval/rankeval"
	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/config"
	"github.com/rankeval/rankeval/internal/engine"
	"github.com/rankeval/rankeval/propensity"
	"github.com/rankeval/rankeval/reader"
)

// rankeval propensities as a pipeline:
//
//	inputs ─ expand ─▶ files ─ split ─▶ parts ─ Reshuffle
//	      ─ count ─▶ (query id, its cells of a part)      rows checked here
//	              └▶ each part's row digest and rows past --max-position
//	      ─ CombinePerKey(add the cells) ─▶ (query id, its cells)
//	      ─ one key ─ GroupByKey ─ estimate ─▶ the position,propensity file
//	                                        └▶ --state, --report
//
// A cell's counts are whole numbers that add, so the table of the whole
// log is the sum of its parts' tables in any order and grouping: the
// estimate step adds the queries' cells into one propensity.Table (within
// --mem-limit, spilling under --tmp-dir) and estimates as rankeval
// propensities does, with the same code (rankeval.PropensitiesOf), so the
// file, the state and the report are rankeval's, byte for byte.

// chunkRows bounds the rows a part's table counts (past a batch's end)
// before its cells are emitted, so that a worker holds a bounded table
// whatever the part's size (a variable for the tests).
var chunkRows int64 = 1 << 16

// PartCount is what a part adds to the table besides its cells: the rows
// past --max-position, and with a state the digest of its rows (the sum
// of propensity.RowDigest), which add per file into the file's digest.
type PartCount struct {
	File         int
	Beyond       int64
	DigestHi, Lo uint64
}

func init() {
	beam.RegisterType(reflect.TypeOf(PartCount{}))
	register.DoFn4x1[context.Context, Part, func(string, []byte), func(PartCount), error](&countFn{})
	register.Emitter1[PartCount]()
	register.Combiner1[[]byte](&addCellsFn{})
	register.DoFn6x1[context.Context, int, func(*[]byte) bool, func() func(*File) bool, func() func(*PartCount) bool, func([]byte), error](&estimateFn{})
	register.Iter1[PartCount]()
}

// propensityPlan checks the configuration as rankeval propensities does
// (config.Config.PreparePropensities), the inputs as given.
func (c *Config) propensityPlan() (*config.PropensityPlan, error) {
	return c.Config.PreparePropensities(c.Inputs)
}

// CheckPropensities resolves the configuration of rankeval propensities as
// every step will, so that what the pipeline cannot do is refused at
// launch.
func (c *Config) CheckPropensities() error {
	_, err := c.propensityPlan()
	return err
}

// BuildPropensities adds rankeval propensities to s and returns the
// position,propensity file (one []byte element, for WriteTo); with
// Outputs.State and Outputs.Report it writes the propensity state and the
// report, as rankeval propensities does. The inputs are cfg.Inputs, or
// one --system log per ranker (cfg.Sources.System).
func BuildPropensities(s beam.Scope, cfg Config) (beam.PCollection, error) {
	p, err := cfg.propensityPlan()
	if err != nil {
		return beam.PCollection{}, err
	}
	logs := p.Logs
	if logs == nil {
		logs = [][]string{p.Inputs}
	}
	files := expandInputs(s, logs, cfg.Dir, cfg.ReadTimeout)
	parts := beam.ParDo(s.Scope("split"), &splitFn{Cfg: cfg, Propensities: true}, files)
	parts = beam.Reshuffle(s.Scope("spread"), parts)
	cells, counts := beam.ParDo2(s.Scope("count"), &countFn{Cfg: cfg}, parts)
	queries := beam.CombinePerKey(s.Scope("add-cells"), &addCellsFn{}, cells)
	// one element that adds nothing beside the queries: the estimate step
	// runs on a log without a row too, and fails as rankeval does
	all := beam.Flatten(s.Scope("with-seed"), beam.DropKey(s.Scope("cells"), queries), beam.Impulse(s.Scope("seed")))
	one := beam.GroupByKey(s.Scope("gather"), beam.AddFixedKey(s.Scope("one-key"), all))
	return beam.ParDo(s.Scope("estimate"), &estimateFn{Cfg: cfg}, one, beam.SideInput{Input: files}, beam.SideInput{Input: counts}), nil
}

// countFn reads a part into count tables (propensity.Table, counted by
// engine.CountBatch as rankeval propensities counts, a bad row named by
// file and row as rankeval names it), each emptied once it holds
// chunkRows rows or more (at a batch's end), and emits each table's
// cells, one query's at a time, keyed by the query id
// (propensity.AppendCell's encoding); then the part's PartCount.
type countFn struct {
	Cfg  Config
	plan *config.PropensityPlan
}

func (f *countFn) Setup() error {
	p, err := f.Cfg.propensityPlan()
	if err != nil {
		return err
	}
	f.plan = p
	return nil
}

func (f *countFn) ProcessElement(ctx context.Context, part Part, emit func(string, []byte), emitCount func(PartCount)) (err error) {
	defer mark(&err)
	p := f.plan
	opt := reader.Options{BatchSize: p.Config.Run.BatchSize, FirstUnit: part.First, Units: part.Units, Decoders: 1, Format: p.InputFormat,
		Delimiter: p.Delimiter, DecimalComma: p.DecimalComma, ReadTimeout: p.Config.ReadTimeout}
	r, err := reader.Open(part.Path, p.Columns, opt)
	if err != nil {
		return namedErr(err, part)
	}
	defer r.Close()
	// the ranker of a --system log's rows: the log's name
	var ranker []byte
	if p.Rankers != nil {
		ranker = []byte(p.Rankers[part.Log])
	}
	max := p.Config.Propensities.MaxPosition
	count := PartCount{File: part.File}
	var d aggregate.Digest
	t := propensity.NewTable(max)
	flush := func() error {
		count.Beyond += t.Beyond
		var q string
		var b []byte
		err := t.Each(func(c propensity.Cell) error {
			if len(b) > 0 && c.Query != q {
				emit(q, b)
				b = nil
			}
			q = c.Query
			b = propensity.AppendCell(b, c)
			return nil
		})
		if len(b) > 0 {
			emit(q, b)
		}
		t = propensity.NewTable(max)
		return err
	}
	ranked := len(p.Columns.Texts) > 0
	var dp *aggregate.Digest
	if p.Config.Outputs.State != "" {
		dp = &d
	}
	name := func(where string) string { return named(where, part) }
	for r.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := engine.CountBatch(t, r.Batch(), ranked, ranker, dp, name); err != nil {
			return err
		}
		if t.Rows() >= chunkRows {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := r.Err(); err != nil {
		return namedErr(err, part)
	}
	if err := flush(); err != nil {
		return err
	}
	count.DigestHi, count.Lo = d.Hi, d.Lo
	emitCount(count)
	return nil
}

// StateSaved says whether msg, a failed job's message (JobError), is
// that of a log that estimates no position (propensity.ErrNoEstimate),
// which fails the job only once --state, when given, is written: the
// launcher keeps that state, as rankeval propensities does, for a merge
// with other days'.
func StateSaved(msg string) bool {
	return strings.HasPrefix(msg, propensity.ErrNoEstimate.Error())
}

// addCellsFn adds two lists of one query's cells (propensity.AppendCell's
// encoding) into one, each cell once, in the order of
// propensity.Table.Each, its counts summed.
type addCellsFn struct{}

func (f *addCellsFn) MergeAccumulators(a, b []byte) ([]byte, error) {
	if len(a) == 0 {
		return b, nil
	}
	if len(b) == 0 {
		return a, nil
	}
	t := propensity.NewTable(propensity.MaxMaxPosition) // the cells' positions are checked already
	if err := addCells(t, a, b); err != nil {
		return nil, err
	}
	var out []byte
	err := t.Each(func(c propensity.Cell) error {
		out = propensity.AppendCell(out, c)
		return nil
	})
	return out, err
}

// addCells adds the encoded cells of each list to t.
func addCells(t *propensity.Table, lists ...[]byte) error {
	for _, l := range lists {
		r := bytes.NewReader(l)
		for {
			c, err := propensity.ReadCell(r)
			if err == io.EOF {
				break
			}
			if err != nil {
				return fmt.Errorf("the cells of a query: %w", err)
			}
			t.AddCount([]byte(c.Query), []byte(c.Doc), []byte(c.Ranker), c.Position, c.Count)
			if err := t.Err(); err != nil {
				return err
			}
		}
	}
	return nil
}

// estimateFn adds every query's cells into the table of the whole log
// and writes what rankeval propensities writes: the file (emitted, for
// WriteTo), the state and the report; the summary, the closest power law
// and the notes go to the step's standard error.
type estimateFn struct{ Cfg Config }

func (f *estimateFn) ProcessElement(ctx context.Context, _ int, cells func(*[]byte) bool, files func() func(*File) bool, counts func() func(*PartCount) bool, emit func([]byte)) (err error) {
	defer mark(&err)
	p, err := f.Cfg.propensityPlan()
	if err != nil {
		return err
	}
	// the files as Expand names them: the inputs, or each --system log's
	list := fileList(files)
	if p.Logs != nil {
		p.Logs = make([][]string, len(p.Logs))
		for _, file := range list {
			p.Logs[file.Log] = append(p.Logs[file.Log], file.Name)
		}
	} else {
		p.Inputs = make([]string, len(list))
		for i, file := range list {
			p.Inputs[i] = file.Name
		}
	}
	t := propensity.NewTable(p.Config.Propensities.MaxPosition)
	// an empty TmpDir is this worker's temporary directory (os.CreateTemp's)
	t.SpillTo(p.Config.Run.TmpDir, p.Config.Run.MemLimit)
	var b []byte
	for cells(&b) {
		if err := ctx.Err(); err != nil {
			t.Close()
			return err
		}
		if err := addCells(t, b); err != nil {
			t.Close()
			return err
		}
		b = nil
	}
	digests := make([]aggregate.Digest, len(list))
	it := counts()
	var c PartCount
	for it(&c) {
		t.Beyond += c.Beyond
		if c.File < len(digests) {
			digests[c.File].Add(aggregate.Digest{Hi: c.DigestHi, Lo: c.Lo})
		}
	}
	if p.Config.Outputs.State == "" {
		digests = nil
	}
	res, err := rankeval.PropensitiesOf(p, t, digests)
	if res == nil {
		return err
	}
	defer res.Close()
	outs := p.Config.Outputs
	if err != nil { // no estimate; the state is saved
		if err := writeBy(outs.State, res.WriteState); err != nil {
			return err
		}
		return rankeval.StateSaved(err, outs.State)
	}
	fmt.Fprintln(os.Stderr, "rankeval-beam:", res.Estimate.Summary())
	fmt.Fprintln(os.Stderr, "rankeval-beam:", res.Fits().Closest())
	for _, n := range res.Estimate.Notes() {
		fmt.Fprintln(os.Stderr, "rankeval-beam: note:", n)
	}
	if outs.State != "" {
		if err := writeBy(outs.State, res.WriteState); err != nil {
			return err
		}
	}
	if outs.Report != "" {
		if err := writeBy(outs.Report, res.WriteReport); err != nil {
			return err
		}
	}
	var out bytes.Buffer
	if err := res.WriteFile(&out); err != nil {
		return err
	}
	emit(out.Bytes())
	return nil
}
