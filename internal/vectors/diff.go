package vectors

import (
	"fmt"
	"strings"
	"testing"
)

// FirstDiff shows the first line where got departs from want, for a test's
// failure message.
func FirstDiff(want, got string) string {
	w, g := strings.SplitAfter(want, "\n"), strings.SplitAfter(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\n want %q\n got  %q", i+1, wl, gl)
		}
	}
	return "(same lines)"
}

// TestdataDir is the repository's testdata folder, whose vectors/ and
// reference/ (copies of the project's shared folder) the vector and peer
// tests read; it fails the test, never skips it, when they are missing.
func TestdataDir(t testing.TB) string {
	t.Helper()
	d, err := Testdata()
	if err != nil {
		t.Fatal(err)
	}
	return d
}
