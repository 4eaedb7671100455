package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// fourSystems writes a log of four models' scores (s0 the baseline, s1 a
// little better, s2 about as good, s3 worse) over the given queries, and
// each model's log apart for --system (query_id, doc_id, score, label);
// all sorted by query id.
func fourSystems(t *testing.T, dir string, queries int) (log string, logs []string) {
	t.Helper()
	r := rand.New(rand.NewPCG(24, 24))
	var all strings.Builder
	sys := make([]strings.Builder, 4)
	for q := range queries {
		for d := range 8 {
			label := r.IntN(4) * r.IntN(2)
			l := float64(label)
			s := [4]float64{r.Float64() + l/6, r.Float64() + l/4, r.Float64() + l/6, r.Float64() + l/10}
			id := fmt.Sprintf("q%05d", q)
			fmt.Fprintf(&all, `{"query_id":%q,"doc_id":"d%d","label":%d,"s0":%v,"s1":%v,"s2":%v,"s3":%v}`+"\n", id, d, label, s[0], s[1], s[2], s[3])
			for i := range sys {
				fmt.Fprintf(&sys[i], `{"query_id":%q,"doc_id":"d%d","label":%d,"score":%v}`+"\n", id, d, label, s[i])
			}
		}
	}
	log = filepath.Join(dir, "four.jsonl")
	if err := os.WriteFile(log, []byte(all.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range sys {
		p := filepath.Join(dir, fmt.Sprintf("s%d.jsonl", i))
		if err := os.WriteFile(p, []byte(sys[i].String()), 0o644); err != nil {
			t.Fatal(err)
		}
		logs = append(logs, p)
	}
	return log, logs
}

// comparisonOf is a JSON summary's systems and comparisons: what must be
// the same on every path (options and inputs name the path).
func comparisonOf(t *testing.T, summary string) string {
	t.Helper()
	var v struct {
		Systems, Comparison json.RawMessage
		Gates               json.RawMessage
	}
	if err := json.Unmarshal([]byte(summary), &v); err != nil {
		t.Fatalf("%v in %s", err, summary)
	}
	return string(v.Systems) + "\n" + string(v.Comparison) + "\n" + string(v.Gates)
}

// TestComparisonEveryPath: the randomization test, Tukey HSD, the
// correction, the effect sizes and the gates give the same bytes for any
// number of workers and batch size, on --unsorted over interleaved rows,
// and with each system's log given apart (--system); a gate that fails
// exits 3 after the summary on every path.
func TestComparisonEveryPath(t *testing.T) {
	dir := t.TempDir()
	log, logs := fourSystems(t, dir, 300)
	shuffled := interleave(t, readLines(t, log), jsonQuery("query_id"), "shuffled.jsonl")
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"randomization, all pairs, BH", []string{"--pairs", "all", "--permutations", "400", "--seed", "7", "--correction", "bh", "--bootstrap", "40"}},
		{"tukey", []string{"--pairs", "all", "--test", "tukey", "--permutations", "300"}},
		{"t, baseline, gates, detect", []string{"--fail-if-worse", "ndcg@10=0.01,map=0.5", "--detect", "ndcg@10=0.01", "--detect", "map=0.02,map=9"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := append([]string{"--quiet", "--format", "json", "-m", "map,ndcg@10,mrr"}, tc.args...)
			gate := slices.Contains(tc.args, "--fail-if-worse")
			wantCode := 0
			if gate {
				wantCode = 3
			}
			runOK := func(args ...string) string {
				t.Helper()
				code, out, stderr := cli(t, append(slices.Clone(base), args...)...)
				if code != wantCode {
					t.Fatalf("%v: exit %d: %s", args, code, stderr)
				}
				return comparisonOf(t, out)
			}
			want := runOK("--score-col", "s0,s1,s2,s3", "--workers", "1", log)
			if !strings.Contains(want, `"p_corrected"`) || !strings.Contains(want, `"mde": 0.`) {
				t.Fatalf("no comparison in %s", want)
			}
			if slices.Contains(tc.args, "--detect") && strings.Count(want, `"needed": `) != 3*3 {
				t.Fatalf("want 3 --detect answers for each of 3 pairs in %s", want)
			}
			for _, args := range [][]string{
				{"--score-col", "s0,s1,s2,s3", "--workers", "2", "--batch-size", "7", log},
				{"--score-col", "s0,s1,s2,s3", "--workers", "8", "--batch-size", "1", log},
				{"--score-col", "s0,s1,s2,s3", "--unsorted", "--mem-limit", "16MiB", "--tmp-dir", t.TempDir(), shuffled},
			} {
				if got := runOK(args...); got != want {
					t.Fatalf("%v:\n%s\nwant\n%s", args, got, want)
				}
			}
			var sysArgs []string
			for i, p := range logs {
				sysArgs = append(sysArgs, "--system", fmt.Sprintf("s%d=%s", i, p))
			}
			if got := runOK(sysArgs...); got != want {
				t.Fatalf("--system logs:\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// TestComparisonFlags: the comparison flags' refusals, each a usage error
// (exit 2) naming the flag.
func TestComparisonFlags(t *testing.T) {
	dir := t.TempDir()
	log, _ := fourSystems(t, dir, 5)
	two := []string{"--score-col", "s0,s1"}
	for _, tc := range []struct {
		name string
		args []string
		msg  string
	}{
		{"unknown test", append(two, "--test", "wilcoxon"), `--test "wilcoxon": want t, randomization or tukey`},
		{"permutations with the t-test", append(two, "--test", "t", "--permutations", "100"), `--permutations and --seed are for --test randomization or tukey`},
		{"seed with the t-test", append(two, "--seed", "3"), `--permutations and --seed are for`},
		{"too many permutations", append(two, "--permutations", "100001"), `--permutations 100001: want 1 to 100000`},
		{"negative permutations", append(two, "--permutations", "-5"), `--permutations -5`},
		{"no permutations", append(two, "--test", "randomization", "--permutations", "0"), `--permutations 0: want 1 to 100000`},
		{"unknown pairs", append(two, "--pairs", "some"), `--pairs "some": want baseline or all`},
		{"unknown correction", append(two, "--correction", "bonferroni"), `--correction "bonferroni": want holm, bh or none`},
		{"one system, a test", []string{"--score-col", "s0", "--test", "tukey"}, `compare systems: give several`},
		{"one system, all pairs", []string{"--score-col", "s0", "--pairs", "all"}, `compare systems`},
		{"one system, a margin", []string{"--score-col", "s0", "--fail-if-worse", "map=0.01"}, `--fail-if-worse compares systems`},
		{"margin not a number", append(two, "--fail-if-worse", "map=x"), `--fail-if-worse: "x" is not a number`},
		{"negative margin", append(two, "--fail-if-worse", "map=-0.1"), `want a number >= 0`},
		{"infinite margin", append(two, "--fail-if-worse", "map=inf"), `want a number >= 0`},
		{"margin of a metric not computed", append(two, "--fail-if-worse", "p@10=0.1"), `"p@10" is not among the metrics computed`},
		{"one system, detect", []string{"--score-col", "s0", "--detect", "map=0.01"}, `--detect answers for a comparison of systems: give several --score-col or --system`},
		{"detect, zero difference", append(two, "--detect", "map=0"), `--detect: the difference of map is 0: want a number > 0`},
		{"detect, negative difference", append(two, "--detect", "ndcg@10=0.01", "--detect", "map=-0.01"), `--detect: the difference of map is -0.01: want a number > 0`},
		{"detect, infinite difference", append(two, "--detect", "map=inf"), `--detect: the difference of map is +Inf: want a number > 0`},
		{"detect, not a number", append(two, "--detect", "map=x"), `--detect: "x" is not a number`},
		{"detect, no difference", append(two, "--detect", "map"), `--detect "map": want metric=difference, as ndcg@10=0.005`},
		{"detect, a metric not computed", append(two, "--detect", "p@10=0.1"), `--detect: "p@10" is not among the metrics computed (-m)`},
		{"unknown format", append(two, "--format", "html"), `--format "html": want text, json, trec, latex or markdown`},
		{"too few replicates for a 95% interval, a gate on it", append(two, "--bootstrap", "2", "--fail-if-worse", "map=0.01"),
			`--bootstrap 2: want 0 (none) or at least 40 replicates: a 95% percentile interval needs each 2.5% tail to hold a replicate (40 × 2.5% = 1), or its ends are drawn from the extreme replicates and need not hold the mean`},
		{"one replicate too few", append(two, "--bootstrap", "39"), `--bootstrap 39: want 0 (none) or at least 40 replicates`},
		{"replicates beyond memory", []string{"--score-col", "s0,s1,s2,s3", "--pairs", "all", "--bootstrap", "100000", "--permutations", "100000",
			"-m", manyCutoffs(100)}, `102 metrics would hold 3.2GiB of replicate sums per worker, more than 1GiB`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := cli(t, append(append([]string{"--quiet", "-m", "map,ndcg@10"}, tc.args...), log)...)
			if code != 2 || stdout != "" || !strings.Contains(stderr, tc.msg) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2 and %q", code, stdout, stderr, tc.msg)
			}
		})
	}
}

// TestFailIfWorse: the gate fails (exit 3, after the whole summary) exactly
// when some system's lower bound is below -margin, on the t interval or,
// with --bootstrap, the bootstrap's; the summary names system, metric,
// bound and interval. s3 is clearly worse than s0; s1 better.
func TestFailIfWorse(t *testing.T) {
	dir := t.TempDir()
	log, _ := fourSystems(t, dir, 400)
	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		interval string
	}{
		{"better system passes", []string{"--score-col", "s0,s1", "--fail-if-worse", "ndcg@10=0.01"}, 0, "t"},
		{"worse system fails", []string{"--score-col", "s0,s1,s3", "--fail-if-worse", "ndcg@10=0.01"}, 3, "t"},
		{"worse by less than a large margin", []string{"--score-col", "s0,s3", "--fail-if-worse", "ndcg@10=0.9"}, 0, "t"},
		{"bootstrap interval", []string{"--score-col", "s0,s3", "--bootstrap", "200", "--fail-if-worse", "ndcg@10=0.01"}, 3, "bootstrap"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := cli(t, append(append([]string{"--quiet", "--format", "json", "-m", "map,ndcg@10"}, tc.args...), log)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s", code, tc.code, stderr)
			}
			var s struct {
				Comparison []struct {
					System  string
					Metrics map[string]struct {
						CI95     []float64 `json:"ci95"`
						CI95Boot []float64 `json:"ci95_bootstrap"`
					}
				}
				Gates struct {
					Passed bool
					Worse  []struct {
						Metric, System, Interval string
						Margin, Lower            float64
						Passed                   bool
					}
				}
			}
			if err := json.Unmarshal([]byte(out), &s); err != nil {
				t.Fatal(err)
			}
			if len(s.Gates.Worse) != len(s.Comparison) || s.Gates.Passed != (tc.code == 0) {
				t.Fatalf("gates %+v for %d comparisons", s.Gates, len(s.Comparison))
			}
			for i, w := range s.Gates.Worse {
				c := s.Comparison[i]
				ci := c.Metrics["ndcg@10"].CI95
				if tc.interval == "bootstrap" {
					ci = c.Metrics["ndcg@10"].CI95Boot
				}
				if w.System != c.System || w.Metric != "ndcg@10" || w.Interval != tc.interval || w.Lower != ci[0] ||
					w.Passed != (ci[0] >= -w.Margin) {
					t.Errorf("gate %+v for the interval %v of %s", w, ci, c.System)
				}
			}
			if tc.code == 3 && !regexp.MustCompile(`quality gate failed: ndcg@10 of s3: lower bound -[0-9.]+ of the 95% `+tc.interval).MatchString(stderr) {
				t.Errorf("stderr %q", stderr)
			}
		})
	}
}

// TestFailIfWorseMerged: the gate works on merged states: two halves'
// states merged with --fail-if-worse give one run's summary, gates and
// exit 3.
func TestFailIfWorseMerged(t *testing.T) {
	dir := t.TempDir()
	log, _ := fourSystems(t, dir, 400)
	lines := readLines(t, log)
	half := len(lines) / 2 // 8 rows a query: a query is never split
	args := []string{"--quiet", "--format", "json", "-m", "map,ndcg@10", "--score-col", "s0,s1,s3", "--pairs", "all", "--permutations", "200"}
	var states []string
	for i, part := range [][]string{lines[:half], lines[half:]} {
		p := filepath.Join(dir, fmt.Sprintf("half%d.jsonl", i))
		if err := os.WriteFile(p, []byte(strings.Join(part, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		st := p + ".state"
		if code, _, stderr := cli(t, append(slices.Clone(args), "--state", st, "--output", p+".json", p)...); code != 0 {
			t.Fatal(stderr)
		}
		states = append(states, st)
	}
	gate := []string{"--fail-if-worse", "ndcg@10=0.01"}
	code, want, _ := cli(t, append(append(slices.Clone(args), gate...), log)...)
	if code != 3 {
		t.Fatalf("one run: exit %d", code)
	}
	code, got, stderr := cli(t, append(append([]string{"merge", "--format", "json"}, gate...), states...)...)
	if code != 3 || comparisonOf(t, got) != comparisonOf(t, want) || !strings.Contains(got, `"worse": [{"metric": "ndcg@10", "system": "s1"`) {
		t.Fatalf("merge: exit %d: %s\n%s\nwant\n%s", code, stderr, got, want)
	}
}

// manyCutoffs is -m p@1,...,p@n.
func manyCutoffs(n int) string {
	var ms []string
	for k := 1; k <= n; k++ {
		ms = append(ms, fmt.Sprintf("p@%d", k))
	}
	return strings.Join(ms, ",")
}
