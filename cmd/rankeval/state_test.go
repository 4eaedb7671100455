package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/internal/synth"
	"github.com/rankeval/rankeval/state"
)

// weekOfLogs writes seven day files of one log, Parquet and JSONL mixed
// (each day its own queries, with markets and a second model's score), and
// returns them in day order.
func weekOfLogs(t *testing.T, dir string) []string {
	t.Helper()
	var days []string
	for d, rows := range weekOfRows() {
		ext := ".jsonl"
		if d%2 == 1 {
			ext = ".parquet"
		}
		p := filepath.Join(dir, fmt.Sprintf("dt=2026-11-%02d%s", 16+d, ext))
		if err := synth.Write(p, &synth.Rows{R: rows}, -1, synth.Options{}); err != nil {
			t.Fatal(err)
		}
		days = append(days, p)
	}
	return days
}

// weekOfRows is the rows of weekOfLogs's days, the same at every call.
func weekOfRows() [][]synth.Row {
	r := rand.New(rand.NewPCG(7, 7))
	var days [][]synth.Row
	for d := range 7 {
		var rows []synth.Row
		for q := range 40 + 5*d {
			for doc := range 12 {
				label := float64(r.IntN(5)) * float64(r.IntN(2))
				rows = append(rows, synth.Row{Query: fmt.Sprintf("d%d-q%03d", d, q), Doc: fmt.Sprintf("doc%d", doc),
					Score: r.Float64(), ScoreB: r.Float64() + label/8, HasScoreB: true, ScoreC: r.Float64() + label/20, HasScoreC: true, Label: label,
					Market: fmt.Sprintf("m%d", (q+d)%4)})
			}
		}
		days = append(days, rows)
	}
	return days
}

// TestStateMergeEqualsOneRun: the merged states of seven days print the
// summary one run over the seven days' logs prints, byte for byte, merged
// in any order or grouping; the report holds the same figures.
func TestStateMergeEqualsOneRun(t *testing.T) {
	dir := t.TempDir()
	days := weekOfLogs(t, dir)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"default metrics", nil},
		{"slices", []string{"--by", "market"}},
		{"two models with a bootstrap", []string{"--score-col", "score,score_b", "--bootstrap", "200", "--by", "market"}},
		{"two models, detect", []string{"--score-col", "score,score_b", "-m", "ndcg@10,map", "--detect", "ndcg@10=0.01,map=0.003"}},
		{"three models, every pair, randomization", []string{"--score-col", "score,score_b,score_c", "--pairs", "all", "--permutations", "300",
			"--seed", "4", "--correction", "bh", "--by", "market"}},
		{"three models, Tukey", []string{"--score-col", "score,score_b,score_c", "--test", "tukey", "--permutations", "200", "--correction", "none"}},
		{"rank similarity", []string{"--score-col", "score,score_b,score_c", "-m", "ndcg@10,overlap@5,jaccard@5,churn@3,rbo:0.9,rbo_res:0.8@5,rbo_ext:0.9,tau@5",
			"--pairs", "all", "--bootstrap", "100", "--by", "market"}},
		{"ir_measures' names beside rankeval's", []string{"--score-col", "score,score_b", "-m", "nDCG@10,ndcg@10,P(rel=2)@5,SetF(rel=2,beta=0.5),ERR@5,RBP(p=0.5),AP",
			"--by", "market"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			args := append([]string{"--quiet", "--format", "json"}, tc.args...)
			code, want, stderr := cli(t, append(append(args, "--report", filepath.Join(tmp, "one.html")), days...)...)
			if code != 0 {
				t.Fatal(stderr)
			}
			var states []string
			for i, day := range days {
				st := filepath.Join(tmp, fmt.Sprintf("day%d.state", i))
				if code, _, stderr := cli(t, append(args, "--state", st, day)...); code != 0 {
					t.Fatal(stderr)
				}
				states = append(states, st)
			}
			var detect []string // a state records no request: the merge asks again
			if i := slices.Index(tc.args, "--detect"); i >= 0 {
				detect = tc.args[i : i+2]
			}
			merge := func(states ...string) string {
				t.Helper()
				code, out, stderr := cli(t, append(append([]string{"merge", "--format", "json"}, detect...), states...)...)
				if code != 0 {
					t.Fatalf("merge: exit %d: %s", code, stderr)
				}
				return out
			}
			if got := merge(states...); got != want {
				t.Fatalf("merged states:\n%s\none run:\n%s", got, want)
			}
			reversed := append([]string(nil), states...)
			for i, j := 0, len(reversed)-1; i < j; i, j = i+1, j-1 {
				reversed[i], reversed[j] = reversed[j], reversed[i]
			}
			if got := merge(reversed...); got != want {
				t.Fatal("merging in reverse order gives other bytes")
			}
			// 3 + 4, then the two
			a, b := filepath.Join(tmp, "a.state"), filepath.Join(tmp, "b.state")
			for _, g := range []struct {
				out string
				in  []string
			}{{a, states[:3]}, {b, states[3:]}} {
				if code, _, stderr := cli(t, append([]string{"merge", "--state", g.out, "--output", filepath.Join(tmp, "x.json")}, g.in...)...); code != 0 {
					t.Fatal(stderr)
				}
			}
			if got := merge(b, a); got != want {
				t.Fatal("merging 3+4, then the two, gives other bytes")
			}
			// the report: the same figures; only the inputs in its header differ
			rep := filepath.Join(tmp, "merged.html")
			if code, _, stderr := cli(t, append(append([]string{"merge", "--report", rep, "--output", filepath.Join(tmp, "y.json")}, detect...), states...)...); code != 0 {
				t.Fatal(stderr)
			}
			one, merged := reportBody(t, filepath.Join(tmp, "one.html")), reportBody(t, rep)
			if one != merged {
				t.Fatal("the merged report's figures differ from one run's")
			}
		})
	}
}

// reportBody is a report without its header's list of inputs.
func reportBody(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return regexp.MustCompile(`(?s)<header.*?</header>`).ReplaceAllString(string(b), "")
}

// TestStateRefusals: states that do not merge, and files that are not
// whole states, are refused with a message naming the file, exit 1 (2 for
// a usage error), and no output file is left.
func TestStateRefusals(t *testing.T) {
	dir := t.TempDir()
	day := weekOfLogs(t, dir)[0]
	mk := func(name string, args ...string) string {
		p := filepath.Join(dir, name)
		if code, _, stderr := cli(t, append(append([]string{"--quiet", "--state", p, "--output", filepath.Join(dir, name+".json")}, args...), day)...); code != 0 {
			t.Fatal(stderr)
		}
		return p
	}
	good := mk("good.state")
	again := mk("again.state")
	trec := mk("trec.state", "--ties", "trec")
	other := mk("other.state", "-m", "map,ndcg@5")
	data, _ := os.ReadFile(good)
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		return p
	}
	flipped := bytes.Clone(data)
	flipped[len(flipped)/2] ^= 0x10
	version := bytes.Clone(data)
	version[len(state.Magic)] = 9
	for _, tc := range []struct {
		name   string
		states []string
		code   int
		msg    string
		is     error
	}{
		{"options differ", []string{good, trec}, 1, `trec.state: made with ties "trec" against "input" in .*good.state; states merge only when made under the same options`, state.ErrMismatch},
		{"metrics differ", []string{good, other}, 1, `other.state: made with metrics map,ndcg@5 against map,mrr,ndcg@10,err@10,p@10,r@10`, state.ErrMismatch},
		{"truncated", []string{good, write("cut.state", data[:len(data)-9])}, 1, `cut.state: damaged rankeval state file: checksum mismatch`, state.ErrDamaged},
		{"flipped byte", []string{write("flip.state", flipped)}, 1, `flip.state: damaged rankeval state file`, state.ErrDamaged},
		{"wrong version", []string{write("v9.state", version)}, 1, `v9.state: damaged rankeval state file: version 9; this rankeval reads versions 1 to 3`, state.ErrDamaged},
		{"one input twice", []string{good, again}, 1, `good.state and .*again.state were made from one input \(.*dt=2026-11-16.jsonl in .*good.state, .*dt=2026-11-16.jsonl in .*again.state: digest [0-9a-f]{32} of its queries\)`, state.ErrSharedInput},
		{"not a state", []string{day}, 1, `dt=2026-11-16.jsonl: not a rankeval state file \(rankeval --state and rankeval propensities --state write them\)`, state.ErrNotState},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "summary.json")
			code, _, stderr := cli(t, append([]string{"merge", "--output", out}, tc.states...)...)
			if code != tc.code || !regexp.MustCompile(tc.msg).MatchString(stderr) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, stderr, tc.code, tc.msg)
			}
			if left, _ := os.ReadDir(filepath.Dir(out)); len(left) != 0 {
				t.Fatalf("left: %v", left)
			}
			if !strings.Contains(stderr, tc.is.Error()) {
				t.Fatalf("stderr %q does not carry %v", stderr, tc.is)
			}
		})
	}
}

// TestStateMergeKeepsWarnings: a week of click logs (0/1 labels) with ERR
// under the default maximum grade warns when merged, as one run does; a
// graded day among them silences it, as in one run.
func TestStateMergeKeepsWarnings(t *testing.T) {
	dir := t.TempDir()
	var states []string
	for d, lines := range []string{
		`{"query_id":"a","score":1,"label":true}` + "\n" + `{"query_id":"a","score":0,"label":false}` + "\n",
		`{"query_id":"b","score":1,"label":0}` + "\n" + `{"query_id":"b","score":0,"label":1}` + "\n",
		`{"query_id":"c","score":1,"label":3}` + "\n",
	} {
		log := filepath.Join(dir, fmt.Sprintf("day%d.jsonl", d))
		os.WriteFile(log, []byte(lines), 0o644)
		st := log + ".state"
		if code, _, stderr := cli(t, "--quiet", "--state", st, "--output", log+".json", log); code != 0 {
			t.Fatal(stderr)
		}
		states = append(states, st)
	}
	for _, tc := range []struct {
		states []string
		warn   bool
	}{{states[:2], true}, {states, false}} {
		code, out, stderr := cli(t, append([]string{"merge", "--format", "json"}, tc.states...)...)
		if code != 0 || strings.Contains(out, `"warnings"`) != tc.warn || strings.Contains(stderr, "--max-grade 1") != tc.warn {
			t.Fatalf("%d states: exit %d, warned %v, want %v\n%s", len(tc.states), code, strings.Contains(out, `"warnings"`), tc.warn, stderr)
		}
	}
}
