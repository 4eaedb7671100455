package reader

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/rankeval/rankeval/reader/internal/batch"
)

// missingParquet is three rows whose score is null on row 1 and label on
// row 2 (1-based: rows 2 and 3).
func missingParquet(t *testing.T) []byte {
	t.Helper()
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "query_id", Type: arrow.BinaryTypes.String},
		{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "label", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).AppendValues([]string{"q", "q", "q"}, nil)
	b.Field(1).(*array.Float64Builder).AppendValues([]float64{3, 0, 1}, []bool{true, false, true})
	b.Field(2).(*array.Int64Builder).AppendValues([]int64{1, 0, 0}, []bool{true, true, false})
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(sc, &buf, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteBuffered(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestMissingValues: a null or empty score or label is read as NaN when
// Columns.MissingScore or MissingLabel asks, in every format; otherwise it
// is an error naming the flag that goes on.
func TestMissingValues(t *testing.T) {
	dir := t.TempDir()
	files := map[string][]byte{
		"log.jsonl":   []byte("{\"query_id\":\"q\",\"score\":3,\"label\":1}\n{\"query_id\":\"q\",\"score\":null,\"label\":0}\n{\"query_id\":\"q\",\"score\":1,\"label\":null}\n"),
		"log.csv":     []byte("query_id,score,label\nq,3,1\nq,,0\nq,1,\n"),
		"log.tsv":     []byte("query_id\tscore\tlabel\nq\t3\t1\nq\t\t0\nq\t1\t\n"),
		"log.parquet": missingParquet(t),
	}
	cols := batch.Columns{Query: "query_id", Score: "score", Label: "label", DocOptional: true}
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) {
			c := cols
			c.MissingScore, c.MissingLabel = true, true
			rows, err := readAll(t, p, c, batch.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 3 || rows[0].score != 3 || rows[0].label != 1 || !math.IsNaN(rows[1].score) || rows[1].label != 0 ||
				rows[2].score != 1 || !math.IsNaN(rows[2].label) {
				t.Fatalf("rows %+v: want NaN for the score of row 2 and the label of row 3", rows)
			}
			_, err = readAll(t, p, cols, batch.Options{})
			if err == nil || !strings.Contains(err.Error(), "--missing-score last or drop") {
				t.Fatalf("err = %v, want the score named with --missing-score", err)
			}
			c = cols
			c.MissingScore = true
			_, err = readAll(t, p, c, batch.Options{})
			if err == nil || !strings.Contains(err.Error(), "--missing-label zero or drop") {
				t.Fatalf("err = %v, want the label named with --missing-label", err)
			}
		})
	}
	t.Run("extra score column", func(t *testing.T) {
		in := "{\"query_id\":\"q\",\"a\":1,\"b\":null,\"label\":1}\n"
		c := batch.Columns{Query: "query_id", Score: "a", ExtraScore: []string{"b"}, Label: "label", DocOptional: true}
		if _, err := parseNamed(t, "t.jsonl", in, c); err == nil || !strings.Contains(err.Error(), `"b" (a score column) must be a number, found "null"; to rank`) {
			t.Fatalf("err = %v", err)
		}
		c.MissingScore = true
		r, err := Open(writeTemp(t, in), c, batch.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if !r.Next() || !math.IsNaN(r.Batch().ExtraScore[0][0]) || r.Batch().Score[0] != 1 {
			t.Fatalf("want b NaN, a 1: %v", r.Err())
		}
	})
}

func writeTemp(t *testing.T, s string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
