package reader

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rankeval/rankeval/internal/synth"
	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/readertest"
)

type partRow struct {
	pos   int64
	query string
	score float64
}

func partRows(t *testing.T, name string, opt batch.Options) []partRow {
	t.Helper()
	r, err := Open(name, batch.Columns{Query: "query_id", Score: "score", Label: "label"}, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []partRow
	for r.Next() {
		b := r.Batch()
		for i := range b.N {
			out = append(out, partRow{b.Pos[i], string(b.Query.At(i)), b.Score[i]})
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestParquetParts reads a Parquet file in row-group ranges, as the Beam
// runner's workers do: the parts together are the whole file, and every
// row keeps its position in the file.
func TestParquetParts(t *testing.T) {
	dir := t.TempDir()
	pq := filepath.Join(dir, "log.parquet")
	readertest.WriteLog(t, pq, readertest.GenLog(3, 10000, 25), synth.Options{RowGroup: 1000})
	n, err := Units(pq, Options{})
	if err != nil || n != 10 {
		t.Fatalf("Units = %d, %v; want 10 row groups", n, err)
	}
	whole := partRows(t, pq, batch.Options{})
	tests := []struct {
		name  string
		parts [][2]int // FirstUnit, Units
	}{
		{"one by one", [][2]int{{0, 1}, {1, 1}, {2, 1}, {3, 1}, {4, 1}, {5, 1}, {6, 1}, {7, 1}, {8, 1}, {9, 1}}},
		{"uneven", [][2]int{{0, 3}, {3, 5}, {8, 0}}},
		{"two decoders", [][2]int{{0, 7}, {7, 3}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []partRow
			for _, p := range tc.parts {
				got = append(got, partRows(t, pq, batch.Options{FirstUnit: p[0], Units: p[1], Decoders: 2, BatchSize: 333})...)
			}
			if !slices.Equal(got, whole) {
				t.Fatalf("parts give %d rows, whole %d; first difference at %d", len(got), len(whole), firstDiff(got, whole))
			}
		})
	}
	jl := filepath.Join(dir, "log.jsonl.gz")
	readertest.WriteLog(t, jl, readertest.GenLog(3, 100, 25), synth.Options{})
	if n, err := Units(jl, Options{}); err != nil || n != 1 {
		t.Fatalf("Units(jsonl, Options{}) = %d, %v; want 1", n, err)
	}
	errs := []struct {
		name string
		file string
		opt  batch.Options
	}{
		{"past the end", pq, batch.Options{FirstUnit: 9, Units: 2}},
		{"negative", pq, batch.Options{FirstUnit: -1}},
		{"jsonl in parts", jl, batch.Options{FirstUnit: 1, Units: 1}},
	}
	for _, tc := range errs {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Open(tc.file, batch.Columns{Query: "query_id", Score: "score", Label: "label"}, tc.opt)
			if err == nil {
				r.Close()
			}
			if !errors.Is(err, batch.ErrFormat) {
				t.Fatalf("err = %v, want ErrFormat", err)
			}
		})
	}
}

func firstDiff(a, b []partRow) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
