package reader

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/columnar"
	"github.com/rankeval/rankeval/reader/internal/readertest"
)

// bytesLog is the table of TestParquetOwnStrings: n rows in queries of 7,
// ids of 0 to 299 bytes (empty ones too), and every 13th doc id null.
func bytesLog(n int) (q, d []string, dNull []bool) {
	for i := range n {
		q = append(q, fmt.Sprintf("query-%d-%s", i/7, strings.Repeat("q", (i/7)%40)))
		d = append(d, strings.Repeat(string(rune('a'+i%26)), (i*37)%300))
		dNull = append(dNull, i%13 == 5)
	}
	return q, d, dNull
}

// writeBytesLog writes the table as Parquet with the id columns of type
// idType, the doc column nullable or not (then with no nulls).
func writeBytesLog(t *testing.T, name string, n int, idType arrow.DataType, nullable bool, props ...parquet.WriterProperty) {
	t.Helper()
	q, d, dNull := bytesLog(n)
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "query_id", Type: idType},
		{Name: "doc_id", Type: idType, Nullable: nullable},
		{Name: "score", Type: arrow.PrimitiveTypes.Float64},
		{Name: "label", Type: arrow.PrimitiveTypes.Int32},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	type stringAppender interface{ AppendString(string) }
	for i := range n {
		b.Field(0).(stringAppender).AppendString(q[i])
		if nullable && dNull[i] {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(stringAppender).AppendString(d[i])
		}
		b.Field(2).(*array.Float64Builder).Append(float64(i % 17))
		b.Field(3).(*array.Int32Builder).Append(int32(i % 5))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	readertest.WriteParquet(t, f, rec, pqarrow.DefaultWriterProps(), props...)
}

// TestParquetOwnStrings: string and binary id columns, read by byteSource,
// give the rows written and the rows pqarrow gives, across pages of a few
// values, dictionary pages and the fallback to plain ones, row groups,
// batch sizes that cut pages anywhere, and nulls in an optional doc column.
func TestParquetOwnStrings(t *testing.T) {
	checkedMem(t)
	const n = 3000
	q, d, dNull := bytesLog(n)
	dir := t.TempDir()
	for _, c := range []struct {
		name     string
		idType   arrow.DataType
		nullable bool
		props    []parquet.WriterProperty
	}{
		{"plain", arrow.BinaryTypes.String, false, []parquet.WriterProperty{parquet.WithDictionaryDefault(false), parquet.WithDataPageSize(512)}},
		{"binary", arrow.BinaryTypes.Binary, false, []parquet.WriterProperty{parquet.WithDictionaryDefault(false), parquet.WithDataPageSize(512), parquet.WithCompression(compress.Codecs.Zstd)}},
		{"dictionary", arrow.BinaryTypes.String, false, []parquet.WriterProperty{parquet.WithDataPageSize(256), parquet.WithMaxRowGroupLength(1000)}},
		{"dictionary fallback", arrow.BinaryTypes.String, false, []parquet.WriterProperty{parquet.WithDictionaryPageSizeLimit(2048), parquet.WithDataPageSize(512)}},
		{"nullable doc", arrow.BinaryTypes.String, true, []parquet.WriterProperty{parquet.WithDataPageSize(512), parquet.WithMaxRowGroupLength(1100)}},
		{"nullable doc, version 2 pages", arrow.BinaryTypes.String, true, []parquet.WriterProperty{parquet.WithDataPageVersion(parquet.DataPageV2), parquet.WithDictionaryDefault(false), parquet.WithDataPageSize(512)}},
	} {
		name := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".parquet")
		writeBytesLog(t, name, n, c.idType, c.nullable, c.props...)
		cols := readertest.StdCols
		cols.DocOptional = c.nullable
		for _, bs := range []int{1, 7, 1000, 5000} {
			for _, dec := range []int{1, 2, 4} {
				t.Run(fmt.Sprintf("%s/batch=%d/decoders=%d", c.name, bs, dec), func(t *testing.T) {
					opt := batch.Options{Decoders: dec, BatchSize: bs}
					got, err := readAll(t, name, cols, opt)
					if err != nil {
						t.Fatal(err)
					}
					if len(got) != n {
						t.Fatalf("%d rows, want %d", len(got), n)
					}
					for i, r := range got {
						wantD := d[i]
						if c.nullable && dNull[i] {
							wantD = "" // a null optional doc id is an empty id
						}
						if r.q != q[i] || r.d != wantD || r.score != float64(i%17) || r.label != float64(i%5) || r.pos != int64(i+1) {
							t.Fatalf("row %d: %+v, want query %q doc %q", i, r, q[i], wantD)
						}
					}
					columnar.ParquetOwnStrings = false
					defer func() { columnar.ParquetOwnStrings = true }()
					ref, err := readAll(t, name, cols, opt)
					if err != nil {
						t.Fatal(err)
					}
					sameRows(t, "pqarrow's decoding", got, ref)
				})
			}
		}
	}
}

// TestParquetOwnStringsNull: a null in a required doc column read by
// byteSource is an error naming the row group and row.
func TestParquetOwnStringsNull(t *testing.T) {
	checkedMem(t)
	name := filepath.Join(t.TempDir(), "null.parquet")
	writeBytesLog(t, name, 100, arrow.BinaryTypes.String, true, parquet.WithMaxRowGroupLength(40))
	for _, dec := range []int{1, 2} {
		_, err := readAll(t, name, readertest.StdCols, batch.Options{Decoders: dec, BatchSize: 8})
		if !errors.Is(err, batch.ErrValue) {
			t.Fatalf("decoders=%d: err = %v, want ErrValue", dec, err)
		}
		// every 13th row from row 6 (1-based) is null
		want := name + `: row group 0, row 6 (row 6 of the file): null in "doc_id" column`
		if !strings.Contains(err.Error(), want) {
			t.Errorf("decoders=%d: error %q does not say %q", dec, err, want)
		}
	}
}

// TestParquetStoredSchemaMismatch: a stored ARROW:schema giving a column a
// type its Parquet type cannot hold (a large string over INT32) refuses
// only that column, as pqarrow does: the other columns read as written,
// and naming the column for a role is an error naming it, not a panic.
func TestParquetStoredSchemaMismatch(t *testing.T) {
	checkedMem(t)
	const n = 50
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "query_id", Type: arrow.BinaryTypes.String},
		{Name: "doc_id", Type: arrow.BinaryTypes.String},
		{Name: "score", Type: arrow.PrimitiveTypes.Float64},
		{Name: "label", Type: arrow.PrimitiveTypes.Int32},
		{Name: "extra", Type: arrow.PrimitiveTypes.Int32},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for i := range n {
		b.Field(0).(*array.StringBuilder).Append(fmt.Sprintf("q%d", i/5))
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("d%d", i))
		b.Field(2).(*array.Float64Builder).Append(float64(i%7) - 3)
		b.Field(3).(*array.Int32Builder).Append(int32(i % 3))
		b.Field(4).(*array.Int32Builder).Append(int32(i))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	stored := arrow.NewSchema(append(sc.Fields()[:4:4], arrow.Field{Name: "extra", Type: arrow.BinaryTypes.LargeString}), nil)
	var ipcBuf bytes.Buffer
	iw := ipc.NewWriter(&ipcBuf, ipc.WithSchema(stored))
	if err := iw.Close(); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "mismatch.parquet")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(sc, f, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.AppendKeyValueMetadata("ARROW:schema", base64.StdEncoding.EncodeToString(ipcBuf.Bytes())); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := readAll(t, name, readertest.StdCols, batch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("%d rows, want %d", len(got), n)
	}
	for i, r := range got {
		if r.q != fmt.Sprintf("q%d", i/5) || r.d != fmt.Sprintf("d%d", i) || r.score != float64(i%7)-3 || r.label != float64(i%3) {
			t.Fatalf("row %d: %+v", i, r)
		}
	}
	cols := readertest.StdCols
	cols.Query = "extra"
	_, err = readAll(t, name, cols, batch.Options{})
	if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), `"extra"`) {
		t.Fatalf("extra as the query column: err = %v, want an error naming the file and the column", err)
	}
}

// TestParquetBool8Label: a label column written from Arrow's bool8
// extension (Parquet INT32 of 8-bit integers, the extension named only in
// the stored ARROW:schema) reads as its integers, as pqarrow gives it.
func TestParquetBool8Label(t *testing.T) {
	checkedMem(t)
	const n = 60
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "query_id", Type: arrow.BinaryTypes.String},
		{Name: "doc_id", Type: arrow.BinaryTypes.String},
		{Name: "score", Type: arrow.PrimitiveTypes.Float64},
		{Name: "label", Type: extensions.NewBool8Type()},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for i := range n {
		b.Field(0).(*array.StringBuilder).Append(fmt.Sprintf("q%d", i/6))
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("d%d", i))
		b.Field(2).(*array.Float64Builder).Append(float64(i % 7))
		b.Field(3).(*extensions.Bool8Builder).Append(i%3 == 0)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	name := filepath.Join(t.TempDir(), "bool8.parquet")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	readertest.WriteParquet(t, f, rec, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	got, err := readAll(t, name, readertest.StdCols, batch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("%d rows, want %d", len(got), n)
	}
	for i, r := range got {
		want := 0.0
		if i%3 == 0 {
			want = 1
		}
		if r.label != want || r.score != float64(i%7) || r.d != fmt.Sprintf("d%d", i) {
			t.Fatalf("row %d: %+v, want label %v", i, r, want)
		}
	}
}
