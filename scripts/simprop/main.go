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
//
// With -table BIN it then runs the rankeval binary BIN (rankeval
// propensities, both methods) on the log and prints the markdown table of
// docs/metrics.md: per position the truth, each method's mean estimate,
// how often its 95% interval covered the truth and its mean absolute
// error. With -seeds N it does so over N logs (seeds -seed, -seed+1, ...).
//
//	go run ./scripts/simprop -impressions 100000 -seeds 20 -o /tmp/prop.jsonl.zst -table /tmp/rankeval
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
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
	bin := fs.String("table", "", "rankeval binary: run rankeval propensities on the log and print the check table")
	seeds := fs.Int("seeds", 1, "with -table: logs of this many seeds")
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
	cfg := synth.PropConfig{Impressions: *impressions, Queries: *queries, Docs: *docs, Positions: *positions,
		Noise: synth.DefaultNoise[:*rankers], Jitter: *jitter, Eta: *eta}
	if *bin != "" {
		return check(stdout, *bin, *out, cfg, *seed, *seeds)
	}
	s := synth.NewPropSim(*seed, cfg)
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

// check writes a log a seed, runs rankeval propensities on it with each
// method, and prints per position the truth, the mean estimate, the
// intervals' coverage of the truth and the mean absolute error.
func check(stdout io.Writer, bin, out string, cfg synth.PropConfig, seed uint64, seeds int) error {
	methods := []string{"harvest", "em"}
	type acc struct {
		sum, abs float64
		covered  int
		n        int
	}
	accs := map[string][]acc{}
	for _, m := range methods {
		accs[m] = make([]acc, cfg.Positions)
	}
	var sim *synth.PropSim
	for i := range seeds {
		sim = synth.NewPropSim(seed+uint64(i), cfg)
		if err := synth.Write(out, sim, -1, synth.Options{}); err != nil {
			return err
		}
		for _, m := range methods {
			var o, e bytes.Buffer
			cmd := exec.Command(bin, "propensities", "--position-col", "position", "--ranker-col", "ranker", "--method", m, out)
			cmd.Stdout, cmd.Stderr = &o, &e
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("seed %d, %s: %v: %s", seed+uint64(i), m, err, e.String())
			}
			lines := strings.Split(strings.TrimSpace(o.String()), "\n")[1:]
			for k, l := range lines {
				f := strings.Split(l, ",")
				p, _ := strconv.ParseFloat(f[1], 64)
				lo, _ := strconv.ParseFloat(f[2], 64)
				hi, _ := strconv.ParseFloat(f[3], 64)
				truth := sim.Prop(k + 1)
				a := &accs[m][k]
				a.n++
				a.sum += p
				a.abs += math.Abs(p - truth)
				if lo <= truth && truth <= hi {
					a.covered++
				}
			}
		}
	}
	fmt.Fprintf(stdout, "| position | truth | harvest | covered | mean abs. error | em | covered | mean abs. error |\n|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for k := range cfg.Positions {
		fmt.Fprintf(stdout, "| %d | %.4f |", k+1, sim.Prop(k+1))
		for _, m := range methods {
			a := accs[m][k]
			if a.n == 0 {
				fmt.Fprintf(stdout, " - | - | - |")
				continue
			}
			fmt.Fprintf(stdout, " %.4f | %d of %d | %.4f |", a.sum/float64(a.n), a.covered, a.n, a.abs/float64(a.n))
		}
		fmt.Fprintln(stdout)
	}
	return nil
}
