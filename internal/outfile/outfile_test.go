package outfile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestPermissionsFollowUmask: an output gets 0666 less the umask, as any
// file the user creates, and nothing is left beside it.
func TestPermissionsFollowUmask(t *testing.T) {
	for _, mask := range []int{0o022, 0o077, 0o002} {
		old := syscall.Umask(mask)
		dir := t.TempDir()
		target := filepath.Join(dir, "out.json")
		err := Write(target, []byte("{}\n"))
		syscall.Umask(old)
		if err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(target)
		if err != nil {
			t.Fatal(err)
		}
		if want := os.FileMode(0o666 &^ mask); st.Mode().Perm() != want {
			t.Errorf("umask %03o: mode %v, want %v", mask, st.Mode().Perm(), want)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("left beside the output: %v", entries)
		}
	}
}

// TestAbortLeavesNothing: an output not committed leaves no file.
func TestAbortLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	f, err := Create(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("half"))
	f.Abort()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("left: %v", entries)
	}
	if _, err := Create(filepath.Join(dir, "missing", "out")); err == nil {
		t.Fatal("created a file in a missing directory")
	}
}

// TestSpecialTargets: /dev/null is written in place, not replaced; a
// symbolic link's file is replaced, the link kept; a directory is refused
// before any work.
func TestSpecialTargets(t *testing.T) {
	if err := Write(os.DevNull, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(os.DevNull); err != nil || st.Mode().IsRegular() {
		t.Fatalf("%s replaced by a regular file", os.DevNull)
	}
	dir := t.TempDir()
	real, link := filepath.Join(dir, "real.json"), filepath.Join(dir, "link.json")
	os.WriteFile(real, []byte("old"), 0o644)
	os.Symlink(real, link)
	if err := Write(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(real); string(b) != "new" {
		t.Fatalf("the link's file holds %q", b)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the link was replaced")
	}
	if _, err := Create(dir); err == nil {
		t.Fatal("a directory was accepted as an output")
	}
}

// TestRemoveTemps: the temporary file of a write cut short is removed,
// the target and other files are not.
func TestRemoveTemps(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out.json")
	os.WriteFile(target, []byte("old"), 0o644)
	os.WriteFile(filepath.Join(dir, "other.json"), nil, 0o644)
	f, err := Create(target)
	if err != nil {
		t.Fatal(err)
	}
	f.File.Close() // the writer was killed: nobody aborts
	RemoveTemps(target)
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if len(names) != 2 || names[0] != "other.json" || names[1] != "out.json" {
		t.Fatalf("left %v, want other.json and out.json", names)
	}
}
