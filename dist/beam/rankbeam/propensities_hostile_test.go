package rankbeam_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"

	"github.com/rankeval/rankeval/config"
	"github.com/rankeval/rankeval/dist/beam/rankbeam"
	"github.com/rankeval/rankeval/internal/synth"
)

// jsonlRows writes rows as JSONL by hand: labels as JSON booleans when
// bools, so that a click log's true/false clicks are read as rankeval
// reads them.
func jsonlRows(t *testing.T, name string, rows []synth.Row, bools bool) {
	t.Helper()
	var b bytes.Buffer
	for _, r := range rows {
		label := strconv.FormatFloat(r.Label, 'g', -1, 64)
		if bools {
			label = strconv.FormatBool(r.Label == 1)
		}
		fmt.Fprintf(&b, `{"query_id":%q,"doc_id":%q,"label":%s,"position":%d,"ranker":%q}`+"\n", r.Query, r.Doc, label, r.Position, r.Ranker)
	}
	if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPropensitiesHostileParity: rankeval-beam propensities writes
// rankeval propensities' file, state and report, byte for byte, on a log
// made to break a per-part count: one query's rows spread over files and
// over Parquet row groups of 7 rows (each a work item), the same rows
// twice in two files, rows past --max-position (position 50), clicks as
// JSON booleans, an empty file, a header-only CSV, a --system ranker whose
// log has no row, --min-clicks 1 and the fewest replicates; and the states
// Beam writes merge with rankeval's into the one run's file and state,
// while a day read by both is refused as counted twice.
func TestPropensitiesHostileParity(t *testing.T) {
	rows := propRows(11, 2400, 3, 0.3)
	defer rankbeam.SetChunkRows(37)()
	dir := t.TempDir()
	day1, day2 := filepath.Join(dir, "day1"), filepath.Join(dir, "day2")
	os.Mkdir(day1, 0o755)
	os.Mkdir(day2, 0o755)
	half := len(rows) / 2
	// day1: Parquet of tiny row groups, a JSONL with the first rows again
	// and booleans, rows past --max-position, empty files
	if err := synth.Write(filepath.Join(day1, "a.parquet"), &synth.Rows{R: rows[:half*2/3]}, -1, synth.Options{RowGroup: 7}); err != nil {
		t.Fatal(err)
	}
	dup := append([]synth.Row(nil), rows[half*2/3:half]...)
	dup = append(dup, rows[:50]...)
	jsonlRows(t, filepath.Join(day1, "b.jsonl"), dup, true)
	far := append([]synth.Row(nil), rows[:40]...)
	for i := range far {
		far[i].Position = 50
	}
	jsonlRows(t, filepath.Join(day1, "c.jsonl"), far, false)
	os.WriteFile(filepath.Join(day1, "d.jsonl"), nil, 0o644)
	os.WriteFile(filepath.Join(day1, "e.csv"), []byte("query_id,doc_id,label,position,ranker\n"), 0o644)
	// day2: the rest, split at arbitrary rows
	writeParts(t, day2, rows[half:], []string{"f.csv", "g.parquet", "h.jsonl.zst"}, synth.Options{RowGroup: 11})

	// one --system log per ranker of day1 and day2, and a ranker with no row
	byRanker := map[string][]synth.Row{}
	for _, r := range rows {
		byRanker[r.Ranker] = append(byRanker[r.Ranker], r)
	}
	var systems []string
	for _, name := range []string{"r1", "r2", "r3"} {
		d := filepath.Join(dir, name)
		os.Mkdir(d, 0o755)
		writeParts(t, d, byRanker[name], []string{"a.parquet", "b.jsonl"}, synth.Options{RowGroup: 13})
		systems = append(systems, name+"="+d)
	}
	none := filepath.Join(dir, "none.csv")
	os.WriteFile(none, []byte("query_id,doc_id,label,position\n"), 0o644)
	systems = append(systems, "r4="+none)

	out := t.TempDir()
	at := func(name string) string { return filepath.Join(out, name) }
	jobs := []propJob{
		{name: "day1", cfg: propConfig([]string{day1}, true, func(c *config.Config) {
			c.Outputs.State, c.Outputs.Report = at("day1.state"), at("day1.html")
		}), args: []string{"--ranker-col", "ranker", day1}, files: []string{"day1.state", "day1.html"}},
		{name: "em", cfg: propConfig([]string{day1, day2}, true, func(c *config.Config) {
			c.Propensities.Method = "em"
			c.Propensities.MaxPosition = 3
			c.Propensities.MinClicks = 1
			c.Outputs.State = at("em.state")
		}), args: []string{"--ranker-col", "ranker", "--method", "em", "--max-position", "3", "--min-clicks", "1", day1, day2},
			files: []string{"em.state"}},
		{name: "two", cfg: propConfig([]string{day2, day1}, true, func(c *config.Config) {
			c.Propensities.MaxPosition = 2
			c.Propensities.MinClicks = 1
			c.Outputs.Report = at("two.html")
		}), args: []string{"--ranker-col", "ranker", "--max-position", "2", "--min-clicks", "1", day2, day1}, files: []string{"two.html"}},
		{name: "system", cfg: propConfig(nil, false, func(c *config.Config) {
			c.Sources.System = systems
			c.Outputs.State, c.Outputs.Report = at("system.state"), at("system.html")
		}), files: []string{"system.state", "system.html"}},
	}
	for _, s := range systems {
		jobs[3].args = append(jobs[3].args, "--system", s)
	}
	for i := range jobs {
		jobs[i].out = at(jobs[i].name + ".csv")
	}
	if err := runPropensities(t, jobs); err != nil {
		t.Fatalf("pipeline: %v", err)
	}
	compareWithCLI(t, jobs, at, 0)

	// Beam's state of day1 merged with rankeval's of day2: the one run's
	// file and state
	base := []string{"propensities", "--position-col", "position", "--ranker-col", "ranker", "--replicates", "40", "--min-clicks", "5"}
	local(t, append(base, "--state", at("cli-day2.state"), day2)...)
	whole := local(t, append(base, "--state", at("cli-whole.state"), day1, day2)...)
	merged := local(t, "merge", "--state", at("merged.state"), at("day1.state"), at("cli-day2.state"))
	if merged != whole {
		t.Errorf("Beam's day1 merged with rankeval's day2:\n%s\none run:\n%s", merged, whole)
	}
	if got, want := read(t, at("merged.state")), read(t, at("cli-whole.state")); got != want {
		t.Errorf("the merged state differs from the one run's (%d and %d bytes)", len(got), len(want))
	}
	// day1 read by Beam and by rankeval: one day twice
	cmd := exec.Command(rankevalBin, "merge", at("day1.state"), at("cli-day1.state"))
	b, err := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != 1 || !strings.Contains(string(b), "would count twice") {
		t.Errorf("one day merged twice: %v: %s", err, b)
	}
}

// TestPropensitiesHostileRows: a row rankeval propensities refuses (a
// NaN or missing position, a click of 2, a position of 2.5, an empty doc
// id), or a damaged Parquet file, fails the job with rankeval's message
// and exit code, the log named
// as given (relative to the directory the job was launched from).
func TestPropensitiesHostileRows(t *testing.T) {
	good := `{"query_id":"q","doc_id":"a","label":1,"position":1}` + "\n"
	for _, c := range []struct{ name, file, body string }{
		{"nan-position", "log.csv", "query_id,doc_id,label,position\nq,a,1,1\nq,b,0,NaN\n"},
		{"missing-position", "log.jsonl", good + `{"query_id":"q","doc_id":"b","label":0}` + "\n"},
		{"click-2", "log.jsonl", good + `{"query_id":"q","doc_id":"b","label":2,"position":2}` + "\n"},
		{"position-2.5", "log.jsonl", good + `{"query_id":"q","doc_id":"b","label":0,"position":2.5}` + "\n"},
		{"empty-doc", "log.csv", "query_id,doc_id,label,position\nq,a,1,1\nq,,0,2\n"},
		{"not-parquet", "log.parquet", "PAR1garbagegarbagegarbage"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			os.Mkdir(filepath.Join(dir, "logs"), 0o755)
			in := filepath.Join("logs", c.file)
			os.WriteFile(filepath.Join(dir, in), []byte(c.body), 0o644)
			var errb bytes.Buffer
			cmd := exec.Command(rankevalBin, "propensities", "--position-col", "position", in)
			cmd.Dir, cmd.Stderr = dir, &errb
			cmd.Run()
			want := strings.TrimPrefix(strings.TrimSpace(errb.String()), "rankeval: ")
			if !strings.HasPrefix(want, in+":") {
				t.Fatalf("rankeval: %q", want)
			}
			cfg := propConfig([]string{in}, false, nil)
			cfg.Dir = dir
			err := runPropensities(t, []propJob{{name: "bad", cfg: cfg, out: filepath.Join(dir, "out.csv")}})
			msg, code, ok := rankbeam.JobError(err)
			if !ok || code != cmd.ProcessState.ExitCode() || msg != want {
				t.Fatalf("job error %v: %q, exit %d; rankeval: %q, exit %d", err, msg, code, want, cmd.ProcessState.ExitCode())
			}
		})
	}
}

// TestReadErrorNamedAsGiven: a reader's failure in an evaluation (a line
// without the score column) names the log as rankeval names it, relative
// to the directory the job was launched from, with rankeval's exit code.
func TestReadErrorNamedAsGiven(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "logs"), 0o755)
	in := filepath.Join("logs", "x.jsonl")
	os.WriteFile(filepath.Join(dir, in), []byte(`{"query_id":"q","doc_id":"a","label":1,"score":1}`+"\n"+`{"query_id":"q","doc_id":"b","label":0}`+"\n"), 0o644)
	var errb bytes.Buffer
	cmd := exec.Command(rankevalBin, in)
	cmd.Dir, cmd.Stderr = dir, &errb
	cmd.Run()
	want := strings.TrimPrefix(strings.TrimSpace(errb.String()), "rankeval: ")
	if !strings.HasPrefix(want, in+":2: ") {
		t.Fatalf("rankeval: %q", want)
	}
	p, s := beam.NewPipelineWithRoot()
	sum, err := rankbeam.Build(s, rankbeam.Config{Inputs: []string{in}, Config: config.Default(), Dir: dir}, "", 1)
	if err != nil {
		t.Fatal(err)
	}
	rankbeam.WriteTo(s, sum, filepath.Join(dir, "out.txt"))
	_, err = prism.Execute(context.Background(), p)
	msg, code, ok := rankbeam.JobError(err)
	if !ok || code != cmd.ProcessState.ExitCode() || msg != want {
		t.Fatalf("job error %v: %q, exit %d; rankeval: %q, exit %d", err, msg, code, want, cmd.ProcessState.ExitCode())
	}
}
