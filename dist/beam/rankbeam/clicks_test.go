package rankbeam_test

import (
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/config"

	"github.com/rankeval/rankeval/internal/synth"
)

// simClicks is a simulated click log (synth.ClickSim) with its
// impressions in shuffled order.
func simClicks(seed uint64, impressions int) []synth.Row {
	return shuffledQueries(seed, synth.NewClickSim(seed, impressions, 10, 1, 10))
}

// shuffledQueries are the rows of sim, their queries in shuffled order.
func shuffledQueries(seed uint64, sim synth.Source) []synth.Row {
	var byQuery [][]synth.Row
	var r synth.Row
	for sim.Next(&r) {
		if len(byQuery) == 0 || byQuery[len(byQuery)-1][0].Query != r.Query {
			byQuery = append(byQuery, nil)
		}
		byQuery[len(byQuery)-1] = append(byQuery[len(byQuery)-1], r)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	rng.Shuffle(len(byQuery), func(i, j int) { byQuery[i], byQuery[j] = byQuery[j], byQuery[i] })
	var out []synth.Row
	for _, q := range byQuery {
		out = append(out, q...)
	}
	return out
}

// TestClickParity: the click metrics and the IPS estimates (a propensity
// column; a position-bias model, clipped), with two rankers, slices, a
// bootstrap and a randomization test, give rankeval's summary and
// per-query records byte for byte on files split at arbitrary rows; and a
// Beam state merges with rankeval's into the summary of both days.
func TestClickParity(t *testing.T) {
	dir := t.TempDir()
	rows := simClicks(71, 4000)
	paths := writeParts(t, dir, rows, []string{"a.jsonl", "b.parquet", "c.csv.zst"}, synth.Options{RowGroup: 900})
	ms := "clicks@3,ctr@5,abandon,first_click,last_click,ips_clicks@5,ips_p@3,ips_dcg@10,snips_clicks@3,snips_p@5,snips_dcg@10,ndcg@10"
	type check struct {
		name, out, pq string
		args          []string
	}
	var jobs []job
	var checks []check
	for _, tc := range []struct {
		name string
		set  func(v *config.Config)
		args []string
	}{
		{"column", func(v *config.Config) {
			v.Clicks.PropensityCol = "propensity"
			v.Permutations, v.Seed = 100, 4
		}, []string{"--propensity-col", "propensity", "--permutations", "100", "--seed", "4"}},
		{"model", func(v *config.Config) {
			v.Clicks.PositionCol, v.Clicks.PositionBias, v.Clicks.PropensityClip = "position", "pow:1", 0.2
			v.Ties = "average"
		}, []string{"--position-col", "position", "--position-bias", "pow:1", "--propensity-clip", "0.2", "--ties", "average"}},
	} {
		cfg := beamConfig(paths, ms, "input", "exp", "skip", 4, nil, "json")
		cfg.By, cfg.Bootstrap = "market", 50
		cfg.Columns.Score = "score,score_b"
		tc.set(&cfg.Config)
		ck := check{name: tc.name, out: filepath.Join(dir, tc.name+".json"), pq: filepath.Join(dir, tc.name+".pq"),
			args: append([]string{"--quiet", "--format", "json", "-m", ms, "--by", "market", "--bootstrap", "50",
				"--score-col", "score,score_b"}, tc.args...)}
		jobs = append(jobs, job{name: tc.name, cfg: cfg, out: ck.out, perQuery: ck.pq, shards: 1})
		checks = append(checks, ck)
	}
	// a day's state from Beam, the other's from rankeval
	day1, day2 := filepath.Join(dir, "day1.jsonl"), filepath.Join(dir, "day2.jsonl")
	cut := len(rows) / 20 * 10 // whole impressions of 10 rows
	for i, part := range [][]synth.Row{rows[:cut], rows[cut:]} {
		if err := synth.Write([]string{day1, day2}[i], &synth.Rows{R: part}, -1, synth.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	stateArgs := []string{"-m", ms, "--score-col", "score,score_b", "--by", "market", "--position-col", "position", "--position-bias", "pow:1"}
	cfg := beamConfig([]string{day1}, ms, "input", "exp", "skip", 4, nil, "json")
	cfg.Columns.Score, cfg.By = "score,score_b", "market"
	cfg.Clicks.PositionCol, cfg.Clicks.PositionBias = "position", "pow:1"
	cfg.Outputs.State = filepath.Join(dir, "day1.state")
	jobs = append(jobs, job{name: "day1", cfg: cfg, out: filepath.Join(dir, "day1.json")})

	runBeam(t, jobs)
	for _, ck := range checks {
		t.Run(ck.name, func(t *testing.T) {
			localPQ := ck.pq + ".local"
			want := local(t, append(append(ck.args, "--per-query", localPQ), paths...)...)
			if got := read(t, ck.out); got != want {
				t.Fatalf("Beam:\n%s\nrankeval:\n%s", got, want)
			}
			if !strings.Contains(want, `"snips_dcg@10": {"mean": 0.`) {
				t.Fatalf("no ratio in the summary:\n%s", want)
			}
			if got, want := read(t, ck.pq+"-00000-of-00001.jsonl"), read(t, localPQ); got != want {
				t.Fatalf("per-query records differ:\n%.400s\nrankeval:\n%.400s", got, want)
			}
		})
	}
	t.Run("state", func(t *testing.T) {
		local(t, append(append([]string{"--quiet", "--state", filepath.Join(dir, "day2.state")}, stateArgs...), day2)...)
		merged := local(t, "merge", "--format", "json", filepath.Join(dir, "day1.state"), filepath.Join(dir, "day2.state"))
		want := local(t, append(append([]string{"--quiet", "--format", "json"}, stateArgs...), day1, day2)...)
		if merged != want {
			t.Fatalf("Beam's state merged with rankeval's:\n%s\nrankeval over both days:\n%s", merged, want)
		}
	})
}
