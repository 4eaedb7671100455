package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/rankeval/rankeval/internal/s3test"
	"github.com/rankeval/rankeval/internal/synth"
)

// parquetBytes sums, over the Parquet files under dir, the file sizes, and
// the compressed sizes of the column chunks of the named columns plus each
// file's footer: the least a reader of those columns must fetch.
func parquetBytes(t *testing.T, dir string, cols ...string) (total, needed int64) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		st, _ := d.Info()
		total += st.Size()
		pf, err := file.OpenParquetFile(p, false)
		if err != nil {
			return err
		}
		defer pf.Close()
		md := pf.MetaData()
		needed += int64(md.Size()) + 8 // footer, its length and the magic
		for rg := range pf.NumRowGroups() {
			r := md.RowGroup(rg)
			for c := range r.NumColumns() {
				cc, err := r.ColumnChunk(c)
				if err != nil {
					return err
				}
				for _, want := range cols {
					if cc.PathInSchema().String() == want {
						needed += cc.TotalCompressedSize()
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return total, needed
}

// TestObjectStoreParquet evaluates a partitioned Parquet directory from an
// S3 server on loopback and from disk: the summaries must be byte-identical,
// and the server must send little more than the column chunks the run
// needs (query_id, doc_id, score and label: the title and feature columns
// are never fetched).
func TestObjectStoreParquet(t *testing.T) {
	rows := 200000
	if testing.Short() {
		rows = 40000
	}
	dir := t.TempDir()
	writeWideParquet(t, dir, 4, rows, rows/16)
	s := s3test.Start(t, "lake")
	s.PutDir(t, "lake", "exports/clicks", dir)
	total, needed := parquetBytes(t, dir, "query_id", "doc_id", "score", "label")

	tests := []struct {
		name string
		args []string
	}{
		{"json", []string{"--format", "json", "-m", "map,ndcg@10,err@10,p@5"}},
		{"text", nil},
		{"trec ties", []string{"--format", "json", "--ties", "trec"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, local, stderr := cli(t, append(tc.args, dir)...)
			if code != 0 {
				t.Fatalf("local run: exit %d: %s", code, stderr)
			}
			s.Reset()
			code, remote, stderr := cli(t, append(tc.args, "s3://lake/exports/clicks")...)
			if code != 0 {
				t.Fatalf("s3 run: exit %d: %s", code, stderr)
			}
			if body(remote) != body(local) {
				t.Fatalf("s3 summary differs from the local one:\n%s\nvs\n%s", remote, local)
			}
			if !strings.Contains(local, fmt.Sprint(rows)) {
				t.Fatalf("summary does not count %d rows:\n%s", rows, local)
			}
			served, gets := s.Served()
			t.Logf("%d files, %d bytes; fetched %d bytes (%.1f%%) in %d GETs; needed column chunks and footers: %d bytes",
				4, total, served, 100*float64(served)/float64(total), gets, needed)
			if served > needed+4*(8<<10) {
				t.Fatalf("fetched %d bytes; the needed columns and footers are %d (file size %d)", served, needed, total)
			}
		})
	}
}

func TestObjectStoreJSONL(t *testing.T) {
	s := s3test.Start(t, "lake")
	dir := t.TempDir()
	if err := synth.WriteSplit(dir, ".jsonl.zst", 3, false, synth.NewGenerator(12, 30000, 30), 30000, synth.Options{}); err != nil {
		t.Fatal(err)
	}
	s.PutDir(t, "lake", "j", dir)
	code, local, stderr := cli(t, "--format", "json", filepath.Join(dir, "part-*.jsonl.zst"))
	if code != 0 {
		t.Fatalf("local: exit %d: %s", code, stderr)
	}
	tests := []string{"s3://lake/j", "s3://lake/j/", "s3://lake/j/part-*.jsonl.zst"}
	for _, arg := range tests {
		t.Run(arg, func(t *testing.T) {
			code, remote, stderr := cli(t, "--format", "json", arg)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if body(remote) != body(local) {
				t.Fatalf("differs:\n%s\nvs\n%s", remote, local)
			}
		})
	}
	t.Run("missing", func(t *testing.T) {
		code, _, stderr := cli(t, "s3://lake/nope")
		if code != 1 || !strings.Contains(stderr, "s3://lake/nope") {
			t.Fatalf("exit %d, stderr %q: want 1 naming the URL", code, stderr)
		}
	})
}

// writeWideParquet writes rows of the synthetic log as parts Hive-partitioned
// Parquet files with the columns a data-lake export carries beside the ones
// rankeval reads: a title and a feature vector, which a columnar reader must
// not fetch.
func writeWideParquet(t *testing.T, dir string, parts, rows, rowGroup int) {
	t.Helper()
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "query_id", Type: arrow.BinaryTypes.String},
		{Name: "doc_id", Type: arrow.BinaryTypes.String},
		{Name: "title", Type: arrow.BinaryTypes.String},
		{Name: "score", Type: arrow.PrimitiveTypes.Float64},
		{Name: "label", Type: arrow.PrimitiveTypes.Int32},
		{Name: "features", Type: arrow.ListOf(arrow.PrimitiveTypes.Float32)},
	}, nil)
	g := synth.NewGenerator(11, rows, 40)
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"cheap", "flights", "to", "lisbon", "hotel", "review", "best", "phone", "case", "2026"}
	var r synth.Row
	for p := range parts {
		sub := filepath.Join(dir, fmt.Sprintf("dt=2026-11-%02d", 20+p))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.Create(filepath.Join(sub, "part-00000.parquet"))
		if err != nil {
			t.Fatal(err)
		}
		props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd),
			parquet.WithMaxRowGroupLength(int64(rowGroup)), parquet.WithDictionaryFor("query_id", true))
		fw, err := pqarrow.NewFileWriter(sc, f, props, pqarrow.DefaultWriterProps())
		if err != nil {
			t.Fatal(err)
		}
		b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
		n := (p+1)*rows/parts - p*rows/parts
		for range n {
			g.Next(&r)
			b.Field(0).(*array.StringBuilder).Append(r.Query)
			b.Field(1).(*array.StringBuilder).Append(r.Doc)
			var title strings.Builder
			for range 6 {
				title.WriteString(words[rng.IntN(len(words))])
				title.WriteByte(' ')
			}
			b.Field(2).(*array.StringBuilder).Append(title.String())
			b.Field(3).(*array.Float64Builder).Append(r.Score)
			b.Field(4).(*array.Int32Builder).Append(int32(r.Label))
			lb := b.Field(5).(*array.ListBuilder)
			lb.Append(true)
			for range 8 {
				lb.ValueBuilder().(*array.Float32Builder).Append(rng.Float32())
			}
		}
		rec := b.NewRecordBatch()
		if err := fw.WriteBuffered(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		b.Release()
		if err := fw.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
