package rankbeam_test

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"

	"github.com/rankeval/rankeval/config"
	"github.com/rankeval/rankeval/dist/beam/rankbeam"
	"github.com/rankeval/rankeval/internal/objtest"
	"github.com/rankeval/rankeval/internal/synth"
	"github.com/rankeval/rankeval/objstore"
)

// propRows simulates the click log of rankers serving the same queries
// (synth.PropSim, examination 1/k over 6 positions), its rows shuffled:
// rankeval propensities takes them in any order.
func propRows(seed uint64, impressions, rankers int, jitter float64) []synth.Row {
	sim := synth.NewPropSim(seed, synth.PropConfig{Impressions: impressions, Queries: 120, Docs: 12, Positions: 6,
		Noise: synth.DefaultNoise[:rankers], Jitter: jitter, Eta: 1})
	var rows []synth.Row
	var r synth.Row
	for sim.Next(&r) {
		rows = append(rows, r)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	return rows
}

// propConfig is rankeval propensities' configuration for the flags args
// stand for: the position column, the ranker column (when ranker), and
// the settings set.
func propConfig(inputs []string, ranker bool, set func(*config.Config)) rankbeam.Config {
	v := config.Default()
	v.Clicks.PositionCol = "position"
	if ranker {
		v.Propensities.RankerCol = "ranker"
	}
	v.Propensities.Replicates = 40
	v.Propensities.MinClicks = 5
	v.Run.BatchSize = 300 // so that a part's table is emptied every few batches (SetChunkRows)
	if set != nil {
		set(&v)
	}
	return rankbeam.Config{Inputs: inputs, Config: v}
}

// propJob is one rankeval-beam propensities job and the rankeval
// propensities command line that must write the same bytes.
type propJob struct {
	name  string
	cfg   rankbeam.Config
	args  []string // rankeval propensities' flags and logs
	out   string
	files []string // besides the file: --state, --report, each compared
}

// runPropensities runs the jobs as branches of one pipeline on Prism.
func runPropensities(t *testing.T, jobs []propJob) error {
	t.Helper()
	p, s := beam.NewPipelineWithRoot()
	for _, j := range jobs {
		file, err := rankbeam.BuildPropensities(s.Scope(j.name), j.cfg)
		if err != nil {
			t.Fatalf("%s: %v", j.name, err)
		}
		rankbeam.WriteTo(s.Scope(j.name), file, j.out)
	}
	_, err := prism.Execute(context.Background(), p)
	return err
}

// TestPropensitiesParity: rankeval-beam propensities writes rankeval
// propensities' position,propensity file, state and report, byte for
// byte, on a log of three rankers split at arbitrary rows into files of
// several formats (Parquet of many row groups, read by several work
// items), its rows in no order: by --ranker-col, by one --system log per
// ranker (each split in two), with either method, and with rows past
// --max-position.
func TestPropensitiesParity(t *testing.T) {
	n := 6000
	if testing.Short() {
		n = 2500
	}
	rows := propRows(3, n, 3, 0)
	// a part's cells emitted every 1000 rows: a query's cells of one part
	// are added across chunks too
	defer rankbeam.SetChunkRows(1000)()
	dir := t.TempDir()
	logDir := filepath.Join(dir, "log")
	os.Mkdir(logDir, 0o755)
	paths := writeParts(t, logDir, rows, []string{"p-0.jsonl", "p-1.jsonl.gz", "p-2.parquet", "p-3.csv", "p-4.tsv", "p-5.jsonl.zst"},
		synth.Options{RowGroup: 900})
	byRanker := map[string][]synth.Row{}
	for _, r := range rows {
		byRanker[r.Ranker] = append(byRanker[r.Ranker], r)
	}
	var systems []string
	for _, name := range []string{"r1", "r2", "r3"} {
		d := filepath.Join(dir, name)
		os.Mkdir(d, 0o755)
		writeParts(t, d, byRanker[name], []string{"a.parquet", "b.csv"}, synth.Options{RowGroup: 500})
		systems = append(systems, name+"="+d)
	}
	out := t.TempDir()
	at := func(name string) string { return filepath.Join(out, name) }
	jobs := []propJob{
		{name: "ranker-col", cfg: propConfig([]string{logDir}, true, func(c *config.Config) {
			c.Outputs.State, c.Outputs.Report = at("ranker-col.state"), at("ranker-col.html")
		}), args: []string{"--ranker-col", "ranker", logDir}, files: []string{"ranker-col.state", "ranker-col.html"}},
		{name: "em", cfg: propConfig(paths, true, func(c *config.Config) {
			c.Propensities.Method = "em"
			c.Outputs.State = at("em.state")
		}), args: append([]string{"--ranker-col", "ranker", "--method", "em"}, paths...), files: []string{"em.state"}},
		{name: "max-position", cfg: propConfig([]string{logDir}, true, func(c *config.Config) {
			c.Propensities.MaxPosition = 4
			c.Outputs.Report = at("max-position.html")
		}), args: []string{"--ranker-col", "ranker", "--max-position", "4", logDir}, files: []string{"max-position.html"}},
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
	compareWithCLI(t, jobs, at, 4)
	// rankeval merge reads Beam's state into the estimate Beam wrote
	merged := at("merged.csv")
	cmd := exec.Command(rankevalBin, "merge", "--output", merged, at("ranker-col.state"))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("rankeval merge of Beam's state: %v: %s", err, b)
	}
	if got, want := read(t, merged), read(t, at("ranker-col.csv")); got != want {
		t.Errorf("the estimate of Beam's state merged:\n%s\nBeam's file:\n%s", got, want)
	}
}

// compareWithCLI runs rankeval propensities as each job (its args, its
// files written by the CLI as cli-NAME) and requires Beam's file and
// files to be the CLI's bytes, the CLI's file holding at least minLines
// lines.
func compareWithCLI(t *testing.T, jobs []propJob, at func(string) string, minLines int) {
	t.Helper()
	for _, j := range jobs {
		t.Run(j.name, func(t *testing.T) {
			args := []string{"propensities", "--position-col", "position", "--replicates", "40", "--min-clicks", "5"}
			for _, f := range j.files {
				flag := "--state"
				if strings.HasSuffix(f, ".html") {
					flag = "--report"
				}
				args = append(args, flag, at("cli-"+f))
			}
			want := local(t, append(args, j.args...)...)
			if got := read(t, j.out); got != want {
				t.Fatalf("Beam's file differs from rankeval's:\n%s\nrankeval:\n%s", got, want)
			}
			if lines := strings.Count(want, "\n"); lines < minLines {
				t.Fatalf("rankeval's file estimates %d positions:\n%s", lines-1, want)
			}
			for _, f := range j.files {
				if got, want := read(t, at(f)), read(t, at("cli-"+f)); got != want {
					t.Errorf("%s: Beam's differs from rankeval's (%d and %d bytes)", f, len(got), len(want))
				}
			}
		})
	}
}

// TestPropensitiesNoEstimate: a log that estimates no position (one
// ranker, each query in one order) fails the job with rankeval's message,
// after writing the state rankeval writes, to merge with other days'.
func TestPropensitiesNoEstimate(t *testing.T) {
	rows := propRows(4, 300, 1, 0)
	dir := t.TempDir()
	paths := writeParts(t, dir, rows, []string{"a.jsonl", "b.parquet"}, synth.Options{RowGroup: 200})
	out := t.TempDir()
	cfg := propConfig(paths, false, func(c *config.Config) { c.Outputs.State = filepath.Join(out, "beam.state") })
	err := runPropensities(t, []propJob{{name: "thin", cfg: cfg, out: filepath.Join(out, "beam.csv")}})
	msg, code, ok := rankbeam.JobError(err)
	if !ok || code != rankbeam.ExitInput || !strings.Contains(msg, "no position past 1 can be estimated") ||
		!strings.Contains(msg, "the count table is saved in "+cfg.Outputs.State) {
		t.Fatalf("job error %v: %q, exit %d", err, msg, code)
	}
	cli := filepath.Join(out, "cli.state")
	cmd := exec.Command(rankevalBin, append([]string{"propensities", "--position-col", "position", "--replicates", "40", "--min-clicks", "5", "--state", cli}, paths...)...)
	if b, err := cmd.CombinedOutput(); cmd.ProcessState.ExitCode() != 1 {
		t.Fatalf("rankeval propensities: %v: %s", err, b)
	}
	if got, want := read(t, cfg.Outputs.State), read(t, cli); got != want {
		t.Errorf("Beam's state differs from rankeval's (%d and %d bytes)", len(got), len(want))
	}
	if _, err := os.Stat(filepath.Join(out, "beam.csv")); !os.IsNotExist(err) {
		t.Errorf("a failed job wrote its file: %v", err)
	}
}

// TestPropensitiesBadRow: a row the table cannot count fails the job with
// rankeval's message, naming the file and line.
func TestPropensitiesBadRow(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "log.jsonl")
	os.WriteFile(in, []byte(`{"query_id":"q","doc_id":"a","label":1,"position":1}`+"\n"+`{"query_id":"q","doc_id":"b","label":2,"position":2}`+"\n"), 0o644)
	err := runPropensities(t, []propJob{{name: "bad", cfg: propConfig([]string{in}, false, nil), out: filepath.Join(dir, "out.csv")}})
	msg, code, ok := rankbeam.JobError(err)
	if want := in + ":2: click 2: want 0 or 1"; !ok || code != rankbeam.ExitInput || !strings.HasPrefix(msg, want) {
		t.Fatalf("job error %v: %q, exit %d; want %q...", err, msg, code, want)
	}
}

// TestPropensitiesObjectStore: logs read from object storage (a prefix,
// or https:// objects), the file written to an object: rankeval
// propensities' file on the same logs on disk.
func TestPropensitiesObjectStore(t *testing.T) {
	dir := t.TempDir()
	names := []string{"a.parquet", "b.jsonl.zst"}
	writeParts(t, dir, propRows(5, 1500, 2, 0), names, synth.Options{RowGroup: 800})
	want := local(t, "propensities", "--position-col", "position", "--ranker-col", "ranker", "--replicates", "40", "--min-clicks", "5", dir)
	for _, scheme := range objtest.Schemes {
		t.Run(scheme, func(t *testing.T) {
			s := objtest.Start(t, scheme)
			s.PutDir(t, "clicks/day1", dir)
			inputs := []string{s.Object("clicks/day1/")}
			if scheme == "https" {
				inputs = nil
				for _, n := range names {
					inputs = append(inputs, s.Object("clicks/day1/"+n))
				}
			}
			out := s.Object("bias/propensities.csv")
			if err := runPropensities(t, []propJob{{name: scheme, cfg: propConfig(inputs, true, nil), out: out}}); err != nil {
				t.Fatalf("pipeline: %v", err)
			}
			o, err := objstore.Open(context.Background(), out)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]byte, o.Size())
			if _, err := o.ReadAt(got, 0); err != nil {
				t.Fatal(err)
			}
			if string(got) != want {
				t.Fatalf("Beam from %s:\n%s\nrankeval on disk:\n%s", scheme, got, want)
			}
		})
	}
}
