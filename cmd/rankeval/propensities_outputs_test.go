package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestPropensitiesOutputsFirst: an --output or --report that cannot be
// written fails before the logs are read (outputs' promise: an
// unwritable place fails before hours of reading), not after the count
// and the estimate, whose lines would then be on stderr.
func TestPropensitiesOutputsFirst(t *testing.T) {
	paths, _, _ := propLog(t, 2000, ".jsonl")
	nodir := filepath.Join(t.TempDir(), "missing", "x")
	for _, flag := range []string{"--report", "--output"} {
		t.Run(flag, func(t *testing.T) {
			code, _, stderr := cli(t, "propensities", "--ranker-col", "ranker", "--position-col", "position", "--replicates", "40", flag, nodir, paths[".jsonl"])
			if code != 1 || !strings.Contains(stderr, "cannot write "+nodir) {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if strings.Contains(stderr, "closest power law") || strings.Contains(stderr, "propensities by") {
				t.Errorf("the log was read and estimated before the output failed:\n%s", stderr)
			}
		})
	}
}
