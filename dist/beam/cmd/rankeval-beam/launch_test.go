package main

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rankeval/rankeval/internal/synth"
	"github.com/rankeval/rankeval/internal/vectors"
)

// The launcher's tests run the commands a user runs, built once per run:
// rankeval-beam (on Prism in its own process, or submitted to a Prism job
// server of its own, as to a cluster), and rankeval to compare with.
// Each job's temporary files go to a directory of the test (TMPDIR), to
// check that none is left.
var bins struct {
	dir                   string
	rankeval, beam, prism string
	buildOnce             sync.Once
	err                   error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if bins.dir != "" {
		os.RemoveAll(bins.dir)
	}
	os.Exit(code)
}

// binaries builds the commands on first use, without VCS stamps (the
// summaries name the version that made them, and the two must match).
func binaries(t *testing.T) {
	t.Helper()
	bins.buildOnce.Do(func() {
		if bins.dir, bins.err = os.MkdirTemp("", "rankeval-beam-test-"); bins.err != nil {
			return
		}
		bins.rankeval, bins.beam, bins.prism = filepath.Join(bins.dir, "rankeval"), filepath.Join(bins.dir, "rankeval-beam"), filepath.Join(bins.dir, "prism")
		for _, b := range []struct{ out, pkg string }{
			{bins.rankeval, "github.com/rankeval/rankeval/cmd/rankeval"},
			{bins.beam, "github.com/rankeval/rankeval/dist/beam/cmd/rankeval-beam"},
			// the job server of the Beam SDK in go.mod
			{bins.prism, "github.com/apache/beam/sdks/v2/go/cmd/prism"},
		} {
			out, err := exec.Command("go", "build", "-buildvcs=false", "-o", b.out, b.pkg).CombinedOutput()
			if err != nil {
				bins.err = fmt.Errorf("building %s: %v\n%s", b.pkg, err, out)
				return
			}
		}
	})
	if bins.err != nil {
		t.Fatal(bins.err)
	}
}

// result is what a command did.
type result struct {
	stdout, stderr string
	code           int
}

// run runs bin with args, its temporary files in tmp.
func run(t *testing.T, tmp, bin string, args ...string) result {
	t.Helper()
	return runIn(t, "", tmp, bin, args...)
}

// runIn runs bin in working directory wd ("": the test's).
func runIn(t *testing.T, wd, tmp, bin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = wd
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return result{out.String(), errb.String(), cmd.ProcessState.ExitCode()}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// leftovers lists what dir holds besides the names given.
func leftovers(t *testing.T, dir string, keep ...string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range ents {
		if !strings.Contains(strings.Join(keep, "\x00")+"\x00", e.Name()+"\x00") {
			left = append(left, e.Name())
		}
	}
	return left
}

// writeLog writes a generated log with a slice column and a second score
// column, as Parquet and JSONL parts.
func writeLog(t *testing.T, dir string, seed uint64, rows int) []string {
	t.Helper()
	g := synth.NewGenerator(seed, rows, 20).WithSlices(5, 2)
	var all []synth.Row
	var r synth.Row
	for g.Next(&r) {
		all = append(all, r)
	}
	cut := len(all) / 2
	var paths []string
	for i, part := range [][]synth.Row{all[:cut], all[cut:]} {
		p := filepath.Join(dir, []string{"a.parquet", "b.jsonl"}[i])
		if err := synth.Write(p, &synth.Rows{R: part}, -1, synth.Options{RowGroup: 500}); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// TestGatesAndReport: a failing gate exits 3 after the job has written
// the summary, whose gates object is rankeval's, byte for byte, as is the
// HTML report; passing gates exit 0.
func TestGatesAndReport(t *testing.T) {
	binaries(t)
	dir, tmp := t.TempDir(), t.TempDir()
	logs := writeLog(t, dir, 7, 4000)
	args := append([]string{"--format", "json", "-m", "ndcg@10,map,mrr", "--by", "market", "--score-col", "score,score_b"}, logs...)
	for _, tc := range []struct {
		name  string
		gates []string
		code  int
	}{
		{"fail", []string{"--fail-under", "ndcg@10=0.99,map=0.1", "--fail-on-empty"}, 3},
		{"pass", []string{"--fail-under", "map=0.01"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, tc.name)
			b := run(t, tmp, bins.beam, append(append(args, tc.gates...), "--output", out+".beam.json", "--report", out+".beam.html")...)
			l := run(t, tmp, bins.rankeval, append(append(args, tc.gates...), "--quiet", "--output", out+".json", "--report", out+".html")...)
			if b.code != tc.code || l.code != tc.code {
				t.Fatalf("exit %d (rankeval %d), want %d: %s", b.code, l.code, tc.code, b.stderr)
			}
			if got, want := readFile(t, out+".beam.json"), readFile(t, out+".json"); got != want || !strings.Contains(got, `"gates"`) {
				t.Fatalf("summary:\n%s\nrankeval:\n%s", got, want)
			}
			if got, want := readFile(t, out+".beam.html"), readFile(t, out+".html"); got != want {
				t.Fatalf("report differs from rankeval's (%d bytes, rankeval %d)", len(got), len(want))
			}
			if tc.code == 3 {
				// rankeval's message, after its own prefix
				_, want, _ := strings.Cut(strings.TrimSpace(l.stderr), "rankeval: ")
				if strings.TrimSpace(b.stderr) != "rankeval-beam: "+want {
					t.Fatalf("stderr %q, want rankeval's %q", b.stderr, want)
				}
			}
		})
	}
	if left := leftovers(t, tmp); left != nil {
		t.Fatalf("temporary files left: %v", left)
	}
}

// TestJoinNotes: what the join of a TREC run with its qrels left out
// (run queries without judgments, skipped under a profile; judged queries
// absent from the run) is said on stderr in rankeval's words, counted by
// the job's workers.
func TestJoinNotes(t *testing.T) {
	binaries(t)
	td, err := vectors.Testdata()
	if err != nil {
		t.Fatal(err)
	}
	ref, dir, tmp := filepath.Join(td, "reference", "trec_a"), t.TempDir(), t.TempDir()
	for _, tc := range []struct {
		name  string
		flags []string
	}{{"ignored", nil}, {"complete", []string{"--complete"}}} {
		t.Run(tc.name, func(t *testing.T) {
			// from the qrels' directory, so that both name it alike
			args := append([]string{"--qrels", "qrels.txt", "--profile", "trec_eval", "-m", "map", "run.txt"}, tc.flags...)
			b := runIn(t, ref, tmp, bins.beam, append(args, "--output", filepath.Join(dir, tc.name+".txt"))...)
			l := runIn(t, ref, tmp, bins.rankeval, append(args, "--quiet")...)
			if b.code != 0 || l.code != 0 {
				t.Fatalf("exit %d (rankeval %d): %s%s", b.code, l.code, b.stderr, l.stderr)
			}
			want := strings.ReplaceAll(l.stderr, "rankeval: ", "rankeval-beam: ")
			if b.stderr != want || strings.Count(want, "\n") != 2 || !strings.Contains(want, "8 run queries (207 rows)") {
				t.Fatalf("stderr:\n%s\nrankeval's:\n%s", b.stderr, l.stderr)
			}
		})
	}
}

// TestErrors: a bad row fails the job with rankeval's message alone (no
// execution plan) and exit 1; a place that cannot be written fails before
// the job; per-query shards of a failed job are removed; bad flag values
// exit 2.
func TestErrors(t *testing.T) {
	binaries(t)
	dir, tmp := t.TempDir(), t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"query_id":"a","score":1,"label":1}`+"\n"+`{"query_id":"a","score":"x","label":1}`+"\n"), 0o644)
	out := filepath.Join(dir, "out")
	os.Mkdir(out, 0o755)
	for i := range 4 { // a previous run's shards
		os.WriteFile(filepath.Join(out, fmt.Sprintf("pq-%05d-of-00004.jsonl", i)), []byte("old\n"), 0o644)
	}
	b := run(t, tmp, bins.beam, "-m", "map", "--output", filepath.Join(out, "s.json"), "--per-query", filepath.Join(out, "pq"), "--per-query-shards", "4", bad)
	l := run(t, tmp, bins.rankeval, "-m", "map", bad)
	_, want, _ := strings.Cut(strings.TrimSpace(l.stderr), "rankeval: ")
	if b.code != 1 || strings.TrimSpace(b.stderr) != "rankeval-beam: "+want {
		t.Fatalf("exit %d, stderr %q; want 1 and rankeval's %q", b.code, b.stderr, want)
	}
	if left := leftovers(t, out); left != nil {
		t.Fatalf("a failed job left %v", left)
	}

	b = run(t, tmp, bins.beam, "-m", "map", "--output", filepath.Join(dir, "missing", "s.json"), bad)
	if b.code != 1 || !strings.Contains(b.stderr, "cannot write") || strings.Count(b.stderr, "\n") != 1 {
		t.Fatalf("unwritable output: exit %d, stderr %q", b.code, b.stderr)
	}
	for _, args := range [][]string{{"--ties", "sideways"}, {"--fail-under", "ndcg@10=x"}, {"--fail-under", "p@5=0.1"}, {"--bootstrap", "-1"}} {
		if b := run(t, tmp, bins.beam, append(args, bad)...); b.code != 2 {
			t.Errorf("%q: exit %d, want 2: %s", args, b.code, b.stderr)
		}
	}
	if left := leftovers(t, tmp); left != nil {
		t.Fatalf("temporary files left: %v", left)
	}
}

// TestRelThresholdInf: an infinite threshold (no row relevant) is a
// value like any other, as for rankeval.
func TestRelThresholdInf(t *testing.T) {
	binaries(t)
	dir, tmp := t.TempDir(), t.TempDir()
	logs := writeLog(t, dir, 9, 600)
	args := append([]string{"--format", "json", "-m", "map,ndcg@10", "--rel-threshold", "inf", "--empty", "zero"}, logs...)
	b, l := run(t, tmp, bins.beam, args...), run(t, tmp, bins.rankeval, append(args, "--quiet")...)
	if b.code != 0 || b.stdout != l.stdout {
		t.Fatalf("exit %d: %s\n%s\nrankeval:\n%s", b.code, b.stderr, b.stdout, l.stdout)
	}
}

// TestInterrupted: SIGTERM stops the launch with 143 and leaves nothing
// behind: no temporary directory, no output, no temporary file of one.
func TestInterrupted(t *testing.T) {
	binaries(t)
	dir, tmp := t.TempDir(), t.TempDir()
	logs := writeLog(t, dir, 11, 200_000)
	out := filepath.Join(dir, "out")
	os.Mkdir(out, 0o755)
	cmd := exec.Command(bins.beam, append([]string{"-m", "map,ndcg@10", "--bootstrap", "1000", "--output", filepath.Join(out, "s.json"),
		"--per-query", filepath.Join(out, "pq"), "--report", filepath.Join(out, "r.html")}, logs...)...)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// the job has begun once the launch's temporary directory exists
	deadline := time.Now().Add(time.Minute)
	for len(leftovers(t, tmp)) == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 143 {
		t.Fatalf("exit %d, want 143: %s", code, errb.String())
	}
	if left := append(leftovers(t, tmp), leftovers(t, out)...); left != nil {
		t.Fatalf("an interrupted job left %v", left)
	}
}

// TestJobServer: the job submitted to Prism running as a separate job
// server, as to a cluster's (--runner universal --endpoint), so the
// serialized pipeline, the coders and the data between the runner and the
// workers (the launcher's loopback environment) are exercised: the summary
// and per-query records equal rankeval's, byte for byte, for a lake with
// slices, two score columns, the bootstrap and a failing gate (exit 3),
// for --system logs given as relative paths, and for a TREC run and qrels
// under --complete, with rankeval's notes on what the join left out.
func TestJobServer(t *testing.T) {
	binaries(t)
	dir, tmp := t.TempDir(), t.TempDir()
	// a directory, expanded by a worker in rankeval's order
	lake := filepath.Join(dir, "lake")
	os.Mkdir(lake, 0o755)
	writeLog(t, lake, 13, 6000)
	port := freePort(t)
	server := exec.Command(bins.prism, "--job_port", strconv.Itoa(port), "--serve_http=false", "--log_level", "error")
	server.Env = append(os.Environ(), "TMPDIR="+tmp)
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		server.Process.Kill()
		server.Wait()
	}()
	endpoint := "localhost:" + strconv.Itoa(port)
	deadline := time.Now().Add(time.Minute)
	for {
		c, err := net.Dial("tcp", endpoint)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the job server does not listen: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	args := []string{"--format", "json", "-m", "ndcg@10,map,err@10,kendall", "--by", "market", "--score-col", "score,score_b",
		"--bootstrap", "50", "--fail-under", "map=0.99", lake}
	b := run(t, tmp, bins.beam, append(args, "--runner", "universal", "--endpoint", endpoint, "--environment_type", "LOOPBACK",
		"--output", filepath.Join(dir, "beam.json"), "--per-query", filepath.Join(dir, "pq"), "--per-query-shards", "1")...)
	l := run(t, tmp, bins.rankeval, append(args, "--quiet", "--per-query", filepath.Join(dir, "local.pq"))...)
	if b.code != 3 || l.code != 3 {
		t.Fatalf("exit %d (rankeval %d), want 3: %s", b.code, l.code, b.stderr)
	}
	if got := readFile(t, filepath.Join(dir, "beam.json")); got != l.stdout {
		t.Fatalf("summary:\n%s\nrankeval:\n%s", got, l.stdout)
	}
	if got, want := readFile(t, filepath.Join(dir, "pq-00000-of-00001.jsonl")), readFile(t, filepath.Join(dir, "local.pq")); got != want {
		t.Fatalf("per-query records differ:\n%.300s\nrankeval:\n%.300s", got, want)
	}

	// --system logs given as relative paths: a worker expands each log
	// from the launcher's directory, numbering its files after the previous
	// log's, and the summary lists them as rankeval does (NAME=PATH)
	g := synth.NewGenerator(13, 6000, 20).WithSlices(5, 2)
	var other []synth.Row
	var r synth.Row
	for g.Next(&r) {
		r.Score = r.ScoreB // the other system's scores, for the same queries in the same order
		other = append(other, r)
	}
	if err := synth.Write(filepath.Join(dir, "new.jsonl"), &synth.Rows{R: other}, -1, synth.Options{}); err != nil {
		t.Fatal(err)
	}
	args = []string{"--format", "json", "-m", "ndcg@10,map", "--by", "market", "--system", "base=lake", "--system", "new=new.jsonl"}
	b = runIn(t, dir, tmp, bins.beam, append(args, "--runner", "universal", "--endpoint", endpoint, "--environment_type", "LOOPBACK",
		"--output", "systems.json", "--per-query", "spq", "--per-query-shards", "1")...)
	l = runIn(t, dir, tmp, bins.rankeval, append(args, "--quiet", "--per-query", "systems.pq")...)
	if b.code != 0 || l.code != 0 {
		t.Fatalf("--system: exit %d (rankeval %d): %s%s", b.code, l.code, b.stderr, l.stderr)
	}
	if got := readFile(t, filepath.Join(dir, "systems.json")); got != l.stdout || !strings.Contains(got, `"new=new.jsonl"`) {
		t.Fatalf("--system summary:\n%s\nrankeval:\n%s", got, l.stdout)
	}
	if got, want := readFile(t, filepath.Join(dir, "spq-00000-of-00001.jsonl")), readFile(t, filepath.Join(dir, "systems.pq")); got != want {
		t.Fatalf("--system per-query records differ:\n%.300s\nrankeval:\n%.300s", got, want)
	}

	// a TREC run joined to its qrels (a CoGroupByKey) under --complete
	td, err := vectors.Testdata()
	if err != nil {
		t.Fatal(err)
	}
	ref := filepath.Join(td, "reference", "trec_a")
	args = []string{"--qrels", filepath.Join(ref, "qrels.txt"), "--profile", "trec_eval", "--complete", "--format", "trec",
		"-m", "map,P_10,ndcg_cut_10", filepath.Join(ref, "run.txt")}
	b = run(t, tmp, bins.beam, append(args, "--runner", "universal", "--endpoint", endpoint, "--environment_type", "LOOPBACK",
		"--output", filepath.Join(dir, "trec.out"), "--per-query", filepath.Join(dir, "tpq"), "--per-query-shards", "1")...)
	l = run(t, tmp, bins.rankeval, append(args, "--quiet", "--per-query", filepath.Join(dir, "trec.pq"))...)
	if b.code != 0 || l.code != 0 {
		t.Fatalf("TREC: exit %d (rankeval %d): %s%s", b.code, l.code, b.stderr, l.stderr)
	}
	if got := readFile(t, filepath.Join(dir, "trec.out")); got != l.stdout {
		t.Fatalf("TREC summary:\n%s\nrankeval:\n%s", got, l.stdout)
	}
	// the join's counters, summed by the job server (TestJoinNotes)
	if notes := strings.ReplaceAll(l.stderr, "rankeval: ", "rankeval-beam: "); !strings.Contains(b.stderr, notes) || !strings.Contains(notes, "counted as 0") {
		t.Fatalf("TREC notes:\n%s\nrankeval's:\n%s", b.stderr, l.stderr)
	}
	if got, want := readFile(t, filepath.Join(dir, "tpq-00000-of-00001.trec")), readFile(t, filepath.Join(dir, "trec.pq")); got != want || len(want) < 100 {
		t.Fatalf("TREC per-query records differ:\n%.300s\nrankeval:\n%.300s", got, want)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "localhost:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
