package columnar

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/scan"
)

// parquetBufferSize is the read buffer of each column chunk stream. With
// buffered streams a column chunk is read a buffer at a time instead of
// whole, which is what keeps memory independent of row-group size; 1 MiB
// buffers read a typical page in one system call.
const parquetBufferSize = 1 << 20

// OpenParquet reads a Parquet file, only the configured
// columns, a row group per unit: decoders take row groups in turn and
// stream them in batches.
func OpenParquet(name string, f *os.File, cols batch.Columns, opt batch.Options) (batch.Reader, error) {
	if err := Seekable(name, "Parquet", f); err != nil {
		closeInput(f)
		return nil, err
	}
	r, err := NewParquet(name, f, scan.InputCloser(f), cols, opt)
	if err != nil {
		closeInput(f)
		return nil, err
	}
	return r, nil
}

func closeInput(f *os.File) error { return scan.InputCloser(f)() }

// Seekable reports whether f is a regular file: Parquet and Arrow IPC files
// keep their index at the end, so a pipe cannot be read.
func Seekable(name, what string, f *os.File) error {
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: %s input must be a regular file, not a pipe (its footer is at the end): %w", name, what, batch.ErrFormat)
	}
	return nil
}

// NewParquet reads f, a local file or an object in a store: every read is
// a ReadAt, so an object store sees ranged GETs of the footer and of the
// selected column chunks only. closer releases f when the reader closes.
func NewParquet(name string, f readAtSeeker, closer func() error, cols batch.Columns, opt batch.Options) (_ batch.Reader, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: corrupt Parquet metadata (%v): %w", name, r, batch.ErrFormat)
		}
	}()
	mem := alloc()
	props := parquet.NewReaderProperties(mem)
	props.BufferedStreamEnabled = true
	props.BufferSize = parquetBufferSize
	props.MaxUncompressedPageSize = maxParquetPage
	src := countingFile(f, opt)
	pf, err := file.NewParquetReader(src, file.WithReadProps(props))
	if err != nil {
		return nil, fmt.Errorf("%s: not a readable Parquet file: %v: %w", name, err, batch.ErrFormat)
	}
	meta := pf.MetaData()
	if err := checkArrowSchema(meta.KeyValueMetadata().FindValue("ARROW:schema")); err != nil {
		return nil, fmt.Errorf("%s: corrupt ARROW:schema metadata: %v: %w", name, err, batch.ErrFormat)
	}
	pcols, err := parquetColumns(meta.Schema, meta.KeyValueMetadata())
	if err != nil {
		return nil, fmt.Errorf("%s: unsupported Parquet schema: %v: %w", name, err, batch.ErrFormat)
	}
	leaves, fields, err := parquetLeaves(name, pcols, cols)
	if err != nil {
		return nil, err
	}
	// Columns are decoded in batches of at least defaultColumnarBatch rows,
	// which the decoders cut into batches of the size asked for: small
	// batches cost a per-batch overhead in every column reader.
	size := max(columnarBatchSize(opt), defaultColumnarBatch)

	nrg := pf.NumRowGroups()
	starts := make([]int64, nrg)
	var rows int64
	for i := range nrg {
		starts[i] = rows
		rows += meta.RowGroup(i).NumRows()
	}
	first, end, err := opt.UnitRange(name, nrg)
	if err != nil {
		return nil, err
	}
	loc := &locator{name: name, unit: "row group", starts: starts}
	where := func(u int, row int64) string {
		return fmt.Sprintf("%s: row group %d, row %d (row %d of the file)", name, u, row, starts[u]+row)
	}

	// Row groups in parallel when there are enough of them; otherwise the
	// columns of each batch in parallel too, in goroutines whose panics on
	// a corrupt page (FuzzParquet finds them) are recovered as errors.
	want := batch.Decoders(opt)
	p := max(1, min(want, end-first))
	readers := make([]unitReader, p)
	for w := range p {
		wpf := pf
		if w > 0 {
			// Each decoder has its own readers (they keep per-column state
			// and a buffer pool); the file metadata is shared, read once.
			if wpf, err = file.NewParquetReader(src, file.WithReadProps(props), file.WithMetadata(meta)); err != nil {
				return nil, fmt.Errorf("%s: %v: %w", name, err, batch.ErrFormat)
			}
		}
		readers[w] = &parquetUnits{name: name, pf: wpf, leaves: leaves, fields: fields, batch: size, mem: mem,
			colParallel: want > p && len(leaves) > 1}
	}
	var base int64
	if first < nrg {
		base = starts[first]
	}
	return startColumnarRange(name, loc, first, end, base, readers, cols, opt, where, closer), nil
}

// readAtCounter counts the bytes read from a columnar file for progress
// reports (Options.BytesRead).
type readAtCounter struct {
	f readAtSeeker
	n *atomic.Int64 // nil: no counting
}

// readAtSeeker is a local file or an object of a store (an
// io.SectionReader over its ranged reads).
type readAtSeeker interface {
	io.ReaderAt
	io.Reader
	io.Seeker
}

func (c readAtCounter) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.f.ReadAt(p, off)
	if c.n != nil {
		c.n.Add(int64(n))
	}
	return n, err
}

func (c readAtCounter) Read(p []byte) (int, error) {
	n, err := c.f.Read(p)
	if c.n != nil {
		c.n.Add(int64(n))
	}
	return n, err
}

func (c readAtCounter) Seek(off int64, whence int) (int64, error) { return c.f.Seek(off, whence) }

// countingFile is f for the Parquet and IPC readers, counting bytes when
// opt asks. It has no Close method, so those readers cannot close the file
// under the other decoders; the columnar reader closes it once.
func countingFile(f readAtSeeker, opt batch.Options) readAtCounter {
	return readAtCounter{f, opt.BytesRead}
}

// parquetLeaves finds the leaf column index and Arrow field of every
// requested column present, checking its Arrow type before anything is
// decoded.
func parquetLeaves(name string, pcols []pqColumn, cols batch.Columns) ([]int, []*arrow.Field, error) {
	var leaves []int
	var fields []*arrow.Field
	parts := FilePartitions(name)
	for _, r := range cols.Requests() {
		var c *pqColumn
		for i := range pcols {
			if pcols[i].field.Name == r.Name {
				c = &pcols[i]
				break
			}
		}
		if c == nil {
			if _, ok := partitionValue(parts, r.Name); (ok && r.Kind == batch.KExtra) || r.Optional {
				continue
			}
			names := make([]string, len(pcols))
			for i := range pcols {
				names[i] = strconv.Quote(pcols[i].field.Name)
			}
			return nil, nil, fmt.Errorf("%s: no column %q (%s); the file has %s; name %s with %s: %w",
				name, r.Name, r.Role(), batch.ListNames(names), r.Role(), r.FlagName(), batch.ErrColumn)
		}
		dt := c.field.Type
		if c.leaf < 0 || !accepts(r.Kind, dt) {
			return nil, nil, fmt.Errorf("%s: column %q has type %s; %s must be %s; convert it, or name another column with %s: %w",
				name, r.Name, dt, r.Role(), r.Types(), r.FlagName(), batch.ErrColumn)
		}
		leaves = append(leaves, c.leaf)
		fields = append(fields, c.field)
	}
	return leaves, fields, nil
}

// ParquetOwnStrings is true for the reader's own decoding of every column;
// tests set it false to decode with ParquetReference instead and compare.
var ParquetOwnStrings = true

// ParquetReference, when set (readertest sets it to pqarrow's record
// reader), decodes leaves of row group u of pf in batches of n rows while
// ParquetOwnStrings is false: the reference the own decoding is tested
// against.
var ParquetReference func(pf *file.Reader, leaves []int, u, n int, mem memory.Allocator) (ReferenceColumns, error)

// ReferenceColumns is a reference decoder's view of some columns of one
// row group.
type ReferenceColumns interface {
	Fields() []arrow.Field
	// Next returns the next batch's columns, nil at the end.
	Next() ([]arrow.Array, error)
	Release()
}

type refSource struct{ ReferenceColumns }

func (s refSource) release() { s.Release() }

// parquetUnits reads row groups for one decoder.
type parquetUnits struct {
	name        string
	pf          *file.Reader
	leaves      []int
	fields      []*arrow.Field // of leaves
	batch       int
	mem         memory.Allocator
	colParallel bool // decode the columns of each batch in parallel
}

func (p *parquetUnits) read(u int, emit func(arrow.RecordBatch) error) (bool, error) {
	var srcs []colSource
	defer func() {
		for _, s := range srcs {
			s.release()
		}
	}()
	if !ParquetOwnStrings && ParquetReference != nil {
		for _, leaf := range p.leaves {
			rc, err := ParquetReference(p.pf, []int{leaf}, u, p.batch, p.mem)
			if err != nil {
				return true, p.fail(u, err)
			}
			srcs = append(srcs, refSource{rc})
		}
		return true, p.readSources(u, srcs, emit)
	}
	rg := p.pf.RowGroup(u)
	sc := p.pf.MetaData().Schema
	for i, leaf := range p.leaves {
		cr, err := rg.Column(leaf)
		if err != nil {
			return true, p.fail(u, err)
		}
		s, err := newColSource(cr, sc.Column(leaf), *p.fields[i], p.batch, p.mem)
		if err != nil {
			return true, p.fail(u, err)
		}
		srcs = append(srcs, s)
	}
	return true, p.readSources(u, srcs, emit)
}

func (p *parquetUnits) fail(u int, err error) error {
	return fmt.Errorf("%s: row group %d: %v: %w", p.name, u, err, batch.ErrFormat)
}

// readSources reads row group u from srcs, advancing them together (in
// goroutines of their own when colParallel), and emits records joining
// their columns. Every source must hold the row group's number of rows.
func (p *parquetUnits) readSources(u int, srcs []colSource, emit func(arrow.RecordBatch) error) error {
	var fields []arrow.Field
	for _, s := range srcs {
		fields = append(fields, s.Fields()...)
	}
	sc := arrow.NewSchema(fields, nil)
	outs := make([][]arrow.Array, len(srcs))
	errs := make([]error, len(srcs))
	rows := make([]int64, len(srcs))
	cols := make([]arrow.Array, 0, len(fields))
	step := func(i int) {
		defer func() {
			if r := recover(); r != nil {
				errs[i] = fmt.Errorf("corrupt data (%v)", r)
			}
		}()
		outs[i], errs[i] = srcs[i].Next()
	}
	name := func(i int) string { return srcs[i].Fields()[0].Name }
	for {
		if p.colParallel && len(srcs) > 1 {
			var wg sync.WaitGroup
			for i := range srcs {
				wg.Go(func() { step(i) })
			}
			wg.Wait()
		} else {
			for i := range srcs {
				step(i)
			}
		}
		for _, err := range errs {
			if err != nil {
				return p.fail(u, err)
			}
		}
		if outs[0] == nil {
			want := p.pf.MetaData().RowGroup(u).NumRows()
			for i := range srcs {
				if outs[i] != nil {
					return p.fail(u, fmt.Errorf("column %q has more rows than %q", name(i), name(0)))
				}
				if rows[i] != want {
					return p.fail(u, fmt.Errorf("column %q has %d rows; the row group has %d", name(i), rows[i], want))
				}
			}
			return nil
		}
		cols = cols[:0]
		n := outs[0][0].Len()
		for i, o := range outs {
			if o == nil || o[0].Len() != n {
				return p.fail(u, fmt.Errorf("columns %q and %q disagree on the number of rows", name(0), name(i)))
			}
			cols = append(cols, o...)
			rows[i] += int64(n)
		}
		rec := array.NewRecordBatch(sc, cols, int64(n))
		err := emit(rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
}

// Close does nothing: the readers share the file, which the columnar reader
// closes once every decoder has stopped.
func (p *parquetUnits) Close() {}

// ParquetRowGroups reads only the footer of a Parquet file.
func ParquetRowGroups(name string, f parquet.ReaderAtSeeker) (n int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: corrupt Parquet metadata (%v): %w", name, r, batch.ErrFormat)
		}
	}()
	pf, err := file.NewParquetReader(f)
	if err != nil {
		return 0, fmt.Errorf("%s: not a readable Parquet file: %v: %w", name, err, batch.ErrFormat)
	}
	return pf.NumRowGroups(), nil
}
