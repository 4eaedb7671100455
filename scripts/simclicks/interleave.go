package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/rankeval/rankeval/internal/synth"
)

// The interleaving simulation (-interleave): team-draft interleaving of
// two rankers over hidden relevances (synth.InterleaveSim), clicks from
// the position-based model; two cases, ranker B better than A (less
// noise) and B a copy of A.

// interleaveCases are the simulated pairs of rankers.
var interleaveCases = []struct {
	name, tag string // tag names the case's log (caseLog)
	cfg       synth.InterleaveConfig
}{
	{"B better (noise 0.8 against A's 1.2)", "better", synth.InterleaveConfig{NoiseA: 1.2, NoiseB: 0.8}},
	{"B a copy of A (noise 1.2)", "same", synth.InterleaveConfig{NoiseA: 1.2, Same: true}},
}

// caseLog is the log of the case tagged tag: out with the tag before its
// endings (/tmp/il.jsonl.zst: /tmp/il.better.jsonl.zst), so that each
// case has its own file and its truth names it (one path for both left
// the second case's log under the first's truth).
func caseLog(out, tag string) string {
	dir, base := filepath.Split(out)
	stem, ends, _ := strings.Cut(base, ".")
	if ends != "" {
		ends = "." + ends
	}
	return dir + stem + "." + tag + ends
}

// outcome is rankeval's interleave summary of one log, and its truth.
type outcome struct {
	Mean    float64    `json:"mean"`
	CI      [2]float64 `json:"ci95"`
	Wins    int64      `json:"wins"`
	Losses  int64      `json:"losses"`
	Ties    int64      `json:"ties"`
	NoClick int64      `json:"no_click"`
	P       float64    `json:"p_sign"`
	truth   float64
}

func (o outcome) covers(v float64) bool { return o.CI[0] <= v && v <= o.CI[1] }

// simInterleave writes each case's log (caseLog of out), prints its truth, and with
// a rankeval binary prints the table of docs/metrics.md (one seed) or how
// often the interval covered the truth and p fell below 0.01 (several).
func simInterleave(bin, out string, impressions, docs int, eta float64, seed uint64, seeds int) error {
	results := make([][]outcome, len(interleaveCases))
	for c, ic := range interleaveCases {
		for s := seed; s < seed+uint64(seeds); s++ {
			cfg := ic.cfg
			cfg.Impressions, cfg.Docs, cfg.Eta = impressions, docs, eta
			sim := synth.NewInterleaveSim(s, cfg)
			log := caseLog(out, ic.tag)
			if err := synth.Write(log, sim, -1, synth.Options{}); err != nil {
				return err
			}
			t := sim.Truth()
			b, _ := json.Marshal(map[string]any{"case": ic.name, "log": log, "seed": s, "impressions": t.Impressions, "eta": eta,
				"true_wins": t.Wins, "true_losses": t.Losses, "true_clicked": t.Clicked, "true_delta": t.Delta()})
			fmt.Println(string(b))
			if bin == "" {
				continue
			}
			o, err := runInterleave(bin, log)
			if err != nil {
				return err
			}
			o.truth = t.Delta()
			results[c] = append(results[c], o)
		}
	}
	if bin == "" {
		return nil
	}
	if seeds == 1 {
		fmt.Printf("\n%d impressions of %d rows, examination k^-%g, seed %d\n\n", impressions, docs, eta, seed)
		fmt.Println("| rankers | B wins | A wins | ties | no click | Δ | 95% CI | sign test p | true Δ | covered |")
		fmt.Println("|---|--:|--:|--:|--:|--:|---|--:|--:|:-:|")
		for c, ic := range interleaveCases {
			o := results[c][0]
			p := fmt.Sprintf("%.3g", o.P)
			if o.P == 0 {
				p = "< 1e-300" // the binomial tail underflows
			}
			fmt.Printf("| %s | %d | %d | %d | %d | %+.4f | [%+.4f, %+.4f] | %s | %+.4f | %s |\n", ic.name, o.Wins, o.Losses, o.Ties, o.NoClick,
				o.Mean, o.CI[0], o.CI[1], p, o.truth, yesNo(o.covers(o.truth)))
		}
		return nil
	}
	fmt.Printf("\n%d logs (seeds %d to %d) of %d impressions, examination k^-%g\n\n", seeds, seed, seed+uint64(seeds)-1, impressions, eta)
	fmt.Println("| rankers | 95% CI covered the true Δ | covered 0 | p < 0.01 | mean Δ | mean CI half-width |")
	fmt.Println("|---|--:|--:|--:|--:|--:|")
	for c, ic := range interleaveCases {
		covered, zero, sig := 0, 0, 0
		var mean, half float64
		for _, o := range results[c] {
			if o.covers(o.truth) {
				covered++
			}
			if o.covers(0) {
				zero++
			}
			if o.P < 0.01 {
				sig++
			}
			mean += o.Mean
			half += float64((o.CI[1] - o.CI[0]) / 2)
		}
		n := float64(seeds)
		fmt.Printf("| %s | %d of %d | %d of %d | %d of %d | %+.4f | %.4f |\n", ic.name, covered, seeds, zero, seeds, sig, seeds, mean/n, half/n)
	}
	return nil
}

// runInterleave runs rankeval's interleave metric on an interleaved log.
func runInterleave(bin, log string) (outcome, error) {
	args := []string{"--quiet", "--format", "json", "-m", "interleave", "--rank-col", "position", "--team-col", "team", "--teams", "A,B", log}
	var out, errb bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return outcome{}, fmt.Errorf("%s %s: %v: %s", bin, strings.Join(args, " "), err, errb.String())
	}
	var s struct {
		Metrics map[string]outcome `json:"metrics"`
	}
	if err := json.Unmarshal(out.Bytes(), &s); err != nil {
		return outcome{}, err
	}
	return s.Metrics["interleave"], nil
}
