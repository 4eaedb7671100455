package rankbeam

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rankeval/rankeval/reader"
)

// TestRelName: a relative input expanded from the launcher's directory
// names its files as rankeval, expanding it there, names them.
func TestRelName(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"lake/dt=1/a.jsonl", "lake/dt=2/b.jsonl", "lake/c.jsonl", "work/x.jsonl"} {
		os.MkdirAll(filepath.Dir(filepath.Join(root, f)), 0o755)
		os.WriteFile(filepath.Join(root, f), nil, 0o644)
	}
	dir := filepath.Join(root, "lake")
	old, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(old)
	for _, arg := range []string{".", "./", "dt=1", "dt=*/*.jsonl", "./dt=[12]", "../work/x.jsonl", "./c.jsonl", "../lake/dt=2/", "../lake/*.jsonl", "c.jsonl"} {
		t.Run(arg, func(t *testing.T) {
			want, err := reader.Expand([]string{arg}) // as rankeval, from dir
			if err != nil {
				t.Fatal(err)
			}
			got, err := reader.Expand([]string{filepath.Join(dir, arg)})
			if err != nil || len(got) != len(want) {
				t.Fatalf("%v: %d files, want %d", err, len(got), len(want))
			}
			for i := range got {
				if n := relName(arg, dir, got[i].Path); n != want[i].Path {
					t.Errorf("%s named %q, rankeval names it %q", got[i].Path, n, want[i].Path)
				}
			}
		})
	}
}

// TestExpandLogs: the worker's expansion numbers the files as rankeval
// reads them, each --system log's files after the previous log's, says
// each file's log, and names relative ones as rankeval does.
func TestExpandLogs(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"a.jsonl", "b/2.jsonl", "b/1.jsonl", "c/x.jsonl"} {
		os.MkdirAll(filepath.Dir(filepath.Join(root, f)), 0o755)
		os.WriteFile(filepath.Join(root, f), nil, 0o644)
	}
	abs := func(p string) string { return filepath.Join(root, p) }
	for _, tc := range []struct {
		name string
		logs [][]string
		dir  string
		want []File
	}{
		{"one log", [][]string{{abs("b"), abs("a.jsonl")}}, "", []File{
			{0, 0, abs("b/1.jsonl"), abs("b/1.jsonl")}, {1, 0, abs("b/2.jsonl"), abs("b/2.jsonl")}, {2, 0, abs("a.jsonl"), abs("a.jsonl")}}},
		{"systems", [][]string{{abs("c/x.jsonl")}, {abs("b")}, {abs("a.jsonl")}}, "", []File{
			{0, 0, abs("c/x.jsonl"), abs("c/x.jsonl")}, {1, 1, abs("b/1.jsonl"), abs("b/1.jsonl")},
			{2, 1, abs("b/2.jsonl"), abs("b/2.jsonl")}, {3, 2, abs("a.jsonl"), abs("a.jsonl")}}},
		{"relative", [][]string{{"b"}, {"./a.jsonl", "c/*.jsonl"}}, root, []File{
			{0, 0, abs("b/1.jsonl"), "b/1.jsonl"}, {1, 0, abs("b/2.jsonl"), "b/2.jsonl"},
			{2, 1, abs("a.jsonl"), "./a.jsonl"}, {3, 1, abs("c/x.jsonl"), "c/x.jsonl"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []File
			f := &expandFn{Logs: tc.logs, Dir: tc.dir}
			if err := f.ProcessElement(nil, func(x File) { got = append(got, x) }); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v\nwant %v", got, tc.want)
			}
			names := fileNames{files: func() func(*File) bool {
				i := 0
				return func(x *File) bool {
					if i == len(got) {
						return false
					}
					*x, i = got[i], i+1
					return true
				}
			}}
			for _, w := range tc.want {
				if l := names.logOf(w.Index); l != w.Log {
					t.Errorf("file %d: log %d, want %d", w.Index, l, w.Log)
				}
			}
		})
	}
}
