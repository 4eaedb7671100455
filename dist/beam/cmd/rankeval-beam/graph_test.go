package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/runtime/graphx"
	"google.golang.org/protobuf/proto"

	"github.com/rankeval/rankeval/evalflags"
)

// graphSize builds the job for the command line args as the launcher
// does and returns the size of its serialized job graph (the pipeline
// proto a runner receives).
func graphSize(t *testing.T, args ...string) int {
	t.Helper()
	fs := flag.NewFlagSet("rankeval-beam", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o := register(fs)
	pos, err := evalflags.Parse(fs, args)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := o.config(fs, pos)
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := build(o, cfg)
	if err != nil {
		t.Fatal(err)
	}
	edges, _, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	env, err := graphx.CreateEnvironment(context.Background(), "beam:env:loopback:v1", func(context.Context) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	pb, err := graphx.Marshal(edges, &graphx.Options{Environment: env})
	if err != nil {
		t.Fatal(err)
	}
	b, err := proto.Marshal(pb)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

// TestGraphSize: the job graph does not grow with the number of input
// files: 50,000 files in a directory (a partitioned lake) make a graph of
// the same size as 5 files do, far below what Dataflow accepts (10 MB).
func TestGraphSize(t *testing.T) {
	n := 50_000
	lake := filepath.Join(t.TempDir(), "lake")
	for d := range 50 {
		dir := filepath.Join(lake, fmt.Sprintf("date=2026-01-%02d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for f := range n / 50 {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("part-%05d.jsonl", f)), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	small := filepath.Join(t.TempDir(), "small")
	os.Mkdir(small, 0o755)
	for f := range 5 {
		os.WriteFile(filepath.Join(small, fmt.Sprintf("part-%05d.jsonl", f)), nil, 0o644)
	}
	args := []string{"-m", "ndcg@10,map", "--by", "market", "--per-query", filepath.Join(t.TempDir(), "pq"), "--report", filepath.Join(t.TempDir(), "r.html")}
	big, few := graphSize(t, append(args, lake)...), graphSize(t, append(args, small)...)
	t.Logf("job graph: %d bytes for %d files, %d bytes for 5", big, n, few)
	if big >= 1<<20 {
		t.Fatalf("job graph for %d files is %d bytes, want < 1 MB", n, big)
	}
	// the paths differ in length, not the graph's structure
	if d := big - few; d < -64 || d > 64 {
		t.Fatalf("job graph grows with the files: %d bytes for %d, %d for 5", big, n, few)
	}
}
