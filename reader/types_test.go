package reader

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/rankeval/rankeval/internal/synth"
	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/readertest"
)

func decText(unscaled int64) float64 {
	s := strconv.FormatInt(unscaled, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for len(s) < 4 {
		s = "0" + s
	}
	s = s[:len(s)-3] + "." + s[len(s)-3:]
	if neg {
		s = "-" + s
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		panic(err)
	}
	return v
}

func TestColumnTypes(t *testing.T) {
	checkedMem(t)
	rec := readertest.TypesRecord(memory.DefaultAllocator)
	defer rec.Release()
	dir := t.TempDir()
	var files []string
	for _, n := range []string{"types.parquet", "types.arrow", "types.arrows"} {
		name := filepath.Join(dir, n)
		readertest.WriteRecord(t, name, rec, 4)
		files = append(files, name)
	}
	strs := func(f func(i int) string) []string {
		out := make([]string, len(readertest.TQuery))
		for i := range out {
			out[i] = f(i)
		}
		return out
	}
	floats := func(f func(i int) float64) []float64 {
		out := make([]float64, len(readertest.TQuery))
		for i := range out {
			out[i] = f(i)
		}
		return out
	}
	cases := []struct {
		name       string
		cols       batch.Columns
		query, doc []string
		score, lab []float64
		rank       []int64
	}{
		{"string ids, float64 score, int label", batch.Columns{Query: "q_str", Doc: "d_str", Score: "s_f64", Label: "l_i32"},
			readertest.TQuery, readertest.TDoc, readertest.TScore, floats(func(i int) float64 { return float64(readertest.TLabel[i]) }), nil},
		{"large string, uint32 doc, float32 score, bool label", batch.Columns{Query: "q_large", Doc: "d_u32", Score: "s_f32", Label: "l_bool"},
			readertest.TQuery, strs(func(i int) string { return strconv.Itoa(int(readertest.TDocU32[i])) }), readertest.TScore,
			floats(func(i int) float64 { return map[bool]float64{true: 1}[readertest.TLabelB[i]] }), nil},
		{"dictionary ids, decimal128 score, float label", batch.Columns{Query: "q_dict", Doc: "q_bin", Score: "s_dec", Label: "l_f64"},
			readertest.TQuery, readertest.TQuery, floats(func(i int) float64 { return decText(readertest.TDec[i]) }), readertest.TLabelF, nil},
		{"int32 ids, int16 score, uint8 label, int32 rank", batch.Columns{Query: "q_i32", Doc: "q_i64", Score: "s_i16", Label: "l_u8", Rank: "r_i32"},
			strs(func(i int) string { return strconv.FormatInt(readertest.TQInt[i], 10) }),
			strs(func(i int) string { return strconv.FormatInt(readertest.TQInt[i]<<40, 10) }),
			floats(func(i int) float64 { return float64(readertest.TScoreI[i]) }),
			floats(func(i int) float64 { return float64(readertest.TLabel[i]) }),
			[]int64{1, 2, 3, 1, 2, 3}},
		{"uint64 ids, decimal256 score, uint64 rank", batch.Columns{Query: "q_u64", Score: "s_dec256", Label: "l_i32", Rank: "r_u64"},
			strs(func(i int) string { return strconv.FormatUint(readertest.TQUint[i], 10) }), nil,
			floats(func(i int) float64 { return decText(readertest.TDec[i]) }),
			floats(func(i int) float64 { return float64(readertest.TLabel[i]) }),
			[]int64{1, 2, 3, 1, 2, 3}},
		{"rank without score", batch.Columns{Query: "q_str", Doc: "q_bin", Label: "l_i32", Rank: "r_i32"},
			readertest.TQuery, readertest.TQuery, nil, floats(func(i int) float64 { return float64(readertest.TLabel[i]) }), []int64{1, 2, 3, 1, 2, 3}},
	}
	for _, name := range files {
		for _, c := range cases {
			t.Run(filepath.Base(name)+"/"+c.name, func(t *testing.T) {
				got, err := readAll(t, name, c.cols, batch.Options{BatchSize: 3})
				if err != nil {
					t.Fatal(err)
				}
				var want []readRow
				for i := range readertest.TQuery {
					w := readRow{q: c.query[i], label: c.lab[i], pos: int64(i + 1)}
					if c.doc != nil {
						w.d = c.doc[i]
					}
					if c.score != nil {
						w.score = c.score[i]
					}
					if c.rank != nil {
						w.rank = c.rank[i]
					}
					want = append(want, w)
				}
				sameRows(t, name, got, want)
			})
		}
	}
}

func TestUnsupportedTypes(t *testing.T) {
	checkedMem(t)
	rec := readertest.TypesRecord(memory.DefaultAllocator)
	defer rec.Release()
	dir := t.TempDir()
	for _, n := range []string{"types.parquet", "types.arrow", "types.arrows"} {
		name := filepath.Join(dir, n)
		readertest.WriteRecord(t, name, rec, 4)
		for _, c := range []struct {
			role, col, typ string
		}{
			{"score", "d_str", "utf8"},
			{"score", "b_ts", "timestamp"},
			{"label", "s_dec", "decimal"},
			{"label", "d_str", "utf8"},
			{"rank", "d_str", "utf8"},
			{"rank", "l_bool", "bool"},
			{"query", "s_f64", "float64"},
			{"query", "b_list", "list"},
			{"doc", "l_bool", "bool"},
		} {
			t.Run(n+"/"+c.role+"="+c.col, func(t *testing.T) {
				cols := batch.Columns{Query: "q_str", Score: "s_f32", Label: "l_i32"}
				switch c.role {
				case "score":
					cols.Score = c.col
				case "label":
					cols.Label = c.col
				case "rank":
					cols.Rank = c.col
				case "query":
					cols.Query = c.col
				case "doc":
					cols.Doc = c.col
				}
				_, err := readAll(t, name, cols, batch.Options{})
				if !errors.Is(err, batch.ErrColumn) {
					t.Fatalf("err = %v, want ErrColumn", err)
				}
				for _, s := range []string{name, strconv.Quote(c.col), c.typ, "the " + c.role + " column", "convert it, or name another column with --" + c.role + "-col"} {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not say %q", err, s)
					}
				}
			})
		}
	}
}

// nullRecord has 10 rows; column "score" is null at row 7 (1-based) only.
func nullRecord(mem memory.Allocator, nullCol string) arrow.RecordBatch {
	fields := []arrow.Field{
		{Name: "query_id", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "doc_id", Type: &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}, Nullable: true},
		{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "label", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	}
	b := array.NewRecordBuilder(mem, arrow.NewSchema(fields, nil))
	defer b.Release()
	for i := range 10 {
		null := i == 6
		if null && nullCol == "query_id" {
			b.Field(0).AppendNull()
		} else {
			b.Field(0).(*array.StringBuilder).Append("q" + strconv.Itoa(i/5))
		}
		if null && nullCol == "doc_id" {
			b.Field(1).AppendNull()
		} else if err := b.Field(1).(*array.BinaryDictionaryBuilder).AppendString("d" + strconv.Itoa(i)); err != nil {
			panic(err)
		}
		if null && nullCol == "score" {
			b.Field(2).AppendNull()
		} else {
			b.Field(2).(*array.Float64Builder).Append(float64(i))
		}
		if null && nullCol == "label" {
			b.Field(3).AppendNull()
		} else {
			b.Field(3).(*array.BooleanBuilder).Append(i%2 == 0)
		}
	}
	return b.NewRecordBatch()
}

func TestNulls(t *testing.T) {
	checkedMem(t)
	dir := t.TempDir()
	for _, col := range []string{"query_id", "doc_id", "score", "label"} {
		rec := nullRecord(memory.DefaultAllocator, col)
		for _, c := range []struct{ ext, where string }{
			{".parquet", "row group 1, row 2 (row 7 of the file)"},
			{".arrow", "record batch 1, row 2"},
			{".arrows", "record batch 1, row 2"},
		} {
			name := filepath.Join(dir, col+c.ext)
			readertest.WriteRecord(t, name, rec, 5)
			for _, dec := range []int{1, 2} {
				t.Run(fmt.Sprintf("%s%s/decoders=%d", col, c.ext, dec), func(t *testing.T) {
					rows, err := readAll(t, name, readertest.StdCols, batch.Options{Decoders: dec, BatchSize: 2})
					if !errors.Is(err, batch.ErrValue) {
						t.Fatalf("err = %v, want ErrValue", err)
					}
					want := fmt.Sprintf("%s: %s: null in %q column", name, c.where, col)
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q does not say %q", err, want)
					}
					// The batches before the bad one (rows 1-5 in batches
					// of 2, cut at the unit boundary) arrive, in order.
					if len(rows) != 5 {
						t.Errorf("%d rows before the error, want 5", len(rows))
					}
				})
			}
		}
		rec.Release()
	}
}

// TestParquetDictionaryFallback: id columns are read as dictionaries when
// the first row group is dictionary-encoded; writers fall back to plain
// encoding within a column chunk when the dictionary grows, and each row
// group has its own dictionary. The rows must not change.
func TestParquetDictionaryFallback(t *testing.T) {
	checkedMem(t)
	log := readertest.GenLog(8, 30000, 3) // 10000 distinct query ids
	dir := t.TempDir()
	ref := filepath.Join(dir, "ref.jsonl")
	readertest.WriteLog(t, ref, log, synth.Options{})
	want, err := readAll(t, ref, readertest.StdCols, batch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sc := synth.Schema(false)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for _, r := range log {
		b.Field(0).(*array.StringBuilder).Append(r.Query)
		b.Field(1).(*array.StringBuilder).Append(r.Doc)
		b.Field(2).(*array.Float64Builder).Append(r.Score)
		b.Field(3).(*array.Int32Builder).Append(int32(r.Label))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	for _, c := range []struct {
		name  string
		props []parquet.WriterProperty
	}{
		{"fallback within a chunk", []parquet.WriterProperty{parquet.WithDictionaryPageSizeLimit(4096), parquet.WithDataPageSize(2048)}},
		{"a dictionary per row group", []parquet.WriterProperty{parquet.WithMaxRowGroupLength(5000)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			name := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".parquet")
			f, err := os.Create(name)
			if err != nil {
				t.Fatal(err)
			}
			readertest.WriteParquet(t, f, rec, pqarrow.DefaultWriterProps(), append(c.props, parquet.WithDictionaryDefault(true))...)
			for _, dec := range []int{1, 2} {
				got, err := readAll(t, name, readertest.StdCols, batch.Options{Decoders: dec, BatchSize: 1000})
				if err != nil {
					t.Fatal(err)
				}
				sameRows(t, name, got, want)
			}
		})
	}
}

// TestExtraColumns: slice columns of every accepted type read as text,
// further score columns as numbers, a Hive partition of the path as a slice
// column, and an optional doc column that is absent or null as empty ids.
func TestExtraColumns(t *testing.T) {
	checkedMem(t)
	rec := readertest.TypesRecord(memory.DefaultAllocator)
	defer rec.Release()
	dir := filepath.Join(t.TempDir(), "dt=2026-11-20", "city=S%C3%A3o")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cols := batch.Columns{
		Query: "q_str", Score: "s_f64", Label: "l_i32", Doc: "absent", DocOptional: true,
		Extra:      []string{"q_i32", "l_bool", "s_f32", "s_dec", "q_dict", "dt", "city", "q_large"},
		ExtraScore: []string{"s_i16", "s_dec256"},
	}
	wantText := [][]string{
		{"7", "7", "7", "-8", "-8", "-8"},
		{"true", "false", "true", "false", "false", "true"},
		{"0.5", "0.25", "-1.75", "3", "0", "2.5"},
		{"1.234", "-0.005", "999.999", "0.000", "0.001", "123456.789"},
		readertest.TQuery,
		{"2026-11-20", "2026-11-20", "2026-11-20", "2026-11-20", "2026-11-20", "2026-11-20"},
		{"São", "São", "São", "São", "São", "São"},
		readertest.TQuery,
	}
	for _, n := range []string{"x.parquet", "x.arrow", "x.arrows"} {
		name := filepath.Join(dir, n)
		readertest.WriteRecord(t, name, rec, 4)
		for _, dec := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/decoders=%d", n, dec), func(t *testing.T) {
				r, err := Open(name, cols, batch.Options{BatchSize: 5, Decoders: dec})
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				row := 0
				for r.Next() {
					b := r.Batch()
					if len(b.Extra) != len(cols.Extra) || len(b.ExtraScore) != len(cols.ExtraScore) {
						t.Fatalf("%d extra and %d extra score columns", len(b.Extra), len(b.ExtraScore))
					}
					for i := range b.N {
						if d := b.Doc.At(i); len(d) != 0 {
							t.Errorf("row %d: doc %q, want empty", row, d)
						}
						for c := range cols.Extra {
							if got := string(b.Extra[c].At(i)); got != wantText[c][row] {
								t.Errorf("row %d %s: %q, want %q", row, cols.Extra[c], got, wantText[c][row])
							}
						}
						if got := b.ExtraScore[0][i]; got != float64(readertest.TScoreI[row]) {
							t.Errorf("row %d s_i16: %v", row, got)
						}
						if got := b.ExtraScore[1][i]; got != decText(readertest.TDec[row]) {
							t.Errorf("row %d s_dec256: %v", row, got)
						}
						row++
					}
				}
				if err := r.Err(); err != nil {
					t.Fatal(err)
				}
				if row != len(readertest.TQuery) {
					t.Fatalf("%d rows", row)
				}
			})
		}
	}
}

func TestOptionalDocNulls(t *testing.T) {
	checkedMem(t)
	rec := nullRecord(memory.DefaultAllocator, "doc_id")
	defer rec.Release()
	dir := t.TempDir()
	for _, n := range []string{"d.parquet", "d.arrow", "d.arrows"} {
		name := filepath.Join(dir, n)
		readertest.WriteRecord(t, name, rec, 4)
		cols := readertest.StdCols
		cols.DocOptional = true
		rows, err := readAll(t, name, cols, batch.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range rows {
			want := "d" + strconv.Itoa(i)
			if i == 6 {
				want = ""
			}
			if r.d != want {
				t.Errorf("%s row %d: doc %q, want %q", n, i, r.d, want)
			}
		}
	}
}

func TestSliceColumnErrors(t *testing.T) {
	checkedMem(t)
	dir := t.TempDir()
	rec := nullRecord(memory.DefaultAllocator, "doc_id")
	defer rec.Release()
	base := batch.Columns{Query: "query_id", Score: "score", Label: "label"}
	with := func(extra, extraScore []string) batch.Columns {
		c := base
		c.Extra, c.ExtraScore = extra, extraScore
		return c
	}
	for _, n := range []string{"s.parquet", "s.arrow", "s.arrows"} {
		name := filepath.Join(dir, n)
		readertest.WriteRecord(t, name, rec, 5)
		for _, c := range []struct {
			name string
			cols batch.Columns
			err  error
			msg  string
		}{
			{"null slice value", with([]string{"doc_id"}, nil), batch.ErrValue, `record batch 1, row 2: "doc_id" (a slice column) is null; every row needs a value`},
			{"missing slice column", with([]string{"market"}, nil), batch.ErrColumn, `no column "market" (a slice column)`},
			{"missing extra score column", with(nil, []string{"score_b"}), batch.ErrColumn, `no column "score_b" (a score column)`},
			{"extra score of strings", with(nil, []string{"query_id"}), batch.ErrColumn, `column "query_id" has type utf8; a score column must be float, integer or decimal`},
		} {
			t.Run(n+"/"+c.name, func(t *testing.T) {
				if c.name == "extra score of strings" {
					c.cols.Query = "doc_id" // query_id serves the other role
					c.cols.Doc = ""
				}
				_, err := readAll(t, name, c.cols, batch.Options{})
				msg := c.msg
				if strings.HasSuffix(n, ".parquet") {
					msg = strings.Replace(msg, "record batch 1, row 2", "row group 1, row 2 (row 7 of the file)", 1)
				}
				if !errors.Is(err, c.err) || !strings.Contains(err.Error(), msg) {
					t.Fatalf("err = %v, want %v saying %q", err, c.err, msg)
				}
			})
		}
	}
}
