package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/metrics"
)

// trecValues reads --format trec per-query output (and rankeval
// trec_eval -q's) of one measure into its values by query, "all" the
// summary's; num_q is left out.
func trecValues(t *testing.T, out string) map[string]string {
	t.Helper()
	v := map[string]string{}
	name := ""
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Split(l, "\t")
		if len(f) != 3 || strings.TrimSpace(f[0]) == "num_q" {
			continue
		}
		if n := strings.TrimSpace(f[0]); name == "" {
			name = n
		} else if n != name {
			t.Fatalf("two measures, %s and %s, in:\n%.400s", name, n, out)
		}
		v[f[1]] = strings.TrimSpace(f[2])
	}
	return v
}

// judgedRun writes the rows of the reference run ref and of its qrels
// whose queries both hold (trec_eval 10.0 stops at any other) and
// returns their paths.
func judgedRun(t *testing.T, ref string) (run, qrels string) {
	td := filepath.Join("..", "..", "testdata", "reference", ref)
	runLines, qrelsLines := readLines(t, filepath.Join(td, "run.txt")), readLines(t, filepath.Join(td, "qrels.txt"))
	inRun, judged := map[string]bool{}, map[string]bool{}
	for _, l := range runLines {
		inRun[strings.Fields(l)[0]] = true
	}
	for _, l := range qrelsLines {
		judged[strings.Fields(l)[0]] = true
	}
	write := func(name string, lines []string, keep map[string]bool) string {
		var b strings.Builder
		for _, l := range lines {
			if keep[strings.Fields(l)[0]] {
				b.WriteString(l + "\n")
			}
		}
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	return write("run.txt", runLines, judged), write("qrels.txt", qrelsLines, inRun)
}

// TestIRMeasuresAsTrecEval: a measure named in ir_measures' syntax is,
// query by query and in the mean, what its default provider computes:
// trec_eval's measure under trec_eval's options (pytrec_eval is trec_eval
// 9.0.8: rankeval trec_eval --release 9.0.8, itself checked against
// trec_eval), gdeval's for ERR and nDCG(dcg='exp-log2'), and rankeval's
// own name under the matching profile for those trec_eval lacks (RR@k,
// Judged@k) — whatever the run's own conventions (none given here:
// ties input, gain exp, empty skip, label > 0).
func TestIRMeasuresAsTrecEval(t *testing.T) {
	cases := []struct {
		ir   string
		peer []string // rankeval trec_eval's arguments, or the ordinary command's
	}{
		{"nDCG@10", []string{"trec_eval", "-m", "ndcg_cut.10"}},
		{"NDCG", []string{"trec_eval", "-m", "ndcg"}},
		{"P(rel=2)@5", []string{"trec_eval", "-l", "2", "-m", "P.5"}},
		{"P@10", []string{"trec_eval", "-m", "P.10"}},
		{"P(rel=0)@5", []string{"trec_eval", "-l", "0", "-m", "P.5"}},
		{"AP(rel=0)", []string{"trec_eval", "-l", "0", "-m", "map"}},
		{"AP(rel=2)", []string{"trec_eval", "-l", "2", "-m", "map"}},
		{"MAP@100", []string{"trec_eval", "-m", "map_cut.100"}},
		{"R@1000", []string{"trec_eval", "-m", "recall.1000"}},
		{"Recall(rel=2)@10", []string{"trec_eval", "-l", "2", "-m", "recall.10"}},
		{"RR", []string{"trec_eval", "-m", "recip_rank"}},
		{"Rprec", []string{"trec_eval", "-m", "Rprec"}},
		{"Success@5", []string{"trec_eval", "-m", "success.5"}},
		{"Bpref(rel=2)", []string{"trec_eval", "-l", "2", "-m", "bpref"}},
		{"SetF", []string{"trec_eval", "-m", "set_F"}},
		{"SetF(rel=2,beta=0.5)", []string{"trec_eval", "-l", "2", "-m", "set_F.0.5"}},
		{"SetP(relative=True)", []string{"trec_eval", "-m", "set_relative_P"}},
		{"SetR", []string{"trec_eval", "-m", "set_recall"}},
		{"SetAP", []string{"trec_eval", "-m", "set_map"}},
		{"NumRet(rel=2)", []string{"trec_eval", "-l", "2", "-m", "num_rel_ret"}},
		{"NumRel", []string{"trec_eval", "-m", "num_rel"}},
		{"IPrec@0.2", []string{"trec_eval", "-m", "iprec_at_recall.0.20"}},
		{"nDCG(judged_only=True)@10", []string{"trec_eval", "-J", "-m", "ndcg_cut.10"}},
		{"P(judged_only=True, rel=2)@10", []string{"trec_eval", "-J", "-l", "2", "-m", "P.10"}},
		{"RBP(p=0.8)", []string{"trec_eval", "-m", "rbp.p=0.8"}},
		{"RBP", []string{"trec_eval", "-m", "rbp.p=0.8"}},
		// gdeval prints no line for a topic without a relevant document:
		// ir_measures scores it 0 (Measure.DEFAULT), as --empty zero does
		{"ERR@20", []string{"--profile", "gdeval", "--empty", "zero", "-m", "err@20"}},
		{"nDCG(dcg='exp-log2')@10", []string{"--profile", "gdeval", "--empty", "zero", "-m", "ndcg@10"}},
	}
	for _, ref := range []string{"trec_a", "trec_b"} {
		run, qrels := judgedRun(t, ref)
		for _, c := range cases {
			t.Run(ref+"/"+c.ir, func(t *testing.T) {
				code, got, stderr := cli(t, "--quiet", "--qrels", qrels, "-m", c.ir, "--format", "trec", "--per-query", "-", run)
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				args := c.peer
				if args[0] == "trec_eval" {
					release := "9.0.8"
					if slices.Contains(args, "rbp.p=0.8") {
						release = "10.0" // rbp is 10.0's
					}
					args = append(append([]string{"trec_eval", "--release", release, "-q"}, args[1:]...), qrels, run)
				} else {
					args = append(append([]string{"--quiet", "--qrels", qrels, "--format", "trec", "--per-query", "-"}, args...), run)
				}
				code, want, stderr := cli(t, args...)
				if code != 0 {
					t.Fatalf("peer %v: exit %d: %s", args, code, stderr)
				}
				g, w := trecValues(t, got), trecValues(t, want)
				if len(w) < 40 || w["all"] == "" {
					t.Fatalf("peer printed %d values:\n%.300s", len(w), want)
				}
				for q, v := range w {
					if g[q] != v {
						t.Errorf("query %s: %s %q, peer %q", q, c.ir, g[q], v)
					}
				}
				if len(g) != len(w) {
					t.Errorf("%d values, peer %d", len(g), len(w))
				}
			})
		}
	}
}

// pyProviders is ir_measures' msmarco RR@k and judged Judged@k, written
// again from their Python source: a query's documents sorted by
// (−score, doc id), RR@k the reciprocal rank of the first within k
// judged >= 1, Judged@k the share of the first min(k, n) in the qrels
// (any label); only the run's queries the qrels hold. Values as
// --format trec prints them.
func pyProviders(t *testing.T, qrels, run string, k int) (rr, judged map[string]string) {
	type doc struct {
		id    string
		score float64
	}
	labels := map[string]map[string]float64{}
	for _, l := range readLines(t, qrels) {
		f := strings.Fields(l)
		if labels[f[0]] == nil {
			labels[f[0]] = map[string]float64{}
		}
		v, err := strconv.ParseFloat(f[3], 64)
		if err != nil {
			t.Fatal(err)
		}
		labels[f[0]][f[2]] = v
	}
	docs := map[string][]doc{}
	for _, l := range readLines(t, run) {
		f := strings.Fields(l)
		s, err := strconv.ParseFloat(f[4], 64)
		if err != nil {
			t.Fatal(err)
		}
		docs[f[0]] = append(docs[f[0]], doc{f[2], s})
	}
	rr, judged = map[string]string{}, map[string]string{}
	var rrSum, jSum float64
	for q, ds := range docs {
		qr := labels[q]
		if qr == nil {
			continue
		}
		slices.SortFunc(ds, func(a, b doc) int {
			if a.score != b.score {
				return cmp.Compare(b.score, a.score)
			}
			return strings.Compare(a.id, b.id)
		})
		top := ds[:min(k, len(ds))]
		r, j := 0.0, 0
		for i, d := range top {
			if v, ok := qr[d.id]; ok {
				j++
				if v >= 1 && r == 0 {
					r = 1 / float64(i+1)
				}
			}
		}
		rr[q], judged[q] = fmt.Sprintf("%.4f", r), fmt.Sprintf("%.4f", float64(j)/float64(len(top)))
		rrSum += r
		jSum += float64(j) / float64(len(top))
	}
	rr["all"], judged["all"] = fmt.Sprintf("%.4f", rrSum/float64(len(rr))), fmt.Sprintf("%.4f", jSum/float64(len(judged)))
	return rr, judged
}

// TestIRMeasuresPythonProviders: RR@k and Judged@k are, query by query
// and in the mean, what ir_measures' msmarco and judged providers compute
// (ties by doc id ascending, where trec_eval breaks them descending:
// trec_b's Judged@10 differs from judged@10 --ties trec on 16 of 189 queries).
func TestIRMeasuresPythonProviders(t *testing.T) {
	for _, ref := range []string{"trec_a", "trec_b"} {
		run, qrels := judgedRun(t, ref)
		for _, k := range []int{1, 3, 10} {
			rr, judged := pyProviders(t, qrels, run, k)
			for _, c := range []struct {
				ir   string
				want map[string]string
			}{{fmt.Sprintf("RR@%d", k), rr}, {fmt.Sprintf("MRR@%d", k), rr}, {fmt.Sprintf("Judged@%d", k), judged}} {
				t.Run(ref+"/"+c.ir, func(t *testing.T) {
					code, out, stderr := cli(t, "--quiet", "--qrels", qrels, "-m", c.ir, "--format", "trec", "--per-query", "-", run)
					if code != 0 {
						t.Fatalf("exit %d: %s", code, stderr)
					}
					got := trecValues(t, out)
					for q, v := range c.want {
						if got[q] != v {
							t.Errorf("query %s: %s %q, ir_measures %q", q, c.ir, got[q], v)
						}
					}
					if len(got) != len(c.want) {
						t.Errorf("%d values, ir_measures %d", len(got), len(c.want))
					}
				})
			}
		}
	}
}

// TestIRMeasuresBesideOwn: in one run, each metric keeps its own
// conventions: ir_measures' names their provider's, rankeval's the run's
// (so nDCG@10 and ndcg@10 differ, each equal to its run alone); a run
// query the qrels do not judge is left out of ir_measures' measures
// only, as ir_measures evaluates the queries of its qrels; a gate and
// the JSON name an ir_measures measure as written.
func TestIRMeasuresBesideOwn(t *testing.T) {
	td := filepath.Join("..", "..", "testdata", "reference", "trec_a")
	qrels, run := filepath.Join(td, "qrels.txt"), filepath.Join(td, "run.txt")
	both := "nDCG@10,ndcg@10,P(rel=2)@5,ERR@20,err@20,SetF(rel=2,beta=0.5)"
	code, out, stderr := cli(t, "--quiet", "--qrels", qrels, "-m", both, "--format", "json", run)
	if code != 0 {
		t.Fatal(stderr)
	}
	mixed := parseSummary(t, out)
	for _, m := range metrics.SplitMetrics(both) {
		code, out, stderr := cli(t, "--quiet", "--qrels", qrels, "-m", m, "--format", "json", run)
		if code != 0 {
			t.Fatal(stderr)
		}
		alone := parseSummary(t, out).Metrics[m]
		got := mixed.Metrics[m]
		if got.Mean == nil || alone.Mean == nil || *got.Mean != *alone.Mean || got.Queries != alone.Queries {
			t.Errorf("%s: %+v beside the others, %+v alone", m, got, alone)
		}
	}
	// 59 run queries, 8 without judgments; of 52 judged queries one is
	// not in the run; 11 of the 51 have no label > 0 (the run's empty)
	for m, n := range map[string]int64{"nDCG@10": 51, "P(rel=2)@5": 51, "ndcg@10": 48, "ERR@20": 51} {
		if q := mixed.Metrics[m].Queries; q != n {
			t.Errorf("%s over %d queries, want %d", m, q, n)
		}
	}
	if a, b := *mixed.Metrics["nDCG@10"].Mean, *mixed.Metrics["ndcg@10"].Mean; a == b {
		t.Errorf("nDCG@10 and ndcg@10 both %v: want trec_eval's and the run's conventions", a)
	}
	code, _, stderr = cli(t, "--quiet", "--qrels", qrels, "-m", both, "--fail-under", "P(rel=2)@5=0.9", run)
	if code != 3 || !strings.Contains(stderr, "P(rel=2)@5") {
		t.Errorf("gate on P(rel=2)@5: exit %d, %s", code, stderr)
	}
	code, _, stderr = cli(t, "--quiet", "--qrels", qrels, "-m", both, "--fail-under", "P(rel=2)@5=0.1,SetF(rel=2,beta=0.5)=0.1", run)
	if code != 0 {
		t.Errorf("gates met: exit %d, %s", code, stderr)
	}
}

// TestIRMeasuresRefused: every measure of ir_measures that rankeval does
// not compute, and every parameter it cannot honour, is refused by name
// with exit 2.
func TestIRMeasuresRefused(t *testing.T) {
	log := filepath.Join("..", "..", "testdata", "sample.jsonl.zst")
	for _, c := range []struct{ m, want string }{
		{"alpha_nDCG@10", "alpha_nDCG is a diversity measure"},
		{"infAP", "rankeval trec_eval -m infAP computes it"},
		{"SDCG(max_rel=3)@10", "SDCG is a C/W/L measure"},
		{"nDCG(gains={0:0,1:1})@10", "takes no gain table"},
		{"P(rel=2.5)@5", "rel=2.5: want a whole number"},
		{"P@5(rel=2)", "ir_measures' syntax is"},
		{"P", "P needs a cutoff"},
		{"ERR", "ERR needs a cutoff"},
		{"Rprec@5", "takes no cutoff"},
		{"RBP(rel=1)", "cwl_eval RBP, of binary gains"},
		{"RBP(p=1)", "p=1: want a persistence"},
		{"nDCG(rel=2)@10", "nDCG has no parameter rel"},
		{"nDCG(dcg='exp-log2')", "needs a cutoff"},
		{"P(cutoff=5)@5", "given twice"},
		{"AP(judged_only=maybe)", "want True or False"},
	} {
		t.Run(c.m, func(t *testing.T) {
			code, _, stderr := cli(t, "--quiet", "-m", c.m, log)
			if code != 2 || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, c.m) {
				t.Errorf("exit %d, %q; want 2 and %q naming the measure", code, stderr, c.want)
			}
		})
	}
}

// parseSummary reads a --format json summary.
func parseSummary(t *testing.T, out string) summaryJSON {
	t.Helper()
	var s summaryJSON
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("%v:\n%.300s", err, out)
	}
	return s
}

// TestIRMeasuresCountAbsentQueries: ir_measures scores 0 every query of
// its qrels that the run lacks (providers.Evaluator.iter_calc fills
// Measure.DEFAULT for each qrels query without a value), so its nDCG@10
// on trec_a, whose qrels judge query 145 that the run lacks, is the mean
// over 52 queries, trec_eval -c's 0.3145. --complete gives that; without
// it the query is left out, as from every metric, and stderr says to add
// it to match ir_measures.
func TestIRMeasuresCountAbsentQueries(t *testing.T) {
	td := filepath.Join("..", "..", "testdata", "reference", "trec_a")
	qrels, run := filepath.Join(td, "qrels.txt"), filepath.Join(td, "run.txt")
	for _, c := range []struct {
		extra   []string
		queries int64
		note    string
	}{
		{nil, 51, "ignored (--complete counts them as 0, as ir_measures does in its measures: add it to match ir_measures' means)"},
		{[]string{"--complete"}, 52, "counted as 0 (--complete)"},
	} {
		args := append([]string{"--qrels", qrels, "-m", "nDCG@10,ERR@20", "--format", "json", run}, c.extra...)
		code, out, stderr := cli(t, args...)
		if code != 0 {
			t.Fatal(stderr)
		}
		s := parseSummary(t, out)
		for _, m := range []string{"nDCG@10", "ERR@20"} {
			if q := s.Metrics[m].Queries; q != c.queries {
				t.Errorf("%v: %s over %d queries, want %d", c.extra, m, q, c.queries)
			}
		}
		if !strings.Contains(stderr, "1 judged queries are missing from the run: "+c.note) {
			t.Errorf("%v: stderr lacks %q:\n%s", c.extra, c.note, stderr)
		}
	}
	if q := parseSummary(t, func() string {
		_, out, _ := cli(t, "--quiet", "--qrels", qrels, "-m", "nDCG@10", "--format", "json", "--complete", run)
		return out
	}()).Metrics["nDCG@10"].Mean; q == nil || fmt.Sprintf("%.4f", *q) != "0.3145" {
		t.Errorf("nDCG@10 with --complete: %v, want trec_eval -c's 0.3145", q)
	}
}
