package main

import (
	"bytes"
	"context"
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

	"github.com/rankeval/rankeval/internal/objtest"
	"github.com/rankeval/rankeval/internal/synth"
	"github.com/rankeval/rankeval/objstore"
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

// TestObjectStoreParquet evaluates a partitioned Parquet directory from a
// store on loopback (each scheme's) and from disk: the summaries must be
// byte-identical, and the server must send little more than the column
// chunks the run needs (query_id, doc_id, score and label: the title and
// feature columns are never fetched). A web server holds no prefixes: its
// run names each file.
func TestObjectStoreParquet(t *testing.T) {
	rows := 200000
	if testing.Short() {
		rows = 40000
	}
	dir := t.TempDir()
	writeWideParquet(t, dir, 4, rows, rows/16)
	total, needed := parquetBytes(t, dir, "query_id", "doc_id", "score", "label")
	for _, scheme := range objtest.Schemes {
		t.Run(scheme, func(t *testing.T) { testObjectStoreParquet(t, scheme, dir, rows, total, needed) })
	}
}

func testObjectStoreParquet(t *testing.T, scheme, dir string, rows int, total, needed int64) {
	s := objtest.Start(t, scheme)
	s.PutDir(t, "exports/clicks", dir)
	remoteArgs := []string{s.Object("exports/clicks")}
	if scheme == "https" {
		remoteArgs = nil
		for p := range 4 {
			remoteArgs = append(remoteArgs, s.Object(fmt.Sprintf("exports/clicks/dt=2026-11-%02d/part-00000.parquet", 20+p)))
		}
	}

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
			code, remote, stderr := cli(t, append(tc.args, remoteArgs...)...)
			if code != 0 {
				t.Fatalf("%s run: exit %d: %s", scheme, code, stderr)
			}
			if body(remote) != body(local) {
				t.Fatalf("%s summary differs from the local one:\n%s\nvs\n%s", scheme, remote, local)
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

// TestObjectStoreJSONL: zstd JSONL parts read from each store as a
// prefix, a prefix with '/', a glob (a web server: each part named), give
// the summary of the same files on disk; the summary, report, state and
// per-query file written back to the store are whole and equal to the
// local run's; a missing object is exit 1 naming it.
func TestObjectStoreJSONL(t *testing.T) {
	dir := t.TempDir()
	if err := synth.WriteSplit(dir, ".jsonl.zst", 3, false, synth.NewGenerator(12, 30000, 30), 30000, synth.Options{}); err != nil {
		t.Fatal(err)
	}
	code, local, stderr := cli(t, "--format", "json", filepath.Join(dir, "part-*.jsonl.zst"))
	if code != 0 {
		t.Fatalf("local: exit %d: %s", code, stderr)
	}
	for _, scheme := range objtest.Schemes {
		t.Run(scheme, func(t *testing.T) { testObjectStoreJSONL(t, scheme, dir, local) })
	}
}

func testObjectStoreJSONL(t *testing.T, scheme, dir, local string) {
	s := objtest.Start(t, scheme)
	s.PutDir(t, "j", dir)
	parts, _ := filepath.Glob(filepath.Join(dir, "part-*.jsonl.zst"))
	var each []string
	for _, p := range parts {
		each = append(each, s.Object("j/"+filepath.Base(p)))
	}
	tests := [][]string{each}
	if scheme != "https" {
		tests = append(tests, []string{s.Object("j")}, []string{s.Object("j/")}, []string{s.Object("j/part-*.jsonl.zst")})
	}
	for _, args := range tests {
		t.Run(args[0], func(t *testing.T) {
			code, remote, stderr := cli(t, append([]string{"--format", "json"}, args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if body(remote) != body(local) {
				t.Fatalf("differs:\n%s\nvs\n%s", remote, local)
			}
		})
	}
	t.Run("missing", func(t *testing.T) {
		code, _, stderr := cli(t, s.Object("nope"))
		if code != 1 || !strings.Contains(stderr, s.Object("nope")) {
			t.Fatalf("exit %d, stderr %q: want 1 naming the URL", code, stderr)
		}
	})
	t.Run("outputs", func(t *testing.T) {
		out := t.TempDir()
		flags := func(place func(string) string) []string {
			return []string{"--format", "json", "--output", place("summary.json"), "--state", place("day.state"),
				"--per-query", place("per-query.tsv"), "--report", place("report.html")}
		}
		code, _, stderr := cli(t, append(flags(func(n string) string { return filepath.Join(out, n) }), each...)...)
		if code != 0 {
			t.Fatalf("local outputs: exit %d: %s", code, stderr)
		}
		code, _, stderr = cli(t, append(flags(func(n string) string { return s.Object("out/" + n) }), each...)...)
		if code != 0 {
			t.Fatalf("outputs to the store: exit %d: %s", code, stderr)
		}
		for _, n := range []string{"summary.json", "day.state", "per-query.tsv", "report.html"} {
			want, err := os.ReadFile(filepath.Join(out, n))
			if err != nil {
				t.Fatal(err)
			}
			got := readObject(t, s.Object("out/"+n))
			if n == "summary.json" || n == "report.html" {
				got, want = []byte(body(string(got))), []byte(body(string(want)))
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s: %d bytes in the store, %d on disk, not equal", n, len(got), len(want))
			}
		}
		if _, err := os.Stat("s3:"); err == nil {
			t.Fatal("an output URL was written as a local path")
		}
		// a state in the store merges as a local one does
		code, merged, stderr := cli(t, "merge", "--format", "json", s.Object("out/day.state"))
		_, mergedLocal, _ := cli(t, "merge", "--format", "json", filepath.Join(out, "day.state"))
		if code != 0 || body(merged) != body(mergedLocal) {
			t.Fatalf("merge of the stored state: exit %d: %s\n%s\nvs\n%s", code, stderr, merged, mergedLocal)
		}
	})
}

// readObject reads a whole object.
func readObject(t *testing.T, name string) []byte {
	t.Helper()
	o, err := objstore.Open(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, o.Size())
	if _, err := o.ReadAt(b, 0); err != nil && len(b) > 0 {
		t.Fatal(err)
	}
	return b
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
