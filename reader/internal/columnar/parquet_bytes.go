package columnar

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// colSource yields the columns of one row group batch by batch. Every
// source of a row group gives batches of the same number of rows (the
// reader's batch size, fewer at the end), so their columns can be joined
// into records.
type colSource interface {
	Fields() []arrow.Field
	// Next returns the next batch's columns, nil at the end. They live
	// until the next call or release.
	Next() ([]arrow.Array, error)
	release()
}

// byteSource reads a flat BYTE_ARRAY column (string or binary: query, doc
// and slice ids) with arrow-go's column chunk reader and lays the values out
// as an Arrow array itself. pqarrow's record reader appends every value
// through a BinaryBuilder (growth checks, an offset builder, a builder per
// column), and its dictionary reader hashes each row group's dictionary
// into a memo table. Decoding one column of 10M generated rows took 0.53 s
// through pqarrow and 0.16 s this way for the doc ids, 0.17 s (as an Arrow
// dictionary) and 0.12 s for the query ids; BenchmarkParquetStrings reads
// the whole log 1.5x faster. Large strings get their offsets widened, and
// dictionary columns (as a stored Arrow schema may ask) are encoded batch by
// batch.
type byteSource struct {
	cr     *file.ByteArrayColumnChunkReader
	field  []arrow.Field // one
	maxDef int16         // 0: required; 1: nullable
	batch  int
	mem    memory.Allocator
	vals   []parquet.ByteArray
	defs   []int16
	out    []arrow.Array // one: the current batch
	per    int           // bytes per row of the last batch, to size the next
}

// byteChunk is how many values one ReadBatchInPage call decodes: the values
// alias the page (or the stream buffer), so they are copied out before the
// next call, and a small chunk keeps the value headers in cache.
const byteChunk = 4096

// byteLeaf reports whether a byteSource reads a column of Arrow type dt:
// strings and binaries, large ones (as the stored Arrow schema may say) and
// dictionaries of strings or binaries with any index type.
func byteLeaf(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.STRING, arrow.BINARY, arrow.LARGE_STRING, arrow.LARGE_BINARY:
		return true
	case arrow.DICTIONARY:
		d := dt.(*arrow.DictionaryType)
		v := d.ValueType.ID()
		return isInt(d.IndexType.ID()) && (v == arrow.STRING || v == arrow.BINARY)
	}
	return false
}

func newByteSource(cr *file.ByteArrayColumnChunkReader, col *schema.Column, f arrow.Field, batch int, mem memory.Allocator) *byteSource {
	return &byteSource{cr: cr, field: []arrow.Field{f}, maxDef: col.MaxDefinitionLevel(), batch: batch, mem: mem,
		vals: make([]parquet.ByteArray, byteChunk), defs: make([]int16, byteChunk), out: make([]arrow.Array, 1), per: 16}
}

func (s *byteSource) Fields() []arrow.Field { return s.field }

func (s *byteSource) release() {
	s.dropBatch()
	s.cr.Close()
}

func (s *byteSource) dropBatch() {
	if s.out[0] != nil {
		s.out[0].Release()
		s.out[0] = nil
	}
}

func (s *byteSource) Next() ([]arrow.Array, error) {
	s.dropBatch()
	offBuf := memory.NewResizableBuffer(s.mem)
	defer offBuf.Release()
	dataBuf := memory.NewResizableBuffer(s.mem)
	defer dataBuf.Release()
	var validBuf *memory.Buffer
	defer func() {
		if validBuf != nil {
			validBuf.Release()
		}
	}()

	offBuf.Resize((s.batch + 1) * 4)
	offs := arrow.Int32Traits.CastFromBytes(offBuf.Bytes())
	offs[0] = 0
	dataBuf.Reserve(s.batch * s.per)
	data := dataBuf.Buf()
	pos, rows, nulls := 0, 0, 0
	for rows < s.batch {
		k := min(byteChunk, s.batch-rows)
		var defs []int16
		if s.maxDef > 0 {
			defs = s.defs[:k]
		}
		lv, nv, err := s.cr.ReadBatchInPage(int64(k), s.vals[:k], defs, nil)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", s.field[0].Name, err)
		}
		if lv == 0 {
			break
		}
		need := pos
		for _, v := range s.vals[:nv] {
			need += len(v)
		}
		if need > math.MaxInt32 {
			return nil, fmt.Errorf("column %q: over 2 GiB of values in %d rows", s.field[0].Name, rows+int(lv))
		}
		if need > len(data) {
			dataBuf.Reserve(max(need, 2*len(data)))
			data = dataBuf.Buf()
		}
		if s.maxDef == 0 {
			for j, v := range s.vals[:nv] {
				pos += copy(data[pos:], v)
				offs[rows+j+1] = int32(pos)
			}
		} else {
			vi := 0
			for j, d := range defs[:lv] {
				if d == s.maxDef {
					pos += copy(data[pos:], s.vals[vi])
					vi++
				} else {
					if validBuf == nil {
						validBuf = memory.NewResizableBuffer(s.mem)
						validBuf.Resize(int(bitutil.BytesForBits(int64(s.batch))))
						bitutil.SetBitsTo(validBuf.Bytes(), 0, int64(rows+j), true)
					}
					nulls++
				}
				if validBuf != nil {
					bitutil.SetBitTo(validBuf.Bytes(), rows+j, d == s.maxDef)
				}
				offs[rows+j+1] = int32(pos)
			}
		}
		rows += int(lv)
	}
	if rows == 0 {
		return nil, nil
	}
	s.per = max(1, pos/rows)
	offBuf.Resize((rows + 1) * 4)
	dataBuf.Resize(pos)
	if validBuf != nil {
		validBuf.Resize(int(bitutil.BytesForBits(int64(rows))))
	}
	dt := s.field[0].Type
	switch dt.ID() {
	case arrow.LARGE_STRING, arrow.LARGE_BINARY:
		large := memory.NewResizableBuffer(s.mem)
		defer large.Release()
		large.Resize((rows + 1) * 8)
		lo := arrow.Int64Traits.CastFromBytes(large.Bytes())
		for i, o := range arrow.Int32Traits.CastFromBytes(offBuf.Bytes())[:rows+1] {
			lo[i] = int64(o)
		}
		offBuf = large
	case arrow.DICTIONARY:
		dt = dt.(*arrow.DictionaryType).ValueType
	}
	d := array.NewData(dt, rows, []*memory.Buffer{validBuf, offBuf, dataBuf}, nil, nulls, 0)
	s.out[0] = array.MakeFromData(d)
	d.Release()
	if dict, ok := s.field[0].Type.(*arrow.DictionaryType); ok {
		vals := s.out[0]
		var err error
		s.out[0], err = dictionaryOf(vals, dict, s.mem)
		vals.Release()
		if err != nil {
			s.out[0] = nil
			return nil, fmt.Errorf("column %q: %w", s.field[0].Name, err)
		}
	}
	return s.out, nil
}
