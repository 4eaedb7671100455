package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rankeval/rankeval/pipeline"
)

// TestMain lets a test run the real main (signals, exit codes) by
// re-executing the test binary with RANKEVAL_TEST_MAIN=1.
func TestMain(m *testing.M) {
	if os.Getenv("RANKEVAL_TEST_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

func TestGates(t *testing.T) {
	sample := filepath.Join("..", "..", "testdata", "sample.jsonl.zst")
	tests := []struct {
		name   string
		args   []string
		code   int
		failed []string
	}{
		{"all pass", []string{"--fail-under", "map=0.5,ndcg@10=0.5"}, 0, nil},
		{"one fails", []string{"--fail-under", "map=0.5,ndcg@10=0.9"}, 3, []string{"ndcg@10"}},
		{"names are case-insensitive", []string{"--fail-under", "Map=0.99"}, 3, []string{"map"}},
		// MAP is ir_measures' spelling: its AP under trec_eval's conventions, not -m map
		{"ir_measures' spelling is not rankeval's name", []string{"--fail-under", "MAP=0.99"}, 2, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "s.json")
			code, _, stderr := cli(t, append(tc.args, "--format", "json", "--output", out, sample)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s", code, tc.code, stderr)
			}
			if code == 2 {
				if !strings.Contains(stderr, "not among the metrics computed") {
					t.Fatalf("usage error %q, want it to say the gate's metric is not computed", stderr)
				}
				return // a usage error writes no summary
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatalf("the summary must be written even when a gate fails: %v", err)
			}
			var s struct {
				Gates struct {
					Passed bool `json:"passed"`
					Checks []struct {
						Metric string  `json:"metric"`
						Mean   float64 `json:"mean"`
						Passed bool    `json:"passed"`
					} `json:"checks"`
				} `json:"gates"`
			}
			if err := json.Unmarshal(data, &s); err != nil {
				t.Fatal(err)
			}
			var failed []string
			for _, c := range s.Gates.Checks {
				if !c.Passed {
					failed = append(failed, c.Metric)
				}
			}
			if strings.Join(failed, ",") != strings.Join(tc.failed, ",") || s.Gates.Passed != (len(tc.failed) == 0) {
				t.Fatalf("gates %+v, want failed %v", s.Gates, tc.failed)
			}
			for _, f := range tc.failed {
				if !strings.Contains(stderr, f+" mean") {
					t.Fatalf("stderr %q does not name %s", stderr, f)
				}
			}
		})
	}
	t.Run("gate on a metric not computed is a usage error", func(t *testing.T) {
		if code, _, _ := cli(t, "--fail-under", "err@20=0.1", sample); code != 2 {
			t.Fatalf("exit %d", code)
		}
	})
	t.Run("fail on empty", func(t *testing.T) {
		in := filepath.Join(t.TempDir(), "empty.jsonl")
		os.WriteFile(in, []byte(`{"query_id":"a","score":1,"label":0}`+"\n"), 0o644)
		code, stdout, stderr := cli(t, "--fail-on-empty", in)
		if code != 3 || !strings.Contains(stderr, "--fail-on-empty") || !strings.Contains(stdout, "FAILED") {
			t.Fatalf("exit %d stdout %q stderr %q", code, stdout, stderr)
		}
		if code, _, _ := cli(t, in); code != 0 {
			t.Fatalf("without the flag: exit %d", code)
		}
	})
}

func TestProgressLines(t *testing.T) {
	sample := filepath.Join("..", "..", "testdata", "sample.jsonl.zst")
	code, stdout, stderr := cli(t, "--progress-interval", "1ms", sample)
	if code != 0 {
		t.Fatal(stderr)
	}
	if !strings.Contains(stderr, "rankeval: done rows=15000 queries=300 ") || strings.Contains(stdout, "rankeval:") {
		t.Fatalf("stderr %q stdout %q", stderr, stdout)
	}
	if _, _, stderr := cli(t, "--quiet", sample); stderr != "" {
		t.Fatalf("--quiet printed %q", stderr)
	}
}

// TestSignalCleansUp interrupts a real run halfway and checks the exit code
// and that no output or temporary file is left.
func TestSignalCleansUp(t *testing.T) {
	in := genLog(t, 1_500_000, 9)
	for _, sig := range []struct {
		s        syscall.Signal
		code     int
		unsorted bool
	}{{syscall.SIGINT, 130, false}, {syscall.SIGTERM, 143, false}, {syscall.SIGINT, 130, true}} {
		name := sig.s.String()
		if sig.unsorted {
			name += "/unsorted"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"--workers", "1", "--progress-interval", "5ms",
				"--output", filepath.Join(dir, "s.json"), "--per-query", filepath.Join(dir, "pq.jsonl")}
			if sig.unsorted {
				// spill files go beside the outputs: the directory must end empty
				args = append(args, "--unsorted", "--mem-limit", "16MiB", "--tmp-dir", dir)
			}
			cmd := exec.Command(os.Args[0], append(args, in)...)
			cmd.Env = append(os.Environ(), "RANKEVAL_TEST_MAIN=1")
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(stderr)
			var lines []string
			for sc.Scan() {
				lines = append(lines, sc.Text())
				// rows count queries handed to workers; while spilling (unsorted
				// phase 1) none are, so any progress line will do there
				if strings.HasPrefix(sc.Text(), "rankeval: progress rows=") && (sig.unsorted || !strings.HasPrefix(sc.Text(), "rankeval: progress rows=0 ")) {
					break
				}
			}
			start := time.Now()
			cmd.Process.Signal(sig.s)
			for sc.Scan() {
				lines = append(lines, sc.Text())
			}
			err = cmd.Wait()
			if time.Since(start) > 3*time.Second {
				t.Errorf("took %v to stop", time.Since(start))
			}
			if code := cmd.ProcessState.ExitCode(); code != sig.code {
				t.Fatalf("exit %d (%v), want %d; stderr:\n%s", code, err, sig.code, strings.Join(lines, "\n"))
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Fatalf("left behind: %v", entries)
			}
		})
	}
}

func TestUnsortedCLI(t *testing.T) {
	sample := filepath.Join("..", "..", "testdata", "sample.jsonl.zst")
	shuffled := interleave(t, readLines(t, sample), jsonQuery("query_id"), "shuffled.jsonl")
	args := []string{"--format", "json", "-m", "map,ndcg@10,err@10,kendall", "--ties", "average"}
	_, want, _ := cli(t, append(args, sample)...)
	if code, _, stderr := cli(t, append(args, shuffled)...); code != 1 || !strings.Contains(stderr, "or use --unsorted") {
		t.Fatalf("without --unsorted: exit %d %s", code, stderr)
	}
	tmp := t.TempDir()
	code, got, stderr := cli(t, append(args, "--unsorted", "--mem-limit", "16MiB", "--tmp-dir", tmp, shuffled)...)
	if code != 0 {
		t.Fatal(stderr)
	}
	if body(got) != body(want) {
		t.Fatalf("unsorted summary differs from the sorted log's:\n%s\nvs\n%s", got, want)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("left in --tmp-dir: %v", left)
	}
	for _, bad := range []string{"12", "1TB?", "-5MiB", "1MiB"} {
		if code, _, _ := cli(t, "--unsorted", "--mem-limit", bad, sample); code != 2 {
			t.Errorf("--mem-limit %s: exit %d, want 2", bad, code)
		}
	}
}

func TestDedup(t *testing.T) {
	in := filepath.Join(t.TempDir(), "dup.jsonl")
	os.WriteFile(in, []byte(`{"query_id":"a","doc_id":"x","score":3,"label":0}
{"query_id":"a","doc_id":"y","score":2,"label":1}
{"query_id":"a","doc_id":"x","score":9,"label":1}
{"query_id":"b","score":1,"label":1}
{"query_id":"b","score":1,"label":0}
`), 0o644)
	code, _, stderr := cli(t, in)
	if code != 1 || !strings.Contains(stderr, in+`:3: document "x" appears twice in query "a" (first at `+in+":1)") {
		t.Fatalf("exit %d %q", code, stderr)
	}
	code, stdout, stderr := cli(t, "--dedup", "first", "--format", "json", "-m", "mrr", in)
	if code != 0 {
		t.Fatal(stderr)
	}
	var s struct {
		Rows    int64 `json:"rows"`
		Dropped int64 `json:"duplicates_dropped"`
		Metrics map[string]struct {
			Mean float64 `json:"mean"`
		} `json:"metrics"`
	}
	json.Unmarshal([]byte(stdout), &s)
	// a keeps x (score 3, label 0) and y: rr 1/2; b has no doc ids (never
	// duplicates) and its relevant row is first among ties: rr 1
	if s.Dropped != 1 || s.Rows != 4 || s.Metrics["mrr"].Mean != 0.75 {
		t.Fatalf("%s", stdout)
	}
}

// TestProgressNote: a note (the input being read again) shows on the
// terminal line and as a quoted field of the log line.
func TestProgressNote(t *testing.T) {
	p := pipeline.Progress{Rows: 10, Queries: 2, Bytes: 100, TotalBytes: 1000, Elapsed: time.Second,
		Note: `query id "a" came back at log.jsonl:3: reading the input again to find where its rows began`}
	for _, terminal := range []bool{true, false} {
		var b strings.Builder
		progressPrinter(&b, terminal)(p)
		want := `; query id "a" came back at log.jsonl:3: reading`
		if !terminal {
			want = ` note="query id \"a\" came back at log.jsonl:3: reading`
		}
		if !strings.Contains(b.String(), want) {
			t.Errorf("terminal %v: %q does not contain %q", terminal, b.String(), want)
		}
	}
}

// TestPropensitiesSignalCleansUp interrupts rankeval propensities once,
// after its count table has spilled runs under --tmp-dir and the reading
// is over (the estimate, which reads no input, is running): it exits 130
// and leaves no run file, whether or not the estimate stops within the
// watchdog's grace.
func TestPropensitiesSignalCleansUp(t *testing.T) {
	if testing.Short() {
		t.Skip("a log of some 300,000 distinct cells")
	}
	dir := t.TempDir()
	log := bigPropLog(t, dir)
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	// the estimate of em over 20,000 replicates on one worker takes far
	// longer than the watchdog's grace
	cmd := exec.Command(os.Args[0], "propensities", "--position-col", "position", "--ranker-col", "ranker", "--method", "em",
		"--replicates", "20000", "--workers", "1", "--mem-limit", "16MiB", "--tmp-dir", tmp, "--output", filepath.Join(dir, "p.csv"), log)
	cmd.Env = append(os.Environ(), "RANKEVAL_TEST_MAIN=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	// the reading is over when runs exist and no new one came for a second
	runs, since := 0, time.Now()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no run file settled in --tmp-dir; stderr %s", stderr.String())
		}
		entries, _ := os.ReadDir(tmp)
		if len(entries) != runs {
			runs, since = len(entries), time.Now()
		}
		if runs > 0 && time.Since(since) > time.Second {
			break
		}
	}
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Fatalf("exit %d (%v), want 130; stderr:\n%s", code, err, stderr.String())
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Fatalf("left in --tmp-dir: %d files (%v ...)", len(entries), entries[0].Name())
	}
}
