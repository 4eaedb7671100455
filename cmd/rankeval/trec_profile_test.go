package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/internal/vectors"
)

// TestTrecMeasuresBitIdentical: trec_eval's measures aggregate like every
// other metric, so the JSON summary (17 significant digits) and the
// per-query lines are the same bytes for any worker count and batch size,
// sorted or --unsorted.
func TestTrecMeasuresBitIdentical(t *testing.T) {
	td := filepath.Join("..", "..", "testdata", "reference", "trec_b")
	args := []string{"--quiet", "--qrels", filepath.Join(td, "qrels.txt"), "--profile", "trec_eval", "--complete", "--format", "json",
		"-m", "num_q,num_ret,num_rel,num_rel_ret,bpref,gm_map,iprec@0,iprec@0.5,iprec@1,judged@5,judged,map", "--per-query", "-"}
	run := filepath.Join(td, "run.txt")
	_, want, _ := cli(t, append(args, "--workers", "1", "--batch-size", "8192", run)...)
	if !strings.Contains(want, `"num_q"`) {
		t.Fatalf("no num_q in %.300s", want)
	}
	for _, v := range []struct{ workers, batch string }{{"2", "1"}, {"3", "7"}, {"8", "8192"}} {
		for _, extra := range [][]string{nil, {"--unsorted"}} {
			a := append(append(slices.Clone(args), extra...), "--workers", v.workers, "--batch-size", v.batch, run)
			code, got, stderr := cli(t, a...)
			want := want
			if extra != nil { // --unsorted writes per-query records in partition order
				got, want = summaryOnly(got), summaryOnly(want)
			}
			if code != 0 || got != want {
				t.Fatalf("--workers %s --batch-size %s %v: exit %d (%s)\n%s", v.workers, v.batch, extra, code, stderr, vectors.FirstDiff(want, got))
			}
		}
	}
}

// summaryOnly is the last line of a --per-query - --format json output:
// the summary.
func summaryOnly(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// TestRepeatedMetricFlags: as trec_eval's -m, a repeated -m adds to the
// list, and P.5,10 is one metric per cutoff; nothing is dropped.
func TestRepeatedMetricFlags(t *testing.T) {
	sample := filepath.Join("..", "..", "testdata", "sample.jsonl.zst")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"-m", "ndcg@10", "-m", "map"}, []string{"ndcg@10", "map"}},
		{[]string{"-m", "P.5,10"}, []string{"p.5", "p.10"}},
		{[]string{"--metrics", "mrr", "-m", "ndcg@5,10"}, []string{"mrr", "ndcg@5", "ndcg@10"}},
	} {
		code, out, stderr := cli(t, append(append([]string{"--quiet"}, c.args...), sample)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		var got []string
		for _, l := range strings.Split(out, "\n")[1:] {
			if l == "" { // the table ends
				break
			}
			got = append(got, strings.Fields(l)[0])
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%v: metrics %v, want %v\n%s", c.args, got, c.want, out)
		}
	}
}
