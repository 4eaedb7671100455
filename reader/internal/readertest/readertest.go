// Package readertest holds the helpers the reader packages' tests share:
// files written to a test's directory, gzip and zstd bytes, a log to read,
// and rows read back from any Reader in one comparable shape.
package readertest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/rankeval/rankeval/internal/synth"
	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/jsonl"
)

// BenchLog makes n rows of a typical click log line.
func BenchLog(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, `{"query_id":"q%07d","doc_id":"d%d","score":%.6f,"label":%d}`+"\n", i/50, i%50, float64(i%977)/977-0.3, i%5)
	}
	return b.Bytes()
}

// SetForTest sets *v to n until the test ends.
func SetForTest(t testing.TB, v *int, n int) {
	old := *v
	*v = n
	t.Cleanup(func() { *v = old })
}

var TestCols = batch.Columns{Query: "query_id", Doc: "doc_id", Score: "score", Label: "label"}

type RowOut struct {
	Q, D         string
	Score, Label float64
	Rank         int64
	Pos          int64
}

func ReadAllRows(t testing.TB, r batch.Reader) ([]RowOut, error) {
	t.Helper()
	var out []RowOut
	for r.Next() {
		b := r.Batch()
		for i := 0; i < b.N; i++ {
			ro := RowOut{Q: string(b.Query.At(i)), Label: b.Label[i], Pos: b.Pos[i]}
			if len(b.Doc.Off) > 1 {
				ro.D = string(b.Doc.At(i))
			}
			if len(b.Score) > 0 {
				ro.Score = b.Score[i]
			}
			if b.Rank != nil {
				ro.Rank = b.Rank[i]
			}
			out = append(out, ro)
		}
	}
	return out, r.Err()
}

func WriteFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	return WriteFileIn(t, t.TempDir(), name, data)
}

func WriteFileIn(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func GzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func ZstdBytes(b []byte) []byte {
	var buf bytes.Buffer
	w, _ := zstd.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// WriteParquet writes rec to w as one Parquet file. pqarrow's writer
// closes w when it is an io.Closer; writeRecord hides its Close.
func WriteParquet(t testing.TB, w io.Writer, rec arrow.RecordBatch, aprops pqarrow.ArrowWriterProperties, props ...parquet.WriterProperty) {
	t.Helper()
	fw, err := pqarrow.NewFileWriter(rec.Schema(), w, parquet.NewWriterProperties(props...), aprops)
	if err != nil {
		t.Fatal(err)
	}
	if err := fw.WriteBuffered(rec); err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
}

// SkippableFrame is a zstd skippable frame: magic 0x184D2A5n (n = id),
// little-endian, then the payload's size, then the payload.
func SkippableFrame(id byte, payload []byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, 0x184D2A50|uint32(id&0xf))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(payload)))
	return append(b, payload...)
}

func Concat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

var StdCols = batch.Columns{Query: "query_id", Doc: "doc_id", Score: "score", Label: "label"}

func GenLog(seed uint64, rows, docs int) []synth.Row {
	g := synth.NewGenerator(seed, rows, docs)
	var out []synth.Row
	var r synth.Row
	for g.Next(&r) {
		out = append(out, r)
	}
	return out
}

func WriteLog(t testing.TB, name string, rows []synth.Row, opt synth.Options) {
	t.Helper()
	if err := synth.Write(name, &synth.Rows{R: rows}, -1, opt); err != nil {
		t.Fatal(err)
	}
}

func ParseString(t testing.TB, s string, cols batch.Columns, bs int) ([]RowOut, error) {
	t.Helper()
	j := jsonl.New("t.jsonl", strings.NewReader(s), io.NopCloser(nil), cols, batch.Options{BatchSize: bs})
	defer j.Close()
	return ReadAllRows(t, j)
}

// RankRecord has 6 rows of two queries with rank columns: r_f64 and r_f32
// whole floats from 0, r_i64 integers from 0, r_frac a fraction at row 5.
func RankRecord(mem memory.Allocator) arrow.RecordBatch {
	fields := []arrow.Field{
		{Name: "q", Type: arrow.BinaryTypes.String},
		{Name: "l", Type: arrow.PrimitiveTypes.Int32},
		{Name: "r_f64", Type: arrow.PrimitiveTypes.Float64},
		{Name: "r_f32", Type: arrow.PrimitiveTypes.Float32},
		{Name: "r_i64", Type: arrow.PrimitiveTypes.Int64},
		{Name: "r_frac", Type: arrow.PrimitiveTypes.Float64},
	}
	b := array.NewRecordBuilder(mem, arrow.NewSchema(fields, nil))
	defer b.Release()
	for i := range 6 {
		b.Field(0).(*array.StringBuilder).Append([]string{"a", "b"}[i/3])
		b.Field(1).(*array.Int32Builder).Append(int32(i % 2))
		b.Field(2).(*array.Float64Builder).Append(float64(i % 3))
		b.Field(3).(*array.Float32Builder).Append(float32(i%3) - 1)
		b.Field(4).(*array.Int64Builder).Append(int64(i % 3))
		frac := float64(i)
		if i == 4 {
			frac = 2.5
		}
		b.Field(5).(*array.Float64Builder).Append(frac)
	}
	return b.NewRecordBatch()
}

// The values of every column of the type-coverage table, row by row.
var (
	TQuery  = []string{"a", "a", "a", "b", "b", "b"}
	TQInt   = []int64{7, 7, 7, -8, -8, -8}
	TQUint  = []uint64{math.MaxUint64, math.MaxUint64, math.MaxUint64, 5, 5, 5}
	TDoc    = []string{"d1", "d2", "d3", "d1", "d2", "d3"}
	TDocU32 = []uint32{10, 11, 12, 10, 11, 12}
	TScore  = []float64{0.5, 0.25, -1.75, 3, 0, 2.5} // exact in float32 too
	TScoreI = []int16{5, -4, 3, 2, 1, 0}
	TDec    = []int64{1234, -5, 999999, 0, 1, 123456789} // unscaled, scale 3
	TLabel  = []int32{0, 1, 2, 3, 4, 0}
	TLabelF = []float64{0.5, 0, 1.5, 2, 0.25, 1}
	TLabelB = []bool{true, false, true, false, false, true}
	tRank   = []int32{1, 2, 3, 1, 2, 3}
)

// TypesRecord builds one record holding a column of every accepted type and
// a few unsupported ones.
func TypesRecord(mem memory.Allocator) arrow.RecordBatch {
	dictStr := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}
	fields := []arrow.Field{
		{Name: "q_str", Type: arrow.BinaryTypes.String},
		{Name: "q_large", Type: arrow.BinaryTypes.LargeString},
		{Name: "q_dict", Type: dictStr},
		{Name: "q_i32", Type: arrow.PrimitiveTypes.Int32},
		{Name: "q_i64", Type: arrow.PrimitiveTypes.Int64},
		{Name: "q_u64", Type: arrow.PrimitiveTypes.Uint64},
		{Name: "q_bin", Type: arrow.BinaryTypes.Binary},
		{Name: "d_str", Type: arrow.BinaryTypes.String},
		{Name: "d_u32", Type: arrow.PrimitiveTypes.Uint32},
		{Name: "s_f64", Type: arrow.PrimitiveTypes.Float64},
		{Name: "s_f32", Type: arrow.PrimitiveTypes.Float32},
		{Name: "s_i16", Type: arrow.PrimitiveTypes.Int16},
		{Name: "s_dec", Type: &arrow.Decimal128Type{Precision: 12, Scale: 3}},
		{Name: "s_dec256", Type: &arrow.Decimal256Type{Precision: 45, Scale: 3}},
		{Name: "l_i32", Type: arrow.PrimitiveTypes.Int32},
		{Name: "l_f64", Type: arrow.PrimitiveTypes.Float64},
		{Name: "l_bool", Type: arrow.FixedWidthTypes.Boolean},
		{Name: "l_u8", Type: arrow.PrimitiveTypes.Uint8},
		{Name: "r_i32", Type: arrow.PrimitiveTypes.Int32},
		{Name: "r_u64", Type: arrow.PrimitiveTypes.Uint64},
		{Name: "b_ts", Type: arrow.FixedWidthTypes.Timestamp_us},
		{Name: "b_list", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32)},
	}
	b := array.NewRecordBuilder(mem, arrow.NewSchema(fields, nil))
	defer b.Release()
	for i := range TQuery {
		b.Field(0).(*array.StringBuilder).Append(TQuery[i])
		b.Field(1).(*array.LargeStringBuilder).Append(TQuery[i])
		if err := b.Field(2).(*array.BinaryDictionaryBuilder).AppendString(TQuery[i]); err != nil {
			panic(err)
		}
		b.Field(3).(*array.Int32Builder).Append(int32(TQInt[i]))
		b.Field(4).(*array.Int64Builder).Append(TQInt[i] << 40)
		b.Field(5).(*array.Uint64Builder).Append(TQUint[i])
		b.Field(6).(*array.BinaryBuilder).Append([]byte(TQuery[i]))
		b.Field(7).(*array.StringBuilder).Append(TDoc[i])
		b.Field(8).(*array.Uint32Builder).Append(TDocU32[i])
		b.Field(9).(*array.Float64Builder).Append(TScore[i])
		b.Field(10).(*array.Float32Builder).Append(float32(TScore[i]))
		b.Field(11).(*array.Int16Builder).Append(TScoreI[i])
		b.Field(12).(*array.Decimal128Builder).Append(decimal128.FromI64(TDec[i]))
		b.Field(13).(*array.Decimal256Builder).Append(decimal256.FromI64(TDec[i]))
		b.Field(14).(*array.Int32Builder).Append(TLabel[i])
		b.Field(15).(*array.Float64Builder).Append(TLabelF[i])
		b.Field(16).(*array.BooleanBuilder).Append(TLabelB[i])
		b.Field(17).(*array.Uint8Builder).Append(uint8(TLabel[i]))
		b.Field(18).(*array.Int32Builder).Append(tRank[i])
		b.Field(19).(*array.Uint64Builder).Append(uint64(tRank[i]))
		b.Field(20).(*array.TimestampBuilder).Append(arrow.Timestamp(i))
		lb := b.Field(21).(*array.ListBuilder)
		lb.Append(true)
		lb.ValueBuilder().(*array.Int32Builder).Append(int32(i))
	}
	return b.NewRecordBatch()
}

// WriteRecord writes rec as Parquet (row groups of per rows, the Arrow
// schema stored so large strings and dictionaries come back as such), an
// Arrow IPC file or an IPC stream (record batches of per rows), by name.
func WriteRecord(t testing.TB, name string, rec arrow.RecordBatch, per int) {
	t.Helper()
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := int(rec.NumRows())
	switch filepath.Ext(name) {
	case ".parquet":
		WriteParquet(t, struct{ *os.File }{f}, rec, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()), parquet.WithMaxRowGroupLength(int64(per)))
	case ".arrow", ".arrows":
		type writer interface {
			Write(arrow.RecordBatch) error
			Close() error
		}
		var w writer
		if filepath.Ext(name) == ".arrow" {
			if w, err = ipc.NewFileWriter(f, ipc.WithSchema(rec.Schema())); err != nil {
				t.Fatal(err)
			}
		} else {
			w = ipc.NewWriter(f, ipc.WithSchema(rec.Schema()))
		}
		for lo := 0; lo < n; lo += per {
			s := rec.NewSlice(int64(lo), int64(min(lo+per, n)))
			err := w.Write(s)
			s.Release()
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatalf("writeRecord: unknown format %s", name)
	}
}
