package reader

import (
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/readertest"
)

// intScoreCases are integer scores beyond 2^53 and around it: those a
// float64 holds exactly are read, the others refused.
var intScoreCases = []struct {
	v  string
	ok bool
}{
	{"1", true},
	{"9007199254740992", true},     // 2^53
	{"9007199254740993", false},    // 2^53 + 1: reads as 2^53
	{"-9007199254740993", false},   // its negative
	{"9007199254740994", true},     // 2^53 + 2
	{"1152921504606846976", true},  // 2^60
	{"1700000000000000000", true},  // a nanosecond timestamp that happens to be exact
	{"1700000000000000001", false}, // the next nanosecond: the same float64
	{"9223372036854775807", false}, // MaxInt64
	{"-9223372036854775808", true}, // MinInt64, -2^63
	{"18446744073709551615", false},
	{"12345678901234567890123456789", false},
	{"-12345678901234567890123456789", false},
	{"1267650600228229401496703205376", true}, // 2^100
}

// fits says whether the integer text v is within the range of kind.
func fits(v, kind string) bool {
	x, _ := new(big.Int).SetString(v, 10)
	switch kind {
	case "int64":
		return x.IsInt64()
	case "uint64":
		return x.IsUint64()
	case "decimal128":
		return len(strings.TrimPrefix(v, "-")) <= 38
	}
	return true
}

// intScoreRecord is two rows of query a: label 1 then 0, score s the
// integer 5 then v as an Arrow array of kind, and x the float 0.
func intScoreRecord(mem memory.Allocator, kind, v string) arrow.RecordBatch {
	var dt arrow.DataType
	switch kind {
	case "int64":
		dt = arrow.PrimitiveTypes.Int64
	case "uint64":
		dt = arrow.PrimitiveTypes.Uint64
	case "decimal128":
		dt = &arrow.Decimal128Type{Precision: 38, Scale: 0}
	case "decimal256":
		dt = &arrow.Decimal256Type{Precision: 76, Scale: 0}
	}
	fields := []arrow.Field{{Name: "q", Type: arrow.BinaryTypes.String}, {Name: "l", Type: arrow.PrimitiveTypes.Int32},
		{Name: "s", Type: dt}, {Name: "x", Type: arrow.PrimitiveTypes.Float64}}
	b := array.NewRecordBuilder(mem, arrow.NewSchema(fields, nil))
	defer b.Release()
	for i, s := range []string{"5", v} {
		b.Field(0).(*array.StringBuilder).Append("a")
		b.Field(1).(*array.Int32Builder).Append(int32(1 - i))
		b.Field(3).(*array.Float64Builder).Append(0)
		x, _ := new(big.Int).SetString(s, 10)
		switch f := b.Field(2).(type) {
		case *array.Int64Builder:
			f.Append(x.Int64())
		case *array.Uint64Builder:
			f.Append(x.Uint64())
		case *array.Decimal128Builder:
			f.Append(decimal128.FromBigInt(x))
		case *array.Decimal256Builder:
			f.Append(decimal256.FromBigInt(x))
		}
	}
	return b.NewRecordBatch()
}

// TestIntegerScores: an integer score that a float64 cannot hold exactly
// is an error naming the file, the row, the integer and the float64 it
// would have become, in every format and for every score column (the
// score column and a further one); an integer a float64 holds is read as
// it is. A decimal written with a fraction or exponent rounds as before.
func TestIntegerScores(t *testing.T) {
	checkedMem(t)
	dir := t.TempDir()
	type file struct{ name, kind string }
	for ci, c := range intScoreCases {
		x, _ := new(big.Int).SetString(c.v, 10)
		near, _ := new(big.Float).SetInt(x).Float64()
		var files []file
		for _, ext := range []string{"jsonl", "csv", "tsv"} {
			name := filepath.Join(dir, fmt.Sprintf("%d.%s", ci, ext))
			var text string
			switch ext {
			case "jsonl":
				text = `{"q":"a","l":1,"s":5,"x":0}` + "\n" + `{"q":"a","l":0,"s":` + c.v + `,"x":0}` + "\n"
			case "csv":
				text = "q,l,s,x\na,1,5,0\na,0," + c.v + ",0\n"
			case "tsv":
				text = "q\tl\ts\tx\na\t1\t5\t0\na\t0\t" + c.v + "\t0\n"
			}
			if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			files = append(files, file{name, ext})
		}
		for _, kind := range []string{"int64", "uint64", "decimal128", "decimal256"} {
			if !fits(c.v, kind) {
				continue
			}
			rec := intScoreRecord(memory.DefaultAllocator, kind, c.v)
			for _, ext := range []string{"parquet", "arrow", "arrows"} {
				name := filepath.Join(dir, fmt.Sprintf("%d-%s.%s", ci, kind, ext))
				readertest.WriteRecord(t, name, rec, 1)
				files = append(files, file{name, kind + "." + ext})
			}
			rec.Release()
		}
		for _, f := range files {
			for _, col := range []string{"score", "extra score"} {
				t.Run(c.v+"/"+f.kind+"/"+col, func(t *testing.T) {
					cols := batch.Columns{Query: "q", Label: "l", Score: "s", ExtraScore: []string{"x"}}
					role := "the score column"
					if col != "score" {
						cols.Score, cols.ExtraScore, role = "x", []string{"s"}, "a score column"
					}
					got, err := readScores(f.name, cols, col != "score")
					if c.ok {
						if err != nil {
							t.Fatal(err)
						}
						if len(got) != 2 || got[1] != near {
							t.Fatalf("scores %v, want [5 %v]", got, near)
						}
						return
					}
					nearText := new(big.Float).SetFloat64(near).Text('f', 0)
					want := fmt.Sprintf(`"s" (%s): the integer score %s is not exactly a float64 (the nearest is %s)`, role, c.v, nearText)
					if !errors.Is(err, batch.ErrValue) || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), f.name+":") {
						t.Fatalf("err = %v\nwant %s...", err, want)
					}
					at := map[string]string{"jsonl": ":2: ", "csv": ":3: ", "tsv": ":3: "}[f.kind] // after a header line
					switch filepath.Ext(f.name) {
					case ".parquet":
						at = ": row group 1, row 1 (row 2 of the file): " // groups count from 0 too
					case ".arrow", ".arrows":
						at = ": record batch 1, row 1: " // batches count from 0
					}
					if !strings.HasPrefix(err.Error(), f.name+at) {
						t.Fatalf("err = %v\nnot at %s", err, at)
					}
				})
			}
		}
	}
}

// TestDecimalScoresRound: a score written with a fraction or an exponent
// is a decimal, read as the nearest float64 however many digits it has.
func TestDecimalScoresRound(t *testing.T) {
	dir := t.TempDir()
	for _, v := range []string{"9007199254740993.0", "9.007199254740993e15", "1700000000000000001.5", "0.12345678901234567891"} {
		t.Run(v, func(t *testing.T) {
			name := filepath.Join(dir, "d.jsonl")
			if err := os.WriteFile(name, []byte(`{"q":"a","l":1,"s":`+v+"}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := readScores(name, batch.Columns{Query: "q", Label: "l", Score: "s"}, false)
			want, _ := strconv.ParseFloat(v, 64)
			if err != nil || len(got) != 1 || got[0] != want {
				t.Fatalf("scores %v, %v; want [%v]", got, err, want)
			}
		})
	}
}

// readScores reads the score column of input name (the first further one
// when extra).
func readScores(name string, cols batch.Columns, extra bool) ([]float64, error) {
	r, err := Open(name, cols, batch.Options{BatchSize: 1})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var out []float64
	for r.Next() {
		b := r.Batch()
		if extra {
			out = append(out, b.ExtraScore[0]...)
		} else {
			out = append(out, b.Score...)
		}
	}
	return out, r.Err()
}
