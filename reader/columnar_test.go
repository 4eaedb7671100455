package reader

import (
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/rankeval/rankeval/internal/synth"
	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/columnar"
	"github.com/rankeval/rankeval/reader/internal/readertest"
)

// checkedMem makes the columnar readers allocate from a checked allocator
// for the rest of the test and asserts at the end that every Arrow buffer
// was released. Tests using it must not run in parallel.
func checkedMem(t testing.TB) {
	t.Helper()
	mem := memory.NewCheckedAllocator(columnar.NewBufPool(columnar.PoolRetain))
	old := columnar.ArrowMem
	columnar.ArrowMem = mem
	t.Cleanup(func() {
		columnar.ArrowMem = old
		// pqarrow keeps decode buffers in a sync.Pool whose entries are
		// released by finalizers; let them run before counting.
		for range 10 {
			if mem.CurrentAlloc() == 0 {
				break
			}
			runtime.GC()
			time.Sleep(10 * time.Millisecond)
		}
		mem.AssertSize(t, 0)
	})
}

// row is one row as read, copied out of its batch.
type readRow struct {
	q, d         string
	score, label float64
	rank         int64
	pos          int64
}

func readAll(t testing.TB, name string, cols batch.Columns, opt batch.Options) ([]readRow, error) {
	t.Helper()
	return readAllAs(t, name, name, cols, opt)
}

// readAllAs reads input name, whose batches name it display.
func readAllAs(t testing.TB, name, display string, cols batch.Columns, opt batch.Options) ([]readRow, error) {
	t.Helper()
	r, err := Open(name, cols, opt)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var rows []readRow
	for r.Next() {
		b := r.Batch()
		if b.Source != display {
			t.Fatalf("Source = %q, want %q", b.Source, display)
		}
		if len(b.Pos) != b.N || len(b.Score) != b.N && cols.Score != "" || len(b.Label) != b.N || len(b.Query.Off) != b.N+1 {
			t.Fatalf("%s: batch of %d rows has %d positions, %d scores, %d labels, %d query offsets",
				name, b.N, len(b.Pos), len(b.Score), len(b.Label), len(b.Query.Off))
		}
		if opt.BatchSize > 0 && b.N > opt.BatchSize {
			t.Fatalf("%s: batch of %d rows, more than the batch size %d", name, b.N, opt.BatchSize)
		}
		for i := range b.N {
			rw := readRow{q: string(b.Query.At(i)), label: b.Label[i], pos: b.Pos[i]}
			if cols.Doc != "" {
				rw.d = string(b.Doc.At(i))
			}
			if cols.Score != "" {
				rw.score = b.Score[i]
			}
			if cols.Rank != "" {
				rw.rank = b.Rank[i]
			} else if b.Rank != nil {
				t.Fatalf("%s: Rank is not nil without a rank column", name)
			}
			rows = append(rows, rw)
		}
	}
	if err := r.Err(); err != nil {
		return rows, err
	}
	return rows, r.Close()
}

func sameRows(t *testing.T, what string, got, want []readRow) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d", what, len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.q != w.q || g.d != w.d || math.Float64bits(g.score) != math.Float64bits(w.score) ||
			math.Float64bits(g.label) != math.Float64bits(w.label) || g.rank != w.rank || g.pos != w.pos {
			t.Fatalf("%s: row %d = %+v, want %+v", what, i, g, w)
		}
	}
}

// formatCase is one way of writing the same log.
type formatCase struct {
	name string // file name, whose ending picks the format
	opt  synth.Options
}

var formatCases = []formatCase{
	{"log.jsonl.gz", synth.Options{}},
	{"log.jsonl.zst", synth.Options{}},
	{"zstd.parquet", synth.Options{Codec: "zstd", RowGroup: 4096}},
	{"snappy.parquet", synth.Options{Codec: "snappy", RowGroup: 5000}},
	{"none.parquet", synth.Options{Codec: "none", RowGroup: 1 << 20}},
	{"plain.arrow", synth.Options{Batch: 3000}},
	{"zstd.arrow", synth.Options{IPCCodec: "zstd", Batch: 4096}},
	{"lz4.feather", synth.Options{IPCCodec: "lz4", Batch: 7777}},
	{"plain.arrows", synth.Options{Batch: 3000}},
	{"zstd.arrows", synth.Options{IPCCodec: "zstd", Batch: 10000}},
	{"lz4.arrows", synth.Options{IPCCodec: "lz4", Batch: 1000}},
}

// TestFormatsRoundTrip writes one generated log in every format and codec
// and checks that each reads back as the JSONL does, row by row and bit for
// bit, whatever the batch size and number of decoders.
func TestFormatsRoundTrip(t *testing.T) {
	checkedMem(t)
	dir := t.TempDir()
	log := readertest.GenLog(7, 30011, 37)
	ref := filepath.Join(dir, "log.jsonl")
	readertest.WriteLog(t, ref, log, synth.Options{})
	want, err := readAll(t, ref, readertest.StdCols, batch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != len(log) {
		t.Fatalf("JSONL reference: %d rows, want %d", len(want), len(log))
	}
	for _, fc := range formatCases {
		name := filepath.Join(dir, fc.name)
		readertest.WriteLog(t, name, log, fc.opt)
		for _, opt := range []batch.Options{{}, {BatchSize: 1000, Decoders: 1}, {BatchSize: 999, Decoders: 2}, {BatchSize: 4096, Decoders: 3}} {
			t.Run(fmt.Sprintf("%s/batch=%d/decoders=%d", fc.name, opt.BatchSize, opt.Decoders), func(t *testing.T) {
				got, err := readAll(t, name, readertest.StdCols, opt)
				if err != nil {
					t.Fatal(err)
				}
				for i := range got {
					got[i].pos = want[i].pos // JSONL lines and columnar rows coincide here, but say so explicitly
				}
				sameRows(t, name, got, want)
			})
		}
	}
}

func TestColumnarPositions(t *testing.T) {
	checkedMem(t)
	dir := t.TempDir()
	log := readertest.GenLog(3, 10000, 10)
	name := filepath.Join(dir, "p.parquet")
	readertest.WriteLog(t, name, log, synth.Options{RowGroup: 3000})
	r, err := Open(name, readertest.StdCols, batch.Options{BatchSize: 1024, Decoders: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var n int64
	var b *batch.Batch
	for r.Next() {
		b = r.Batch()
		for i := range b.N {
			n++
			if b.Pos[i] != n {
				t.Fatalf("row %d has Pos %d", n, b.Pos[i])
			}
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if n != int64(len(log)) {
		t.Fatalf("read %d rows, want %d", n, len(log))
	}
	for _, c := range []struct {
		pos  int64
		want string
	}{
		{1, "row group 0, row 1 (row 1 of the file)"},
		{3000, "row group 0, row 3000 (row 3000 of the file)"},
		{3001, "row group 1, row 1 (row 3001 of the file)"},
		{10000, "row group 3, row 1000 (row 10000 of the file)"},
	} {
		if got := b.WherePos(c.pos); got != name+": "+c.want {
			t.Errorf("WherePos(%d) = %q, want %q", c.pos, got, name+": "+c.want)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}
