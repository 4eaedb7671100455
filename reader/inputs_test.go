package reader

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/internal/synth"
	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/columnar"
	"github.com/rankeval/rankeval/reader/internal/readertest"
)

// touch makes files that start like JSON lines, which is all Expand reads
// of them, and directories (names ending in '/').
func touch(t *testing.T, root string, names ...string) {
	t.Helper()
	for _, n := range names {
		p := filepath.Join(root, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(n, "/") {
			continue
		}
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestExpand(t *testing.T) {
	root := t.TempDir()
	touch(t, root,
		"lake/dt=2026-11-21/part-00001.parquet",
		"lake/dt=2026-11-20/part-00000.parquet",
		"lake/dt=2026-11-20/hr=05/part-00000.parquet",
		"lake/dt=2026-11-20/_SUCCESS",
		"lake/dt=2026-11-20/.part-00000.parquet.crc",
		"lake/_temporary/0/part-00009.parquet",
		"lake/.hidden/part-00009.parquet",
		"lake/_SUCCESS",
		"esc/city=S%C3%A3o Paulo/ts=10%3A00/f.arrow",
		"empty/_SUCCESS",
		"empty/sub/",
		"files/a.jsonl", "files/b.jsonl", "files/_c.jsonl", "files/.d.jsonl",
	)
	p := func(rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }
	// an expanded file and the Hive partitions its readers take from its path
	type in struct {
		Path       string
		Partitions [][2]string
	}
	cases := []struct {
		name string
		args []string
		want []in
		err  error // errors.Is target; nil: no error
	}{
		{"file", []string{p("files/a.jsonl")}, []in{{Path: p("files/a.jsonl")}}, nil},
		{"hidden file asked for", []string{p("files/_c.jsonl")}, []in{{Path: p("files/_c.jsonl")}}, nil},
		{"stdin", []string{"-", p("files/b.jsonl")}, []in{{Path: "-"}, {Path: p("files/b.jsonl")}}, nil},
		{"directory", []string{p("lake")}, []in{
			{Path: p("lake/dt=2026-11-20/hr=05/part-00000.parquet"), Partitions: [][2]string{{"dt", "2026-11-20"}, {"hr", "05"}}},
			{Path: p("lake/dt=2026-11-20/part-00000.parquet"), Partitions: [][2]string{{"dt", "2026-11-20"}}},
			{Path: p("lake/dt=2026-11-21/part-00001.parquet"), Partitions: [][2]string{{"dt", "2026-11-21"}}},
		}, nil},
		{"escaped partition values", []string{p("esc")}, []in{
			{Path: p("esc/city=S%C3%A3o Paulo/ts=10%3A00/f.arrow"), Partitions: [][2]string{{"city", "São Paulo"}, {"ts", "10:00"}}},
		}, nil},
		{"glob", []string{p("files/*.jsonl")}, []in{{Path: p("files/a.jsonl")}, {Path: p("files/b.jsonl")}}, nil},
		{"glob of hidden names", []string{p("files/_*.jsonl")}, []in{{Path: p("files/_c.jsonl")}}, nil},
		{"glob of directories", []string{p("lake/dt=*")}, []in{
			{Path: p("lake/dt=2026-11-20/hr=05/part-00000.parquet"), Partitions: [][2]string{{"dt", "2026-11-20"}, {"hr", "05"}}},
			{Path: p("lake/dt=2026-11-20/part-00000.parquet"), Partitions: [][2]string{{"dt", "2026-11-20"}}},
			{Path: p("lake/dt=2026-11-21/part-00001.parquet"), Partitions: [][2]string{{"dt", "2026-11-21"}}},
		}, nil},
		{"order of arguments kept", []string{p("files/b.jsonl"), p("files/a.jsonl")}, []in{{Path: p("files/b.jsonl")}, {Path: p("files/a.jsonl")}}, nil},
		{"missing file", []string{p("files/nope.jsonl")}, nil, fs.ErrNotExist},
		{"glob matching nothing", []string{p("files/*.parquet")}, nil, ErrNoInput},
		{"directory without data", []string{p("empty")}, nil, ErrNoInput},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Expand(c.args)
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Fatalf("err = %v, want %v", err, c.err)
				}
				if !strings.Contains(err.Error(), c.args[0]) {
					t.Errorf("error %q does not name %s", err, c.args[0])
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var ins []in
			for _, g := range got {
				ins = append(ins, in{g.Path, columnar.FilePartitions(g.Path)})
			}
			if !reflect.DeepEqual(ins, c.want) {
				t.Errorf("got  %v\nwant %v", ins, c.want)
			}
		})
	}
}

// TestQueriesSpanFiles splits one log into part files whose boundaries fall
// inside queries, in each format, and checks that reading the expanded
// directory in order gives the rows of the whole log.
func TestQueriesSpanFiles(t *testing.T) {
	checkedMem(t)
	log := readertest.GenLog(11, 10007, 23) // 10007 rows: part boundaries split queries
	for _, ext := range []string{".jsonl", ".zstd.parquet", ".arrow", ".arrows"} {
		t.Run(ext, func(t *testing.T) {
			dir := t.TempDir()
			if err := synth.WriteSplit(dir, ext, 5, true, &synth.Rows{R: log}, len(log), synth.Options{RowGroup: 999, Batch: 777}); err != nil {
				t.Fatal(err)
			}
			touch(t, dir, "_SUCCESS")
			ins, err := Expand([]string{dir})
			if err != nil {
				t.Fatal(err)
			}
			if len(ins) != 5 {
				t.Fatalf("%d inputs, want 5: %v", len(ins), ins)
			}
			var all []readRow
			split := 0
			for i, in := range ins {
				if want := [][2]string{{"dt", []string{"2026-11-20", "2026-11-20", "2026-11-21", "2026-11-21", "2026-11-22"}[i]}}; !reflect.DeepEqual(columnar.FilePartitions(in.Path), want) {
					t.Errorf("%s: partitions %v, want %v", in.Path, columnar.FilePartitions(in.Path), want)
				}
				rows, err := readAll(t, in.Path, readertest.StdCols, batch.Options{BatchSize: 500, Decoders: 2})
				if err != nil {
					t.Fatal(err)
				}
				if len(all) > 0 && len(rows) > 0 && all[len(all)-1].q == rows[0].q {
					split++
				}
				for k := range rows {
					if rows[k].pos != int64(k+1) {
						t.Fatalf("%s: row %d has position %d", in.Path, k, rows[k].pos)
					}
				}
				all = append(all, rows...)
			}
			if split == 0 {
				t.Error("no query continues into the next part: the test does not test that")
			}
			if len(all) != len(log) {
				t.Fatalf("%d rows, want %d", len(all), len(log))
			}
			for i, r := range log {
				g := all[i]
				if g.q != r.Query || g.d != r.Doc || g.score != r.Score || g.label != r.Label {
					t.Fatalf("row %d = %+v, want %+v", i, g, r)
				}
			}
		})
	}
}
