package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/internal/synth"
)

// TestPropensitiesCommand: rankeval-beam propensities, on Prism in its own
// process, writes rankeval propensities' file and state, byte for byte,
// for a relative directory of logs (named in the state as rankeval names
// them), says the estimate's summary on stderr, leaves no temporary file,
// and exits as rankeval propensities does on a usage error.
func TestPropensitiesCommand(t *testing.T) {
	binaries(t)
	dir, tmp := t.TempDir(), t.TempDir()
	sim := synth.NewPropSim(9, synth.PropConfig{Impressions: 2000, Queries: 80, Docs: 10, Positions: 5, Noise: synth.DefaultNoise[:2], Eta: 1})
	var rows []synth.Row
	var r synth.Row
	for sim.Next(&r) {
		rows = append(rows, r)
	}
	os.Mkdir(filepath.Join(dir, "logs"), 0o755)
	cut := len(rows) / 3
	for i, part := range [][]synth.Row{rows[:cut], rows[cut:]} {
		p := filepath.Join(dir, "logs", []string{"a.parquet", "b.jsonl.gz"}[i])
		if err := synth.Write(p, &synth.Rows{R: part}, -1, synth.Options{RowGroup: 700}); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{"propensities", "--position-col", "position", "--ranker-col", "ranker", "--replicates", "40", "--min-clicks", "5"}
	b := runIn(t, dir, tmp, bins.beam, append(args, "--output", "beam.csv", "--state", "beam.state", "logs")...)
	l := runIn(t, dir, tmp, bins.rankeval, append(args, "--output", "cli.csv", "--state", "cli.state", "logs")...)
	if b.code != 0 || l.code != 0 {
		t.Fatalf("exit %d (rankeval %d): %s", b.code, l.code, b.stderr)
	}
	for _, f := range [][2]string{{"beam.csv", "cli.csv"}, {"beam.state", "cli.state"}} {
		if got, want := readFile(t, filepath.Join(dir, f[0])), readFile(t, filepath.Join(dir, f[1])); got != want {
			t.Errorf("%s differs from rankeval's %s:\n%q\nrankeval:\n%q", f[0], f[1], got, want)
		}
	}
	if !strings.Contains(readFile(t, filepath.Join(dir, "beam.state")), `"input":"logs/a.parquet"`) {
		t.Errorf("the state does not name logs/a.parquet as given")
	}
	if want := "rankeval-beam: propensities by harvest from " + strconv.Itoa(len(rows)) + " rows"; !strings.Contains(b.stderr, want) {
		t.Errorf("stderr %q, want %q", b.stderr, want)
	}
	// a usage error: rankeval's message and exit code
	b = runIn(t, dir, tmp, bins.beam, "propensities", "logs")
	l = runIn(t, dir, tmp, bins.rankeval, "propensities", "logs")
	first, _, _ := strings.Cut(l.stderr, "\n") // then rankeval's pointer to its --help
	_, want, _ := strings.Cut(first, "rankeval: ")
	if b.code != 2 || l.code != 2 || strings.TrimSpace(b.stderr) != "rankeval-beam: "+want {
		t.Errorf("no --position-col: exit %d, %q; rankeval exit %d, %q", b.code, b.stderr, l.code, l.stderr)
	}
	if left := leftovers(t, tmp); left != nil {
		t.Fatalf("temporary files left: %v", left)
	}
}

// TestPropensitiesNoEstimateKeepsState: a log that estimates no position
// (one ranker, each query in one order) exits 1 with rankeval
// propensities' message, and keeps the state it wrote, rankeval's, to
// merge with other days'; the file is not written.
func TestPropensitiesNoEstimateKeepsState(t *testing.T) {
	binaries(t)
	dir, tmp := t.TempDir(), t.TempDir()
	sim := synth.NewPropSim(2, synth.PropConfig{Impressions: 300, Queries: 40, Docs: 8, Positions: 4, Noise: synth.DefaultNoise[:1], Eta: 1})
	var rows []synth.Row
	var r synth.Row
	for sim.Next(&r) {
		rows = append(rows, r)
	}
	if err := synth.Write(filepath.Join(dir, "day.parquet"), &synth.Rows{R: rows}, -1, synth.Options{RowGroup: 300}); err != nil {
		t.Fatal(err)
	}
	args := []string{"propensities", "--position-col", "position", "--replicates", "40"}
	b := runIn(t, dir, tmp, bins.beam, append(args, "--output", "beam.csv", "--state", "day.state", "day.parquet")...)
	if err := os.Rename(filepath.Join(dir, "day.state"), filepath.Join(dir, "beam.state")); err != nil {
		t.Fatalf("exit %d, no state: %v: %s", b.code, err, b.stderr)
	}
	l := runIn(t, dir, tmp, bins.rankeval, append(args, "--output", "cli.csv", "--state", "day.state", "day.parquet")...)
	_, want, _ := strings.Cut(strings.TrimSpace(l.stderr), "rankeval: ")
	if b.code != 1 || l.code != 1 || strings.TrimSpace(b.stderr) != "rankeval-beam: "+want || !strings.Contains(want, "the count table is saved in day.state") {
		t.Fatalf("exit %d, %q; rankeval exit %d, %q", b.code, b.stderr, l.code, l.stderr)
	}
	if got, want := readFile(t, filepath.Join(dir, "beam.state")), readFile(t, filepath.Join(dir, "day.state")); got != want {
		t.Errorf("the state differs from rankeval's")
	}
	if _, err := os.Stat(filepath.Join(dir, "beam.csv")); !os.IsNotExist(err) {
		t.Errorf("the file was written: %v", err)
	}
	if left := leftovers(t, tmp); left != nil {
		t.Fatalf("temporary files left: %v", left)
	}
}
