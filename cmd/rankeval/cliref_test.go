package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/internal/docblock"
)

// TestCLIReference holds docs/cli.md to the code: each of its blocks
// generated from `rankeval ARGS` (every command's --help, which lists
// every flag from its definition) must be what the command prints now, so
// a flag without a line there fails here (go test -run TestCLIReference
// -update rewrites them). rankeval-beam's blocks are checked by its own
// test, in dist/beam.
func TestCLIReference(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "cli.md")
	err := docblock.Sync(path, "rankeval", *update, "go test ./cmd/rankeval -run TestCLIReference -update", func(args []string) (string, error) {
		_, stdout, stderr := cli(t, args...)
		return stdout + stderr, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--help", "merge --help", "propensities --help", "trec_eval --help", "metrics"} {
		if !strings.Contains(string(page), "<!-- generated: rankeval "+want+" -->") {
			t.Errorf("docs/cli.md has no block for rankeval %s", want)
		}
	}
}
