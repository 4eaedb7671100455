package columnar

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"
	"github.com/rankeval/rankeval/reader/internal/batch"
)

// decodeTypes are the columns of TestParquetOwnDecoding: every type some
// role accepts, and some that none does (their types must still match).
var decodeTypes = []arrow.DataType{
	arrow.FixedWidthTypes.Boolean,
	arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
	arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Uint64,
	arrow.FixedWidthTypes.Float16, arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64,
	arrow.FixedWidthTypes.Date32, arrow.FixedWidthTypes.Date64,
	&arrow.Decimal128Type{Precision: 7, Scale: 2}, &arrow.Decimal128Type{Precision: 15, Scale: 4},
	&arrow.Decimal128Type{Precision: 30, Scale: 3}, &arrow.Decimal256Type{Precision: 45, Scale: 5},
	arrow.BinaryTypes.String, arrow.BinaryTypes.Binary, arrow.BinaryTypes.LargeString, arrow.BinaryTypes.LargeBinary,
	&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String},
	&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String},
	&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Uint32, ValueType: arrow.BinaryTypes.String},
	&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.BinaryTypes.Binary},
	// accepted by no role
	arrow.FixedWidthTypes.Timestamp_us, &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "Europe/Paris"},
	arrow.FixedWidthTypes.Time32ms, arrow.FixedWidthTypes.Time64ns,
	&arrow.FixedSizeBinaryType{ByteWidth: 3}, arrow.ListOf(arrow.PrimitiveTypes.Int32),
	arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true}),
}

// decodeRecord is n rows of every type of decodeTypes, required and
// nullable (one row in 7 null), with values of every sign and size.
func decodeRecord(t *testing.T, n int) arrow.RecordBatch {
	var fields []arrow.Field
	for i, dt := range decodeTypes {
		for _, null := range []bool{false, true} {
			fields = append(fields, arrow.Field{Name: fmt.Sprintf("c%02d_%v_%s", i, null, dt.ID()), Type: dt, Nullable: null})
		}
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fields, nil))
	defer b.Release()
	for c, f := range fields {
		fb := b.Field(c)
		for r := range n {
			if f.Nullable && (r*31+c)%7 == 3 {
				fb.AppendNull()
				continue
			}
			v := int64(r*2654435761+c*97) % 100003
			if r%2 == 1 {
				v = -v
			}
			appendValue(t, fb, f.Type, r, v)
		}
	}
	return b.NewRecordBatch()
}

func appendValue(t *testing.T, b array.Builder, dt arrow.DataType, r int, v int64) {
	switch b := b.(type) {
	case *array.BooleanBuilder:
		b.Append(v%3 == 0)
	case *array.Int8Builder:
		b.Append(int8(v))
	case *array.Int16Builder:
		b.Append(int16(v))
	case *array.Int32Builder:
		b.Append(int32(v * 20011))
	case *array.Int64Builder:
		b.Append(v * 1e12)
	case *array.Uint8Builder:
		b.Append(uint8(v))
	case *array.Uint16Builder:
		b.Append(uint16(v))
	case *array.Uint32Builder:
		b.Append(uint32(v * 40009))
	case *array.Uint64Builder:
		b.Append(uint64(v) * 1e14)
	case *array.Float16Builder:
		b.Append(float16.New(float32(v) / 64))
	case *array.Float32Builder:
		b.Append(float32(v) / 3)
	case *array.Float64Builder:
		b.Append(float64(v) / 7)
	case *array.Date32Builder:
		b.Append(arrow.Date32(v / 5))
	case *array.Date64Builder:
		b.Append(arrow.Date64(v / 5 * 86400000))
	case *array.Decimal128Builder:
		x := decimal128.FromI64(v)
		if dt.(*arrow.Decimal128Type).Precision > 18 {
			x = x.Mul(decimal128.FromI64(v * 1e9))
		}
		b.Append(x)
	case *array.Decimal256Builder:
		b.Append(decimal256.FromI64(v).Mul(decimal256.FromI64(v * 1e12)).Mul(decimal256.FromI64(1e15)))
	case *array.StringBuilder:
		b.Append(fmt.Sprintf("s%d", v%500))
	case *array.LargeStringBuilder:
		b.Append(fmt.Sprintf("L%d", v))
	case *array.BinaryBuilder:
		b.Append([]byte(fmt.Sprintf("b\x00%d", v%(1+int64(r)))))
	case *array.BinaryDictionaryBuilder:
		var err error
		if dt.(*arrow.DictionaryType).ValueType.ID() == arrow.BINARY {
			err = b.Append([]byte(fmt.Sprintf("x%d", v%40)))
		} else {
			err = b.AppendString(fmt.Sprintf("d%d", (v%100+100)%100))
		}
		if err != nil {
			t.Fatal(err)
		}
	case *array.TimestampBuilder:
		b.Append(arrow.Timestamp(v * 1000))
	case *array.Time32Builder:
		b.Append(arrow.Time32((v%86400 + 86400) % 86400 * 1000))
	case *array.Time64Builder:
		b.Append(arrow.Time64((v%86400 + 86400) % 86400 * 1e9))
	case *array.DurationBuilder:
		b.Append(arrow.Duration(v))
	case *array.FixedSizeBinaryBuilder:
		b.Append([]byte{byte(v), byte(v >> 8), byte(r)})
	case *array.ListBuilder:
		b.Append(true)
		b.ValueBuilder().(*array.Int32Builder).AppendValues([]int32{int32(v), int32(r)}, nil)
	case *array.StructBuilder:
		b.Append(true)
		b.FieldBuilder(0).(*array.Int64Builder).Append(v)
	default:
		t.Fatalf("no values for %T", b)
	}
}

// acceptedBySome reports whether any role accepts dt.
func acceptedBySome(dt arrow.DataType) bool {
	for _, k := range []int{batch.FQuery, batch.FScore, batch.FLabel, batch.FRank, batch.KExtra} {
		if accepts(k, dt) {
			return true
		}
	}
	return false
}

// TestParquetOwnDecoding: the reader's own column mapping and decoders give
// every column the Arrow field pqarrow gives it and, for every accepted
// type, the same arrays, batch by batch: required and nullable columns,
// several row groups, dictionary and plain pages (and the fallback from one
// to the other), pages of a few values cut anywhere by the batch size,
// version 2 pages, decimals stored as integers and as bytes, with and
// without the stored Arrow schema.
func TestParquetOwnDecoding(t *testing.T) {
	const n = 2500
	rec := decodeRecord(t, n)
	defer rec.Release()
	for _, c := range []struct {
		name   string
		aprops []pqarrow.WriterOption
		props  []parquet.WriterProperty
	}{
		{"dictionary", []pqarrow.WriterOption{pqarrow.WithStoreSchema()},
			[]parquet.WriterProperty{parquet.WithDataPageSize(256), parquet.WithMaxRowGroupLength(700), parquet.WithBatchSize(64)}},
		{"plain", []pqarrow.WriterOption{pqarrow.WithStoreSchema()},
			[]parquet.WriterProperty{parquet.WithDictionaryDefault(false), parquet.WithDataPageSize(512), parquet.WithMaxRowGroupLength(1100), parquet.WithBatchSize(100), parquet.WithCompression(compress.Codecs.Zstd)}},
		{"fallback, v2 pages, decimals as integers", []pqarrow.WriterOption{pqarrow.WithStoreSchema()},
			[]parquet.WriterProperty{parquet.WithDictionaryPageSizeLimit(300), parquet.WithDataPageSize(400), parquet.WithDataPageVersion(parquet.DataPageV2),
				parquet.WithStoreDecimalAsInteger(true), parquet.WithBatchSize(50), parquet.WithMaxRowGroupLength(1000)}},
		{"no stored schema", nil,
			[]parquet.WriterProperty{parquet.WithDataPageSize(300), parquet.WithMaxRowGroupLength(900), parquet.WithBatchSize(70)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			fw, err := pqarrow.NewFileWriter(rec.Schema(), &buf, parquet.NewWriterProperties(c.props...), pqarrow.NewArrowWriterProperties(c.aprops...))
			if err != nil {
				t.Fatal(err)
			}
			if err := fw.WriteBuffered(rec); err != nil {
				t.Fatal(err)
			}
			if err := fw.Close(); err != nil {
				t.Fatal(err)
			}
			compareDecoding(t, buf.Bytes(), n)
		})
	}
}

// TestParquetOwnDecodingLowLevel: the same for columns pqarrow does not
// write: decimals in BYTE_ARRAY, legacy converted types (UINT_8, INT_16,
// DATE, DECIMAL, UTF8) without logical types, INT96, enums and JSON.
func TestParquetOwnDecodingLowLevel(t *testing.T) {
	const n = 1500
	var nodes schema.FieldList
	add := func(nd schema.Node, err error) {
		if err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, nd)
	}
	for _, rep := range []parquet.Repetition{parquet.Repetitions.Required, parquet.Repetitions.Optional} {
		s := rep.String()
		add(schema.NewPrimitiveNodeLogical("dec_bytes_"+s, rep, schema.NewDecimalLogicalType(20, 2), parquet.Types.ByteArray, -1, -1))
		add(schema.NewPrimitiveNodeLogical("dec_bytes_wide_"+s, rep, schema.NewDecimalLogicalType(60, 7), parquet.Types.ByteArray, -1, -1))
		add(schema.NewPrimitiveNodeLogical("dec_flba5_"+s, rep, schema.NewDecimalLogicalType(11, 3), parquet.Types.FixedLenByteArray, 5, -1))
		add(schema.NewPrimitiveNodeConverted("u8_"+s, rep, parquet.Types.Int32, schema.ConvertedTypes.Uint8, -1, 0, 0, -1))
		add(schema.NewPrimitiveNodeConverted("i16_"+s, rep, parquet.Types.Int32, schema.ConvertedTypes.Int16, -1, 0, 0, -1))
		add(schema.NewPrimitiveNodeConverted("u64_"+s, rep, parquet.Types.Int64, schema.ConvertedTypes.Uint64, -1, 0, 0, -1))
		add(schema.NewPrimitiveNodeConverted("date_"+s, rep, parquet.Types.Int32, schema.ConvertedTypes.Date, -1, 0, 0, -1))
		add(schema.NewPrimitiveNodeConverted("dec64_"+s, rep, parquet.Types.Int64, schema.ConvertedTypes.Decimal, -1, 18, 4, -1))
		add(schema.NewPrimitiveNodeConverted("utf8_"+s, rep, parquet.Types.ByteArray, schema.ConvertedTypes.UTF8, -1, 0, 0, -1))
		add(schema.NewPrimitiveNodeConverted("ts_millis_"+s, rep, parquet.Types.Int64, schema.ConvertedTypes.TimestampMillis, -1, 0, 0, -1))
		add(schema.NewPrimitiveNodeLogical("enum_"+s, rep, schema.EnumLogicalType{}, parquet.Types.ByteArray, -1, -1))
		add(schema.NewPrimitiveNodeLogical("json_"+s, rep, schema.JSONLogicalType{}, parquet.Types.ByteArray, -1, -1))
		add(schema.NewPrimitiveNode("int96_"+s, rep, parquet.Types.Int96, -1, -1))
		add(schema.NewPrimitiveNode("plain_i32_"+s, rep, parquet.Types.Int32, -1, -1))
	}
	root, err := schema.NewGroupNode("schema", parquet.Repetitions.Required, nodes, -1)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := file.NewParquetWriter(&buf, root, file.WithWriterProps(parquet.NewWriterProperties(parquet.WithDataPageSize(300), parquet.WithBatchSize(40))))
	for lo := 0; lo < n; lo += 600 {
		hi := min(n, lo+600)
		rg := w.AppendRowGroup()
		for ci := range nodes {
			cw, err := rg.NextColumn()
			if err != nil {
				t.Fatal(err)
			}
			writeLowLevel(t, cw, nodes[ci], lo, hi, ci)
		}
		if err := rg.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	compareDecoding(t, buf.Bytes(), n)
}

// writeLowLevel writes rows [lo, hi) of column ci.
func writeLowLevel(t *testing.T, cw file.ColumnChunkWriter, nd schema.Node, lo, hi, ci int) {
	var defs []int16
	present := 0
	for r := lo; r < hi; r++ {
		d := int16(1)
		if nd.RepetitionType() == parquet.Repetitions.Optional && (r+ci)%5 == 2 {
			d = 0
		}
		defs = append(defs, d)
		present += int(d)
	}
	if nd.RepetitionType() == parquet.Repetitions.Required {
		defs = nil
	}
	val := func(k int) int64 {
		v := int64(k*7919+ci*13) % 9973
		if k%3 == 0 {
			v = -v
		}
		return v
	}
	var err error
	switch w := cw.(type) {
	case *file.ByteArrayColumnChunkWriter:
		vals := make([]parquet.ByteArray, present)
		for k := range vals {
			v := val(lo + k)
			switch {
			case nd.LogicalType().Equals(schema.NewDecimalLogicalType(20, 2)):
				x := decimal128.FromI64(v).Mul(decimal128.FromI64(v * 1e10))
				b := x.BigInt().Bytes() // magnitude; two's complement below
				vals[k] = twosComplement(b, x.Sign() < 0)
			case nd.LogicalType().Equals(schema.NewDecimalLogicalType(60, 7)):
				x := decimal256.FromI64(v).Mul(decimal256.FromI64(v * 1e17)).Mul(decimal256.FromI64(v * 1e15))
				vals[k] = twosComplement(x.BigInt().Bytes(), x.Sign() < 0)
			default:
				vals[k] = []byte(fmt.Sprintf("v%d", v%77))
			}
		}
		_, err = w.WriteBatch(vals, defs, nil)
	case *file.FixedLenByteArrayColumnChunkWriter:
		vals := make([]parquet.FixedLenByteArray, present)
		for k := range vals {
			x := val(lo+k) * 1e6
			b := make([]byte, 5)
			for i := 4; i >= 0; i-- {
				b[i] = byte(x)
				x >>= 8
			}
			vals[k] = b
		}
		_, err = w.WriteBatch(vals, defs, nil)
	case *file.Int32ColumnChunkWriter:
		vals := make([]int32, present)
		for k := range vals {
			vals[k] = int32(val(lo+k) * 211)
		}
		_, err = w.WriteBatch(vals, defs, nil)
	case *file.Int64ColumnChunkWriter:
		vals := make([]int64, present)
		for k := range vals {
			vals[k] = val(lo+k) * 1e13
		}
		_, err = w.WriteBatch(vals, defs, nil)
	case *file.Int96ColumnChunkWriter:
		vals := make([]parquet.Int96, present)
		for k := range vals {
			vals[k] = parquet.NewInt96([3]uint32{uint32(k), 0, 2440588 + uint32(k)})
		}
		_, err = w.WriteBatch(vals, defs, nil)
	default:
		t.Fatalf("no values for %T", cw)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := cw.Close(); err != nil {
		t.Fatal(err)
	}
}

// twosComplement is the shortest big-endian two's complement of the
// magnitude mag, negated when neg.
func twosComplement(mag []byte, neg bool) []byte {
	b := append([]byte{0}, mag...)
	if neg {
		carry := 1
		for i := len(b) - 1; i >= 0; i-- {
			x := int(^b[i]) + carry
			b[i] = byte(x)
			carry = x >> 8
		}
	}
	for len(b) > 1 && (b[0] == 0 && b[1] < 0x80 || b[0] == 0xff && b[1] >= 0x80) {
		b = b[1:]
	}
	return b
}

// compareDecoding reads the Parquet file data with the own mapping and
// decoders and with pqarrow and compares fields and arrays.
func compareDecoding(t *testing.T, data []byte, n int) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	pf, err := file.NewParquetReader(bytes.NewReader(data), file.WithReadProps(parquet.NewReaderProperties(mem)))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	meta := pf.MetaData()
	mine, err := parquetColumns(meta.Schema, meta.KeyValueMetadata())
	if err != nil {
		t.Fatal(err)
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, mem)
	if err != nil {
		t.Fatal(err)
	}
	if len(mine) != len(fr.Manifest.Fields) {
		t.Fatalf("%d columns, pqarrow has %d", len(mine), len(fr.Manifest.Fields))
	}
	decoded := 0
	for i, ref := range fr.Manifest.Fields {
		my := mine[i]
		if !my.field.Equal(*ref.Field) {
			t.Errorf("column %d: field %v, pqarrow has %v", i, my.field, ref.Field)
			continue
		}
		if ref.IsLeaf() != (my.leaf >= 0) || ref.IsLeaf() && ref.ColIndex != my.leaf {
			t.Errorf("column %q: leaf %d, pqarrow has %d (leaf %v)", my.field.Name, my.leaf, ref.ColIndex, ref.IsLeaf())
			continue
		}
		if my.leaf < 0 || !acceptedBySome(my.field.Type) {
			continue
		}
		decoded++
		for _, bs := range []int{1, 7, 333, 4096} {
			for u := range pf.NumRowGroups() {
				if bs == 1 && u > 0 {
					break // one value at a time is slow through pqarrow
				}
				t.Run(fmt.Sprintf("%s/batch=%d/rg=%d", my.field.Name, bs, u), func(t *testing.T) {
					compareColumn(t, pf, fr, my, u, bs, mem)
				})
			}
		}
	}
	if decoded == 0 {
		t.Fatal("no column decoded")
	}
	var rows int64
	for u := range pf.NumRowGroups() {
		rows += meta.RowGroup(u).NumRows()
	}
	if rows != int64(n) || pf.NumRowGroups() < 2 {
		t.Fatalf("%d rows in %d row groups, want %d rows in several", rows, pf.NumRowGroups(), n)
	}
}

func compareColumn(t *testing.T, pf *file.Reader, fr *pqarrow.FileReader, c pqColumn, u, bs int, mem memory.Allocator) {
	cr, err := pf.RowGroup(u).Column(c.leaf)
	if err != nil {
		t.Fatal(err)
	}
	src, err := newColSource(cr, pf.MetaData().Schema.Column(c.leaf), *c.field, bs, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer src.release()
	fr.Props.BatchSize = int64(bs)
	rr, err := fr.GetRecordReader(context.Background(), []int{c.leaf}, []int{u})
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	rows := 0
	for b := 0; ; b++ {
		got, err := src.Next()
		if err != nil {
			t.Fatal(err)
		}
		more := rr.Next()
		if got == nil || !more {
			if got != nil || more || rr.Err() != nil {
				t.Fatalf("batch %d: own decoding ends %v, pqarrow %v (%v)", b, got == nil, !more, rr.Err())
			}
			break
		}
		want := rr.RecordBatch().Column(0)
		g := got[0]
		if !arrow.TypeEqual(g.DataType(), want.DataType()) || g.Len() != want.Len() || g.NullN() != want.NullN() {
			t.Fatalf("batch %d: %s of %d rows (%d null), pqarrow gives %s of %d (%d null)", b,
				g.DataType(), g.Len(), g.NullN(), want.DataType(), want.Len(), want.NullN())
		}
		if _, ok := g.(*array.Dictionary); ok {
			// Dictionaries may be laid out differently; their values must agree.
			for i := range g.Len() {
				if g.IsNull(i) && want.IsNull(i) {
					continue
				}
				gv, gok := arrowText(g, i, nil)
				wv, wok := arrowText(want, i, nil)
				if g.IsNull(i) != want.IsNull(i) || gok != wok || !bytes.Equal(gv, wv) {
					t.Fatalf("batch %d, row %d: %q (null %v), pqarrow %q (null %v)", b, i, gv, g.IsNull(i), wv, want.IsNull(i))
				}
			}
		} else if !array.Equal(g, want) {
			t.Fatalf("batch %d (row %d on): own decoding\n%v\npqarrow\n%v", b, rows, g, want)
		}
		rows += g.Len()
	}
	if want := pf.MetaData().RowGroup(u).NumRows(); int64(rows) != want {
		t.Fatalf("%d rows, the row group has %d", rows, want)
	}
}

// TestParquetStoredSchema: the types a stored Arrow schema gives columns
// (durations over INT64, time zones, large strings, dictionaries of any
// index type, decimal256 over a decimal128's bytes, extension metadata) are
// those pqarrow gives, including schemas that do not fit the file.
func TestParquetStoredSchema(t *testing.T) {
	node := func(name string, lt schema.LogicalType, pt parquet.Type, n int) schema.Node {
		nd, err := schema.NewPrimitiveNodeLogical(name, parquet.Repetitions.Optional, lt, pt, n, -1)
		if err != nil {
			t.Fatal(err)
		}
		return nd
	}
	root, err := schema.NewGroupNode("schema", parquet.Repetitions.Required, schema.FieldList{
		node("dur", schema.NoLogicalType{}, parquet.Types.Int64, -1),
		node("ts", schema.NewTimestampLogicalType(true, schema.TimeUnitMicros), parquet.Types.Int64, -1),
		node("big", schema.StringLogicalType{}, parquet.Types.ByteArray, -1),
		node("cat", schema.StringLogicalType{}, parquet.Types.ByteArray, -1),
		node("dec", schema.NewDecimalLogicalType(20, 2), parquet.Types.FixedLenByteArray, 9),
		node("plain", schema.NoLogicalType{}, parquet.Types.Int32, -1),
	}, -1)
	if err != nil {
		t.Fatal(err)
	}
	sc := schema.NewSchema(root)
	stored := func(fields ...arrow.Field) metadata.KeyValueMetadata {
		var buf bytes.Buffer
		w := ipc.NewWriter(&buf, ipc.WithSchema(arrow.NewSchema(fields, nil)))
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		kv := metadata.NewKeyValueMetadata()
		if err := kv.Append("ARROW:schema", base64.StdEncoding.EncodeToString(buf.Bytes())); err != nil {
			t.Fatal(err)
		}
		return kv
	}
	full := []arrow.Field{
		{Name: "dur", Type: arrow.FixedWidthTypes.Duration_us, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "Asia/Tokyo"}, Nullable: true},
		{Name: "big", Type: arrow.BinaryTypes.LargeString, Nullable: true},
		{Name: "cat", Type: &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.BinaryTypes.String}, Nullable: true},
		{Name: "dec", Type: &arrow.Decimal256Type{Precision: 20, Scale: 2}, Nullable: true},
		{Name: "plain", Type: arrow.PrimitiveTypes.Int32, Nullable: true, Metadata: arrow.NewMetadata([]string{"k"}, []string{"v"})},
	}
	for _, c := range []struct {
		name string
		kv   metadata.KeyValueMetadata
	}{
		{"none", nil},
		{"every kind", stored(full...)},
		{"fewer fields than the file", stored(full[:3]...)},
		// A type the column's Parquet type cannot hold refuses only that
		// column, when it is read (TestParquetStoredSchemaMismatch).
		// An extension type whose storage needs no change from the
		// Parquet type's is not applied (pqarrow's rule), so a bool8
		// column stays int8.
		{"an extension over INT32", stored(append(full[:5:5], arrow.Field{Name: "plain", Type: extensions.NewBool8Type(), Nullable: true})...)},
		{"a large string over INT32", stored(append(full[:5:5], arrow.Field{Name: "plain", Type: arrow.BinaryTypes.LargeString, Nullable: true})...)},
	} {
		t.Run(c.name, func(t *testing.T) {
			mine, err := parquetColumns(sc, c.kv)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := pqarrow.FromParquet(sc, &pqarrow.ArrowReadProperties{}, c.kv)
			if err != nil {
				t.Fatal(err)
			}
			for i, f := range ref.Fields() {
				if !mine[i].field.Equal(f) {
					t.Errorf("column %d: %v, pqarrow gives %v", i, mine[i].field, f)
				}
			}
			if c.name == "every kind" && (mine[0].field.Type.ID() != arrow.DURATION || accepts(batch.FScore, mine[0].field.Type)) {
				t.Errorf("dur: %s; a duration must not serve as a score", mine[0].field.Type)
			}
		})
	}
}

// TestParquetNestedColumns: the Arrow types of nested columns (a variant,
// a repeated variant, a list, a map, a struct) are pqarrow's, so a file
// with them is read (parquetLeaves refuses one only when a role names it).
func TestParquetNestedColumns(t *testing.T) {
	must := func(n schema.Node, err error) schema.Node {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	req, opt, rep := parquet.Repetitions.Required, parquet.Repetitions.Optional, parquet.Repetitions.Repeated
	bin := func(name string, r parquet.Repetition) schema.Node {
		return must(schema.NewPrimitiveNode(name, r, parquet.Types.ByteArray, -1, -1))
	}
	variant := func(name string, r parquet.Repetition) schema.Node {
		return must(schema.NewGroupNodeLogical(name, r, schema.FieldList{bin("metadata", req), bin("value", opt)}, schema.VariantLogicalType{}, -1))
	}
	fields := schema.FieldList{
		must(schema.NewPrimitiveNodeLogical("query_id", req, schema.StringLogicalType{}, parquet.Types.ByteArray, -1, -1)),
		variant("v", opt),
		variant("vs", rep),
		must(schema.NewGroupNodeLogical("l", opt, schema.FieldList{
			must(schema.NewGroupNode("list", rep, schema.FieldList{
				must(schema.NewPrimitiveNode("element", opt, parquet.Types.Int32, -1, -1))}, -1))}, schema.NewListLogicalType(), -1)),
		must(schema.NewGroupNodeLogical("m", opt, schema.FieldList{
			must(schema.NewGroupNode("key_value", rep, schema.FieldList{
				must(schema.NewPrimitiveNodeLogical("key", req, schema.StringLogicalType{}, parquet.Types.ByteArray, -1, -1)),
				must(schema.NewPrimitiveNode("value", opt, parquet.Types.Double, -1, -1))}, -1))}, schema.MapLogicalType{}, -1)),
		must(schema.NewGroupNode("s", opt, schema.FieldList{bin("a", opt), bin("b", req)}, -1)),
	}
	sc := schema.NewSchema(must(schema.NewGroupNode("schema", req, fields, -1)).(*schema.GroupNode))
	ref, err := pqarrow.FromParquet(sc, &pqarrow.ArrowReadProperties{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	mine, err := parquetColumns(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range ref.Fields() {
		if !mine[i].field.Equal(f) || (mine[i].leaf >= 0) != (i == 0) {
			t.Errorf("column %d: %v (leaf %d), pqarrow gives %v", i, mine[i].field, mine[i].leaf, f)
		}
	}
}
