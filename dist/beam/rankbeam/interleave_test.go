package rankbeam_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/config"

	"github.com/rankeval/rankeval/internal/synth"
)

// TestInterleaveParity: the interleave outcome and its counts (wins,
// losses, ties, no click, the sign test), beside other click metrics,
// with slices and a bootstrap, give rankeval's summary and per-query
// records byte for byte on files split at arbitrary rows; and a Beam state
// merges with rankeval's into the summary of both days.
func TestInterleaveParity(t *testing.T) {
	dir := t.TempDir()
	rows := shuffledQueries(13, synth.NewInterleaveSim(13, synth.InterleaveConfig{Impressions: 4000, Docs: 10, Eta: 1, NoiseA: 1.2, NoiseB: 0.8}))
	paths := writeParts(t, dir, rows, []string{"a.jsonl", "b.parquet", "c.csv.zst"}, synth.Options{RowGroup: 900})
	ms := "interleave,clicks@3,abandon,ndcg@5"
	flags := func(v *config.Config) {
		v.Columns.Score, v.Columns.Rank = "", "position"
		v.Teams = config.Teams{TeamCol: "team", Teams: "A,B"}
		v.By = "market"
	}
	args := []string{"-m", ms, "--rank-col", "position", "--team-col", "team", "--teams", "A,B", "--by", "market"}

	cfg := beamConfig(paths, ms, "input", "exp", "skip", 4, nil, "json")
	flags(&cfg.Config)
	cfg.Bootstrap = 50
	out, pq := filepath.Join(dir, "beam.json"), filepath.Join(dir, "beam.pq")
	jobs := []job{{name: "whole", cfg: cfg, out: out, perQuery: pq, shards: 1}}
	// a day's state from Beam, the other's from rankeval
	day1, day2 := filepath.Join(dir, "day1.jsonl"), filepath.Join(dir, "day2.parquet")
	cut := len(rows) / 20 * 10 // whole impressions of 10 rows
	for i, part := range [][]synth.Row{rows[:cut], rows[cut:]} {
		if err := synth.Write([]string{day1, day2}[i], &synth.Rows{R: part}, -1, synth.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	scfg := beamConfig([]string{day1}, ms, "input", "exp", "skip", 4, nil, "json")
	flags(&scfg.Config)
	scfg.Outputs.State = filepath.Join(dir, "day1.state")
	jobs = append(jobs, job{name: "day1", cfg: scfg, out: filepath.Join(dir, "day1.json")})
	runBeam(t, jobs)

	localPQ := pq + ".local"
	want := local(t, append(append([]string{"--quiet", "--format", "json", "--bootstrap", "50", "--per-query", localPQ}, args...), paths...)...)
	if got := read(t, out); got != want {
		t.Fatalf("Beam:\n%s\nrankeval:\n%s", got, want)
	}
	if !strings.Contains(want, `"wins": `) || !strings.Contains(want, `"p_sign": `) {
		t.Fatalf("no counts in the summary:\n%s", want)
	}
	if got, want := read(t, pq+"-00000-of-00001.jsonl"), read(t, localPQ); got != want {
		t.Fatalf("per-query records differ:\n%.400s\nrankeval:\n%.400s", got, want)
	}
	local(t, append(append([]string{"--quiet", "--state", filepath.Join(dir, "day2.state")}, args...), day2)...)
	merged := local(t, "merge", "--format", "json", filepath.Join(dir, "day1.state"), filepath.Join(dir, "day2.state"))
	whole := local(t, append(append([]string{"--quiet", "--format", "json"}, args...), day1, day2)...)
	if merged != whole {
		t.Fatalf("Beam's state merged with rankeval's:\n%s\nrankeval over both days:\n%s", merged, whole)
	}
}
