package main

import (
	"encoding/json"
	"os"
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
		"-m", "num_q,num_ret,num_rel,num_rel_ret,bpref,gm_map,iprec@0,iprec@0.5,iprec@1,judged@5,judged,map,rbp:0.8,rbp_resid:0.8", "--per-query", "-"}
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

// TestTrecConventionsNote: a TREC run under no --profile says on stderr
// and in the JSON summary's warnings which conventions differ from
// trec_eval's and that --profile trec_eval reproduces its numbers; a run
// under trec_eval's conventions, given one by one or by the profile, and
// a log without --qrels say nothing; a merge of states says it again.
func TestTrecConventionsNote(t *testing.T) {
	ref := filepath.Join(vectors.TestdataDir(t), "reference", "trec_a")
	qrels, run := filepath.Join(ref, "qrels.txt"), filepath.Join(ref, "run.txt")
	const note = "rankeval: note: conventions differ from trec_eval's: "
	for _, tc := range []struct {
		name string
		args []string
		want string // the note after its lead, "" for none
	}{
		{"defaults", nil, "--ties input (trec_eval: trec), --gain exp (trec_eval: linear), --empty skip (trec_eval: zero), relevant when label > 0 (trec_eval: --rel-threshold 1); --profile trec_eval reproduces its numbers"},
		{"gain only", []string{"--ties", "trec", "--empty", "zero", "--rel-threshold", "1"}, "--gain exp (trec_eval: linear); --profile trec_eval reproduces its numbers"},
		{"threshold 2", []string{"--ties", "trec", "--gain", "linear", "--empty", "zero", "--rel-threshold", "2"}, "--rel-threshold 2 (trec_eval: 1); --profile trec_eval reproduces its numbers"},
		{"trec_eval's conventions", []string{"--ties", "trec", "--gain", "linear", "--empty", "zero", "--rel-threshold", "1"}, ""},
		{"profile", []string{"--profile", "trec_eval"}, ""},
		{"profile gdeval", []string{"--profile", "gdeval"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := cli(t, append(append([]string{"--format", "json", "-m", "ndcg@10,map", "--qrels", qrels}, tc.args...), run)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if tc.want == "" {
				if strings.Contains(stderr, "note:") || strings.Contains(out, "warnings") {
					t.Fatalf("a note where none is due:\n%s%s", stderr, out)
				}
				return
			}
			if !strings.Contains(stderr, note+tc.want+"\n") {
				t.Fatalf("stderr %q lacks %q", stderr, tc.want)
			}
			var sum struct{ Warnings []string }
			if err := json.Unmarshal([]byte(out), &sum); err != nil {
				t.Fatal(err)
			}
			if len(sum.Warnings) != 1 || sum.Warnings[0] != strings.TrimPrefix(note, "rankeval: note: ")+tc.want {
				t.Fatalf("warnings %q", sum.Warnings)
			}
		})
	}
	t.Run("merge", func(t *testing.T) {
		st := filepath.Join(t.TempDir(), "a.state")
		if code, _, stderr := cli(t, "--quiet", "-m", "map", "--qrels", qrels, "--state", st, run); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		code, out, stderr := cli(t, "merge", "--format", "json", st)
		if code != 0 || !strings.Contains(stderr, note) || !strings.Contains(out, `"warnings": ["conventions differ from trec_eval's`) {
			t.Fatalf("exit %d: %s%s", code, out, stderr)
		}
	})
	t.Run("log", func(t *testing.T) {
		dir := t.TempDir()
		in := filepath.Join(dir, "log.jsonl")
		os.WriteFile(in, []byte(`{"query_id":"q","doc_id":"a","score":1,"label":1}`+"\n"), 0o644)
		if code, out, stderr := cli(t, "--format", "json", "-m", "map", in); code != 0 || strings.Contains(stderr, "note:") || strings.Contains(out, "warnings") {
			t.Fatalf("exit %d: %s%s", code, out, stderr)
		}
	})
}
