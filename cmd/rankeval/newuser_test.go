package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/rankeval/rankeval/internal/vectors"
)

// writeLog writes a JSONL log for a test and returns its path.
func writeLog(t *testing.T, name, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const twoQueries = `{"query_id":"a","doc_id":"d1","score":0.9,"label":1}
{"query_id":"a","doc_id":"d2","score":0.1,"label":0}
{"query_id":"b","doc_id":"d1","score":0.2,"label":0}
{"query_id":"b","doc_id":"d2","score":0.8,"label":2}
`

// TestFlagsAfterInputs: flags are read wherever they stand; -- ends them.
func TestFlagsAfterInputs(t *testing.T) {
	log := writeLog(t, "log.jsonl", twoQueries)
	_, want, _ := cli(t, "--quiet", "-m", "ndcg@10", "--format", "json", log)
	for _, args := range [][]string{
		{log, "--quiet", "-m", "ndcg@10", "--format", "json"},
		{"--quiet", log, "-m", "ndcg@10", "--format=json"},
	} {
		code, got, stderr := cli(t, args...)
		if code != 0 || got != want {
			t.Fatalf("%q: exit %d %s\n%s", args, code, stderr, got)
		}
	}
	// a file whose name starts with "-" after --
	odd := filepath.Join(filepath.Dir(log), "-odd.jsonl")
	os.WriteFile(odd, []byte(twoQueries), 0o644)
	t.Run("-- then a name starting with -", func(t *testing.T) {
		t.Chdir(filepath.Dir(odd))
		if code, _, stderr := cli(t, "--quiet", "-m", "ndcg@10", "--", "-odd.jsonl"); code != 0 {
			t.Fatalf("-- -odd.jsonl: exit %d %s", code, stderr)
		}
	})
	// TREC: --qrels QRELS RUN --profile trec_eval
	ref := filepath.Join(vectors.TestdataDir(t), "reference", "trec_a")
	code, got, stderr := cli(t, "--quiet", "--qrels", filepath.Join(ref, "qrels.txt"), filepath.Join(ref, "run.txt"), "--profile", "trec_eval", "--format", "trec", "-m", "map")
	if code != 0 || !strings.HasPrefix(got, "num_q") {
		t.Fatalf("TREC with the profile after the run: exit %d %s\n%s", code, stderr, got)
	}
}

// TestOutputFiles: outputs get 0666 less the umask, and --output - is
// standard output.
func TestOutputFiles(t *testing.T) {
	log := writeLog(t, "log.jsonl", twoQueries)
	dir := t.TempDir()
	old := syscall.Umask(0o022)
	code, _, stderr := cli(t, "--quiet", "--output", filepath.Join(dir, "s.json"), "--per-query", filepath.Join(dir, "pq.jsonl"),
		"--report", filepath.Join(dir, "r.html"), log)
	syscall.Umask(old)
	if code != 0 {
		t.Fatal(stderr)
	}
	for _, f := range []string{"s.json", "pq.jsonl", "r.html"} {
		st, err := os.Stat(filepath.Join(dir, f))
		if err != nil || st.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %v (%v), want -rw-r--r--", f, st.Mode().Perm(), err)
		}
	}
	code, out, stderr := cli(t, "--quiet", "--output", "-", "-m", "map", log)
	if code != 0 || !strings.HasPrefix(out, "metric") {
		t.Fatalf("--output -: exit %d %s, stdout %q", code, stderr, out)
	}
	if _, err := os.Stat("-"); err == nil {
		os.Remove("-")
		t.Fatal("--output - wrote a file named -")
	}
}

// TestBinaryLabelsERRWarning: ERR on 0/1 labels under the default maximum
// grade says so on stderr and in the JSON summary, once; --max-grade,
// graded labels or no ERR silence it.
func TestBinaryLabelsERRWarning(t *testing.T) {
	clicks := writeLog(t, "clicks.jsonl", `{"query_id":"a","score":0.9,"label":true}
{"query_id":"a","score":0.1,"label":false}
{"query_id":"b","score":0.2,"label":0}
{"query_id":"b","score":0.8,"label":1}
`)
	graded := writeLog(t, "graded.jsonl", twoQueries)
	for _, tc := range []struct {
		name string
		args []string
		warn bool
	}{
		{"clicks with err", []string{"-m", "err@10,ndcg@10", clicks}, true},
		{"clicks with --max-grade 1", []string{"-m", "err@10", "--max-grade", "1", clicks}, false},
		{"clicks without err", []string{"-m", "ndcg@10", clicks}, false},
		{"graded labels", []string{"-m", "err@10", graded}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := cli(t, append([]string{"--quiet", "--format", "json"}, tc.args...)...)
			if code != 0 {
				t.Fatal(stderr)
			}
			var s struct{ Warnings []string }
			json.Unmarshal([]byte(out), &s)
			warned := strings.Count(stderr, "--max-grade 1") == 1 && len(s.Warnings) == 1 && strings.Contains(s.Warnings[0], "--max-grade 1")
			if warned != tc.warn || (!tc.warn && (stderr != "" || len(s.Warnings) != 0)) {
				t.Fatalf("warned %v, want %v: stderr %q, warnings %q", warned, tc.warn, stderr, s.Warnings)
			}
		})
	}
}

// TestUnknownMetricCLI: a misspelt metric is a usage error naming the
// nearest metric, and rankeval metrics lists every one.
func TestUnknownMetricCLI(t *testing.T) {
	log := writeLog(t, "log.jsonl", twoQueries)
	code, _, stderr := cli(t, "-m", "ndgc@10", log)
	if code != 2 || !strings.Contains(stderr, "did you mean ndcg@10?") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	code, out, _ := cli(t, "metrics")
	for _, name := range []string{"ndcg[@k]", "err[@k]", "hit@k, success@k", "ndcg_cut_k"} {
		if code != 0 || !strings.Contains(out, name) {
			t.Fatalf("rankeval metrics: exit %d, lacks %q:\n%s", code, name, out)
		}
	}
}

// TestRankPositions: --rank-col takes any integers that order the rows:
// 0-based positions and integral floats give what 1-based ranks give.
func TestRankPositions(t *testing.T) {
	one := writeLog(t, "one.jsonl", `{"q":"a","pos":1,"y":0}
{"q":"a","pos":2,"y":1}
{"q":"b","pos":2,"y":0}
{"q":"b","pos":1,"y":1}
`)
	zero := writeLog(t, "zero.jsonl", strings.NewReplacer(`"pos":1`, `"pos":0`, `"pos":2`, `"pos":1`).Replace(readFile(t, one)))
	floats := writeLog(t, "floats.jsonl", strings.NewReplacer(`"pos":1`, `"pos":1.0`, `"pos":2`, `"pos":2.0`).Replace(readFile(t, one)))
	args := []string{"--quiet", "--query-col", "q", "--rank-col", "pos", "--label-col", "y", "-m", "mrr"}
	_, want, _ := cli(t, append(args, one)...)
	for _, in := range []string{zero, floats} {
		code, got, stderr := cli(t, append(args, in)...)
		if code != 0 || got != want || !strings.Contains(want, "0.7500") {
			t.Fatalf("%s: exit %d %s\n%s\nwant\n%s", filepath.Base(in), code, stderr, got, want)
		}
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSliceQueryCounts: a slice's queries column counts the queries
// behind its means, as the overall table does, not the queries read.
func TestSliceQueryCounts(t *testing.T) {
	log := writeLog(t, "log.jsonl", `{"query_id":"a","m":"x","score":1,"label":1}
{"query_id":"b","m":"x","score":1,"label":0}
{"query_id":"c","m":"x","score":1,"label":1}
`)
	code, out, stderr := cli(t, "--quiet", "-m", "map", "--by", "m", log)
	if code != 0 {
		t.Fatal(stderr)
	}
	// b is empty, left out of the means under --empty skip: 2 queries
	if !regexp.MustCompile(`\nmap +1\.0000 .* 2\n`).MatchString(out) || !regexp.MustCompile(`\nx +2 +1\.0000\n`).MatchString(out) {
		t.Fatalf("slice counts differ from the overall table's:\n%s", out)
	}
}

// TestEmptyInputs: docs/metrics.md §8, an input with no rows is zero rows: a 0-byte
// file (alone, or as an empty part beside a good one in a lake), a file of
// blank lines, empty standard input. The run prints its zero-count
// summary and exits 0, or 3 under --fail-on-empty.
func TestEmptyInputs(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.jsonl")
	os.WriteFile(empty, nil, 0o644)
	blank := filepath.Join(dir, "blank.jsonl")
	os.WriteFile(blank, []byte("\n\n  \n"), 0o644)
	lake := filepath.Join(dir, "lake")
	os.MkdirAll(lake, 0o755)
	os.WriteFile(filepath.Join(lake, "part-00000.jsonl"), []byte(twoQueries), 0o644)
	os.WriteFile(filepath.Join(lake, "part-00001.jsonl"), nil, 0o644)
	for _, in := range []string{empty, blank} {
		code, out, stderr := cli(t, "--quiet", "--format", "json", in)
		if code != 0 || !strings.Contains(out, `"rows": 0`) || !strings.Contains(out, `"queries": {"total": 0, "empty": 0}`) {
			t.Fatalf("%s: exit %d %s\n%s", in, code, stderr, out)
		}
		if code, _, stderr := cli(t, "--quiet", "--fail-on-empty", in); code != 3 {
			t.Fatalf("%s --fail-on-empty: exit %d, want 3: %s", in, code, stderr)
		}
	}
	_, want, _ := cli(t, "--quiet", filepath.Join(lake, "part-00000.jsonl"))
	if code, got, stderr := cli(t, "--quiet", lake); code != 0 || got != want {
		t.Fatalf("lake with an empty part: exit %d %s\n%s", code, stderr, got)
	}
	// empty standard input: run the binary, as a shell would
	bin := filepath.Join(t.TempDir(), "rankeval")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "--quiet", "-")
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.Output()
	if err != nil || !strings.Contains(string(out), "0 rows, 0 queries") {
		t.Fatalf("empty standard input: %v\n%s", err, out)
	}
}
