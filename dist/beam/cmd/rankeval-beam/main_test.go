package main

import (
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rankeval/rankeval/config"

	"github.com/rankeval/rankeval/dist/beam/rankbeam"
	"github.com/rankeval/rankeval/evalflags"
)

// TestFlags: a command line written for rankeval works for rankeval-beam
// (its run-time flags accepted, flags after the inputs), and what Beam
// cannot do yet is refused at launch as a usage error.
func TestFlags(t *testing.T) {
	in := filepath.Join(t.TempDir(), "log.jsonl")
	os.WriteFile(in, []byte(`{"query_id":"a","score":1,"label":1}`+"\n"), 0o644)
	parse := func(args ...string) (*rankbeam.Config, error) {
		fs := flag.NewFlagSet("rankeval-beam", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		o := register(fs)
		pos, err := evalflags.Parse(fs, args)
		if err != nil {
			return nil, err
		}
		return o.config(fs, pos)
	}
	c, err := parse("--quiet", in, "--workers", "2", "--progress-interval", "1m", "-m", "ndcg@10")
	if err != nil || len(c.Inputs) != 1 || c.Metrics != "ndcg@10" {
		t.Fatalf("rankeval's flags: %v %+v", err, c)
	}
	// --system logs travel as given, for a worker to expand (expandFn):
	// the launcher only checks that they exist
	dir := filepath.Dir(in)
	os.Mkdir(filepath.Join(dir, "b"), 0o755)
	for _, f := range []string{"b1.jsonl", "b2.jsonl"} {
		os.WriteFile(filepath.Join(dir, "b", f), nil, 0o644)
	}
	c, err = parse("--system", "a="+in, "--system", "b="+filepath.Join(dir, "b"), "--missing", "zero")
	if err != nil || c.Inputs != nil || len(c.Sources.System) != 2 || c.Sources.Missing != "zero" {
		t.Fatalf("--system logs: %v %+v", err, c)
	}
	// several TREC runs are systems, named by run tag (by path where
	// tags repeat), as rankeval names them; one run stays one log
	qrels := filepath.Join(dir, "qrels")
	os.WriteFile(qrels, []byte("1 0 d 1\n"), 0o644)
	runs := map[string]string{"r1": "bm25", "r2": "dense", "r3": "dense"}
	for name, tag := range runs {
		os.WriteFile(filepath.Join(dir, name), []byte("1 Q0 d 1 2.0 "+tag+"\n"), 0o644)
	}
	r1, r2, r3 := filepath.Join(dir, "r1"), filepath.Join(dir, "r2"), filepath.Join(dir, "r3")
	c, err = parse("--qrels", qrels, r1, r2, r3)
	if want := []string{"bm25=" + r1, r2 + "=" + r2, r3 + "=" + r3}; err != nil || c.Inputs != nil || !slices.Equal(c.Sources.System, want) {
		t.Fatalf("three TREC runs: %v %+v, want systems %q", err, c, want)
	}
	if c, err = parse("--qrels", qrels, r1); err != nil || len(c.Inputs) != 1 || c.Sources.System != nil {
		t.Fatalf("one TREC run: %v %+v", err, c)
	}
	for _, args := range [][]string{
		{"--state", "-", in},
		{"--per-query", "-", in},
		{"--ties", "sideways", in},
		{"-", "--quiet"},
		{"--system", "a=" + in, in},
		{"--system", "a=" + in},
		{"--system", "a=" + in, "--system", "a=" + in},
		{"--system", "a", "--system", "b=" + in},
		{"--missing", "zero", in},
		{"--complete", in},
		{"--qrels", in, "--complete", "--state", in + ".state", in},
		{"--qrels", in, "--by", "market", in},
		{"--qrels", "s3://bucket/qrels.txt", in},
	} {
		if _, err := parse(args...); !errors.Is(err, config.ErrUsage) && !errors.Is(err, rankbeam.ErrConfig) {
			t.Errorf("%q: err = %v, want a usage error", args, err)
		}
	}
	// a missing log fails at launch as rankeval fails on it: an input error
	missing := filepath.Join(dir, "none.jsonl")
	if _, err := parse("--system", "a="+in, "--system", "b="+missing); !errors.Is(err, os.ErrNotExist) || errors.Is(err, config.ErrUsage) {
		t.Errorf("a missing --system log: err = %v, want an input error", err)
	}
}

// TestPropensityFlags: rankeval-beam propensities reads rankeval
// propensities' flags into its configuration, and refuses at launch, as a
// usage error, what rankeval propensities refuses and what the pipeline
// cannot do.
func TestPropensityFlags(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "log.jsonl")
	os.WriteFile(in, []byte(`{"query_id":"a","doc_id":"d","label":1,"position":1,"ranker":"x"}`+"\n"), 0o644)
	parse := func(args ...string) (*rankbeam.Config, error) {
		fs := flag.NewFlagSet("rankeval-beam propensities", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		o := registerPropensities(fs)
		pos, err := evalflags.Parse(fs, args)
		if err != nil {
			return nil, err
		}
		return o.config(fs, pos)
	}
	c, err := parse("--position-col", "position", "--ranker-col", "ranker", "--method", "em", "--max-position", "8", in, "--workers", "2", "--state", in+".state")
	if err != nil || len(c.Inputs) != 1 || c.Propensities.Method != "em" || c.Propensities.MaxPosition != 8 || c.Propensities.RankerCol != "ranker" ||
		c.Outputs.State != in+".state" || c.Outputs.Summary != "-" {
		t.Fatalf("rankeval propensities' flags: %v %+v", err, c)
	}
	// the step that estimates spills on a worker: into its own temporary
	// directory unless --tmp-dir names one, not the launcher's
	if c.Run.TmpDir != "" {
		t.Errorf("no --tmp-dir: the table spills under %q, the launcher's temporary directory", c.Run.TmpDir)
	}
	if c, err := parse("--position-col", "position", "--tmp-dir", dir, in); err != nil || c.Run.TmpDir != dir {
		t.Errorf("--tmp-dir %s: %v, %q", dir, err, c.Run.TmpDir)
	}
	c, err = parse("--position-col", "position", "--system", "a="+in, "--system", "b="+dir)
	if err != nil || c.Inputs != nil || len(c.Sources.System) != 2 {
		t.Fatalf("--system logs: %v %+v", err, c)
	}
	for _, args := range [][]string{
		{in},                                // no --position-col
		{"--position-col", "position"},      // no input
		{"--position-col", "position", "-"}, // standard input
		{"--position-col", "position", "--method", "both", in},
		{"--position-col", "position", "--max-position", "1", in},
		{"--position-col", "position", "--ranker-col", "ranker", "--system", "a=" + in},
		{"--position-col", "position", "--system", "a=" + in, in},
		{"--position-col", "position", "--state", "-", in},
		{"--position-col", "position", "--report", in + ".html", "--state", in + ".html", in},
		{"--position-col", "position", "--row-groups-per-part", "0", in},
	} {
		if _, err := parse(args...); !errors.Is(err, config.ErrUsage) && !errors.Is(err, rankbeam.ErrConfig) {
			t.Errorf("%q: err = %v, want a usage error", args, err)
		}
	}
	if _, err := parse("--position-col", "position", filepath.Join(dir, "none.jsonl")); !errors.Is(err, os.ErrNotExist) || errors.Is(err, config.ErrUsage) {
		t.Errorf("a missing log: err = %v, want an input error", err)
	}
}
