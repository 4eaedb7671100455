package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/internal/vectors"
)

// the measures of testdata/reference/README.md, as trec_eval names them
const trecMeasures = "map,Rprec,recip_rank,P_1,P_5,P_10,P_20,recall_5,recall_10,recall_100,ndcg,ndcg_cut_5,ndcg_cut_10,ndcg_cut_20,success_1,success_5,success_10"

// parseTrecOutput reads trec_eval's layout into measure -> query -> value.
func parseTrecOutput(t *testing.T, text string) map[string]map[string]float64 {
	t.Helper()
	out := map[string]map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 3 {
			t.Fatalf("not trec_eval layout: %q", sc.Text())
		}
		v, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			t.Fatalf("value in %q: %v", sc.Text(), err)
		}
		m := strings.TrimSpace(f[0])
		if out[m] == nil {
			out[m] = map[string]float64{}
		}
		out[m][f[1]] = v
	}
	return out
}

func referenceDirs(t *testing.T) []string {
	dirs, _ := filepath.Glob(filepath.Join(vectors.TestdataDir(t), "reference", "trec_*"))
	if len(dirs) == 0 {
		t.Fatal("no reference folders")
	}
	return dirs
}

// TestTrecEvalReference reproduces every per-query and "all" value of
// trec_eval 9.0.8 within its printed precision.
func TestTrecEvalReference(t *testing.T) {
	for _, dir := range referenceDirs(t) {
		for _, complete := range []bool{false, true} {
			want, name := "trec_eval.q.txt", filepath.Base(dir)
			args := []string{"--qrels", filepath.Join(dir, "qrels.txt"), "--profile", "trec_eval", "--format", "trec", "--per-query", "-", "-m", trecMeasures}
			if complete {
				want, name = "trec_eval.c.q.txt", name+"/complete"
				args = append(args, "--complete")
			}
			t.Run(name, func(t *testing.T) {
				code, stdout, stderr := cli(t, append(args, filepath.Join(dir, "run.txt"))...)
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				ref, err := os.ReadFile(filepath.Join(dir, want))
				if err != nil {
					t.Fatal(err)
				}
				got, exp := parseTrecOutput(t, stdout), parseTrecOutput(t, string(ref))
				n := 0
				for m, qs := range exp {
					for q, w := range qs {
						g, ok := got[m][q]
						if !ok {
							t.Errorf("%s %s: missing (trec_eval %.4f)", m, q, w)
							continue
						}
						if math.Abs(g-w) > 5e-5 {
							t.Errorf("%s %s: %.4f, trec_eval %.4f", m, q, g, w)
						}
						n++
					}
				}
				for m, qs := range got {
					for q := range qs {
						if _, ok := exp[m][q]; !ok {
							t.Errorf("%s %s: printed, but trec_eval prints no such line", m, q)
						}
					}
				}
				if n < 500 {
					t.Fatalf("only %d values compared", n)
				}
				// the run parsed as read (one worker) and in blocks on
				// three goroutines prints the same bytes
				for _, w := range []string{"1", "3"} {
					code, other, stderr := cli(t, append(args, "--workers", w, "--batch-size", "7", filepath.Join(dir, "run.txt"))...)
					if code != 0 || other != stdout {
						t.Fatalf("--workers %s: exit %d, output differs: %s", w, code, stderr)
					}
				}
			})
		}
	}
}

// TestGdevalReference reproduces gdeval.pl 1.3's per-topic and amean
// nDCG@k and ERR@k within its 5 printed decimals.
func TestGdevalReference(t *testing.T) {
	for _, dir := range referenceDirs(t) {
		for _, k := range []string{"5", "10", "20"} {
			t.Run(filepath.Base(dir)+"/k"+k, func(t *testing.T) {
				pq := filepath.Join(t.TempDir(), "pq.jsonl")
				code, stdout, stderr := cli(t, "--qrels", filepath.Join(dir, "qrels.txt"), "--profile", "gdeval", "--format", "json",
					"-m", "ndcg@"+k+",err@"+k, "--per-query", pq, filepath.Join(dir, "run.txt"))
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				var s summaryJSON
				if err := json.Unmarshal([]byte(stdout), &s); err != nil {
					t.Fatal(err)
				}
				perQuery := readPerQuery(t, pq)
				f, err := os.Open(filepath.Join(dir, "gdeval.k"+k+".csv"))
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				rows, err := csv.NewReader(f).ReadAll()
				if err != nil {
					t.Fatal(err)
				}
				topics := 0
				for _, r := range rows[1:] {
					wantN, _ := strconv.ParseFloat(r[2], 64)
					wantE, _ := strconv.ParseFloat(r[3], 64)
					var gotN, gotE float64
					if r[1] == "amean" {
						gotN, gotE = *s.Metrics["ndcg@"+k].Mean, *s.Metrics["err@"+k].Mean
						if q := s.Metrics["ndcg@"+k].Queries; q != int64(topics) {
							t.Errorf("amean over %d queries, gdeval over %d topics", q, topics)
						}
					} else {
						topics++
						v, ok := perQuery[r[1]]
						if !ok || v["ndcg@"+k] == nil || v["err@"+k] == nil {
							t.Errorf("topic %s: no value", r[1])
							continue
						}
						gotN, gotE = *v["ndcg@"+k], *v["err@"+k]
					}
					// gdeval prints 5 decimals: within half a unit of the last
					const tol = 5e-6 + 1e-12
					if math.Abs(gotN-wantN) > tol || math.Abs(gotE-wantE) > tol {
						t.Errorf("topic %s: ndcg %.6f err %.6f, gdeval %.5f %.5f", r[1], gotN, gotE, wantN, wantE)
					}
				}
			})
		}
	}
}

func TestTrecInputErrors(t *testing.T) {
	dir := t.TempDir()
	qrels := filepath.Join(dir, "qrels.txt")
	os.WriteFile(qrels, []byte("1 0 a 1\n2 0 b 1\n2 0 c 5\n"), 0o644)
	tests := []struct {
		name, run, msg string
		args           []string
	}{
		{"duplicate docno", "1 Q0 a 1 0.5 s\n1 Q0 b 2 0.4 s\n1 Q0 a 3 0.3 s\n", `run.txt:3: document "a" appears twice in query "1" (first at `, nil},
		{"query lines not together", "1 Q0 a 1 0.5 s\n2 Q0 b 1 0.4 s\n1 Q0 c 2 0.3 s\n", "sort -s -k1,1 RUN", nil},
		// the labels are joined in the workers: the row that gets label 5
		// is still named
		{"judged label above the maximum grade ERR uses", "1 Q0 a 1 0.5 s\n2 Q0 b 1 0.4 s\n2 Q0 d 2 0.3 s\n2 Q0 c 3 0.2 s\n",
			"run.txt:4: label 5 is above the maximum grade 4 that ERR uses", []string{"-m", "err@10"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			run := filepath.Join(dir, "run.txt")
			os.WriteFile(run, []byte(tc.run), 0o644)
			code, _, stderr := cli(t, append(append([]string{"--qrels", qrels, "--profile", "trec_eval"}, tc.args...), run)...)
			if code != 1 || !strings.Contains(stderr, tc.msg) {
				t.Fatalf("exit %d stderr %q, want 1 and %q", code, stderr, tc.msg)
			}
		})
	}
	t.Run("loading the qrels is reported unless --quiet", func(t *testing.T) {
		run := filepath.Join(dir, "run.txt")
		os.WriteFile(run, []byte("1 Q0 a 1 0.5 s\n2 Q0 b 1 0.4 s\n"), 0o644)
		want := "qrels.txt: 3 judgments of 2 queries loaded in "
		for _, quiet := range []bool{false, true} {
			args := []string{"--qrels", qrels, "--profile", "trec_eval"}
			if quiet {
				args = append(args, "--quiet")
			}
			code, _, stderr := cli(t, append(args, run)...)
			if code != 0 || strings.Contains(stderr, want) == quiet {
				t.Fatalf("quiet=%v: exit %d stderr %q, want %q there unless quiet", quiet, code, stderr, want)
			}
		}
	})
	t.Run("--complete without --qrels is a usage error", func(t *testing.T) {
		if code, _, _ := cli(t, "--complete", "x"); code != 2 {
			t.Fatalf("exit %d", code)
		}
	})
}

// TestTrecProfileAtolLabels: under --profile trec_eval the qrels' labels
// read as trec_eval and rankeval trec_eval read them, with C's atol:
// "0.5" is 0, "1e2" 1, "2.5" 2, "1.9" 1. Read as numbers, they gave q1 an
// ndcg of 0.6392 and q2 0.9033 (exit 0). The values are what trec_eval
// 9.0.8 and 10.0 print for the same files (-q -l2 -m ndcg -m map, and
// the default -l 1); without a profile a label is the number it reads.
func TestTrecProfileAtolLabels(t *testing.T) {
	qrels := writeTemp(t, "qrels", "q1 0 d1 0.5\nq1 0 d2 1e2\nq1 0 d3 2.5\nq1 0 d4 2\nq2 0 d1 1.9\nq2 0 d2 3\n")
	run := writeTemp(t, "run", "q1 Q0 d1 1 4 r\nq1 Q0 d2 2 3 r\nq1 Q0 d3 3 2 r\nq1 Q0 d4 4 1 r\nq2 Q0 d1 1 2 r\nq2 Q0 d2 2 1 r\n")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"trec_eval -l2", []string{"--profile", "trec_eval", "--rel-threshold", "2"},
			"ndcg                  \tq1\t0.6625\nmap                   \tq1\t0.4167\n" +
				"ndcg                  \tq2\t0.7967\nmap                   \tq2\t0.5000\n" +
				"num_q                 \tall\t2\nndcg                  \tall\t0.7296\nmap                   \tall\t0.4583\n"},
		{"trec_eval:9.0.8", []string{"--profile", "trec_eval:9.0.8"},
			"ndcg                  \tq1\t0.6625\nmap                   \tq1\t0.6389\n" +
				"ndcg                  \tq2\t0.7967\nmap                   \tq2\t1.0000\n" +
				"num_q                 \tall\t2\nndcg                  \tall\t0.7296\nmap                   \tall\t0.8194\n"},
		// labels 0.5 100 2.5 2 and 1.9 3, each > 0 relevant, gains linear:
		// q1's dcg 0.5 + 100/log2(3) + 2.5/2 + 2/log2(5) over 100 +
		// 2.5/log2(3) + 1 + 0.5/log2(5)
		{"no profile", []string{"--ties", "trec", "--gain", "linear"},
			"ndcg                  \tq1\t0.6392\nmap                   \tq1\t1.0000\n" +
				"ndcg                  \tq2\t0.9033\nmap                   \tq2\t1.0000\n" +
				"num_q                 \tall\t2\nndcg                  \tall\t0.7713\nmap                   \tall\t1.0000\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--quiet", "--qrels", qrels, "--format", "trec", "--per-query", "-", "-m", "ndcg,map"}, tc.args...)
			code, out, stderr := cli(t, append(args, run)...)
			if code != 0 || out != tc.want {
				t.Fatalf("exit %d (%s):\n%s", code, stderr, vectors.FirstDiff(tc.want, out))
			}
		})
	}
}

// TestTrecProfileCompleteNumRel: under --complete a judged query the run
// lacks adds its R to num_rel's total, as trec_eval -c counts it (q2's 2
// relevant documents: 3, where it printed 1), and nothing to num_rel_ret
// and num_ret; so does a query a --system run lacks under --missing zero,
// whose num_rel is the same as it is in a run that has it. The values are
// what trec_eval 9.0.8 and 10.0 print with -c for the same files (r8
// lacks q2; r9 has both).
func TestTrecProfileCompleteNumRel(t *testing.T) {
	qrels := writeTemp(t, "qrels", "q1 0 d1 1\nq2 0 d1 1\nq2 0 d2 1\nq2 0 d3 0\nq2 0 d4 -1\n")
	r8 := writeTemp(t, "r8", "q1 Q0 d1 1 2 r\nq1 Q0 d9 2 1 r\n")
	r9 := writeTemp(t, "r9", "q1 Q0 d1 1 2 r\nq2 Q0 d2 1 2 r\nq2 Q0 d3 2 1 r\n")
	const ms = "num_rel,num_rel_ret,num_ret,map,gm_map"
	for _, profile := range []string{"trec_eval", "trec_eval:9.0.8"} {
		t.Run(profile, func(t *testing.T) {
			code, out, stderr := cli(t, "--quiet", "--qrels", qrels, "--profile", profile, "--complete", "--format", "trec", "-m", ms, r8)
			want := "num_q                 \tall\t2\nnum_rel               \tall\t3\nnum_rel_ret           \tall\t1\n" +
				"num_ret               \tall\t2\nmap                   \tall\t0.5000\ngm_map                \tall\t0.0032\n"
			if code != 0 || out != want {
				t.Fatalf("exit %d (%s):\n%s", code, stderr, vectors.FirstDiff(want, out))
			}
		})
	}
	t.Run("--missing zero", func(t *testing.T) {
		code, out, stderr := cli(t, "--quiet", "--qrels", qrels, "--profile", "trec_eval", "--system", "a="+r9, "--system", "b="+r8,
			"--missing", "zero", "--format", "json", "-m", ms)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var got struct {
			Systems []struct {
				Name    string
				Metrics map[string]struct{ Mean float64 }
			}
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		// trec_eval -c: r9 3, 2, 3; r8 3, 1, 2
		want := map[string][3]float64{"a": {3, 2, 3}, "b": {3, 1, 2}}
		for _, s := range got.Systems {
			m := s.Metrics
			if g := [3]float64{m["num_rel"].Mean, m["num_rel_ret"].Mean, m["num_ret"].Mean}; g != want[s.Name] {
				t.Errorf("%s: num_rel, num_rel_ret, num_ret = %v, want %v", s.Name, g, want[s.Name])
			}
		}
	})
}
