package main

import (
	"bytes"
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/internal/docblock"
)

// Beam's SDK has a flag named update (Dataflow's), hence the longer name.
var update = flag.Bool("update-docs", false, "rewrite rankeval-beam's blocks of docs/cli.md")

// TestCLIReference holds docs/cli.md's rankeval-beam blocks to the code,
// as rankeval's test holds its own (-update-docs rewrites it): the help lists
// every flag from its definition, rankeval's and Beam's (and rankeval-beam
// propensities' help, rankeval propensities' flags).
func TestCLIReference(t *testing.T) {
	path := filepath.Join("..", "..", "..", "..", "docs", "cli.md")
	err := docblock.Sync(path, "rankeval-beam", *update, "go test ./cmd/rankeval-beam -run TestCLIReference -update-docs", func(args []string) (string, error) {
		// rankeval's flags on a set of their own, with Beam's SDK flags
		// (registered on the command line at init) added, as main has them
		fs := flag.NewFlagSet("rankeval-beam", flag.ContinueOnError)
		help := usage
		switch strings.Join(args, " ") {
		case "--help":
			register(fs)
		case "propensities --help":
			registerPropensities(fs)
			help = propensitiesUsage
		default:
			t.Fatalf("rankeval-beam %s: only --help and propensities --help are generated", args)
		}
		flag.CommandLine.VisitAll(func(f *flag.Flag) {
			if fs.Lookup(f.Name) == nil && !strings.HasPrefix(f.Name, "test.") && f.Name != "update-docs" {
				fs.Var(f.Value, f.Name, f.Usage)
			}
		})
		var b bytes.Buffer
		help(&b, fs)
		return b.String(), nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
