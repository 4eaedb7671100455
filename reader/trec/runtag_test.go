package trec

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRunTagComments: trec_eval 10.0's runid is the tag of the last line
// that is not a comment; 9.0.8 reads every line (a trailing comment
// would be a malformed line there).
func TestRunTagComments(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, text string
		want       string
		comments   bool
	}{
		{"last line", "q Q0 d 1 2 a\nq Q0 e 2 1 b\n", "b", false},
		{"blank lines after", "q Q0 d 1 2 a\n\n  \n", "a", false},
		{"comment after", "q Q0 d 1 2 a\n# the end\n  # indented\n\n", "a", true},
		{"comment without a newline", "q Q0 d 1 2 a\n#x", "a", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.name)
			if err := os.WriteFile(p, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			read := RunTag
			if tc.comments {
				read = RunTagComments
			}
			if got, err := read(p); err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
			if tc.comments {
				if _, err := RunTag(p); err == nil {
					t.Fatal("without comments, a comment line is the last line, and not a run line")
				}
			}
		})
	}
}
