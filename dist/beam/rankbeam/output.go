package rankbeam

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/rankeval/rankeval"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/internal/outfile"
	"github.com/rankeval/rankeval/objstore"
	"github.com/rankeval/rankeval/pipeline"
	"github.com/rankeval/rankeval/state"
)

// formatFn prints the summary as the local CLI does.
type formatFn struct{ Cfg Config }

func (f *formatFn) ProcessElement(ctx context.Context, p Partial, files func() func(*File) bool, emit func([]byte)) (err error) {
	defer mark(&err)
	s, run, err := f.Cfg.run()
	if err != nil {
		return err
	}
	list := fileList(files)
	f.Cfg.describe(run, list)
	if len(s.Slices) > 0 && len(p.Keys) > s.MaxSlices {
		return fmt.Errorf("%d slices, more than --max-slices %d; slice by fewer or coarser columns, or raise --max-slices: %w",
			len(p.Keys), s.MaxSlices, pipeline.ErrTooManySlices)
	}
	if err := pipeline.CheckSliceBytes(p.Keys, s.MaxSliceBytes); err != nil {
		return err
	}
	binary, graded := pipeline.LabelVerdict(p.Labels, p.NonBinary)
	gates, err := f.Cfg.Gates.Spec(run.Metrics, len(run.Systems))
	if err != nil {
		return err
	}
	r := rankeval.NewResults(run, rankeval.Part{Agg: p.Agg, SliceKeys: p.Keys, BinaryLabels: binary, GradedLabels: graded,
		Report: f.Cfg.figures()}, gates, nil)
	if err := run.Gates.Err(); err != nil {
		beam.NewCounter(GateNamespace, err.Error()).Inc(ctx, 1)
	}
	if f.Cfg.Outputs.Report != "" {
		var b bytes.Buffer
		if err := r.WriteReport(&b); err != nil {
			return err
		}
		if err := writeFile(f.Cfg.Outputs.Report, b.Bytes()); err != nil {
			return err
		}
	}
	if f.Cfg.Outputs.State != "" {
		var ds []state.InputDigest
		if p.Digests != nil {
			ds = state.SourcesOf(f.Cfg.inputNames(run, list), p.Digests)
		}
		r.KeepState(ds)
		var b bytes.Buffer
		if err := r.WriteState(&b); err != nil {
			return err
		}
		if err := writeFile(f.Cfg.Outputs.State, b.Bytes()); err != nil {
			return err
		}
	}
	var b bytes.Buffer
	if err := r.Write(&b, s.Format); err != nil {
		return err
	}
	emit(b.Bytes())
	return nil
}

// queryLineFn formats a query's record and picks its shard from a hash of
// the query id, so shards are balanced and a rerun writes the same shards.
type queryLineFn struct {
	Cfg    Config
	Shards int
	format func(b, id []byte, slice []string, q *aggregate.Query) []byte
}

func (f *queryLineFn) Setup() error {
	s, err := f.Cfg.settings()
	if err != nil {
		return err
	}
	run := s.Summary()
	f.format = run.QueryFormat(s.Format)
	return nil
}

func (f *queryLineFn) ProcessElement(r Result, emit func(int, []byte)) error {
	if r.Unseen {
		return nil // counted (--complete), but rankeval writes it no record
	}
	// its sort key leads each line, for the writer to restore rankeval's order
	line := appendLineKey(make([]byte, 0, 64), &r, f.Cfg.byID())
	line = f.format(line, []byte(r.Query), r.Slice, r.query(-1, false))
	h := fnv.New32a()
	h.Write([]byte(r.Query))
	emit(int(h.Sum32()%uint32(f.Shards)), line)
	return nil
}

// writeShardFn writes one shard of per-query records, in input order
// (by each query's first row), or by query id for --system logs.
type writeShardFn struct {
	Prefix, Ext string
	Shards      int
	ByID        bool
}

func (f *writeShardFn) ProcessElement(shard int, lines func(*[]byte) bool) (err error) {
	defer mark(&err)
	var all [][]byte
	var l []byte
	for lines(&l) {
		if len(l) > 0 { // not the shard's empty line
			all = append(all, l)
		}
		l = nil
	}
	slices.SortFunc(all, compareLines(f.ByID))
	for i := range all {
		_, all[i] = splitLine(all[i]) // the sort key has done its work
	}
	return writeFile(ShardName(f.Prefix, f.Ext, shard, f.Shards), all...)
}

// emptyShardLine gives shard i a line with nothing to write.
func emptyShardLine(i int, emit func(int, []byte)) { emit(i, []byte{}) }

// writeFileFn writes the summary.
type writeFileFn struct{ Name string }

func (f *writeFileFn) ProcessElement(b []byte) (err error) {
	defer mark(&err)
	if f.Name == "" || f.Name == "-" {
		_, err := os.Stdout.Write(b)
		return err
	}
	return writeFile(f.Name, b)
}

// writeFile writes the parts to name whole or not at all (outfile: a
// local file is renamed into place, an object uploaded when complete).
func writeFile(name string, parts ...[]byte) error {
	return writeBy(name, func(w io.Writer) error {
		for _, b := range parts {
			if _, err := w.Write(b); err != nil {
				return err
			}
		}
		return nil
	})
}

// writeBy writes to name what write writes, whole or not at all, as
// writeFile does.
func writeBy(name string, write func(io.Writer) error) error {
	if dir := filepath.Dir(name); !objstore.IsURL(name) && dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	f, err := outfile.Create(name)
	if err != nil {
		return err
	}
	defer f.Abort()
	bw := bufio.NewWriterSize(f, 1<<16)
	if err := write(bw); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return nil
}
