package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/internal/vectors"
)

// diffCase is one way of running a differential test: arguments (inputs
// last), a file for standard input, and whether per-query records come in
// the reference's order.
type diffCase struct {
	name    string
	args    []string
	stdin   string
	ordered bool
}

// diffCompare runs the cases, the first being the reference, each with
// --per-query, and demands the same summary (the inputs' names aside) and
// per-query records (sorted, for a case whose order is its own).
func diffCompare(t *testing.T, cases []diffCase) {
	t.Helper()
	var refSum, refPQ string
	sorted := func(s string) string {
		l := strings.Split(s, "\n")
		slices.Sort(l)
		return strings.Join(l, "\n")
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pq := filepath.Join(t.TempDir(), "pq.jsonl")
			a := append([]string{"--per-query", pq}, c.args...)
			var code int
			var out, stderr string
			if c.stdin != "" {
				code, out, stderr = cliStdin(t, c.stdin, a...)
			} else {
				code, out, stderr = cli(t, a...)
			}
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			b, err := os.ReadFile(pq)
			if err != nil {
				t.Fatal(err)
			}
			sum, perQuery := inputsField.ReplaceAllString(out, `"inputs": []`), string(b)
			if i == 0 {
				if !c.ordered {
					t.Fatal("the reference must be ordered")
				}
				refSum, refPQ = sum, perQuery
				return
			}
			if sum != refSum {
				t.Fatalf("summary\n%s\nwhere %s gives\n%s", sum, cases[0].name, refSum)
			}
			if want := refPQ; c.ordered && perQuery != want || !c.ordered && sorted(perQuery) != sorted(want) {
				t.Fatalf("per-query records differ from %s's", cases[0].name)
			}
		})
	}
}

// genTREC makes qrels and a TREC run of random shape from seed: queries
// of 1 to 15 ranked docs with tied scores, some with no judgment, some
// judged with no relevant doc, judged docs the run does not retrieve. It
// returns the qrels, the run sorted by query and the run with its queries
// interleaved (each query's lines in their order).
func genTREC(seed uint64) (qrels, run, shuffled []string) {
	r := rand.New(rand.NewPCG(seed, 7))
	for q := range 10 + r.IntN(40) {
		id := fmt.Sprintf("%d", 100+q)
		judged := r.IntN(6) != 0
		allZero := r.IntN(5) == 0
		n := 1 + r.IntN(15)
		for d := range n + 3 {
			if judged && r.IntN(3) != 0 {
				label := r.IntN(3)
				if allZero {
					label = 0
				}
				qrels = append(qrels, fmt.Sprintf("%s 0 D%d %d", id, d, label))
			}
		}
		docs := r.Perm(n + 3)
		for d := range n {
			line := fmt.Sprintf("%s Q0 D%d %d %d r1", id, docs[d], d+1, r.IntN(5))
			run = append(run, line)
		}
	}
	return qrels, run, shuffleQueries(r, run, func(l string) string { return strings.Fields(l)[0] })
}

// TestDifferentialTREC: a TREC run and its qrels through every way in (a
// file, -, /dev/fd/N, a FIFO, shuffled under --unsorted from a file and a
// pipe, workers and batch sizes) gives one summary and one set of
// per-query records; the trec_eval drop-in, which reads a run twice as
// trec_eval does, refuses standard input and pipes by path (exit 2) rather
// than read part of one.
func TestDifferentialTREC(t *testing.T) {
	seeds := []uint64{1, 2}
	if *differentialLong {
		seeds = []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	}
	for _, seed := range seeds {
		qrels, run, shuffled := genTREC(seed)
		dir := t.TempDir()
		q := writeLines(t, filepath.Join(dir, "qrels.txt"), qrels)
		file := writeLines(t, filepath.Join(dir, "run.txt"), run)
		shuf := writeLines(t, filepath.Join(dir, "shuffled.txt"), shuffled)
		args := []string{"--quiet", "-m", "map,ndcg@5,p@2,mrr,r@10,rprec", "--format", "json", "--qrels", q}
		cases := []diffCase{
			{name: "file", args: append(slices.Clone(args), file), ordered: true},
			{name: "stdin", args: append(slices.Clone(args), "-"), stdin: file, ordered: true},
			{name: "unsorted file", args: append(slices.Clone(args), "--unsorted", "--mem-limit", "16MiB", shuf)},
			{name: "unsorted pipe", args: append(slices.Clone(args), "--unsorted", "-"), stdin: shuf},
		}
		for _, p := range pipeWays {
			cases = append(cases, diffCase{name: p.name, args: append(slices.Clone(args), p.open(t, []byte(strings.Join(run, "\n")+"\n"))), ordered: true})
		}
		for _, wb := range [][2]string{{"1", "1"}, {"8", "7"}} {
			cases = append(cases, diffCase{name: "workers " + wb[0] + ", batch " + wb[1],
				args: append(slices.Clone(args), "--workers", wb[0], "--batch-size", wb[1], file), ordered: true})
		}
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) { diffCompare(t, cases) })

		t.Run(fmt.Sprintf("seed %d/trec_eval", seed), func(t *testing.T) {
			ways := []struct {
				name, in, stdin string
			}{{"file", file, ""}, {"stdin", "-", file}}
			for _, p := range pipeWays {
				ways = append(ways, struct{ name, in, stdin string }{p.name, p.open(t, []byte(strings.Join(run, "\n")+"\n")), ""})
			}
			var want string
			for _, w := range ways {
				a := []string{"trec_eval", "-q", q, w.in}
				var code int
				var out, stderr string
				if w.stdin != "" {
					code, out, stderr = cliStdin(t, w.stdin, a...)
				} else {
					code, out, stderr = cli(t, a...)
				}
				if code != 0 || !strings.Contains(out, "map") {
					t.Fatalf("%s: exit %d: %s", w.name, code, stderr)
				}
				// 10.0 reads a run from standard input or a pipe, copied
				// to a file first since it reads RUN twice
				if w.name == "file" {
					want = out
				} else if out != want {
					t.Fatalf("%s: not the file's output:\n%s", w.name, vectors.FirstDiff(want, out))
				}
			}
		})
	}
}

// TestDifferentialSystems: two --system logs, with queries missing from
// one (--missing zero), through files, pipes by path and workers and
// batch sizes, give one summary and one set of per-query records.
func TestDifferentialSystems(t *testing.T) {
	seeds := []uint64{1, 2}
	if *differentialLong {
		seeds = []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	}
	score := regexp.MustCompile(`"score":\d+`)
	for _, seed := range seeds {
		a := genDiffLog(seed, "").sorted
		r := rand.New(rand.NewPCG(seed, 5))
		var b []string
		for _, l := range a {
			if strings.HasPrefix(l, `{"query_id":"q00`) { // queries q000..q009 only in a
				continue
			}
			b = append(b, score.ReplaceAllString(l, fmt.Sprintf(`"score":%d`, r.IntN(4))))
		}
		dir := t.TempDir()
		fa, fb := writeLines(t, filepath.Join(dir, "a.jsonl"), a), writeLines(t, filepath.Join(dir, "b.jsonl"), b)
		args := []string{"--quiet", "-m", "map,ndcg@5,err@3,kendall,mrr", "--by", "market", "--missing", "zero", "--format", "json"}
		sys := func(x, y string, extra ...string) []string {
			return slices.Concat(args, extra, []string{"--system", "prod=" + x, "--system", "cand=" + y})
		}
		data := func(l []string) []byte { return []byte(strings.Join(l, "\n") + "\n") }
		cases := []diffCase{{name: "files", args: sys(fa, fb), ordered: true}}
		for _, p := range pipeWays {
			cases = append(cases, diffCase{name: "both " + p.name, args: sys(p.open(t, data(a)), p.open(t, data(b))), ordered: true})
		}
		cases = append(cases, diffCase{name: "one from stdin", args: sys(fa, "-"), stdin: fb, ordered: true})
		for _, wb := range [][2]string{{"1", "1"}, {"8", "7"}} {
			cases = append(cases, diffCase{name: "workers " + wb[0] + ", batch " + wb[1], args: sys(fa, fb, "--workers", wb[0], "--batch-size", wb[1]), ordered: true})
		}
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) { diffCompare(t, cases) })
	}
}
