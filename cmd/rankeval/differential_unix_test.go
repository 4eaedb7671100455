//go:build unix

package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var differentialLong = flag.Bool("differential.long", false, "run TestDifferential over many seeds and every combination of workers and batch sizes")

// diffLog is a generated log: sorted lines (queries together, ids
// ascending), and the same lines shuffled.
type diffLog struct{ sorted, shuffled []string }

// genDiffLog makes a log of random shape from seed: queries of 1 to 12
// rows (some with no relevant row), tied scores, labels 0..3, a slice
// column and a second score column; bad, when set, breaks one row (a NaN
// score, which JSON has not, an infinite one, or a doc id repeated within
// its query).
func genDiffLog(seed uint64, bad string) diffLog {
	r := rand.New(rand.NewPCG(seed, 99))
	var lines []string
	nq := 20 + r.IntN(60)
	for q := range nq {
		n := 1 + r.IntN(12)
		allZero := r.IntN(5) == 0
		market := []string{"us", "de", "fr"}[r.IntN(3)]
		for d := range n {
			label := r.IntN(4)
			if allZero {
				label = 0
			}
			lines = append(lines, fmt.Sprintf(`{"query_id":"q%03d","doc_id":"d%d","score":%d,"s2":%.2f,"label":%d,"market":%q}`,
				q, d, r.IntN(4), r.Float64(), label, market))
		}
	}
	if bad != "" {
		i := len(lines) / 2
		switch bad {
		case "nan": // not JSON
			lines[i] = strings.Replace(lines[i], `"s2":`, `"s2":NaN,"x":`, 1)
		case "inf": // JSON, but not a finite score
			lines[i] = strings.Replace(lines[i], `"s2":`, `"s2":-1e999,"x":`, 1)
		case "dup": // a row takes the doc id of the row before it, in its query
			for queryOf(lines[i]) != queryOf(lines[i-1]) {
				i++
			}
			doc := regexp.MustCompile(`"doc_id":"d\d+"`)
			lines[i] = doc.ReplaceAllString(lines[i], doc.FindString(lines[i-1]))
		}
	}
	// shuffled interleaves the queries at random but keeps each query's
	// rows in their order, which --ties input ranks by
	shuffled := shuffleQueries(r, lines, queryOf)
	return diffLog{lines, shuffled}
}

// shuffleQueries shuffles lines of queries (query names a line's) at random,
// each query's lines kept in their order.
func shuffleQueries(r *rand.Rand, lines []string, query func(string) string) []string {
	byQuery := map[string][]string{}
	var order []string
	for _, l := range lines {
		q := query(l)
		if byQuery[q] == nil {
			order = append(order, q)
		}
		byQuery[q] = append(byQuery[q], l)
	}
	var shuffled []string
	for len(order) > 0 {
		k := r.IntN(len(order))
		q := order[k]
		shuffled = append(shuffled, byQuery[q][0])
		if byQuery[q] = byQuery[q][1:]; len(byQuery[q]) == 0 {
			order = slices.Delete(order, k, k+1)
		}
	}
	return shuffled
}

// way is one way of giving the log to rankeval: it returns the inputs to
// name (after the flags it adds) and, for "-", the file to put on
// standard input.
type way struct {
	name    string
	flags   []string
	inputs  func(t *testing.T, dir string, l diffLog) (inputs []string, stdin string)
	ordered bool // per-query lines come in the sorted log's order
	single  bool // one stream: an error names the same line
}

func writeLines(t *testing.T, path string, lines []string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// splitLines cuts lines into 3 files at query boundaries.
func splitLines(t *testing.T, dir string, lines []string) []string {
	var cuts []int
	for i := 1; i < len(lines) && len(cuts) < 2; i++ {
		if i >= (len(cuts)+1)*len(lines)/3 && queryOf(lines[i]) != queryOf(lines[i-1]) {
			cuts = append(cuts, i)
		}
	}
	cuts = append(append([]int{0}, cuts...), len(lines))
	var files []string
	for k := 0; k+1 < len(cuts); k++ {
		files = append(files, writeLines(t, filepath.Join(dir, fmt.Sprintf("part%d.jsonl", k)), lines[cuts[k]:cuts[k+1]]))
	}
	return files
}

func queryOf(line string) string { return strings.SplitN(line, `"doc_id"`, 2)[0] }

func diffWays() []way {
	file := func(t *testing.T, dir string, l diffLog) ([]string, string) {
		return []string{writeLines(t, filepath.Join(dir, "log.jsonl"), l.sorted)}, ""
	}
	ways := []way{
		{name: "file", inputs: file, ordered: true, single: true},
		{name: "stdin", inputs: func(t *testing.T, dir string, l diffLog) ([]string, string) {
			return []string{"-"}, writeLines(t, filepath.Join(dir, "log.jsonl"), l.sorted)
		}, ordered: true, single: true},
		{name: "three files", inputs: func(t *testing.T, dir string, l diffLog) ([]string, string) {
			return splitLines(t, dir, l.sorted), ""
		}, ordered: true},
		{name: "directory", inputs: func(t *testing.T, dir string, l diffLog) ([]string, string) {
			sub := filepath.Join(dir, "logs")
			os.Mkdir(sub, 0o755)
			splitLines(t, sub, l.sorted)
			return []string{sub}, ""
		}, ordered: true},
		{name: "unsorted, 16MiB", flags: []string{"--unsorted", "--mem-limit", "16MiB"}, inputs: func(t *testing.T, dir string, l diffLog) ([]string, string) {
			return []string{writeLines(t, filepath.Join(dir, "shuffled.jsonl"), l.shuffled)}, ""
		}},
		{name: "unsorted pipe", flags: []string{"--unsorted"}, inputs: func(t *testing.T, dir string, l diffLog) ([]string, string) {
			return []string{"-"}, writeLines(t, filepath.Join(dir, "shuffled.jsonl"), l.shuffled)
		}},
	}
	// /dev/stdin is /dev/fd/0: the dev-fd way, a pipe named by path (the
	// test cannot give its own fd 0 a pipe without dup2)
	for _, p := range pipeWays {
		ways = append(ways, way{name: p.name, inputs: func(t *testing.T, dir string, l diffLog) ([]string, string) {
			return []string{p.open(t, []byte(strings.Join(l.sorted, "\n")+"\n"))}, ""
		}, ordered: true, single: true})
	}
	workers, batches := []string{"1", "8"}, []string{"1", "7"}
	if *differentialLong {
		workers, batches = []string{"1", "2", "8"}, []string{"1", "7", "8192"}
	}
	for _, w := range workers {
		for _, b := range batches {
			ways = append(ways, way{name: "workers " + w + ", batch " + b, flags: []string{"--workers", w, "--batch-size", b}, inputs: file, ordered: true, single: true})
		}
	}
	return ways
}

// inputsField is the summary's list of inputs, the one part of it that
// names how the log came in.
var inputsField = regexp.MustCompile(`"inputs": \[[^\]]*\]`)

// TestDifferential evaluates generated logs through every way in (a file,
// -, /dev/stdin, a FIFO, /dev/fd/N, three files, a directory, --unsorted
// with a small --mem-limit, from a file and a pipe, workers and batch
// sizes, and rankeval merge of the three files' states) and demands the
// same summary and per-query records from each, or the same error. The
// short form runs in go test; -differential.long runs many seeds and
// every combination.
func TestDifferential(t *testing.T) {
	seeds := []uint64{1, 2}
	if *differentialLong {
		seeds = nil
		for s := range uint64(40) {
			seeds = append(seeds, s+1)
		}
	}
	args := []string{"-m", "map,ndcg@5,err@3,p@2,mrr,kendall,r@10", "--by", "market", "--score-col", "score,s2", "--format", "json"}
	for _, seed := range seeds {
		for _, bad := range []string{"", "nan", "inf", "dup"} {
			l := genDiffLog(seed, bad)
			var refSum, refPQ, refErr string
			for _, w := range diffWays() {
				t.Run(fmt.Sprintf("seed %d%s/%s", seed, map[string]string{"": "", "nan": " NaN", "inf": " Inf", "dup": " dup"}[bad], w.name), func(t *testing.T) {
					dir := t.TempDir()
					ins, stdin := w.inputs(t, dir, l)
					pq := filepath.Join(dir, "pq.jsonl")
					a := slices.Concat(args, w.flags, []string{"--per-query", pq}, ins)
					var code int
					var out, stderr string
					if stdin != "" {
						code, out, stderr = cliStdin(t, stdin, a...)
					} else {
						code, out, stderr = cli(t, a...)
					}
					if bad != "" {
						if code != 1 {
							t.Fatalf("exit %d on a bad log, stderr %q", code, stderr)
						}
						if !w.single {
							return
						}
						msg := stderr
						for _, in := range append(ins, "<stdin>", stdin) {
							if in != "" && in != "-" {
								msg = strings.ReplaceAll(msg, in, "IN")
							}
						}
						msg = regexp.MustCompile(`rankeval: done.*\n`).ReplaceAllString(msg, "")
						// a pipe, read once, cannot say where an earlier
						// row was (docs/errors.md)
						msg = regexp.MustCompile(`(began|first) at IN:\d+`).ReplaceAllString(msg, "$1 earlier")
						if refErr == "" {
							refErr = msg
						} else if msg != refErr {
							t.Fatalf("error\n%s\nwhere the file gives\n%s", msg, refErr)
						}
						return
					}
					if code != 0 {
						t.Fatalf("exit %d: %s", code, stderr)
					}
					sum := inputsField.ReplaceAllString(out, `"inputs": []`)
					b, err := os.ReadFile(pq)
					if err != nil {
						t.Fatal(err)
					}
					lines := strings.Split(string(b), "\n")
					if !w.ordered {
						slices.Sort(lines)
					}
					perQuery := strings.Join(lines, "\n")
					if refSum == "" {
						if !w.ordered {
							t.Fatal("the first way must be ordered")
						}
						refSum, refPQ = sum, perQuery
						return
					}
					if sum != refSum {
						t.Fatalf("summary\n%s\nwhere the file gives\n%s", sum, refSum)
					}
					want := refPQ
					if !w.ordered {
						wl := strings.Split(refPQ, "\n")
						slices.Sort(wl)
						want = strings.Join(wl, "\n")
					}
					if perQuery != want {
						t.Fatalf("per-query records differ from the file's")
					}
				})
			}
			if bad != "" {
				continue
			}
			t.Run(fmt.Sprintf("seed %d/merge of states", seed), func(t *testing.T) {
				dir := t.TempDir()
				var states []string
				for i, f := range splitLines(t, dir, l.sorted) {
					s := filepath.Join(dir, fmt.Sprintf("%d.state", i))
					if code, _, stderr := cli(t, slices.Concat(args, []string{"--state", s, "--output", filepath.Join(dir, fmt.Sprintf("%d.json", i)), f})...); code != 0 {
						t.Fatalf("exit %d: %s", code, stderr)
					}
					states = append(states, s)
				}
				code, out, stderr := cli(t, slices.Concat([]string{"merge", "--format", "json"}, states)...)
				if code != 0 {
					t.Fatalf("merge: exit %d: %s", code, stderr)
				}
				if sum := inputsField.ReplaceAllString(out, `"inputs": []`); sum != refSum {
					t.Fatalf("merged summary\n%s\nwhere one run gives\n%s", sum, refSum)
				}
			})
		}
	}
}
