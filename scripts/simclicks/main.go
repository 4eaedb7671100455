// Command simclicks writes a simulated click log whose truth is known, for
// checking rankeval's IPS estimates (docs/metrics.md, the simulation
// table): hidden graded relevances, a logging ranker ("score", whose
// order is the logged position), clicks from a position-based model with
// known propensities (examination k^-eta at position k), and a
// candidate ranker ("score_b") (internal/synth.ClickSim). It writes the
// log in the format its name's ending picks (as scripts/gen: .jsonl,
// .csv, .parquet, ... plain or compressed) and prints on standard output,
// as JSON, the truth that the hidden relevances give: each ranker's mean
// DCG@k with gain γ(y), the probability of a click once examined, which
// ips_dcg@k estimates, and the mean Σγ, the expected clicks of an
// impression were every row examined (snips_dcg@k estimates DCG/Σγ).
//
//	go run ./scripts/simclicks -impressions 200000 -eta 1 -o /tmp/sim.jsonl.zst
//	go run ./scripts/simclicks -position-bias 1 > /tmp/pbm.csv   (the model's table)
//
// With -table BIN it then runs the rankeval binary BIN on the log with
// each estimator (true propensities, matching and mismatched
// --position-bias models, the self-normalized form, the naive DCG of the
// clicks) and prints the markdown table of docs/metrics.md: each
// estimate, its 95% interval and whether it covers the truth. With
// -seeds N it does so for N logs (seeds -seed, -seed+1, ...), and prints
// how often each interval covered the truth and the mean error.
//
//	go run ./scripts/simclicks -impressions 1000000 -o /tmp/sim.jsonl.zst -table /tmp/rankeval
//	go run ./scripts/simclicks -impressions 100000 -seeds 20 -o /tmp/sim.jsonl.zst -table /tmp/rankeval
//
// With -interleave it simulates team-draft interleaving of two rankers
// instead (internal/synth.InterleaveSim: the shown list's rows carry the
// team, A or B, that contributed them; clicks from the same model), one
// log a case (-o /tmp/il.jsonl.zst: /tmp/il.better.jsonl.zst and
// /tmp/il.same.jsonl.zst), and prints the truth, the preference Δ that
// the click model gives on the lists shown; with -table, rankeval's interleave outcome (wins, losses,
// ties, Δ, its interval and the sign test) for ranker B better than A and
// for B a copy of A; with -seeds, how often the interval covered the
// true Δ and 0 and how often p < 0.01.
//
//	go run ./scripts/simclicks -interleave -impressions 100000 -o /tmp/il.jsonl.zst -table /tmp/rankeval
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/rankeval/rankeval/internal/pmath"

	"github.com/rankeval/rankeval/internal/synth"
)

func main() {
	impressions := flag.Int("impressions", 100000, "impressions (queries)")
	docs := flag.Int("docs", 10, "rows an impression")
	eta := flag.Float64("eta", 1, "examination at logged position k is k^-eta")
	k := flag.Int("k", 10, "cutoff of the true DCG")
	seed := flag.Uint64("seed", 1, "random seed")
	out := flag.String("o", "", "output log (its ending picks the format)")
	table := flag.Float64("position-bias", -1, "print the table k^-eta for positions 1..docs, with this eta, rounded to 3 digits, as a --position-bias file, and exit")
	bin := flag.String("table", "", "rankeval binary: run it on the log and print the simulation table")
	seeds := flag.Int("seeds", 1, "with -table: logs of this many seeds, and how often each interval covered the truth")
	interleave := flag.Bool("interleave", false, "simulate team-draft interleaving of two rankers instead (a column \"team\", A or B;\nno score): ranker B better than A, then B a copy of A, each its own log, -o with\n.better or .same before its endings")
	flag.Parse()
	if *table >= 0 {
		os.Stdout.WriteString(positionBias(*docs, *table))
		return
	}
	if *out == "" || *impressions < 1 || *docs < 1 || *k < 1 || *seeds < 1 || flag.NArg() > 0 || *seeds > 1 && *bin == "" {
		flag.Usage()
		os.Exit(2)
	}
	if *interleave {
		if err := simInterleave(*bin, *out, *impressions, *docs, *eta, *seed, *seeds); err != nil {
			fail(err)
		}
		return
	}
	var all [][]row
	for s := *seed; s < *seed+uint64(*seeds); s++ {
		sim := synth.NewClickSim(s, *impressions, *docs, *eta, *k)
		if err := synth.Write(*out, sim, -1, synth.Options{}); err != nil {
			fail(err)
		}
		t := sim.Truth()
		b, _ := json.Marshal(map[string]any{
			"seed": s, "impressions": t.Impressions, "k": t.K, "eta": *eta,
			"true_dcg":        map[string]float64{"score": t.DCG[0], "score_b": t.DCG[1]},
			"true_dcg_stderr": map[string]float64{"score": t.StdErr(0), "score_b": t.StdErr(1)},
			"true_rel":        t.Rel,
			"true_snips_dcg":  map[string]float64{"score": t.DCG[0] / t.Rel, "score_b": t.DCG[1] / t.Rel},
		})
		fmt.Println(string(b))
		if *bin == "" {
			return
		}
		rows, err := simTable(*bin, *out, *docs, *k, *eta, t)
		if err != nil {
			fail(err)
		}
		if *seeds == 1 {
			fmt.Printf("\n%d impressions (%d rows), examination k^-%g; truth DCG@%d: score %.4f, score_b %.4f (difference %+.4f); Σγ %.4f\n\n",
				t.Impressions, t.Impressions**docs, *eta, *k, t.DCG[0], t.DCG[1], t.DCG[1]-t.DCG[0], t.Rel)
			fmt.Println("| estimator | ranker | estimate | 95% CI | truth | covered |")
			fmt.Println("|---|---|--:|---|--:|:-:|")
			for _, r := range rows {
				fmt.Printf("| %s | %s | %.4f | [%.4f, %.4f] | %.4f | %s |\n", r.what, r.ranker, r.mean, r.ci[0], r.ci[1], r.truth, yesNo(r.covered()))
			}
			return
		}
		all = append(all, rows)
	}
	fmt.Printf("\n%d logs (seeds %d to %d) of %d impressions, examination k^-%g\n\n", *seeds, *seed, *seed+uint64(*seeds)-1, *impressions, *eta)
	fmt.Println("| estimator | ranker | 95% CI covered the truth | mean error | mean CI half-width |")
	fmt.Println("|---|---|--:|--:|--:|")
	for i, r := range all[0] {
		covered := 0
		var errSum, half float64
		for _, rows := range all {
			if rows[i].covered() {
				covered++
			}
			errSum += rows[i].mean - rows[i].truth
			half += float64((rows[i].ci[1] - rows[i].ci[0]) / 2)
		}
		n := float64(len(all))
		fmt.Printf("| %s | %s | %d of %d | %+.4f | %.4f |\n", r.what, r.ranker, covered, len(all), errSum/n, half/n)
	}
}

// row is one estimate of the table.
type row struct {
	what, ranker string
	mean, truth  float64
	ci           [2]float64
}

func (r row) covered() bool { return r.ci[0] <= r.truth && r.truth <= r.ci[1] }

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "simclicks:", err)
	os.Exit(1)
}

// positionBias is the table k^-eta for positions 1..docs, rounded to 3
// digits: an estimate of the model, as a --position-bias file.
func positionBias(docs int, eta float64) string {
	var b strings.Builder
	b.WriteString("position,propensity\n")
	for p := 1; p <= docs; p++ {
		fmt.Fprintf(&b, "%d,%.3f\n", p, math.Round(pmath.Pow(float64(p), -eta)*1000)/1000)
	}
	return b.String()
}

// simTable runs rankeval on the log with each estimator: a row per
// estimator and ranker, and the candidate's difference.
func simTable(bin, log string, docs, k int, eta float64, t synth.ClickTruth) ([]row, error) {
	dir, err := os.MkdirTemp("", "simclicks")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	tableFile := filepath.Join(dir, "estimated.csv")
	if err := os.WriteFile(tableFile, []byte(positionBias(docs, eta)), 0o644); err != nil {
		return nil, err
	}
	K := fmt.Sprint(k)
	base := []string{"--quiet", "--format", "json", "--score-col", "score,score_b"}
	type est struct {
		what, metric string
		args         []string
		truth        [2]float64
	}
	dcg, snips := t.DCG, [2]float64{t.DCG[0] / t.Rel, t.DCG[1] / t.Rel}
	mismatch := fmt.Sprintf("pow:%g", eta/2)
	ests := []est{
		{"ips_dcg@" + K + ", true propensities (--propensity-col)", "ips_dcg@" + K, []string{"--propensity-col", "propensity"}, dcg},
		{fmt.Sprintf("ips_dcg@%s, --position-bias pow:%g (the model)", K, eta), "ips_dcg@" + K, []string{"--position-col", "position", "--position-bias", fmt.Sprintf("pow:%g", eta)}, dcg},
		{"ips_dcg@" + K + ", --position-bias FILE (the model to 3 digits)", "ips_dcg@" + K, []string{"--position-col", "position", "--position-bias", tableFile}, dcg},
		{"ips_dcg@" + K + ", --position-bias " + mismatch + " (a wrong model)", "ips_dcg@" + K, []string{"--position-col", "position", "--position-bias", mismatch}, dcg},
		{"snips_dcg@" + K + ", true propensities (truth: DCG / Σγ)", "snips_dcg@" + K, []string{"--propensity-col", "propensity"}, snips},
		{"snips_dcg@" + K + ", --position-bias " + mismatch + " (a wrong model)", "snips_dcg@" + K, []string{"--position-col", "position", "--position-bias", mismatch}, snips},
		{"dcg@" + K + " of the clicks, naive (--gain linear --empty zero)", "dcg@" + K, []string{"--gain", "linear", "--empty", "zero"}, dcg},
	}
	var rows []row
	for _, e := range ests {
		args := append(append(append([]string{}, base...), "-m", e.metric), e.args...)
		var out, errb bytes.Buffer
		cmd := exec.Command(bin, append(args, log)...)
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("%s %s: %v: %s", bin, strings.Join(args, " "), err, errb.String())
		}
		var s struct {
			Systems []struct {
				Metrics map[string]struct {
					Mean float64    `json:"mean"`
					CI   [2]float64 `json:"ci95"`
				} `json:"metrics"`
			} `json:"systems"`
			Comparison []struct {
				Metrics map[string]struct {
					Diff float64    `json:"diff"`
					CI   [2]float64 `json:"ci95"`
				} `json:"metrics"`
			} `json:"comparison"`
		}
		if err := json.Unmarshal(out.Bytes(), &s); err != nil {
			return nil, err
		}
		for i, name := range []string{"score", "score_b"} {
			m := s.Systems[i].Metrics[e.metric]
			rows = append(rows, row{what: e.what, ranker: name, mean: m.Mean, ci: m.CI, truth: e.truth[i]})
		}
		d := s.Comparison[0].Metrics[e.metric]
		rows = append(rows, row{what: e.what, ranker: "score_b − score", mean: d.Diff, ci: d.CI, truth: e.truth[1] - e.truth[0]})
	}
	return rows, nil
}
