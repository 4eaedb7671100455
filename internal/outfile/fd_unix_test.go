//go:build unix

package outfile

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestDescriptorTargets: an output named /dev/fd/N (/dev/stdout is fd 1)
// whose descriptor holds a regular file opened for appending is appended
// to, as the shell's >> asks, not replaced by a renamed temporary file
// (which would lose what the file held).
func TestDescriptorTargets(t *testing.T) {
	p := filepath.Join(t.TempDir(), "all.txt")
	os.WriteFile(p, []byte("yesterday\n"), 0o644)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, name := range []string{fmt.Sprintf("/dev/fd/%d", f.Fd()), fmt.Sprintf("/proc/self/fd/%d", f.Fd())} {
		if _, err := os.Stat(name); err != nil {
			continue // no /proc here
		}
		if err := Write(name, []byte("today\n")); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	b, _ := os.ReadFile(p)
	if want := "yesterday\ntoday\n"; string(b) != want && string(b) != want+"today\n" {
		t.Fatalf("the file holds %q, want %q (and a second today)", b, want)
	}
	if _, _, err := openFD("/dev/fd/987"); err == nil {
		t.Fatal("a descriptor that is not open: no error")
	}
}
