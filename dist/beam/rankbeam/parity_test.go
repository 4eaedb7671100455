package rankbeam_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/config"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"

	"github.com/rankeval/rankeval/dist/beam/rankbeam"
	"github.com/rankeval/rankeval/internal/objtest"
	"github.com/rankeval/rankeval/internal/synth"
	"github.com/rankeval/rankeval/internal/vectors"
	"github.com/rankeval/rankeval/objstore"
	"github.com/rankeval/rankeval/reader"
)

// rankevalBin is the local CLI, built from the root module once per run:
// parity is with the command a user runs, byte for byte.
var rankevalBin string

func TestMain(m *testing.M) {
	flag.Parse()
	// Prism logs every job's progress at INFO; keep test output to failures.
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	beam.Init()
	dir, err := os.MkdirTemp("", "rankeval-parity-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// Beam's loopback runner leaves an empty beamloopbackworker-* file in
	// the temp directory on every run (its own TODO, apache/beam#27569):
	// point it at ours, which is removed at the end.
	os.Setenv("TMPDIR", dir)
	rankevalBin = filepath.Join(dir, "rankeval")
	// without VCS stamps, as this test binary has none: summaries name the
	// version that made them, and the two must match
	build := exec.Command("go", "build", "-buildvcs=false", "-o", rankevalBin, "github.com/rankeval/rankeval/cmd/rankeval")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building rankeval:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func local(t *testing.T, args ...string) string {
	t.Helper()
	code, out := localCode(t, args...)
	if code != 0 {
		t.Fatalf("rankeval %s: exit %d", strings.Join(args, " "), code)
	}
	return out
}

// localCode is local for a run that may exit 3 (a failed gate, after the
// summary): its exit code and summary.
func localCode(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(rankevalBin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String()
	case errors.As(err, &exit) && exit.ExitCode() == 3:
		return 3, out.String()
	}
	t.Fatalf("rankeval %s: %v: %s", strings.Join(args, " "), err, errb.String())
	return 0, ""
}

// job is one evaluation: its configuration and where its outputs go.
type job struct {
	name     string
	cfg      rankbeam.Config
	out      string
	perQuery string
	shards   int
}

// runBeam runs every job as a branch of one pipeline on Prism, in process,
// so one job start serves many comparisons.
func runBeam(t *testing.T, jobs []job) {
	t.Helper()
	p, s := beam.NewPipelineWithRoot()
	for _, j := range jobs {
		summary, err := rankbeam.Build(s.Scope(j.name), j.cfg, j.perQuery, j.shards)
		if err != nil {
			t.Fatalf("%s: %v", j.name, err)
		}
		rankbeam.WriteTo(s.Scope(j.name), summary, j.out)
	}
	if _, err := prism.Execute(context.Background(), p); err != nil {
		t.Fatalf("pipeline: %v", err)
	}
}

// beamConfig mirrors the local CLI's defaults for the given flags.
func beamConfig(inputs []string, metrics, ties, gain, empty string, maxGrade float64, rel *float64, format string) rankbeam.Config {
	// the flags as rankeval-beam registers them, with their defaults
	v := config.Default()
	v.Metrics, v.Ties, v.Gain, v.Empty, v.MaxGrade, v.Format = metrics, ties, gain, empty, maxGrade, format
	v.MaxGradeSet = true // as rankeval given --max-grade, which the tests pass it
	if rel != nil {
		v.RelThreshold = strconv.FormatFloat(*rel, 'g', -1, 64)
	}
	return rankbeam.Config{Inputs: inputs, Config: v}
}

func read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// vectorsDir is the root module's testdata/vectors (a copy of the
// project's shared vectors); the test fails, never skips, when it is
// missing.
func vectorsDir(t *testing.T) string {
	t.Helper()
	d, err := vectors.Testdata()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(d, "vectors")
}

// TestParityVectors: every case of the vectors, summary and per-query
// output, byte for byte against the local CLI.
func TestParityVectors(t *testing.T) {
	files, err := vectors.Load(vectorsDir(t))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	type check struct {
		name          string
		args          []string
		out, perQuery string
	}
	var jobs []job
	var checks []check
	for _, vf := range files {
		in := vf.Log
		ms := strings.Join(vf.Metrics, ",")
		for ci, c := range vf.Cases {
			o := c.Options
			for _, format := range []string{"json", "text"} {
				name := fmt.Sprintf("%s-%d-%s", vf.Name, ci, format)
				args := append([]string{"--format", format, "-m", ms}, o.Args()...)
				ck := check{name: name, args: append(args, in), out: filepath.Join(tmp, name+".summary")}
				j := job{name: name, cfg: beamConfig([]string{in}, ms, o.Ties, o.Gain, o.Empty, o.MaxGrade, o.RelThreshold, format), out: ck.out}
				if format == "json" {
					ck.perQuery = filepath.Join(tmp, name+".pq")
					j.perQuery, j.shards = ck.perQuery, 1
				}
				jobs = append(jobs, j)
				checks = append(checks, ck)
			}
		}
	}
	runBeam(t, jobs)
	for _, ck := range checks {
		t.Run(ck.name, func(t *testing.T) {
			args := ck.args
			var localPQ string
			if ck.perQuery != "" {
				localPQ = ck.perQuery + ".local"
				args = append([]string{"--per-query", localPQ}, args...)
			}
			want := local(t, args...)
			if got := read(t, ck.out); got != want {
				t.Fatalf("Beam summary differs from rankeval's:\n%s\nrankeval:\n%s", got, want)
			}
			if ck.perQuery != "" {
				// one shard holds every query, in input order
				got, want := read(t, ck.perQuery+"-00000-of-00001.jsonl"), read(t, localPQ)
				if got != want {
					t.Fatalf("per-query output differs:\n%s\nrankeval:\n%s", got, want)
				}
			}
		})
	}
}

// genRows makes a log whose queries come in shuffled order, with extra
// ties (scores rounded to quarters in every third query) so the tie
// policies matter.
func genRows(seed uint64, n, docs int) []synth.Row {
	g := synth.NewGenerator(seed, n, docs)
	var byQuery [][]synth.Row
	var r synth.Row
	for g.Next(&r) {
		if len(byQuery) == 0 || byQuery[len(byQuery)-1][0].Query != r.Query {
			byQuery = append(byQuery, nil)
		}
		q := len(byQuery) - 1
		if q%3 == 0 {
			r.Score = math.Round(r.Score*4) / 4
		}
		byQuery[q] = append(byQuery[q], r)
	}
	rng := rand.New(rand.NewPCG(seed, 99))
	rng.Shuffle(len(byQuery), func(i, j int) { byQuery[i], byQuery[j] = byQuery[j], byQuery[i] })
	var out []synth.Row
	for _, q := range byQuery {
		out = append(out, q...)
	}
	return out
}

// writeParts writes rows into files cut at arbitrary rows (queries span
// files), one per name; the name's ending picks the format.
func writeParts(t *testing.T, dir string, rows []synth.Row, names []string, opt synth.Options) []string {
	t.Helper()
	var paths []string
	cuts := []int{0}
	rng := rand.New(rand.NewPCG(5, uint64(len(rows))))
	for range len(names) - 1 {
		cuts = append(cuts, rng.IntN(len(rows)))
	}
	cuts = append(cuts, len(rows))
	sort.Ints(cuts)
	for i, name := range names {
		p := filepath.Join(dir, name)
		if err := synth.Write(p, &synth.Rows{R: rows[cuts[i]:cuts[i+1]]}, -1, opt); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// TestParityGenerated: a generated log in shuffled query order, split into
// several files of several formats (Parquet with many row groups, so its
// parts are read by different work items; CSV and TSV), every tie policy.
func TestParityGenerated(t *testing.T) {
	n := 60000
	if testing.Short() {
		n = 12000
	}
	dir := t.TempDir()
	rows := genRows(21, n, 30)
	paths := writeParts(t, dir, rows,
		[]string{"part-0.jsonl", "part-1.jsonl.gz", "part-2.parquet", "part-3.jsonl.zst", "part-4.parquet", "part-5.csv.gz", "part-6.tsv"},
		synth.Options{RowGroup: 1500})
	ms := "map,mrr,ndcg@10,ndcg,err@10,nerr@10,p@5,r@10,f1@5,rprec,kendall@5,spearman"
	tmp := t.TempDir()
	var jobs []job
	type check struct{ name, ties, empty, out, pq string }
	var checks []check
	for _, ties := range []string{"input", "average", "trec", "optimistic", "pessimistic"} {
		for _, empty := range []string{"skip", "zero"} {
			name := ties + "-" + empty
			ck := check{name: name, ties: ties, empty: empty, out: filepath.Join(tmp, name+".json")}
			j := job{name: name, cfg: beamConfig(paths, ms, ties, "exp", empty, 4, nil, "json"), out: ck.out}
			if empty == "skip" {
				ck.pq = filepath.Join(tmp, name+".pq")
				j.perQuery, j.shards = ck.pq, 3
			}
			jobs = append(jobs, j)
			checks = append(checks, ck)
		}
	}
	runBeam(t, jobs)
	for _, ck := range checks {
		t.Run(ck.name, func(t *testing.T) {
			args := []string{"--format", "json", "-m", ms, "--ties", ck.ties, "--empty", ck.empty}
			localPQ := filepath.Join(tmp, ck.name+".local.pq")
			if ck.pq != "" {
				args = append(args, "--per-query", localPQ)
			}
			want := local(t, append(args, dir)...)
			if got := read(t, ck.out); got != want {
				t.Fatalf("Beam summary differs from rankeval's:\n%s\nrankeval:\n%s", got, want)
			}
			if !strings.Contains(want, fmt.Sprintf(`"rows": %d`, n)) {
				t.Fatalf("summary does not count %d rows", n)
			}
			if ck.pq != "" {
				// three shards: together, the local lines
				var got []string
				for s := range 3 {
					got = append(got, strings.SplitAfter(read(t, fmt.Sprintf("%s-%05d-of-00003.jsonl", ck.pq, s)), "\n")...)
				}
				want := strings.SplitAfter(read(t, localPQ), "\n")
				got, want = slices.DeleteFunc(got, func(s string) bool { return s == "" }), slices.DeleteFunc(want, func(s string) bool { return s == "" })
				slices.Sort(got)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Fatalf("per-query shards hold %d lines; rankeval wrote %d, or they differ", len(got), len(want))
				}
			}
		})
	}
}

// TestUnsortedInput: rows of queries interleaved across files (each
// query's rows still in their order) give the summary the local CLI gives
// on the same log grouped by query: the shuffle groups, and input order is
// restored from each row's position.
func TestUnsortedInput(t *testing.T) {
	rows := genRows(31, 9000, 20)
	var qs [][]synth.Row
	for _, r := range rows {
		if len(qs) == 0 || qs[len(qs)-1][0].Query != r.Query {
			qs = append(qs, nil)
		}
		qs[len(qs)-1] = append(qs[len(qs)-1], r)
	}
	// interleave: repeatedly take the next row of a random unfinished query
	rng := rand.New(rand.NewPCG(3, 4))
	next := make([]int, len(qs))
	var mixed []synth.Row
	live := make([]int, len(qs))
	for i := range live {
		live[i] = i
	}
	for len(live) > 0 {
		k := rng.IntN(len(live))
		q := live[k]
		mixed = append(mixed, qs[q][next[q]])
		if next[q]++; next[q] == len(qs[q]) {
			live = append(live[:k], live[k+1:]...)
		}
	}
	dir := t.TempDir()
	grouped := filepath.Join(dir, "grouped.jsonl")
	if err := synth.Write(grouped, &synth.Rows{R: rows}, -1, synth.Options{}); err != nil {
		t.Fatal(err)
	}
	mdir := filepath.Join(dir, "mixed")
	os.Mkdir(mdir, 0o755)
	paths := writeParts(t, mdir, mixed, []string{"a.jsonl", "b.jsonl", "c.parquet"}, synth.Options{RowGroup: 1000})
	out := filepath.Join(dir, "summary.json")
	ms := "map,ndcg@10,err@10,kendall@5"
	runBeam(t, []job{{name: "mixed", cfg: beamConfig(paths, ms, "input", "exp", "skip", 4, nil, "json"), out: out}})
	if _, err := exec.Command(rankevalBin, "-m", ms, mdir).CombinedOutput(); err == nil {
		t.Fatal("the local CLI accepted interleaved queries; this test assumes it refuses them")
	}
	want := local(t, "--format", "json", "-m", ms, grouped)
	if got := read(t, out); vectors.SummaryBody(got) != vectors.SummaryBody(want) {
		t.Fatalf("Beam on interleaved input:\n%s\nrankeval on the grouped log:\n%s", got, want)
	}
}

// TestDedup: a doc id repeated within a query is dropped under --dedup
// first exactly as rankeval drops it (the first in input order is kept,
// whatever order the shuffle delivers), and fails the job otherwise.
func TestDedup(t *testing.T) {
	dir := t.TempDir()
	var rows []synth.Row
	for q := range 40 {
		for d := range 12 {
			// every query repeats two doc ids, with different labels and
			// scores, one repeat in another file
			doc := d
			if d >= 10 {
				doc = d - 10
			}
			rows = append(rows, synth.Row{Query: fmt.Sprintf("q%02d", q), Doc: fmt.Sprintf("d%d", doc),
				Score: float64((d*7+q)%5) / 4, Label: float64((d + q) % 3)})
		}
	}
	paths := writeParts(t, dir, rows, []string{"a.jsonl", "b.jsonl", "c.parquet"}, synth.Options{RowGroup: 50})
	ms := "map,ndcg@5,p@3"
	out := filepath.Join(dir, "first.json")
	cfg := beamConfig(paths, ms, "input", "exp", "skip", 4, nil, "json")
	cfg.Dedup = "first"
	runBeam(t, []job{{name: "first", cfg: cfg, out: out}})
	want := local(t, "--format", "json", "-m", ms, "--dedup", "first", paths[0], paths[1], paths[2])
	if got := read(t, out); got != want {
		t.Fatalf("Beam with --dedup first:\n%s\nrankeval:\n%s", got, want)
	}
	if !strings.Contains(want, `"duplicates_dropped": 80`) {
		t.Fatalf("expected 80 rows dropped:\n%s", want)
	}

	p, s := beam.NewPipelineWithRoot()
	sum, err := rankbeam.Build(s, beamConfig(paths, ms, "input", "exp", "skip", 4, nil, "json"), "", 0)
	if err != nil {
		t.Fatal(err)
	}
	rankbeam.WriteTo(s, sum, filepath.Join(dir, "never.json"))
	_, err = prism.Execute(context.Background(), p)
	if err == nil || !strings.Contains(err.Error(), "appears twice in query") {
		t.Fatalf("err = %v, want the duplicate named", err)
	}
}

// TestRepeatedPosition: two rows of one impression at one logged position
// fail the job with rankeval's message, also when the impression's rows
// are read from two files and joined by the shuffle (Group.Logged crosses
// it).
func TestRepeatedPosition(t *testing.T) {
	dir := t.TempDir()
	rows := simClicks(72, 50)
	last := rows[len(rows)-10:] // the last impression: 10 rows, positions 1..10
	last[9].Position = last[0].Position
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.parquet")
	for i, part := range [][]synth.Row{rows[:len(rows)-5], rows[len(rows)-5:]} {
		if err := synth.Write([]string{a, b}[i], &synth.Rows{R: part}, -1, synth.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	cfg := beamConfig([]string{a, b}, "ips_dcg@10", "input", "exp", "skip", 4, nil, "json")
	cfg.Clicks.PositionCol, cfg.Clicks.PositionBias = "position", "pow:1"
	p, s := beam.NewPipelineWithRoot()
	sum, err := rankbeam.Build(s, cfg, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	rankbeam.WriteTo(s, sum, filepath.Join(dir, "never.json"))
	_, err = prism.Execute(context.Background(), p)
	want := fmt.Sprintf("has two rows at logged position %d (the other at ", last[0].Position)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want %q", err, want)
	}
	out, err := exec.Command(rankevalBin, "-m", "ips_dcg@10", "--position-col", "position", "--position-bias", "pow:1", a, b).CombinedOutput()
	if err == nil || !strings.Contains(string(out), want) {
		t.Fatalf("rankeval: %v, %s", err, out)
	}
}

// TestObjectStore: Parquet row groups and a zstd JSONL file read from each
// store on loopback (credentials and endpoint from its standard
// variables), the summary written back to it, equal to rankeval's on the
// same files on disk. A web server lists nothing: its job names each file.
func TestObjectStore(t *testing.T) {
	dir := t.TempDir()
	rows := genRows(41, 15000, 25)
	names := []string{"part-0.parquet", "part-1.jsonl.zst", "part-2.parquet"}
	writeParts(t, dir, rows, names, synth.Options{RowGroup: 1200})
	ms := "map,ndcg@10,err@10,p@5"
	want := local(t, "--format", "json", "-m", ms, dir)
	for _, scheme := range objtest.Schemes {
		t.Run(scheme, func(t *testing.T) {
			s := objtest.Start(t, scheme)
			s.PutDir(t, "exports/run1", dir)
			var paths []string
			if scheme == "https" {
				for _, n := range names {
					paths = append(paths, s.Object("exports/run1/"+n))
				}
			} else {
				ins, err := reader.Expand([]string{s.Object("exports/run1/")})
				if err != nil {
					t.Fatal(err)
				}
				if len(ins) != 3 {
					t.Fatalf("expanded to %d objects, want 3", len(ins))
				}
				for _, in := range ins {
					paths = append(paths, in.Path)
				}
			}
			out := s.Object("eval/summary.json")
			runBeam(t, []job{{name: scheme, cfg: beamConfig(paths, ms, "input", "exp", "skip", 4, nil, "json"), out: out}})
			o, err := objstore.Open(context.Background(), out)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]byte, o.Size())
			if _, err := o.ReadAt(got, 0); err != nil {
				t.Fatal(err)
			}
			if vectors.SummaryBody(string(got)) != vectors.SummaryBody(want) {
				t.Fatalf("Beam from %s:\n%s\nrankeval on disk:\n%s", scheme, got, want)
			}
		})
	}
}

// TestStateMergesWithCLI: a state written by rankeval-beam merges with one
// written by rankeval (a cluster backfill beside a nightly run), into the
// summary rankeval prints over both days' logs.
func TestStateMergesWithCLI(t *testing.T) {
	dir := t.TempDir()
	rows := genRows(51, 6000, 20)
	// the days hold different queries: a query in two states counts twice
	cut := len(rows) / 2
	for cut < len(rows) && rows[cut].Query == rows[cut-1].Query {
		cut++
	}
	var paths []string
	for i, part := range [][]synth.Row{rows[:cut], rows[cut:]} {
		p := filepath.Join(dir, []string{"day1.parquet", "day2.jsonl"}[i])
		if err := synth.Write(p, &synth.Rows{R: part}, -1, synth.Options{RowGroup: 700}); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	ms := "map,ndcg@10,err@10,mrr"
	cfg := beamConfig(paths[:1], ms, "input", "exp", "skip", 4, nil, "json")
	cfg.Outputs.State = filepath.Join(dir, "day1.state")
	runBeam(t, []job{{name: "day1", cfg: cfg, out: filepath.Join(dir, "day1.json")}})
	local(t, "--quiet", "-m", ms, "--state", filepath.Join(dir, "day2.state"), "--output", filepath.Join(dir, "day2.json"), paths[1])
	merged := local(t, "merge", "--format", "json", filepath.Join(dir, "day1.state"), filepath.Join(dir, "day2.state"))
	want := local(t, "--quiet", "--format", "json", "-m", ms, paths[0], paths[1])
	if merged != want {
		t.Fatalf("Beam's state merged with rankeval's:\n%s\nrankeval over both days:\n%s", merged, want)
	}
}

// TestEmptyInput: an input with no rows prints the zero-count summary
// rankeval prints (docs/metrics.md §8), not nothing.
func TestEmptyInput(t *testing.T) {
	dir := t.TempDir()
	blank := filepath.Join(dir, "blank.jsonl")
	os.WriteFile(blank, []byte("\n\n"), 0o644)
	empty := filepath.Join(dir, "empty.jsonl")
	os.WriteFile(empty, nil, 0o644)
	var jobs []job
	for _, in := range []string{blank, empty} {
		jobs = append(jobs, job{name: filepath.Base(in), cfg: beamConfig([]string{in}, "map,ndcg@10", "input", "exp", "skip", 4, nil, "json"),
			out: in + ".summary"})
	}
	runBeam(t, jobs)
	for _, in := range []string{blank, empty} {
		want := local(t, "--quiet", "--format", "json", "-m", "map,ndcg@10", in)
		if got := read(t, in+".summary"); got != want || !strings.Contains(got, `"rows": 0`) {
			t.Fatalf("%s: Beam:\n%s\nrankeval:\n%s", in, got, want)
		}
	}
}

// TestAnalysisParity: slices, two score columns (compared by the
// rank-similarity measures too; ir_measures' names beside rankeval's)
// and a bootstrap give rankeval's summary and per-query records, byte for byte, on files split
// at arbitrary rows and read in shuffled parts.
func TestAnalysisParity(t *testing.T) {
	dir := t.TempDir()
	g := synth.NewGenerator(61, 8000, 20).WithSlices(7, 2)
	var rows []synth.Row
	var r synth.Row
	for g.Next(&r) {
		rows = append(rows, r)
	}
	paths := writeParts(t, dir, rows, []string{"a.jsonl", "b.parquet", "c.jsonl.zst"}, synth.Options{RowGroup: 900})
	ms := "ndcg@10,map,mrr,kendall,overlap@5,jaccard@5,churn@3,rbo:0.9,rbo_res:0.9@10,rbo_ext:0.8,tau@10,nDCG@10,P(rel=2)@5,SetF(rel=2,beta=0.5),ERR@5,RR@3,Judged@5"
	cfg := beamConfig(paths, ms, "input", "exp", "skip", 4, nil, "json")
	cfg.By, cfg.Bootstrap = "market", 200
	cfg.Columns.Score = "score,score_b"
	out, pq := filepath.Join(dir, "beam.json"), filepath.Join(dir, "pq")
	runBeam(t, []job{{name: "analysis", cfg: cfg, out: out, perQuery: pq, shards: 1}})
	localPQ := filepath.Join(dir, "local.pq")
	want := local(t, append([]string{"--quiet", "--format", "json", "-m", ms, "--by", "market", "--score-col", "score,score_b",
		"--bootstrap", "200", "--per-query", localPQ}, paths...)...)
	if got := read(t, out); got != want {
		t.Fatalf("Beam:\n%s\nrankeval:\n%s", got, want)
	}
	if got, want := read(t, pq+"-00000-of-00001.jsonl"), read(t, localPQ); got != want {
		t.Fatalf("per-query records differ:\n%.400s\nrankeval:\n%.400s", got, want)
	}
}

// TestComparisonParity: three systems compared pair by pair by the
// randomization test and by Tukey HSD, with a bootstrap, a BH correction
// and a non-inferiority gate, give rankeval's summary byte for byte (the
// gate's verdict too) on files split at arbitrary rows.
func TestComparisonParity(t *testing.T) {
	dir := t.TempDir()
	g := synth.NewGenerator(62, 6000, 20).WithSlices(5, 2)
	var rows []synth.Row
	var r synth.Row
	for i := 0; g.Next(&r); i++ {
		r.ScoreC, r.HasScoreC = r.Score+float64(i%7)/10-r.Label/20, true
		rows = append(rows, r)
	}
	paths := writeParts(t, dir, rows, []string{"a.parquet", "b.jsonl"}, synth.Options{RowGroup: 700})
	ms := "ndcg@10,map"
	for _, tc := range []struct {
		name string
		set  func(v *config.Config)
		args []string
	}{
		{"randomization", func(v *config.Config) { v.Pairs, v.Permutations, v.Seed, v.Correction = "all", 300, 2, "bh" },
			[]string{"--pairs", "all", "--permutations", "300", "--seed", "2", "--correction", "bh"}},
		{"tukey", func(v *config.Config) { v.Test, v.Permutations, v.Bootstrap = "tukey", 200, 40 },
			[]string{"--test", "tukey", "--permutations", "200", "--bootstrap", "40"}},
		{"t, detect", func(v *config.Config) { v.Detect = "ndcg@10=0.01,map=0.002" },
			[]string{"--detect", "ndcg@10=0.01,map=0.002"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := beamConfig(paths, ms, "input", "exp", "skip", 4, nil, "json")
			cfg.Columns.Score = "score,score_b,score_c"
			cfg.Gates.FailIfWorse = "ndcg@10=0.001"
			tc.set(&cfg.Config)
			out := filepath.Join(dir, tc.name+".json")
			runBeam(t, []job{{name: tc.name, cfg: cfg, out: out, shards: 1}})
			args := append([]string{"--quiet", "--format", "json", "-m", ms, "--score-col", "score,score_b,score_c",
				"--fail-if-worse", "ndcg@10=0.001"}, tc.args...)
			code, want := localCode(t, append(args, paths...)...)
			if got := read(t, out); got != want {
				t.Fatalf("Beam:\n%s\nrankeval (exit %d):\n%s", got, code, want)
			}
			if code != 3 || !strings.Contains(want, `"worse": [`) {
				t.Fatalf("rankeval exit %d; the gate was meant to fail:\n%s", code, want)
			}
			if !strings.Contains(want, `"mde": 0.`) || strings.Contains(tc.name, "detect") != strings.Contains(want, `"needed": `) {
				t.Fatalf("no minimum detectable effect, or --detect answers only with --detect:\n%s", want)
			}
		})
	}
}

// TestEveryShardWritten: every per-query shard is written, those no query
// hashes to empty, so a rerun into the same prefix leaves no stale shard.
func TestEveryShardWritten(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "log.jsonl")
	os.WriteFile(in, []byte(`{"query_id":"a","score":1,"label":1}`+"\n"+`{"query_id":"b","score":1,"label":0}`+"\n"), 0o644)
	pq := filepath.Join(dir, "out", "pq")
	os.MkdirAll(filepath.Dir(pq), 0o755)
	for i := range 8 { // a previous run's shards
		os.WriteFile(fmt.Sprintf("%s-%05d-of-00008.jsonl", pq, i), []byte("stale\n"), 0o644)
	}
	runBeam(t, []job{{name: "shards", cfg: beamConfig([]string{in}, "map", "input", "exp", "skip", 4, nil, "json"),
		out: filepath.Join(dir, "s.json"), perQuery: pq, shards: 8}})
	lines := 0
	for i := range 8 {
		b := read(t, fmt.Sprintf("%s-%05d-of-00008.jsonl", pq, i))
		if strings.Contains(b, "stale") {
			t.Fatalf("shard %d is the previous run's", i)
		}
		lines += strings.Count(b, "\n")
	}
	if lines != 2 {
		t.Fatalf("%d per-query lines over the shards, want 2", lines)
	}
}

// TestBinaryLabelsWarning: on 0/1 labels with err asked for and no
// --max-grade, rankeval-beam's summary says so as rankeval's does (the
// labels seen are or-ed across workers), and says nothing on graded ones.
func TestBinaryLabelsWarning(t *testing.T) {
	dir := t.TempDir()
	rows := genRows(61, 4000, 20)
	for i := range rows {
		rows[i].Label = min(rows[i].Label, 1)
	}
	paths := writeParts(t, dir, rows, []string{"a.parquet", "b.jsonl"}, synth.Options{RowGroup: 500})
	ms := "map,err@10"
	cfg := beamConfig(paths, ms, "input", "exp", "skip", 4, nil, "json")
	cfg.MaxGradeSet = false // no --max-grade: the default of 4 on 0/1 labels
	runBeam(t, []job{{name: "binary", cfg: cfg, out: filepath.Join(dir, "out.json")}})
	got, want := read(t, filepath.Join(dir, "out.json")), local(t, "--quiet", "--format", "json", "-m", ms, paths[0], paths[1])
	if !strings.Contains(want, `"warnings"`) {
		t.Fatalf("rankeval gave no binary-labels warning:\n%s", want)
	}
	if vectors.SummaryBody(got) != vectors.SummaryBody(want) {
		t.Fatalf("Beam:\n%s\nrankeval:\n%s", got, want)
	}
}

// TestStateDigestsAsCLI: a state written by rankeval-beam records the
// inputs it was made from with the digests rankeval records for the same
// files (a Parquet file read as parts of row groups, whose queries run
// across them, and a JSON-lines file), so that rankeval merge refuses a
// Beam state and a rankeval state made from one input, naming both, and
// a merged state holding it; another day merges.
func TestStateDigestsAsCLI(t *testing.T) {
	dir := t.TempDir()
	rows := genRows(53, 6000, 20)
	cut := len(rows) / 3
	for cut < len(rows) && rows[cut].Query == rows[cut-1].Query {
		cut++
	}
	cut2 := 2 * len(rows) / 3
	for cut2 < len(rows) && rows[cut2].Query == rows[cut2-1].Query {
		cut2++
	}
	var paths []string
	for i, part := range [][]synth.Row{rows[:cut], rows[cut:cut2], rows[cut2:]} {
		p := filepath.Join(dir, []string{"day1.parquet", "day2.jsonl", "day3.jsonl"}[i])
		if err := synth.Write(p, &synth.Rows{R: part}, -1, synth.Options{RowGroup: 700}); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	ms := "map,ndcg@10,mrr"
	cfg := beamConfig(paths[:2], ms, "input", "exp", "skip", 4, nil, "json")
	cfg.Outputs.State = filepath.Join(dir, "beam.state")
	runBeam(t, []job{{name: "days1-2", cfg: cfg, out: filepath.Join(dir, "beam.json")}})
	cliState := func(name string, inputs ...string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		local(t, append([]string{"--quiet", "-m", ms, "--max-grade", "4", "--state", p, "--output", p + ".json"}, inputs...)...)
		return p
	}
	both, day2, day3 := cliState("both.state", paths[:2]...), cliState("day2.state", paths[1]), cliState("day3.state", paths[2])
	digests := regexp.MustCompile(`"digests":\[[^]]*\]`)
	got, want := digests.FindString(read(t, cfg.Outputs.State)), digests.FindString(read(t, both))
	if got == "" || got != want || !strings.Contains(got, paths[0]) || !strings.Contains(got, paths[1]) {
		t.Fatalf("Beam's state records %s; rankeval's %s", got, want)
	}
	merge := func(states ...string) (int, string) {
		cmd := exec.Command(rankevalBin, append([]string{"merge", "--format", "json", "--output", filepath.Join(dir, "merged.json")}, states...)...)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		err := cmd.Run()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode(), errb.String()
	}
	if code, stderr := merge(cfg.Outputs.State, day2); code != 1 || !strings.Contains(stderr, cfg.Outputs.State+" and "+day2+" were made from one input") {
		t.Fatalf("Beam's state and rankeval's of one of its days: exit %d, %s", code, stderr)
	}
	if code, stderr := merge(cfg.Outputs.State, day3); code != 0 {
		t.Fatalf("Beam's state and the next day: exit %d, %s", code, stderr)
	}
	week := filepath.Join(dir, "week.state")
	if code, stderr := merge(day3, cfg.Outputs.State, "--state", week); code != 0 {
		t.Fatal(stderr)
	}
	if code, stderr := merge(week, day2); code != 1 || !strings.Contains(stderr, "made from one input") {
		t.Fatalf("a merged state holding Beam's and one of its days: exit %d, %s", code, stderr)
	}
}
