package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRBPEqualsDropIn: rbp:0.8 and rbp_resid:0.9 of the ordinary command
// (--profile trec_eval, --format trec) print, query by query and in the
// summary, what rankeval trec_eval -m rbp.p=0.8 -m rbp_resid prints on
// the same qrels and run, with -c (--complete; the run's queries without
// judgments left out: trec_eval 10.0 stops at one, as at a judged query
// missing from the run without -c), a judged query the run lacks
// counting rbp 0 and rbp_resid 0 in the summary; and on a log of
// graded labels, rbp is (1−p) Σ g_i p^(i−1) with the gains scaled by the
// query's largest label, as trec_eval scales a table above 1.
func TestRBPEqualsDropIn(t *testing.T) {
	for _, ref := range []string{"trec_a", "trec_b"} {
		t.Run(ref, func(t *testing.T) {
			td := filepath.Join("..", "..", "testdata", "reference", ref)
			qrels := filepath.Join(td, "qrels.txt")
			judged := map[string]bool{}
			for _, l := range readLines(t, qrels) {
				judged[strings.Fields(l)[0]] = true
			}
			var run strings.Builder
			for _, l := range readLines(t, filepath.Join(td, "run.txt")) {
				if judged[strings.Fields(l)[0]] {
					run.WriteString(l + "\n")
				}
			}
			path := filepath.Join(t.TempDir(), "run.txt")
			if err := os.WriteFile(path, []byte(run.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			code, drop, stderr := cli(t, "trec_eval", "-q", "-c", "-m", "rbp.p=0.8", "-m", "rbp_resid", qrels, path)
			if code != 0 {
				t.Fatal(stderr)
			}
			code, ord, stderr := cli(t, "--quiet", "--qrels", qrels, "--profile", "trec_eval", "--complete", "-m", "rbp:0.8,rbp_resid:0.9", "--format", "trec", "--per-query", "-", path)
			if code != 0 {
				t.Fatal(stderr)
			}
			// the values by name and query: the ordinary command names them as written
			values := func(out, rbp, resid string) map[string]string {
				m := map[string]string{}
				for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
					f := strings.Split(l, "\t")
					switch strings.TrimSpace(f[0]) {
					case rbp:
						m["rbp "+f[1]] = f[2]
					case resid:
						m["resid "+f[1]] = f[2]
					}
				}
				return m
			}
			want, got := values(drop, "rbp_p=0.8", "rbp_resid"), values(ord, "rbp:0.8", "rbp_resid:0.9")
			if len(want) < 40 || want["rbp all"] == "" {
				t.Fatalf("drop-in printed %d values:\n%.300s", len(want), drop)
			}
			// the ordinary command prints no per-query line for a judged
			// query the run lacks (--complete counts it in the summary)
			absent := 0
			for k, v := range want {
				if g, ok := got[k]; ok && g != v || !ok && !(strings.HasPrefix(k, "rbp ") && v == "0.0000" || strings.HasPrefix(k, "resid ") && v == "0.0000") {
					t.Errorf("%s: ordinary %q, drop-in %q", k, got[k], v)
				}
				if _, ok := got[k]; !ok {
					absent++
				}
			}
			if len(got)+absent != len(want) || got["resid all"] == "" {
				t.Errorf("%d values and %d absent, drop-in %d", len(got), absent, len(want))
			}
		})
	}
	log := filepath.Join(t.TempDir(), "log.jsonl")
	os.WriteFile(log, []byte(`{"query_id":"a","score":3,"label":2}
{"query_id":"a","score":2,"label":0}
{"query_id":"a","score":1,"label":1}
`), 0o644)
	code, out, stderr := cli(t, "--quiet", "--format", "json", "-m", "rbp:0.5,rbp_resid:0.5", log)
	// gains 2, 0, 1 scaled by 2: 0.5·(1 + 0.5²·0.5) = 0.5625; every row
	// judged: no residual, as trec_eval's rbp_resid without an unjudged row
	if code != 0 || !strings.Contains(out, `"rbp:0.5": {"mean": 0.5625,`) || !strings.Contains(out, `"rbp_resid:0.5": {"mean": 0,`) {
		t.Fatalf("exit %d: %s %s", code, out, stderr)
	}
}

// TestRBPTiesAverage: rbp and rbp_resid read the whole ranking's order and
// have no exact expectation over the orders of tied rows yet, so --ties
// average refuses them (exit 2) rather than give one order's value: two
// tied rows labelled 1 and 0 would give rbp:0.5 0.5 (input order), where
// the expectation is (0.5 + 0.25)/2.
func TestRBPTiesAverage(t *testing.T) {
	log := filepath.Join(t.TempDir(), "log.jsonl")
	if err := os.WriteFile(log, []byte(`{"query_id":"q","doc_id":"a","score":1,"label":1}
{"query_id":"q","doc_id":"b","score":1,"label":0}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"rbp:0.5", "rbp_resid:0.5"} {
		t.Run(m, func(t *testing.T) {
			code, out, stderr := cli(t, "--quiet", "--ties", "average", "-m", "ndcg,"+m, log)
			if code != 2 || !strings.Contains(stderr, `metric "`+m+`" has no exact expectation under --ties average`) {
				t.Fatalf("exit %d, stderr %q, out %.200s", code, stderr, out)
			}
		})
	}
}
