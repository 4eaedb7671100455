// Command simclicks writes a simulated click log whose truth is known, for
// checking rankeval's IPS estimates (docs/metrics.md, the simulation
// table): hidden graded relevances, a logging ranker ("score", whose
// order is the logged position), clicks from a position-based model with
// known propensities (examination k^-eta at position k), and a
// candidate ranker ("score_b"). It writes the log in the format its
// name's ending picks (as scripts/gen: .jsonl, .csv, .parquet, ... plain
// or compressed) and prints on standard output, as JSON, the truth that
// the hidden relevances give: each ranker's mean DCG@k with gain γ(y),
// the probability of a click once examined, which ips_dcg@k estimates,
// and the mean Σγ, the expected clicks of an impression were every row
// examined (snips_dcg@k estimates DCG/Σγ).
//
//	go run ./scripts/simclicks -impressions 200000 -eta 1 -o /tmp/sim.jsonl.zst
//	go run ./scripts/simclicks -position-bias 1 > /tmp/pbm.csv   (the model's table)
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"

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
	flag.Parse()
	if *table >= 0 {
		fmt.Println("position,propensity")
		for p := 1; p <= *docs; p++ {
			fmt.Printf("%d,%.3f\n", p, math.Round(math.Pow(float64(p), -*table)*1000)/1000)
		}
		return
	}
	if *out == "" || *impressions < 1 || *docs < 1 || *k < 1 || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	sim := synth.NewClickSim(*seed, *impressions, *docs, *eta, *k)
	if err := synth.Write(*out, sim, -1, synth.Options{}); err != nil {
		fmt.Fprintln(os.Stderr, "simclicks:", err)
		os.Exit(1)
	}
	t := sim.Truth()
	b, _ := json.Marshal(map[string]any{
		"impressions": t.Impressions, "k": t.K, "eta": *eta,
		"true_dcg":        map[string]float64{"score": t.DCG[0], "score_b": t.DCG[1]},
		"true_dcg_stderr": map[string]float64{"score": t.StdErr(0), "score_b": t.StdErr(1)},
		"true_rel":        t.Rel,
		"true_snips_dcg":  map[string]float64{"score": t.DCG[0] / t.Rel, "score_b": t.DCG[1] / t.Rel},
	})
	fmt.Println(string(b))
}
