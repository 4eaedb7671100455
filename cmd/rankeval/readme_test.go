package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/internal/vectors"

	"github.com/klauspost/compress/zstd"

	"github.com/rankeval/rankeval/internal/synth"
)

// recipeCommands returns the rankeval command lines of the README's
// Recipes section, in order: the lines of its sh blocks (continuations
// joined, comments dropped) and the commands quoted inline.
func recipeCommands(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	start := strings.Index(s, "\n## Recipes\n")
	if start < 0 {
		t.Fatal("README has no Recipes section")
	}
	end := strings.Index(s[start+1:], "\n## ")
	section := s[start : start+1+end]
	var cmds []string
	for _, block := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(section, -1) {
		joined := strings.ReplaceAll(block[1], "\\\n", " ")
		for _, line := range strings.Split(joined, "\n") {
			if i := strings.Index(line, "  #"); i >= 0 {
				line = line[:i]
			}
			if line = strings.TrimSpace(line); strings.HasPrefix(line, "rankeval ") {
				cmds = append(cmds, line)
			}
		}
	}
	// inline commands: those with an input (`rankeval merge` alone names
	// the subcommand in the text)
	for _, m := range regexp.MustCompile("`(rankeval [^`]+)`").FindAllStringSubmatch(section, -1) {
		if len(strings.Fields(m[1])) > 2 {
			cmds = append(cmds, m[1])
		}
	}
	return cmds
}

// shellWords splits a command line as a shell would for these recipes:
// words, single-quoted strings, $(date +%F), and $(ls GLOB | tail -n N),
// given to rankeval as the glob itself.
func shellWords(line, date string) []string {
	line = strings.ReplaceAll(line, "$(date +%F)", date)
	line = regexp.MustCompile(`\$\(ls (\S+) \| tail -n \d+\)`).ReplaceAllString(line, "'$1'")
	var words []string
	for _, m := range regexp.MustCompile(`'[^']*'|\S+`).FindAllString(line, -1) {
		words = append(words, strings.Trim(m, "'"))
	}
	return words
}

// writeZst writes lines, zstd-compressed.
func writeZst(t *testing.T, path string, lines []string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := zstd.NewWriter(f)
	w.Write([]byte(strings.Join(lines, "\n") + "\n"))
	w.Close()
	f.Close()
}

// clickLines is a click log: boolean labels, two scores, a market and a
// device, the logged position, queries in id order.
func clickLines(seed uint64, queries int) []string {
	r := rand.New(rand.NewPCG(seed, 1))
	var out []string
	for q := range queries {
		m, d := []string{"de", "fr", "us"}[q%3], []string{"web", "app"}[q%2]
		for doc := range 10 {
			out = append(out, fmt.Sprintf(`{"query_id":"q%04d","doc_id":"d%d","score":%.4f,"score_b":%.4f,"label":%v,"market":%q,"device":%q,"position":%d,"team":%q}`,
				q, doc, r.Float64(), r.Float64(), r.IntN(4) == 0, m, d, doc+1, []string{"prod", "cand"}[r.IntN(2)]))
		}
	}
	return out
}

// TestReadmeRecipes runs every command of the README's Recipes section,
// as written, on files laid out as the recipes name them: a click log, a
// Hive-partitioned lake with an empty part, a TREC run and qrels, two
// models' logs.
func TestReadmeRecipes(t *testing.T) {
	cmds := recipeCommands(t)
	if len(cmds) < 8 {
		t.Fatalf("only %d recipe commands found in the README", len(cmds))
	}
	ref := filepath.Join(vectors.TestdataDir(t), "reference", "trec_a")
	qrels, _ := os.ReadFile(filepath.Join(ref, "qrels.txt"))
	run, _ := os.ReadFile(filepath.Join(ref, "run.txt"))
	dir := t.TempDir()
	t.Chdir(dir)
	const date = "2026-11-23"
	writeZst(t, "logs/clicks-"+date+".jsonl.zst", clickLines(1, 200))
	writeZst(t, "logs/day.jsonl.zst", clickLines(2, 200))
	writeZst(t, "logs/interleaved-"+date+".jsonl.zst", clickLines(5, 200))
	writeZst(t, "prod.jsonl.zst", clickLines(3, 100))
	writeZst(t, "cand.jsonl.zst", clickLines(4, 100))
	os.MkdirAll("eval", 0o755)
	// a Hive-partitioned Parquet export, with an empty part file in each
	// partition and the writers' _SUCCESS markers
	for i, dt := range []string{"2026-11-20", "2026-11-21"} {
		p := filepath.Join("lake", "clicks", "dt="+dt)
		os.MkdirAll(p, 0o755)
		var rows []synth.Row
		r := rand.New(rand.NewPCG(uint64(10+i), 2))
		for q := range 50 {
			for doc := range 10 {
				rows = append(rows, synth.Row{Query: fmt.Sprintf("%s-q%04d", dt, q), Doc: fmt.Sprintf("d%d", doc),
					Score: r.Float64(), Label: float64(r.IntN(2)), Market: []string{"de", "fr", "us"}[q%3]})
			}
		}
		if err := synth.Write(filepath.Join(p, "part-00000.parquet"), &synth.Rows{R: rows}, -1, synth.Options{}); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(p, "part-00001.parquet"), nil, 0o644)
		os.WriteFile(filepath.Join(p, "_SUCCESS"), nil, 0o644)
	}
	// last week's A/B buckets: three rankers of the same queries
	sim := synth.NewPropSim(6, synth.PropConfig{Impressions: 20000, Queries: 200, Docs: 20, Positions: 10, Noise: synth.DefaultNoise[:3], Eta: 1})
	var ab []string
	var row synth.Row
	for sim.Next(&row) {
		ab = append(ab, fmt.Sprintf(`{"query":%q,"doc_id":%q,"position":%d,"click":%v,"bucket":%q}`, row.Query, row.Doc, row.Position, row.Label == 1, row.Ranker))
	}
	writeZst(t, "logs/ab/part-0.jsonl.zst", ab)
	os.WriteFile("qrels.txt", qrels, 0o644)
	os.WriteFile("run.txt", run, 0o644)
	os.WriteFile("run.txt.gz", gz(run), 0o644)
	for i, name := range []string{"bm25.run", "dense.run", "hybrid.run"} {
		os.WriteFile(name, shiftScores(run, i), 0o644)
	}
	for _, line := range cmds {
		t.Run(line, func(t *testing.T) {
			args := shellWords(line, date)[1:]
			if args[0] != "merge" && args[0] != "trec_eval" && args[0] != "propensities" { // subcommands take their own flags
				args = append([]string{"--quiet"}, args...)
			}
			code, out, stderr := cli(t, args...)
			// the nightly job's gates may fail on made-up data: exit 3
			// after writing its summary
			if code != 0 && !(code == 3 && (strings.Contains(line, "--fail-under") || strings.Contains(line, "--fail-if-worse"))) {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			for i, a := range args {
				if (a == "--output" || a == "--report" || a == "--state") && args[i+1] != "-" {
					if _, err := os.Stat(args[i+1]); err != nil {
						t.Fatalf("%s %s not written: %v", a, args[i+1], err)
					}
				}
			}
			if !strings.Contains(line, "--output") && len(out) == 0 {
				t.Fatal("no summary on standard output")
			}
		})
	}
}

// shiftScores is a TREC run with every k-th line's score raised, so that
// runs made from one differ.
func shiftScores(run []byte, k int) []byte {
	lines := strings.Split(strings.TrimSpace(string(run)), "\n")
	for i, l := range lines {
		if f := strings.Fields(l); len(f) == 6 && i%(k+2) == 0 {
			f[4] += "1"
			lines[i] = strings.Join(f, " ")
		}
	}
	return []byte(strings.Join(lines, "\n") + "\n")
}

// TestReadmeShape: the README is a guide a newcomer reads in ten minutes
// (at most 450 lines; reference lives in docs/), it opens with the two
// commands a new user runs, and it links every page of docs/, so any flag
// or format rule is one click away.
func TestReadmeShape(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	if n := strings.Count(readme, "\n"); n > 450 {
		t.Errorf("README.md has %d lines, more than 450: move reference into docs/", n)
	}
	_, rest, _ := strings.Cut(readme, "```sh\n")
	first, _, _ := strings.Cut(rest, "```")
	for _, want := range []string{"go run ./cmd/rankeval testdata/sample.jsonl.zst", "go test ./..."} {
		if !strings.Contains(first, want) {
			t.Errorf("the README's first commands lack %q:\n%s", want, first)
		}
	}
	pages, _ := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if len(pages) < 10 {
		t.Fatalf("only %d pages in docs/", len(pages))
	}
	for _, p := range pages {
		if link := "](docs/" + filepath.Base(p) + ")"; !strings.Contains(readme, link) {
			t.Errorf("the README does not link %s", "docs/"+filepath.Base(p))
		}
	}
}
