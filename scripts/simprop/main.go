// Command simprop writes a simulated click log of several rankers serving
// the same queries, whose position bias is known, for checking rankeval
// propensities (docs/metrics.md, estimating the propensities): a
// position-based model (examination k^-eta at position k), 2 to 4
// rankers with overlapping but different orders of each query's
// documents, a "ranker" column (internal/synth.PropSim). The log's format
// follows its name's ending (as scripts/gen: .jsonl, .csv, .parquet, ...
// plain or compressed). It prints the true propensities, relative to
// position 1, as a position,propensity file on standard output (or to
// -truth FILE), the file rankeval propensities writes.
//
//	go run ./scripts/simprop -impressions 100000 -rankers 3 -seed 1 -o /tmp/prop.jsonl.zst > /tmp/truth.csv
//	go run ./scripts/simprop -impressions 1000000 -rankers 1 -jitter 0.7 -o /tmp/prop1.parquet -truth /tmp/truth.csv
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/rankeval/rankeval/internal/synth"
)

func main() {
	if err := simprop(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "simprop:", err)
		os.Exit(2)
	}
}

func simprop(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("simprop", flag.ContinueOnError)
	impressions := fs.Int("impressions", 100000, "impressions")
	queries := fs.Int("queries", 1000, "distinct queries the impressions draw from")
	docs := fs.Int("docs", 30, "documents a query has")
	positions := fs.Int("positions", 10, "positions an impression shows")
	rankers := fs.Int("rankers", 3, "rankers (1 to 4), drawn uniformly per impression")
	jitter := fs.Float64("jitter", 0, "score noise drawn again at every impression (varies one ranker's order)")
	eta := fs.Float64("eta", 1, "examination at position k is k^-eta")
	seed := fs.Uint64("seed", 1, "random seed")
	out := fs.String("o", "", "output log (format from the name: "+strings.Join(synth.Formats, ", ")+")")
	truth := fs.String("truth", "", "write the true position,propensity file here instead of standard output")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case *out == "" || fs.NArg() > 0:
		return fmt.Errorf("want -o FILE and no argument")
	case *rankers < 1 || *rankers > len(synth.DefaultNoise):
		return fmt.Errorf("-rankers %d: want 1 to %d", *rankers, len(synth.DefaultNoise))
	case *impressions < 1 || *queries < 1 || *docs < 1 || *positions < 1 || *positions > *docs:
		return fmt.Errorf("want -impressions, -queries, -docs >= 1 and 1 <= -positions <= -docs")
	}
	s := synth.NewPropSim(*seed, synth.PropConfig{Impressions: *impressions, Queries: *queries, Docs: *docs, Positions: *positions,
		Noise: synth.DefaultNoise[:*rankers], Jitter: *jitter, Eta: *eta})
	if err := synth.Write(*out, s, -1, synth.Options{}); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("position,propensity\n")
	for k := 1; k <= *positions; k++ {
		fmt.Fprintf(&b, "%d,%s\n", k, strconv.FormatFloat(s.Prop(k), 'g', -1, 64))
	}
	if *truth != "" {
		return os.WriteFile(*truth, []byte(b.String()), 0o644)
	}
	_, err := io.WriteString(stdout, b.String())
	return err
}
