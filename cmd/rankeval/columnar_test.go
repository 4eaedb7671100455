package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/internal/vectors"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/rankeval/rankeval/internal/synth"
	"github.com/rankeval/rankeval/reader"
)

// columnarFormats are the ways the cross-format tests write one log: file
// ending (which picks the format) and writer options; CSV and TSV too.
var columnarFormats = []struct {
	name string
	opt  synth.Options
}{
	{"log.jsonl.gz", synth.Options{}},
	{"log.jsonl.zst", synth.Options{}},
	{"log.csv", synth.Options{}},
	{"log.csv.zst", synth.Options{}},
	{"log.tsv.gz", synth.Options{}},
	{"zstd.parquet", synth.Options{Codec: "zstd", RowGroup: 7777}},
	{"snappy.parquet", synth.Options{Codec: "snappy", RowGroup: 50000}},
	{"none.parquet", synth.Options{Codec: "none"}},
	{"plain.arrow", synth.Options{Batch: 5000}},
	{"zstd.arrow", synth.Options{IPCCodec: "zstd", Batch: 6000}},
	{"lz4.feather", synth.Options{IPCCodec: "lz4"}},
	{"plain.arrows", synth.Options{Batch: 4321}},
	{"zstd.arrows", synth.Options{IPCCodec: "zstd", Batch: 9000}},
	{"lz4.arrows", synth.Options{IPCCodec: "lz4", Batch: 1000}},
}

// sameSummaries runs rankeval with args on the JSONL reference and on every
// other form of it and demands byte-identical stdout.
func sameSummaries(t *testing.T, ref string, others []string, args ...string) {
	t.Helper()
	code, want, stderr := cli(t, append(append([]string{"--quiet"}, args...), ref)...)
	if code != 0 {
		t.Fatalf("%s: exit %d: %s", ref, code, stderr)
	}
	for _, o := range others {
		code, got, stderr := cli(t, append(append([]string{"--quiet"}, args...), o)...)
		if code != 0 {
			t.Fatalf("%s %v: exit %d: %s", o, args, code, stderr)
		}
		if body(got) != body(want) {
			t.Errorf("%s %v: output differs from the JSONL's\n got: %s\nwant: %s", filepath.Base(o), args, got, want)
		}
	}
}

// writeForms writes rows as JSONL (the reference) and in every columnar
// format, and as directories of part files (Parquet with Hive partitions,
// Arrow IPC streams) whose boundaries cut queries.
func writeForms(t *testing.T, rows []synth.Row, floatLabels bool) (ref string, others []string) {
	t.Helper()
	dir := t.TempDir()
	ref = filepath.Join(dir, "log.jsonl")
	if err := synth.Write(ref, &synth.Rows{R: rows}, -1, synth.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, f := range columnarFormats {
		opt := f.opt
		opt.FloatLabels = floatLabels
		name := filepath.Join(dir, f.name)
		if err := synth.Write(name, &synth.Rows{R: rows}, -1, opt); err != nil {
			t.Fatal(err)
		}
		others = append(others, name)
	}
	for _, s := range []struct {
		ext  string
		hive bool
	}{{".zstd.parquet", true}, {".arrows", false}} {
		d := filepath.Join(dir, "parts"+s.ext)
		opt := synth.Options{FloatLabels: floatLabels, RowGroup: 333, Batch: 333}
		if err := synth.WriteSplit(d, s.ext, 7, s.hive, &synth.Rows{R: rows}, len(rows), opt); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "_SUCCESS"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		others = append(others, d)
	}
	return ref, others
}

// TestFormatsSameSummary: the same generated log in every format, codec and
// split gives byte-identical JSON summaries and per-query output.
func TestFormatsSameSummary(t *testing.T) {
	n := 200_000
	if testing.Short() {
		n = 20_000
	}
	g := synth.NewGenerator(3, n, 97).WithSlices(12, 2)
	var rows []synth.Row
	var r synth.Row
	for g.Next(&r) {
		rows = append(rows, r)
	}
	ref, others := writeForms(t, rows, false)
	for _, args := range [][]string{
		{"--format", "json", "--workers", "1"},
		{"--format", "json", "--workers", "2", "--batch-size", "1000"},
		{"--format", "json", "--ties", "trec", "-m", "map,ndcg@10,err@20,p@5,rr,kendall"},
		{"--format", "json", "--ties", "average", "-m", "ndcg@10,ap"},
		{"--format", "json", "--by", "market", "-m", "ndcg@10,map"},
		{"--format", "json", "--score-col", "score,score_b", "-m", "ndcg@10,map"},
	} {
		sameSummaries(t, ref, others, args...)
	}
	// per-query output, in input order, is identical too
	dir := t.TempDir()
	var want []byte
	for i, in := range append([]string{ref}, others...) {
		pq := filepath.Join(dir, fmt.Sprintf("pq%d.jsonl", i))
		if code, _, stderr := cli(t, "--quiet", "--per-query", pq, in); code != 0 {
			t.Fatalf("%s: exit %d: %s", in, code, stderr)
		}
		got, err := os.ReadFile(pq)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			want = got
		} else if !bytes.Equal(got, want) {
			t.Errorf("%s: per-query output differs from the JSONL's", in)
		}
	}
}

// loadJSONL reads a whole log with rankeval's reader.
func loadJSONL(t *testing.T, name string) (rows []synth.Row, floatLabels bool) {
	t.Helper()
	r, err := reader.Open(name, reader.Columns{Query: "query_id", Doc: "doc_id", Score: "score", Label: "label"}, reader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for r.Next() {
		b := r.Batch()
		for i := range b.N {
			l := b.Label[i]
			floatLabels = floatLabels || l != math.Trunc(l)
			rows = append(rows, synth.Row{Query: string(b.Query.At(i)), Doc: string(b.Doc.At(i)), Score: b.Score[i], Label: l})
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return rows, floatLabels
}

// TestVectorsSameSummaryAcrossFormats converts testdata/vectors/*.jsonl to
// every format and demands the JSONL's summary, byte for byte.
func TestVectorsSameSummaryAcrossFormats(t *testing.T) {
	cases, _ := filepath.Glob(filepath.Join(vectors.TestdataDir(t), "vectors", "*.jsonl"))
	if len(cases) == 0 {
		t.Fatal("no logs in testdata/vectors")
	}
	for _, c := range cases {
		t.Run(filepath.Base(c), func(t *testing.T) {
			rows, fl := loadJSONL(t, c)
			ref, others := writeForms(t, rows, fl)
			for _, args := range [][]string{
				{"--format", "json", "-m", "map,mrr,ndcg@10,err@10,p@10,r@10,rprec,kendall,spearman"},
				{"--format", "json", "--ties", "trec", "--gain", "linear", "--empty", "zero", "-m", "ndcg,ap,nerr@5"},
				{"--format", "json", "--ties", "average", "-m", "ndcg@10,ap,err@10"},
			} {
				sameSummaries(t, ref, others, args...)
			}
		})
	}
}

// TestColumnarBadInput: damaged or unusable Parquet and Arrow files exit 1
// naming the file (and the row group and row where there is one) and leave
// no output file behind.
func TestColumnarBadInput(t *testing.T) {
	src := t.TempDir()
	g := synth.NewGenerator(9, 20000, 50)
	var rows []synth.Row
	var r synth.Row
	for g.Next(&r) {
		rows = append(rows, r)
	}
	read := func(name string, opt synth.Options) []byte {
		p := filepath.Join(src, name)
		if err := synth.Write(p, &synth.Rows{R: rows}, -1, opt); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	pq := read("good.parquet", synth.Options{RowGroup: 5000})
	ar := read("good.arrow", synth.Options{Batch: 5000})
	as := read("good.arrows", synth.Options{Batch: 5000})
	edit := func(b []byte, f func([]byte)) []byte { b = bytes.Clone(b); f(b); return b }
	fl := int(binary.LittleEndian.Uint32(pq[len(pq)-8:]))

	tests := []struct {
		name, ext string
		data      []byte
		extra     []string
		msg       string // regexp the message must match after "FILE: "
	}{
		{"truncated Parquet", ".parquet", pq[:len(pq)/3], nil, "not a readable Parquet file"},
		{"wrong trailing magic", ".parquet", edit(pq, func(b []byte) { copy(b[len(b)-4:], "PAR0") }), nil, "not a readable Parquet file: .*magic bytes not found"},
		{"bad footer", ".parquet", edit(pq, func(b []byte) {
			for i := len(b) - 8 - fl; i < len(b)-8; i++ {
				b[i] = 0xee
			}
		}), nil, "not a readable Parquet file"},
		{"corrupt page", ".parquet", edit(pq, func(b []byte) {
			for i := len(b) / 2; i < len(b)/2+3000; i++ {
				b[i] ^= 0x33
			}
		}), nil, `row group \d+: `},
		{"missing column", ".parquet", pq, []string{"--score-col", "pred"}, `no column "pred" \(the score column\); the file has "query_id", "doc_id", "score", "label"`},
		{"wrong column type", ".parquet", pq, []string{"--doc-col", "absent", "--label-col", "doc_id"}, `column "doc_id" has type utf8; the label column must be integer, float or boolean`},
		{"nulls", ".parquet", nullParquet(t), nil, `row group 1, row 3 \(row 7 of the file\): null in "score" column`},
		{"truncated Arrow IPC file", ".arrow", ar[:len(ar)-100], nil, "not a readable Arrow IPC file"},
		{"truncated Arrow IPC stream", ".arrows", as[:len(as)/2], nil, `record batch \d+: `},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, "log"+tc.ext)
			if err := os.WriteFile(in, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			out, pqo := filepath.Join(dir, "summary.json"), filepath.Join(dir, "pq.jsonl")
			args := append([]string{"--quiet", "--output", out, "--per-query", pqo}, tc.extra...)
			code, stdout, stderr := cli(t, append(args, in)...)
			if code != 1 {
				t.Fatalf("exit %d, want 1; stderr %s", code, stderr)
			}
			if !regexp.MustCompile(regexp.QuoteMeta(in+": ") + tc.msg).MatchString(stderr) {
				t.Fatalf("stderr %q does not match %q", stderr, tc.msg)
			}
			if stdout != "" {
				t.Fatalf("stdout not empty: %q", stdout)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Fatalf("files left beside the input: %v", entries)
			}
		})
	}
}

// nullParquet is a 10-row Parquet file in row groups of 4 whose score is
// null at row 7.
func nullParquet(t *testing.T) []byte {
	t.Helper()
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "query_id", Type: arrow.BinaryTypes.String},
		{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "label", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for i := range 10 {
		b.Field(0).(*array.StringBuilder).Append(fmt.Sprint("q", i/5))
		if i == 6 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.Float64Builder).Append(float64(i))
		}
		b.Field(2).(*array.Int64Builder).Append(int64(i % 2))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(sc, &buf, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(4)), pqarrow.DefaultWriterProps())
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

func TestExpandedInputs(t *testing.T) {
	// a glob given quoted, and a directory, give the same as the files
	g := synth.NewGenerator(4, 5000, 30)
	var rows []synth.Row
	var r synth.Row
	for g.Next(&r) {
		rows = append(rows, r)
	}
	dir := t.TempDir()
	if err := synth.WriteSplit(dir, ".parquet", 3, false, &synth.Rows{R: rows}, len(rows), synth.Options{}); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "part-*.parquet"))
	_, want, _ := cli(t, append([]string{"--quiet", "--format", "json"}, files...)...)
	for _, arg := range []string{dir, filepath.Join(dir, "part-*.parquet")} {
		code, got, stderr := cli(t, "--quiet", "--format", "json", arg)
		if code != 0 || got != want {
			t.Errorf("%s: exit %d, %s\noutput %s\nwant %s", arg, code, stderr, got, want)
		}
	}
	code, _, stderr := cli(t, "--quiet", filepath.Join(dir, "*.arrow"))
	if code != 1 || !strings.Contains(stderr, "no file matches") {
		t.Errorf("glob matching nothing: exit %d, %s", code, stderr)
	}
}

// TestHivePartitionSlices: Hive partition directories are slice columns
// (--by dt), the same from Parquet and Arrow parts, and the slices are the
// rows of each day.
func TestHivePartitionSlices(t *testing.T) {
	g := synth.NewGenerator(5, 30000, 40)
	var rows []synth.Row
	var r synth.Row
	for g.Next(&r) {
		rows = append(rows, r)
	}
	dir := t.TempDir()
	var outs []string
	for _, ext := range []string{".zstd.parquet", ".arrows", ".arrow"} {
		d := filepath.Join(dir, "lake"+ext)
		if err := synth.WriteSplit(d, ext, 6, true, &synth.Rows{R: rows}, len(rows), synth.Options{RowGroup: 2000, Batch: 2000}); err != nil {
			t.Fatal(err)
		}
		code, out, stderr := cli(t, "--quiet", "--format", "json", "--by", "dt", "-m", "ndcg@10", d)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", d, code, stderr)
		}
		outs = append(outs, out)
	}
	for i := range outs {
		if body(outs[i]) != body(outs[0]) {
			t.Errorf("--by dt differs between formats:\n%s\n%s", outs[0], outs[i])
		}
	}
	for _, day := range []string{"2026-11-20", "2026-11-21", "2026-11-22"} {
		if !strings.Contains(outs[0], day) {
			t.Errorf("no slice %s in %s", day, outs[0])
		}
	}
}
