package treceval

import (
	"errors"
	"slices"
	"testing"
)

// TestSplitRelease: --release is rankeval's, taken off the front only;
// trec_eval's getopt never sees it, and a bad release is a usage error.
func TestSplitRelease(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		release string
		rest    []string
		bad     bool
	}{
		{"default", []string{"-q", "q", "r"}, "10.0", []string{"-q", "q", "r"}, false},
		{"separate", []string{"--release", "9.0.8", "-q", "q", "r"}, "9.0.8", []string{"-q", "q", "r"}, false},
		{"attached", []string{"--release=10.0", "q", "r"}, "10.0", []string{"q", "r"}, false},
		{"later is trec_eval's", []string{"-q", "--release", "9.0.8"}, "10.0", []string{"-q", "--release", "9.0.8"}, false},
		{"unknown", []string{"--release", "9.0.7", "q", "r"}, "", nil, true},
		{"missing", []string{"--release"}, "", nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rel, rest, err := splitRelease(tc.args)
			var u UsageError
			if tc.bad {
				if !errors.As(err, &u) {
					t.Fatalf("err %v, want a UsageError", err)
				}
				return
			}
			if err != nil || rel != tc.release || !slices.Equal(rest, tc.rest) {
				t.Fatalf("got %q %q %v, want %q %q", rel, rest, err, tc.release, tc.rest)
			}
		})
	}
	if _, err := parseTrecEvalArgs([]string{"-q", "--release", "9.0.8", "q", "r"}); err == nil {
		t.Fatal("--release after trec_eval's arguments must be refused as trec_eval refuses it")
	}
}
