package main

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// trecRuns writes a qrels file and three TREC runs (tags bm25, dense,
// hybrid) of the same queries, each sorted by query id.
func trecRuns(t *testing.T, dir string) (qrels string, runs []string) {
	t.Helper()
	r := rand.New(rand.NewPCG(39, 2))
	var q strings.Builder
	tags := []string{"bm25", "dense", "hybrid"}
	bodies := make([]strings.Builder, len(tags))
	for topic := 401; topic < 431; topic++ {
		for d := range 12 {
			q.WriteString(strings.Join([]string{strconv.Itoa(topic), "0", "d" + strconv.Itoa(d), strconv.Itoa(r.IntN(3) * r.IntN(2))}, " ") + "\n")
		}
		for s, tag := range tags {
			for rank, d := range r.Perm(12)[:8] {
				bodies[s].WriteString(strings.Join([]string{strconv.Itoa(topic), "Q0", "d" + strconv.Itoa(d), strconv.Itoa(rank + 1), strconv.Itoa(20 - rank), tag}, " ") + "\n")
			}
		}
	}
	qrels = writeIn(t, dir, "qrels", q.String())
	for s, tag := range tags {
		runs = append(runs, writeIn(t, dir, tag+".run", bodies[s].String()))
	}
	return qrels, runs
}

func writeIn(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// reorderQueries writes the lines of path with its queries (runs of lines
// of one key) in an order drawn from seed, each query's lines kept in
// order.
func reorderQueries(t *testing.T, path string, key func(string) string, seed uint64) string {
	t.Helper()
	var groups [][]string
	last := "\x00"
	for _, l := range readLines(t, path) {
		if k := key(l); k != last || len(groups) == 0 {
			groups = append(groups, nil)
			last = k
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], l)
	}
	r := rand.New(rand.NewPCG(seed, seed))
	r.Shuffle(len(groups), func(i, j int) { groups[i], groups[j] = groups[j], groups[i] })
	var out strings.Builder
	for _, g := range groups {
		out.WriteString(strings.Join(g, "\n") + "\n")
	}
	return writeIn(t, t.TempDir(), filepath.Base(path), out.String())
}

// TestSeveralTrecRunsAreSystems: several TREC runs with --qrels are the
// systems compared, named by run tag (by path where tags repeat, and "-"
// for standard input), the first the baseline, with the figures of the
// same runs given as --system TAG=PATH; one run stays one system.
func TestSeveralTrecRunsAreSystems(t *testing.T) {
	dir := t.TempDir()
	qrels, runs := trecRuns(t, dir)
	base := []string{"--qrels", qrels, "-m", "ndcg@10,map,P@5", "--quiet"}
	code, text, stderr := cli(t, append(base, runs...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"bm25 (baseline): 240 rows, 30 queries", "dense: 240 rows", "hybrid: 240 rows",
		"dense vs bm25: difference of means", "hybrid vs bm25: difference of means"} {
		if !strings.Contains(text, want) {
			t.Errorf("the table lacks %q:\n%s", want, text)
		}
	}
	js := append(base, "--format", "json")
	_, got, _ := cli(t, append(js, runs...)...)
	code, want, stderr := cli(t, append(js, "--system", "bm25="+runs[0], "--system", "dense="+runs[1], "--system", "hybrid="+runs[2])...)
	if code != 0 {
		t.Fatalf("--system: exit %d: %s", code, stderr)
	}
	if comparisonOf(t, got) != comparisonOf(t, want) {
		t.Errorf("runs as INPUT:\n%s\n--system:\n%s", comparisonOf(t, got), comparisonOf(t, want))
	}

	t.Run("repeated tags named by path", func(t *testing.T) {
		other := writeIn(t, t.TempDir(), "bm25b.run", strings.ReplaceAll(strings.Join(readLines(t, runs[1]), "\n")+"\n", "dense", "bm25"))
		code, out, stderr := cli(t, append(base, runs[0], other, runs[2])...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		for _, want := range []string{runs[0] + " (baseline): 240 rows", other + ": 240 rows", "hybrid: 240 rows", "hybrid vs " + runs[0]} {
			if !strings.Contains(out, want) {
				t.Errorf("lacks %q:\n%s", want, out)
			}
		}
	})
	t.Run("standard input named -", func(t *testing.T) {
		in, err := os.Open(runs[0])
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		old := os.Stdin
		os.Stdin = in
		defer func() { os.Stdin = old }()
		code, out, stderr := cli(t, append(base, "-", runs[1])...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if !strings.Contains(out, "- (baseline): 240 rows") || !strings.Contains(out, "dense vs -") {
			t.Errorf("standard input not named -:\n%s", out)
		}
	})
	t.Run("one run stays one system", func(t *testing.T) {
		_, out, _ := cli(t, append(base, runs[1])...)
		if strings.Contains(out, "baseline") || strings.Contains(out, " vs ") {
			t.Errorf("one run compared:\n%s", out)
		}
	})
	t.Run("runs in different query orders", func(t *testing.T) {
		shuffled := []string{runs[0], reorderQueries(t, runs[1], trecQuery, 1), reorderQueries(t, runs[2], trecQuery, 2)}
		code, _, stderr := cli(t, append(base, shuffled...)...)
		if code != 1 || !strings.Contains(stderr, "give --unsorted to join logs in any order") {
			t.Errorf("exit %d, want 1 naming --unsorted: %s", code, stderr)
		}
		code, got, stderr := cli(t, append(append(js, "--unsorted"), shuffled...)...)
		if code != 0 {
			t.Fatalf("--unsorted: exit %d: %s", code, stderr)
		}
		if comparisonOf(t, got) != comparisonOf(t, want) {
			t.Errorf("shuffled runs --unsorted:\n%s\nsorted:\n%s", comparisonOf(t, got), comparisonOf(t, want))
		}
	})
}

// TestSystemLogsAnyOrder: --system logs whose queries come in different
// orders (and, in one, interleaved rows) are joined by query id under
// --unsorted with the figures of the sorted logs, with and without
// --missing zero; without --unsorted the lockstep's error names it.
func TestSystemLogsAnyOrder(t *testing.T) {
	dir := t.TempDir()
	_, logs := fourSystems(t, dir, 200)
	key := jsonQuery("query_id")
	shuffled := []string{
		reorderQueries(t, logs[0], key, 5),
		interleave(t, readLines(t, reorderQueries(t, logs[1], key, 6)), key, "s1.jsonl"),
		reorderQueries(t, logs[2], key, 7),
	}
	// the third system lacks the first 20 queries
	short := readLines(t, logs[2])[20*8:]
	shortLog := writeIn(t, dir, "short.jsonl", strings.Join(short, "\n")+"\n")
	shortShuffled := reorderQueries(t, shortLog, key, 8)
	systems := func(paths ...string) []string {
		var a []string
		for i, p := range paths {
			a = append(a, "--system", "s"+strconv.Itoa(i)+"="+p)
		}
		return a
	}
	base := []string{"-m", "ndcg@10,map,mrr", "--format", "json", "--quiet", "--pairs", "all", "--permutations", "200", "--seed", "3"}
	for _, tc := range []struct {
		name           string
		sorted, others []string
		extra          []string
	}{
		{"same queries", logs[:3], shuffled, nil},
		{"--missing zero", []string{logs[0], logs[1], shortLog}, []string{shuffled[0], shuffled[1], shortShuffled}, []string{"--missing", "zero"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, want, stderr := cli(t, append(append(base, tc.extra...), systems(tc.sorted...)...)...)
			if code != 0 {
				t.Fatalf("sorted: exit %d: %s", code, stderr)
			}
			for _, mem := range []string{"512MiB", "16MiB"} {
				args := append(append(base, tc.extra...), "--unsorted", "--mem-limit", mem)
				code, got, stderr := cli(t, append(args, systems(tc.others...)...)...)
				if code != 0 {
					t.Fatalf("--unsorted --mem-limit %s: exit %d: %s", mem, code, stderr)
				}
				if comparisonOf(t, got) != comparisonOf(t, want) {
					t.Errorf("--mem-limit %s: shuffled:\n%s\nsorted:\n%s", mem, comparisonOf(t, got), comparisonOf(t, want))
				}
			}
			code, _, stderr = cli(t, append(append(base, tc.extra...), systems(tc.others...)...)...)
			if code != 1 || !strings.Contains(stderr, "--unsorted") {
				t.Errorf("shuffled without --unsorted: exit %d, want 1 naming --unsorted: %s", code, stderr)
			}
		})
	}
	t.Run("absent query without --missing zero", func(t *testing.T) {
		code, _, stderr := cli(t, append(append(base, "--unsorted"), systems(shuffled[0], shortShuffled)...)...)
		if code != 1 || !strings.Contains(stderr, "is in s0's log but not in s1's (give --missing zero") {
			t.Errorf("exit %d: %s", code, stderr)
		}
	})
}

// TestReappearSuggestsSystems: logs of several systems given as INPUT
// (each alone holds its queries together, all hold the same queries) get
// the reappear error with --system suggested; inputs that are one log
// split, or a file not sorted alone, get the error as before.
func TestReappearSuggestsSystems(t *testing.T) {
	dir := t.TempDir()
	_, logs := fourSystems(t, dir, 30)
	lines := readLines(t, logs[0])
	half := writeIn(t, dir, "half.jsonl", strings.Join(lines[:120], "\n")+"\n")
	both := writeIn(t, dir, "both.jsonl", strings.Join(append(readLines(t, logs[0]), readLines(t, logs[1])...), "\n")+"\n")
	const suggestion = "the inputs look like the logs of several systems (each holds its queries' rows together, and all hold the same queries): to compare them, give each as --system NAME=PATH instead"
	for _, tc := range []struct {
		name    string
		inputs  []string
		suggest bool
	}{
		{"two systems' logs", []string{logs[0], logs[1]}, true},
		{"three systems' logs", logs[:3], true},
		{"other queries", []string{logs[0], half}, false},
		{"an input not sorted alone", []string{logs[0], both}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := cli(t, append([]string{"-m", "ndcg@10", "--quiet"}, tc.inputs...)...)
			if code != 1 || !strings.Contains(stderr, `reappears; its rows began at `+logs[0]+`:1 and another query's rows came between (sort the input by query id, or use --unsorted)`) {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if got := strings.Contains(stderr, suggestion); got != tc.suggest {
				t.Errorf("suggests --system: %v, want %v: %s", got, tc.suggest, stderr)
			}
		})
	}
}
