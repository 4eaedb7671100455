// Package columnar reads Parquet files and Arrow IPC files and streams:
// it binds the requested Columns to the file's schema (and its Hive
// partition values), checks IPC metadata before Arrow decodes it, and
// converts record batches, one unit (row group or record batch) per
// decoder, on the ordered decoder of package batch.
package columnar

import (
	"fmt"
	"sort"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/rankeval/rankeval/reader/internal/batch"
)

// This file holds what the Parquet and Arrow IPC readers share: the
// ordered parallel decoding of a file's units (Parquet row groups, IPC
// record batches) and the positions of their rows. Binding columns to the
// schema is in columnar_schema.go, copying Arrow arrays into a Batch in
// arrowconv.go.

// ArrowMem allocates every Arrow buffer the columnar readers make. Tests swap
// in a memory.CheckedAllocator to prove every record is released.
var ArrowMem memory.Allocator = NewBufPool(PoolRetain)

// defaultColumnarBatch is the batch size when Options.BatchSize is unset:
// larger than JSONL's because columnar decoding has a per-batch cost in every
// column reader, and 64K rows still keep a batch to a few MB.
const defaultColumnarBatch = 65536

func columnarBatchSize(opt batch.Options) int {
	if opt.BatchSize > 0 {
		return opt.BatchSize
	}
	return defaultColumnarBatch
}

// locator names a row of a columnar file by its unit (row group or record
// batch) and its row within the unit. Units are numbered from 0 as Parquet
// and Arrow tools do, rows from 1 as lines are. Streams learn unit starts as
// they are read, so the table grows under a lock; Locate may be called from
// any goroutine.
type locator struct {
	name, unit string
	mu         sync.Mutex
	starts     []int64 // starts[u]: rows of the file before unit u
}

// begin records that unit u starts after base rows, unless already known.
func (l *locator) begin(u int, base int64) {
	l.mu.Lock()
	if u == len(l.starts) {
		l.starts = append(l.starts, base)
	}
	l.mu.Unlock()
}

// locate names 1-based file row pos.
func (l *locator) locate(pos int64) string {
	l.mu.Lock()
	// the last unit that starts before pos (empty units share a start)
	u := sort.Search(len(l.starts), func(i int) bool { return l.starts[i] >= pos }) - 1
	var start int64
	if u >= 0 {
		start = l.starts[u]
	}
	l.mu.Unlock()
	if u < 0 {
		return fmt.Sprintf("%s: row %d", l.name, pos)
	}
	return fmt.Sprintf("%s: %s %d, row %d (row %d of the file)", l.name, l.unit, u, pos-start, pos)
}

// unitReader decodes the units of one file for one decoder goroutine.
type unitReader interface {
	// read decodes unit u and calls emit with each of its records in order.
	// ok is false when there is no unit u (the end of a stream).
	read(u int, emit func(arrow.RecordBatch) error) (ok bool, err error)
	Close()
}

// startColumnar reads the units of a Parquet or Arrow IPC file (nunits of
// them, -1: a stream, to its end) with an ordered decoder, decoder w
// reading with readers[w]. closer releases what the readers share (the
// file).
func startColumnar(name string, loc *locator, nunits int, readers []unitReader, cols batch.Columns, opt batch.Options,
	where func(int, int64) string, closer func() error) batch.Reader {
	return startColumnarRange(name, loc, 0, nunits, 0, readers, cols, opt, where, closer)
}

// startColumnarRange reads only units [first, end) (end -1: to the end of a
// stream); base is the number of rows before unit first, so positions stay
// those of the whole file, whatever part of it is read. Units are
// numbered from first; a batch's positions are set as Next hands it on,
// when the rows of the units before it are known.
func startColumnarRange(name string, loc *locator, first, end int, base int64, readers []unitReader, cols batch.Columns, opt batch.Options,
	where func(int, int64) string, closer func() error) batch.Reader {
	parts := FilePartitions(name)
	shape := cols.Shape(name)
	shape.Locate = loc.locate
	decs := make([]batch.UnitDecoder[int, struct{}], len(readers))
	for w, ur := range readers {
		decs[w] = &unitConverter{name: name, loc: loc, ur: ur, cv: newConverter(cols, parts, where), bs: columnarBatchSize(opt)}
	}
	cfg := batch.OrderedConfig[int, struct{}]{
		Produce: func(emit func(int) bool) error {
			for u := first; end < 0 || u < end; u++ {
				if !emit(u) {
					break
				}
			}
			return nil
		},
		Shape: shape,
		Begin: func(seq int) { loc.begin(first+seq, base) },
		Batch: func(b *batch.Batch) {
			b.Pos = b.Pos[:0]
			for i := range int64(b.N) {
				b.Pos = append(b.Pos, base+i+1)
			}
			base += int64(b.N)
		},
		After: closer,
	}
	return batch.StartOrdered(cfg, decs)
}

// unitConverter decodes units of a columnar file into batches for one
// decoder goroutine.
type unitConverter struct {
	name string
	loc  *locator
	ur   unitReader
	cv   *converter
	bs   int
}

func (d *unitConverter) Close() { d.ur.Close() }

func (d *unitConverter) Decode(u int, out *batch.BatchOut[struct{}]) (_ struct{}, err error) {
	defer func() {
		// IPC readers panic on some corrupt input; the error names the unit.
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: %s %d: corrupt data (%v): %w", d.name, d.loc.unit, u, r, batch.ErrFormat)
		}
	}()
	var before int64
	ok, err := d.ur.read(u, func(rec arrow.RecordBatch) error {
		n := int(rec.NumRows())
		for lo := 0; lo < n; lo += d.bs {
			hi := min(lo+d.bs, n)
			b := out.Get()
			if b == nil {
				return batch.ErrStopped
			}
			if err := d.cv.convert(rec, lo, hi, b, u, before); err != nil {
				out.Drop(b)
				return err
			}
			if !out.Put(b) {
				return batch.ErrStopped
			}
		}
		before += int64(n)
		return nil
	})
	if err == nil && !ok {
		err = batch.ErrNoUnit
	}
	return struct{}{}, err
}
