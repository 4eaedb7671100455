package vectors

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestLoad reads the repository's copy of the vectors: every file names a
// log that exists and has cases.
func TestLoad(t *testing.T) {
	d, err := Testdata()
	if err != nil {
		t.Fatal(err)
	}
	files, err := Load(filepath.Join(d, "vectors"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if _, err := os.Stat(f.Log); err != nil {
			t.Errorf("%s: %v", f.Name, err)
		}
		if len(f.Cases) == 0 || len(f.Metrics) == 0 {
			t.Errorf("%s: %d cases, %d metrics", f.Name, len(f.Cases), len(f.Metrics))
		}
	}
}

// TestTestdataCurrent checks that the repository's copy of the vectors and
// reference outputs is current: where the project's shared folder is
// checked out beside the repository (../shared), testdata/vectors and
// testdata/reference must hold exactly its vectors/ and reference/, byte
// for byte. Without ../shared there is nothing to compare with; no other
// test needs it.
func TestTestdataCurrent(t *testing.T) {
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	shared := filepath.Join(root, "..", "shared")
	if _, err := os.Stat(filepath.Join(shared, "vectors")); err != nil {
		t.Skipf("no shared folder at %s to check the copy in testdata against", shared)
	}
	for _, sub := range []string{"vectors", "reference"} {
		src, dst := filepath.Join(shared, sub), filepath.Join(root, "testdata", sub)
		want, got := tree(t, src), tree(t, dst)
		for name, b := range want {
			c, ok := got[name]
			switch {
			case !ok:
				t.Errorf("testdata/%s/%s missing: copy it from %s", sub, name, src)
			case !bytes.Equal(b, c):
				t.Errorf("testdata/%s/%s differs from %s: copy it again", sub, name, filepath.Join(src, name))
			}
		}
		for name := range got {
			if _, ok := want[name]; !ok {
				t.Errorf("testdata/%s/%s is not in %s: remove it", sub, name, src)
			}
		}
	}
}

// tree reads every regular file under dir, by slash-separated path.
func tree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
