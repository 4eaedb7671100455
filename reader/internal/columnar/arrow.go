package columnar

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/scan"
)

// OpenArrowFile reads an Arrow IPC file (.arrow, Feather v2). Its footer
// indexes the record batches, so decoders take them in turn; zstd and lz4
// buffer compression are undone by the ipc package.
func OpenArrowFile(name string, f *os.File, cols batch.Columns, opt batch.Options) (batch.Reader, error) {
	if err := Seekable(name, "Arrow IPC file", f); err != nil {
		closeInput(f)
		return nil, err
	}
	r, err := NewArrowFile(name, f, scan.InputCloser(f), cols, opt)
	if err != nil {
		closeInput(f)
		return nil, err
	}
	return r, nil
}

// NewArrowFile reads f, a local file or an object in a store (ranged reads
// of the footer, then of each record batch); closer releases it.
func NewArrowFile(name string, f readAtSeeker, closer func() error, cols batch.Columns, opt batch.Options) (_ batch.Reader, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: corrupt Arrow IPC file (%v): %w", name, r, batch.ErrFormat)
		}
	}()
	src := countingFile(f, opt)
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	blocks, err := checkIPCFile(src, size)
	if err != nil {
		return nil, fmt.Errorf("%s: not a readable Arrow IPC file: %v: %w", name, err, batch.ErrFormat)
	}
	fr, err := ipc.NewFileReader(src, ipc.WithAllocator(alloc()))
	if err != nil {
		return nil, fmt.Errorf("%s: not a readable Arrow IPC file: %v: %w", name, err, batch.ErrFormat)
	}
	if _, err := bindSchema(name, fr.Schema(), cols.Requests(), FilePartitions(name)); err != nil {
		fr.Close()
		return nil, err
	}
	n := fr.NumRecords()
	p := max(1, min(batch.Decoders(opt), n))
	readers := make([]unitReader, p)
	// RecordBatchAt is documented as safe for concurrent use, and is, except
	// that resolving dictionaries shares a hash (arrow-go v18.8.0; the race
	// detector shows it): with dictionary columns the decoders take turns.
	var mu *sync.Mutex
	if schemaHasDict(fr.Schema()) {
		mu = new(sync.Mutex)
	}
	for w := range readers {
		readers[w] = &arrowFileUnits{name: name, fr: fr, mu: mu, src: src, size: size, blocks: blocks}
	}
	loc := &locator{name: name, unit: "record batch"}
	return startColumnar(name, loc, n, readers, cols, opt, ipcWhere(name), func() error {
		fr.Close()
		return closer()
	}), nil
}

func ipcWhere(name string) func(int, int64) string {
	return func(u int, row int64) string {
		return fmt.Sprintf("%s: record batch %d, row %d", name, u, row)
	}
}

type arrowFileUnits struct {
	name string
	fr   *ipc.FileReader
	mu   *sync.Mutex // nil when decoders may read at once

	src    io.ReaderAt // for checkBlock
	size   int64
	blocks []ipcBlock
}

func schemaHasDict(sc *arrow.Schema) bool {
	var has func(dt arrow.DataType) bool
	has = func(dt arrow.DataType) bool {
		switch t := dt.(type) {
		case *arrow.DictionaryType:
			return true
		case arrow.NestedType:
			for _, f := range t.Fields() {
				if has(f.Type) {
					return true
				}
			}
		case arrow.ExtensionType:
			return has(t.StorageType())
		}
		return false
	}
	for _, f := range sc.Fields() {
		if has(f.Type) {
			return true
		}
	}
	return false
}

func (a *arrowFileUnits) read(u int, emit func(arrow.RecordBatch) error) (bool, error) {
	if u < len(a.blocks) {
		if err := checkBlock(a.src, a.size, a.blocks[u]); err != nil {
			return true, fmt.Errorf("%s: record batch %d: %v: %w", a.name, u, err, batch.ErrFormat)
		}
	}
	if a.mu != nil {
		a.mu.Lock()
	}
	rec, err := a.fr.RecordBatchAt(u)
	if a.mu != nil {
		a.mu.Unlock()
	}
	if err != nil {
		return true, fmt.Errorf("%s: record batch %d: %v: %w", a.name, u, err, batch.ErrFormat)
	}
	defer rec.Release()
	return true, emit(rec)
}

func (a *arrowFileUnits) Close() {}

// OpenArrowStream reads an Arrow IPC stream (.arrows), which may come from a
// pipe. Its record batches can only be found one after another, so one
// decoder reads them, ahead of the consumer.
func OpenArrowStream(name string, br *bufio.Reader, f *os.File, cols batch.Columns, opt batch.Options) (batch.Reader, error) {
	return OpenArrowStreamFrom(name, br, scan.InputCloser(f), cols, opt)
}

// OpenArrowStreamFrom reads a stream from br; closer releases its source.
func OpenArrowStreamFrom(name string, br *bufio.Reader, closer func() error, cols batch.Columns, opt batch.Options) (batch.Reader, error) {
	r, err := newArrowStream(name, br, closer, cols, opt)
	if err != nil {
		closer()
		return nil, err
	}
	return r, nil
}

func newArrowStream(name string, br *bufio.Reader, closer func() error, cols batch.Columns, opt batch.Options) (_ batch.Reader, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: corrupt Arrow IPC stream (%v): %w", name, r, batch.ErrFormat)
		}
	}()
	sr, err := ipc.NewReader(&checkedStream{r: br}, ipc.WithAllocator(alloc()))
	if err != nil {
		return nil, fmt.Errorf("%s: not a readable Arrow IPC stream: %v: %w", name, err, batch.ErrFormat)
	}
	if _, err := bindSchema(name, sr.Schema(), cols.Requests(), FilePartitions(name)); err != nil {
		sr.Release()
		return nil, err
	}
	units := &recordUnits{name: name, rr: sr, release: true}
	loc := &locator{name: name, unit: "record batch"}
	return startColumnar(name, loc, -1, []unitReader{units}, cols, opt, ipcWhere(name), func() error {
		units.Close()
		return closer()
	}), nil
}

// recordUnits hands out the record batches of a stream (an IPC stream's
// reader, or any RecordReader) in order: batch u is unit u because the
// only decoder asks for units in order.
type recordUnits struct {
	name string
	rr   array.RecordReader
	// release says the units own rr: close releases it, once (the decoder
	// calls close when it stops, and Close again in case it never ran).
	release bool
	once    sync.Once
}

func (r *recordUnits) read(u int, emit func(arrow.RecordBatch) error) (bool, error) {
	if !r.rr.Next() {
		if err := r.rr.Err(); err != nil {
			return false, fmt.Errorf("%s: record batch %d: %v: %w", r.name, u, err, batch.ErrFormat)
		}
		return false, nil
	}
	return true, emit(r.rr.RecordBatch())
}

func (r *recordUnits) Close() {
	if r.release {
		r.once.Do(r.rr.Release)
	}
}

// OpenRecords reads the record batches of rr as an Arrow IPC stream is
// read: the columns cols names, by name, in rr's order. name is what
// messages call the input. The reader releases rr's batches as it
// decodes them, not rr itself.
func OpenRecords(name string, rr array.RecordReader, cols batch.Columns, opt batch.Options) (batch.Reader, error) {
	if _, err := bindSchema(name, rr.Schema(), cols.Requests(), nil); err != nil {
		return nil, err
	}
	units := &recordUnits{name: name, rr: rr}
	loc := &locator{name: name, unit: "record batch"}
	return startColumnar(name, loc, -1, []unitReader{units}, cols, opt, ipcWhere(name), func() error { return nil }), nil
}
