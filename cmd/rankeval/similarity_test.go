package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// similarityLogs writes a log of two rankers' scores (score, score_b) over
// queries of 3 to 12 rows with a market, scores on a coarse grid so that
// ties are common, and score_b null on some rows (its list shorter under
// --missing-score drop); and the same rows as two logs for --system, the
// candidate's without the rows it does not score. All sorted by query.
func similarityLogs(t *testing.T, dir string, queries int) (log, base, cand string) {
	t.Helper()
	r := rand.New(rand.NewPCG(40, 1))
	var all, a, b strings.Builder
	for q := range queries {
		id := fmt.Sprintf("q%04d", q)
		market := []string{"de", "fr", "us"}[q%3]
		for d := range 3 + r.IntN(10) {
			label := r.IntN(3)
			s := float64(r.IntN(6))
			sb := fmt.Sprint(float64(r.IntN(6)) + float64(label)/2)
			if r.IntN(6) == 0 {
				sb = "null"
			}
			row := fmt.Sprintf(`{"query_id":%q,"doc_id":"d%d","market":%q,"label":%d`, id, d, market, label)
			fmt.Fprintf(&all, `%s,"score":%v,"score_b":%s}`+"\n", row, s, sb)
			fmt.Fprintf(&a, `%s,"score":%v}`+"\n", row, s)
			if sb != "null" {
				fmt.Fprintf(&b, `%s,"score":%s}`+"\n", row, sb)
			}
		}
	}
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	return write("both.jsonl", all.String()), write("base.jsonl", a.String()), write("cand.jsonl", b.String())
}

// figuresOf is what every path must agree on: each system's metrics and
// the comparisons, overall and per slice (the rows counts and the inputs
// say how the rows came, and differ).
func figuresOf(t *testing.T, out string) string {
	t.Helper()
	var v struct {
		Systems []struct {
			Name    string
			Metrics json.RawMessage
		}
		Comparison json.RawMessage
		Slices     json.RawMessage
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// TestSimilarityEveryPath: the rank-similarity measures of a candidate
// against the baseline, with ties (under --ties input and trec) and
// uneven lists (the candidate's unscored rows dropped), give the same
// figures for any number of workers and batch size, on --unsorted over
// interleaved rows, with --missing-score drop on one log's score columns
// and with the candidate's log lacking those rows (--system), sliced by
// market; and they equal the per-query values averaged.
func TestSimilarityEveryPath(t *testing.T) {
	dir := t.TempDir()
	log, base, cand := similarityLogs(t, dir, 400)
	shuffled := interleave(t, readLines(t, log), jsonQuery("query_id"), "shuffled.jsonl")
	const ms = "overlap@5,jaccard@5,churn@3,rbo:0.9,rbo_res:0.8@5,rbo_ext:0.9,tau@5,ndcg@5"
	for _, ties := range []string{"input", "trec"} {
		t.Run(ties, func(t *testing.T) {
			common := []string{"--quiet", "--format", "json", "-m", ms, "--ties", ties, "--missing-score", "drop", "--by", "market"}
			run := func(args ...string) string {
				t.Helper()
				code, out, stderr := cli(t, append(slices.Clone(common), args...)...)
				if code != 0 {
					t.Fatalf("%v: exit %d: %s", args, code, stderr)
				}
				return out
			}
			one := run("--score-col", "score,score_b", "--workers", "1", log)
			want := figuresOf(t, one)
			if !strings.Contains(want, `"rbo:0.9":{"mean":0.`) {
				t.Fatalf("no similarity in %s", want)
			}
			for _, args := range [][]string{
				{"--score-col", "score,score_b", "--workers", "2", "--batch-size", "7", log},
				{"--score-col", "score,score_b", "--workers", "8", "--batch-size", "1", log},
				{"--score-col", "score,score_b", "--unsorted", "--mem-limit", "16MiB", "--tmp-dir", t.TempDir(), shuffled},
				{"--system", "score=" + base, "--system", "score_b=" + cand},
			} {
				if got := figuresOf(t, run(args...)); got != want {
					t.Fatalf("%v:\n%s\nwant\n%s", args, got, want)
				}
			}
			// the summary is the mean of the per-query values
			code, perq, stderr := cli(t, append(slices.Clone(common), "--score-col", "score,score_b", "--per-query", "-", "--output", filepath.Join(t.TempDir(), "s.json"), log)...)
			if code != 0 {
				t.Fatal(stderr)
			}
			sums := map[string]float64{}
			counts := map[string]int{}
			for _, line := range strings.Split(strings.TrimSpace(perq), "\n") {
				var q struct {
					Systems map[string]map[string]*float64
				}
				if err := json.Unmarshal([]byte(line), &q); err != nil {
					t.Fatal(err)
				}
				for m, v := range q.Systems["score"] {
					if v != nil && m != "ndcg@5" {
						t.Fatalf("the baseline has %s = %v", m, *v)
					}
				}
				for m, v := range q.Systems["score_b"] {
					if v != nil {
						sums[m] += *v
						counts[m]++
					}
				}
			}
			var s struct {
				Systems []struct {
					Metrics map[string]struct {
						Mean    float64
						Queries int
					}
				}
			}
			if err := json.Unmarshal([]byte(one), &s); err != nil {
				t.Fatal(err)
			}
			if len(s.Systems[1].Metrics) != 8 || s.Systems[1].Metrics["overlap@5"].Queries != 400 {
				t.Fatalf("candidate's metrics: %+v", s.Systems[1].Metrics)
			}
			for m, got := range s.Systems[1].Metrics {
				if want := sums[m] / float64(counts[m]); math.Abs(got.Mean-want) > 1e-12 || got.Queries != counts[m] {
					t.Errorf("%s: mean %v over %d, per-query mean %v over %d", m, got.Mean, got.Queries, want, counts[m])
				}
			}
		})
	}
}

// TestSimilarityRefusals: the measures need two systems, one tie order,
// and doc ids to match two logs' rows; each refusal names what to do.
func TestSimilarityRefusals(t *testing.T) {
	dir := t.TempDir()
	log, base, _ := similarityLogs(t, dir, 5)
	nodoc := filepath.Join(dir, "nodoc.jsonl")
	var b strings.Builder
	for _, l := range readLines(t, base) {
		b.WriteString(strings.Replace(l, `"doc_id"`, `"docno"`, 1) + "\n")
	}
	if err := os.WriteFile(nodoc, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// two rows of a query without a doc id beside one with: no row of
	// the other log can be told to match either
	someEmpty := filepath.Join(dir, "someempty.jsonl")
	if err := os.WriteFile(someEmpty, []byte(`{"query_id":"q","doc_id":"","score":3}
{"query_id":"q","doc_id":"","score":2}
{"query_id":"q","doc_id":"x","score":1}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"one system", []string{"-m", "rbo:0.9", log}, 2, "compares a candidate's ranking with the baseline's: give several --score-col, --system logs or TREC runs"},
		{"no persistence", []string{"-m", "rbo", "--score-col", "score,score_b", log}, 2, `rbo needs a persistence p from 0 to 1`},
		{"persistence 1", []string{"-m", "rbo_ext:1@10", "--score-col", "score,score_b", log}, 2, `bad persistence`},
		{"ties average", []string{"-m", "overlap@3", "--ties", "average", "--score-col", "score,score_b", log}, 2, `compares two rankings, and --ties average`},
		{"a gate", []string{"-m", "overlap@3", "--score-col", "score,score_b", "--fail-under", "overlap@3=0.5", log}, 2, `has no better side`},
		{"logs without doc ids", []string{"-m", "overlap@3", "--system", "a=" + nodoc, "--system", "b=" + nodoc}, 1, `doc_id`},
		{"rows without doc ids", []string{"-m", "overlap", "--system", "a=" + someEmpty, "--system", "b=" + someEmpty}, 1,
			someEmpty + `:1: query "q" of a has a row without a doc id: the rank-similarity measures match the rows of two logs by doc id`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := cli(t, append([]string{"--quiet"}, tc.args...)...)
			if code != tc.code || !strings.Contains(stderr, tc.msg) {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q", code, stderr, tc.code, tc.msg)
			}
		})
	}
}

// TestSimilarityWithoutLabels: a run whose every metric is a rank
// similarity reads no label column: a JSONL or CSV log of scores alone
// gives the figures the same log with labels gives (on --unsorted and
// with several workers too), no query counts as empty; a metric that reads labels, or a tie order that does, still
// needs the column.
func TestSimilarityWithoutLabels(t *testing.T) {
	dir := t.TempDir()
	log, _, _ := similarityLogs(t, dir, 60)
	var nolab, csv strings.Builder
	csv.WriteString("query_id,doc_id,score,score_b\n")
	for _, l := range readLines(t, log) {
		var r map[string]any
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		delete(r, "label")
		b, _ := json.Marshal(r)
		nolab.WriteString(string(b) + "\n")
		sb := ""
		if r["score_b"] != nil {
			sb = fmt.Sprint(r["score_b"])
		}
		fmt.Fprintf(&csv, "%s,%s,%v,%s\n", r["query_id"], r["doc_id"], r["score"], sb)
	}
	noLabel, noLabelCSV := filepath.Join(dir, "nolabel.jsonl"), filepath.Join(dir, "nolabel.csv")
	os.WriteFile(noLabel, []byte(nolab.String()), 0o644)
	os.WriteFile(noLabelCSV, []byte(csv.String()), 0o644)
	args := []string{"--quiet", "--format", "json", "-m", "overlap@5,rbo:0.9,rbo_ext:0.8@5,tau@5", "--score-col", "score,score_b", "--missing-score", "drop"}
	code, want, stderr := cli(t, append(slices.Clone(args), log)...)
	if code != 0 {
		t.Fatal(stderr)
	}
	for _, in := range [][]string{{noLabel}, {noLabelCSV}, {"--unsorted", "--tmp-dir", dir, noLabel}, {"--workers", "3", "--batch-size", "5", noLabelCSV}} {
		code, got, stderr := cli(t, append(slices.Clone(args), in...)...)
		if code != 0 {
			t.Fatalf("%s: %s", in, stderr)
		}
		if figuresOf(t, got) != figuresOf(t, want) || !strings.Contains(got, `"empty": 0`) {
			t.Fatalf("%s:\n%s\nwith labels:\n%s", in, got, want)
		}
	}
	for _, extra := range [][]string{{"-m", "ndcg@5"}, {"--ties", "optimistic"}} {
		code, _, stderr := cli(t, append(append(slices.Clone(args), extra...), noLabel)...)
		if code != 1 || !strings.Contains(stderr, `no "label" field`) {
			t.Fatalf("%v: exit %d: %s", extra, code, stderr)
		}
	}
}
