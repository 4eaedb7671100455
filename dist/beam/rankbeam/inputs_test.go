package rankbeam

import (
	"os"
	"path/filepath"
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
