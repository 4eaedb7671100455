package reader

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// parquetBufferSize is the read buffer of each column chunk stream. With
// buffered streams a column chunk is read a buffer at a time instead of
// whole, which is what keeps memory independent of row-group size; 1 MiB
// buffers read a typical page in one system call.
const parquetBufferSize = 1 << 20

// openParquet reads a Parquet file through pqarrow, only the configured
// columns, a row group per unit: decoders take row groups in turn and
// stream them in batches.
func openParquet(name string, f *os.File, cols Columns, opt Options) (Reader, error) {
	r, err := newParquet(name, f, cols, opt)
	if err != nil {
		closeInput(f)
		return nil, err
	}
	return r, nil
}

func closeInput(f *os.File) error {
	if f == os.Stdin {
		return nil
	}
	return f.Close()
}

// seekable reports whether f is a regular file: Parquet and Arrow IPC files
// keep their index at the end, so a pipe cannot be read.
func seekable(name, what string, f *os.File) error {
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: %s input must be a regular file, not a pipe (its footer is at the end): %w", name, what, ErrFormat)
	}
	return nil
}

func newParquet(name string, f *os.File, cols Columns, opt Options) (_ Reader, err error) {
	if err := seekable(name, "Parquet", f); err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: corrupt Parquet metadata (%v): %w", name, r, ErrFormat)
		}
	}()
	props := parquet.NewReaderProperties(arrowMem)
	props.BufferedStreamEnabled = true
	props.BufferSize = parquetBufferSize
	props.MaxUncompressedPageSize = maxParquetPage
	pf, err := file.NewParquetReader(f, file.WithReadProps(props))
	if err != nil {
		return nil, fmt.Errorf("%s: not a readable Parquet file: %v: %w", name, err, ErrFormat)
	}
	meta := pf.MetaData()
	arrProps := pqarrow.ArrowReadProperties{BatchSize: int64(columnarBatchSize(opt))}
	fr, err := pqarrow.NewFileReader(pf, arrProps, arrowMem)
	if err != nil {
		return nil, fmt.Errorf("%s: unsupported Parquet schema: %v: %w", name, err, ErrFormat)
	}
	leaves, err := parquetLeaves(name, fr.Manifest, cols)
	if err != nil {
		return nil, err
	}

	nrg := pf.NumRowGroups()
	starts := make([]int64, nrg)
	var rows int64
	for i := range nrg {
		starts[i] = rows
		rows += meta.RowGroup(i).NumRows()
	}
	loc := &locator{name: name, unit: "row group", starts: starts}
	where := func(u int, row int64) string {
		return fmt.Sprintf("%s: row group %d, row %d (row %d of the file)", name, u, row, starts[u]+row)
	}

	// Row groups in parallel when there are enough of them; otherwise the
	// columns of each batch in parallel (pqarrow's own option).
	want := decoders(opt)
	p := max(1, min(want, nrg))
	readers := make([]unitReader, p)
	for w := range p {
		wfr := fr
		if w > 0 {
			// Each decoder has its own readers (they keep per-column state
			// and a buffer pool); the file metadata is shared, read once.
			wpf, err := file.NewParquetReader(f, file.WithReadProps(props), file.WithMetadata(meta))
			if err != nil {
				return nil, fmt.Errorf("%s: %v: %w", name, err, ErrFormat)
			}
			if wfr, err = pqarrow.NewFileReader(wpf, arrProps, arrowMem); err != nil {
				return nil, fmt.Errorf("%s: %v: %w", name, err, ErrFormat)
			}
		}
		wfr.Props.Parallel = want > p
		readers[w] = &parquetUnits{name: name, fr: wfr, leaves: leaves}
	}
	return startColumnar(name, loc, nrg, readers, cols, opt, where, func() error { return closeInput(f) }), nil
}

// parquetLeaves finds the leaf column index of every configured column,
// checking its Arrow type before anything is decoded.
func parquetLeaves(name string, m *pqarrow.SchemaManifest, cols Columns) ([]int, error) {
	var leaves []int
	for f, col := range cols.byRole() {
		if col == "" {
			continue
		}
		var fld *pqarrow.SchemaField
		for i := range m.Fields {
			if m.Fields[i].Field.Name == col {
				fld = &m.Fields[i]
				break
			}
		}
		if fld == nil {
			names := make([]string, len(m.Fields))
			for i := range m.Fields {
				names[i] = strconv.Quote(m.Fields[i].Field.Name)
			}
			return nil, fmt.Errorf("%s: no column %q (the %s column); the file has %s: %w",
				name, col, fieldRole[f], listNames(names), ErrColumn)
		}
		dt := fld.Field.Type
		if !fld.IsLeaf() || !accepts(f, dt) {
			return nil, fmt.Errorf("%s: column %q has type %s; the %s column must be %s: %w",
				name, col, dt, fieldRole[f], roleTypes[f], ErrColumn)
		}
		dup := false
		for _, l := range leaves {
			dup = dup || l == fld.ColIndex
		}
		if !dup {
			leaves = append(leaves, fld.ColIndex)
		}
	}
	return leaves, nil
}

func listNames(names []string) string {
	const most = 20
	switch {
	case len(names) == 0:
		return "no columns"
	case len(names) > most:
		return strings.Join(names[:most], ", ") + fmt.Sprintf(" and %d more", len(names)-most)
	}
	return strings.Join(names, ", ")
}

// parquetUnits reads row groups for one decoder.
type parquetUnits struct {
	name   string
	fr     *pqarrow.FileReader
	leaves []int
}

func (p *parquetUnits) read(u int, emit func(arrow.RecordBatch) error) (bool, error) {
	rr, err := p.fr.GetRecordReader(context.Background(), p.leaves, []int{u})
	if err != nil {
		return true, fmt.Errorf("%s: row group %d: %v: %w", p.name, u, err, ErrFormat)
	}
	defer rr.Release()
	for rr.Next() {
		if err := emit(rr.RecordBatch()); err != nil {
			return true, err
		}
	}
	if err := rr.Err(); err != nil {
		return true, fmt.Errorf("%s: row group %d: %v: %w", p.name, u, err, ErrFormat)
	}
	return true, nil
}

// close does nothing: the readers share the file, which the columnar reader
// closes once every decoder has stopped.
func (p *parquetUnits) close() {}
