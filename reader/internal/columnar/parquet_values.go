package columnar

import (
	"context"
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// Column sources for the types other than plain strings: numbers,
// booleans, dates, decimals and float16 with arrow-go's typed column chunk
// readers, laid out as the Arrow arrays pqarrow gives for the same column.

// newColSource reads top-level leaf column cr, of Arrow field f, in
// batches of n rows: the types some role accepts (columnar_schema.go) as
// pqarrow lays them out; any other type is an error.
func newColSource(cr file.ColumnChunkReader, col *schema.Column, f arrow.Field, n int, mem memory.Allocator) (colSource, error) {
	dt := f.Type
	if col.MaxRepetitionLevel() == 0 && col.MaxDefinitionLevel() <= 1 {
		base := fixedBase{field: []arrow.Field{f}, maxDef: col.MaxDefinitionLevel(), batch: n, mem: mem, out: make([]arrow.Array, 1)}
		if base.maxDef > 0 {
			base.defs = make([]int16, n)
		}
		id := dt.ID()
		dec := id == arrow.DECIMAL128 || id == arrow.DECIMAL256
		switch r := cr.(type) {
		case *file.ByteArrayColumnChunkReader:
			if dec {
				return &bytesSource[parquet.ByteArray]{fixedBase: base, vals: make([]parquet.ByteArray, byteChunk), close: r.Close,
					read: func(k int64, v []parquet.ByteArray, d []int16) (int64, int, error) {
						return r.ReadBatchInPage(k, v, d, nil)
					}}, nil
			}
			if byteLeaf(dt) {
				return newByteSource(r, col, f, n, mem), nil
			}
		case *file.BooleanColumnChunkReader:
			if id == arrow.BOOL {
				return &boolSource{fixedBase: base, cr: r, vals: make([]bool, n)}, nil
			}
		case *file.Int32ColumnChunkReader:
			if s := newIntSource(base, r, dt); s != nil {
				return s, nil
			}
		case *file.Int64ColumnChunkReader:
			if id != arrow.DATE64 {
				if s := newIntSource(base, r, dt); s != nil {
					return s, nil
				}
			}
		case *file.Float32ColumnChunkReader:
			if id == arrow.FLOAT32 {
				return newFixed(base, r, layout[float32, float32]{width: 4, same: true}), nil
			}
		case *file.Float64ColumnChunkReader:
			if id == arrow.FLOAT64 {
				return newFixed(base, r, layout[float64, float64]{width: 8, same: true}), nil
			}
		case *file.FixedLenByteArrayColumnChunkReader:
			if dec || id == arrow.FLOAT16 && col.TypeLength() == 2 {
				return &bytesSource[parquet.FixedLenByteArray]{fixedBase: base, vals: make([]parquet.FixedLenByteArray, byteChunk), close: r.Close,
					read: func(k int64, v []parquet.FixedLenByteArray, d []int16) (int64, int, error) {
						return r.ReadBatchInPage(k, v, d, nil)
					}}, nil
			}
		}
	}
	cr.Close()
	return nil, fmt.Errorf("column %q: cannot read Parquet %s as %s", f.Name, col.PhysicalType(), dt)
}

// fixedBase is what the fixed-width sources share: the output field, the
// batch size, the definition levels of a nullable column and the array of
// the current batch.
type fixedBase struct {
	field  []arrow.Field // one
	maxDef int16         // 0: required; 1: nullable
	batch  int
	mem    memory.Allocator
	defs   []int16
	out    []arrow.Array // one: the current batch
}

func (b *fixedBase) Fields() []arrow.Field { return b.field }

func (b *fixedBase) dropBatch() {
	if b.out[0] != nil {
		b.out[0].Release()
		b.out[0] = nil
	}
}

// finish makes the batch's array of rows rows from its value buffer and,
// for a nullable column, the validity bitmap of defs (nil when no row is
// null).
func (b *fixedBase) finish(rows int, vals *memory.Buffer) []arrow.Array {
	var valid *memory.Buffer
	nulls := 0
	if b.maxDef > 0 {
		for _, d := range b.defs[:rows] {
			if d != b.maxDef {
				nulls++
			}
		}
		if nulls > 0 {
			valid = memory.NewResizableBuffer(b.mem)
			valid.Resize(int(bitutil.BytesForBits(int64(rows))))
			bits := valid.Bytes()
			for j, d := range b.defs[:rows] {
				bitutil.SetBitTo(bits, j, d == b.maxDef)
			}
			defer valid.Release()
		}
	}
	d := array.NewData(b.field[0].Type, rows, []*memory.Buffer{valid, vals}, nil, nulls, 0)
	b.out[0] = array.MakeFromData(d)
	d.Release()
	return b.out
}

// spread moves the nv dense values at the start of v to the rows whose
// definition level says they are present, back to front, zeroing the null
// rows.
func spread[T any](v []T, defs []int16, maxDef int16, nv int) {
	var zero T
	k := nv - 1
	for j := len(defs) - 1; j >= 0 && j > k; j-- {
		if defs[j] == maxDef {
			v[j] = v[k]
			k--
		} else {
			v[j] = zero
		}
	}
}

// typedReader is a typed column chunk reader of physical values P.
type typedReader[P any] interface {
	ReadBatch(n int64, vals []P, defs, reps []int16) (int64, int, error)
	Close() error
}

// layout says how physical values P become Arrow values A: width bytes
// each, the same bits (same), or converted by conv.
type layout[P, A any] struct {
	width int
	same  bool
	conv  func(dst []A, src []P)
}

// fixedSource reads a column of physical type P into Arrow values A.
type fixedSource[P, A any] struct {
	fixedBase
	cr   typedReader[P]
	lay  layout[P, A]
	vals []P // scratch for converted values
}

func newFixed[P, A any](base fixedBase, cr typedReader[P], lay layout[P, A]) colSource {
	s := &fixedSource[P, A]{fixedBase: base, cr: cr, lay: lay}
	if !lay.same {
		s.vals = make([]P, base.batch)
	}
	return s
}

func (s *fixedSource[P, A]) release() {
	s.dropBatch()
	s.cr.Close()
}

func (s *fixedSource[P, A]) Next() ([]arrow.Array, error) {
	s.dropBatch()
	buf := memory.NewResizableBuffer(s.mem)
	defer buf.Release()
	buf.Resize(s.batch * s.lay.width)
	var dst []P
	if s.lay.same {
		dst = unsafe.Slice((*P)(unsafe.Pointer(unsafe.SliceData(buf.Bytes()))), s.batch)
	} else {
		dst = s.vals
	}
	var defs []int16
	if s.maxDef > 0 {
		defs = s.defs
	}
	lv, nv, err := s.cr.ReadBatch(int64(s.batch), dst, defs, nil)
	if err != nil {
		return nil, fmt.Errorf("column %q: %w", s.field[0].Name, err)
	}
	rows := int(lv)
	if rows == 0 {
		return nil, nil
	}
	if defs != nil {
		spread(dst[:rows], defs[:rows], s.maxDef, nv)
	} else if nv != rows {
		return nil, fmt.Errorf("column %q: %d values in %d rows of a required column", s.field[0].Name, nv, rows)
	}
	if !s.lay.same {
		out := unsafe.Slice((*A)(unsafe.Pointer(unsafe.SliceData(buf.Bytes()))), s.batch)
		s.lay.conv(out[:rows], dst[:rows])
	}
	buf.Resize(rows * s.lay.width)
	return s.finish(rows, buf), nil
}

type physInt interface{ ~int32 | ~int64 }

func convInts[A ~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64, P physInt](dst []A, src []P) {
	for i, v := range src {
		dst[i] = A(v)
	}
}

func convDate64[P physInt](dst []int64, src []P) {
	const msPerDay = 86400000
	for i, v := range src {
		dst[i] = int64(v) * msPerDay
	}
}

func convDec128[P physInt](dst []decimal128.Num, src []P) {
	for i, v := range src {
		dst[i] = decimal128.FromI64(int64(v))
	}
}

func convDec256[P physInt](dst []decimal256.Num, src []P) {
	for i, v := range src {
		dst[i] = decimal256.FromI64(int64(v))
	}
}

// newIntSource reads an INT32 or INT64 column as Arrow type dt, converting
// as pqarrow does: integers of other widths truncated or extended, dates,
// and decimals of unscaled integers.
func newIntSource[P physInt](base fixedBase, cr typedReader[P], dt arrow.DataType) colSource {
	var p P
	wide := unsafe.Sizeof(p) == 8
	switch dt.ID() {
	case arrow.INT8:
		return newFixed(base, cr, layout[P, int8]{width: 1, conv: convInts[int8, P]})
	case arrow.UINT8:
		return newFixed(base, cr, layout[P, uint8]{width: 1, conv: convInts[uint8, P]})
	case arrow.INT16:
		return newFixed(base, cr, layout[P, int16]{width: 2, conv: convInts[int16, P]})
	case arrow.UINT16:
		return newFixed(base, cr, layout[P, uint16]{width: 2, conv: convInts[uint16, P]})
	case arrow.INT32, arrow.UINT32, arrow.DATE32:
		if !wide {
			return newFixed(base, cr, layout[P, P]{width: 4, same: true})
		}
		return newFixed(base, cr, layout[P, int32]{width: 4, conv: convInts[int32, P]})
	case arrow.INT64, arrow.UINT64:
		if wide {
			return newFixed(base, cr, layout[P, P]{width: 8, same: true})
		}
		return newFixed(base, cr, layout[P, int64]{width: 8, conv: convInts[int64, P]})
	case arrow.DATE64:
		return newFixed(base, cr, layout[P, int64]{width: 8, conv: convDate64[P]})
	case arrow.DECIMAL128:
		return newFixed(base, cr, layout[P, decimal128.Num]{width: 16, conv: convDec128[P]})
	case arrow.DECIMAL256:
		return newFixed(base, cr, layout[P, decimal256.Num]{width: 32, conv: convDec256[P]})
	}
	return nil
}

// boolSource reads a BOOLEAN column.
type boolSource struct {
	fixedBase
	cr   *file.BooleanColumnChunkReader
	vals []bool
}

func (s *boolSource) release() {
	s.dropBatch()
	s.cr.Close()
}

func (s *boolSource) Next() ([]arrow.Array, error) {
	s.dropBatch()
	var defs []int16
	if s.maxDef > 0 {
		defs = s.defs
	}
	lv, nv, err := s.cr.ReadBatch(int64(s.batch), s.vals, defs, nil)
	if err != nil {
		return nil, fmt.Errorf("column %q: %w", s.field[0].Name, err)
	}
	rows := int(lv)
	if rows == 0 {
		return nil, nil
	}
	if defs != nil {
		spread(s.vals[:rows], defs[:rows], s.maxDef, nv)
	} else if nv != rows {
		return nil, fmt.Errorf("column %q: %d values in %d rows of a required column", s.field[0].Name, nv, rows)
	}
	buf := memory.NewResizableBuffer(s.mem)
	defer buf.Release()
	buf.Resize(int(bitutil.BytesForBits(int64(rows))))
	bits := buf.Bytes()
	clear(bits)
	for j, v := range s.vals[:rows] {
		if v {
			bitutil.SetBit(bits, j)
		}
	}
	return s.finish(rows, buf), nil
}

// readChunks reads up to a batch of rows a chunk at a time with read, which
// decodes k rows within one page (their values alias the page), and calls
// put for every present row with the index of its value in the chunk. It
// returns the number of rows read.
func (b *fixedBase) readChunks(read func(k int, defs []int16) (int64, int, error), put func(row, v int) error) (int, error) {
	rows := 0
	for rows < b.batch {
		k := min(byteChunk, b.batch-rows)
		var defs []int16
		if b.maxDef > 0 {
			defs = b.defs[rows : rows+k]
		}
		lv, nv, err := read(k, defs)
		if err != nil {
			return 0, fmt.Errorf("column %q: %w", b.field[0].Name, err)
		}
		if lv == 0 {
			break
		}
		if defs == nil {
			if nv != int(lv) {
				return 0, fmt.Errorf("column %q: %d values in %d rows of a required column", b.field[0].Name, nv, lv)
			}
			for j := range nv {
				if err := put(rows+j, j); err != nil {
					return 0, err
				}
			}
		} else {
			vi := 0
			for j, d := range defs[:lv] {
				if d == b.maxDef {
					if err := put(rows+j, vi); err != nil {
						return 0, err
					}
					vi++
				}
			}
		}
		rows += int(lv)
	}
	return rows, nil
}

// bytesSource reads a column of byte strings as fixed-width Arrow values:
// FIXED_LEN_BYTE_ARRAY as float16 (the bytes as they are) or a decimal, and
// BYTE_ARRAY as a decimal (big-endian two's complement, bigEndianPut).
type bytesSource[V ~[]byte] struct {
	fixedBase
	read  func(k int64, vals []V, defs []int16) (int64, int, error)
	close func() error
	vals  []V
}

func (s *bytesSource[V]) release() {
	s.dropBatch()
	s.close()
}

func (s *bytesSource[V]) Next() ([]arrow.Array, error) {
	s.dropBatch()
	out := s.field[0].Type.(arrow.FixedWidthDataType).BitWidth() / 8
	buf := memory.NewResizableBuffer(s.mem)
	defer buf.Release()
	buf.Resize(s.batch * out)
	data := buf.Bytes()
	clear(data)
	put := bigEndianPut(s.field[0].Type)
	rows, err := s.readChunks(func(k int, defs []int16) (int64, int, error) {
		return s.read(int64(k), s.vals[:k], defs)
	}, func(row, v int) error {
		return put(data[row*out:(row+1)*out], s.vals[v], s.field[0].Type)
	})
	if err != nil || rows == 0 {
		return nil, err
	}
	buf.Resize(rows * out)
	return s.finish(rows, buf), nil
}

// bigEndianPut is how one stored value of type dt is written to its Arrow
// slot: float16 bytes as they are; decimals from big-endian two's
// complement, sign-extended.
func bigEndianPut(dt arrow.DataType) func(dst, v []byte, dt arrow.DataType) error {
	if dt.ID() == arrow.FLOAT16 {
		return func(dst, v []byte, _ arrow.DataType) error {
			if len(v) != 2 {
				return fmt.Errorf("float16 value of %d bytes", len(v))
			}
			copy(dst, v)
			return nil
		}
	}
	return putDecimal
}

// putDecimal writes the big-endian two's complement integer v as the
// little-endian decimal128 or decimal256 in dst.
func putDecimal(dst, v []byte, dt arrow.DataType) error {
	if len(v) < 1 || len(v) > len(dst) {
		return fmt.Errorf("invalid BYTEARRAY length %d for type: %s", len(v), dt)
	}
	var be [32]byte
	w := be[32-len(dst):]
	if int8(v[0]) < 0 {
		for i := range w {
			w[i] = 0xff
		}
	}
	copy(w[len(w)-len(v):], v)
	// Little-endian words, least significant first.
	for i := 0; i < len(dst)/8; i++ {
		binary.LittleEndian.PutUint64(dst[8*i:], binary.BigEndian.Uint64(w[len(w)-8*(i+1):]))
	}
	return nil
}

// dictionaryOf encodes the string or binary array vals as an Arrow
// dictionary of type dt, whose indices may be of any integer type.
func dictionaryOf(vals arrow.Array, dt *arrow.DictionaryType, mem memory.Allocator) (arrow.Array, error) {
	b := array.NewDictionaryBuilder(mem, &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: dt.ValueType, Ordered: dt.Ordered}).(*array.BinaryDictionaryBuilder)
	defer b.Release()
	for i := range vals.Len() {
		if vals.IsNull(i) {
			b.AppendNull()
			continue
		}
		var err error
		switch a := vals.(type) {
		case *array.String:
			err = b.AppendString(a.Value(i))
		case *array.Binary:
			err = b.Append(a.Value(i))
		}
		if err != nil {
			return nil, err
		}
	}
	d := b.NewArray().(*array.Dictionary)
	if dt.IndexType.ID() == arrow.INT32 {
		return d, nil
	}
	defer d.Release()
	ctx := compute.WithAllocator(context.Background(), mem)
	idx, err := compute.CastArray(ctx, d.Indices(), compute.SafeCastOptions(dt.IndexType))
	if err != nil {
		return nil, err
	}
	defer idx.Release()
	return array.NewValidatedDictionaryArray(dt, idx, d.Dictionary())
}
