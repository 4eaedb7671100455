package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/internal/vectors"
)

// TestNewcomerJourneys: what four new users tried (a data scientist's
// pandas CSV with missing scores, a search engineer's Excel CSV, an IR
// researcher's three TREC runs, an ML engineer's two rankers' shuffled
// logs) works the first time, with the numbers of the equivalent input
// written the way rankeval wanted it before; and a misspelt command is
// answered by name.
func TestNewcomerJourneys(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	summary := func(t *testing.T, args ...string) string {
		t.Helper()
		code, out, stderr := cli(t, append([]string{"--quiet"}, args...)...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, stderr)
		}
		return out
	}

	t.Run("pandas CSV with missing scores", func(t *testing.T) {
		// pandas writes NaN as an empty field
		withNaN := write("frame.csv", "query_id,doc_id,score,label\nq1,a,0.9,1\nq1,b,,1\nq1,c,0.1,0\nq2,a,0.3,1\nq2,b,0.7,0\nq2,c,,0\n")
		cleaned := write("cleaned.csv", "query_id,doc_id,score,label\nq1,a,0.9,1\nq1,c,0.1,0\nq2,a,0.3,1\nq2,b,0.7,0\n")
		code, _, stderr := cli(t, "--quiet", withNaN)
		if code != 1 || !strings.Contains(stderr, "--missing-score") {
			t.Fatalf("default: exit %d %q, want exit 1 naming --missing-score", code, stderr)
		}
		got := summary(t, "-m", "map,r@10,ndcg@10", "--format", "json", "--missing-score", "drop", withNaN)
		want := summary(t, "-m", "map,r@10,ndcg@10", "--format", "json", cleaned)
		if metricsOf(t, got) != metricsOf(t, want) || !strings.Contains(got, `"missing_score": {"policy": "drop", "rows": 2}`) {
			t.Fatalf("--missing-score drop:\n%s\nwant the cleaned frame's figures:\n%s", got, want)
		}
	})

	t.Run("Excel CSV", func(t *testing.T) {
		plain := write("plain.csv", "query_id,doc_id,score,label\nq1,a,0.75,1\nq1,b,0.5,0\nq2,a,1.25,0\nq2,b,2.5,2\n")
		excel := write("excel.csv", "\ufeffquery_id;doc_id;score;label\r\nq1;a;0,75;1\r\nq1;\"b\";0,5;0\r\nq2;a;1,25;0\r\nq2;b;2,5;2\r\n")
		if got, want := summary(t, "--decimal-comma", excel), summary(t, plain); got != want {
			t.Fatalf("the Excel file:\n%s\nwant the plain CSV's:\n%s", got, want)
		}
	})

	t.Run("three TREC runs", func(t *testing.T) {
		ref := filepath.Join(vectors.TestdataDir(t), "reference")
		qrels := filepath.Join(ref, "trec_a", "qrels.txt")
		// three runs of the same queries: one reference run, re-tagged
		// and with its scores perturbed, as three systems' runs
		src, err := os.ReadFile(filepath.Join(ref, "trec_a", "run.txt"))
		if err != nil {
			t.Fatal(err)
		}
		var runs []string
		for i, tag := range []string{"bm25", "dense", "hybrid"} {
			var b strings.Builder
			for _, line := range strings.Split(strings.TrimSpace(string(src)), "\n") {
				f := strings.Fields(line)
				var score float64
				fmt.Sscan(f[4], &score)
				fmt.Fprintf(&b, "%s Q0 %s %s %g %s\n", f[0], f[2], f[3], score+float64(i)*float64(len(f[2])%3), tag)
			}
			runs = append(runs, write(tag+".run", b.String()))
		}
		got := summary(t, append([]string{"--qrels", qrels, "-m", "map,ndcg@10"}, runs...)...)
		want := summary(t, "--qrels", qrels, "-m", "map,ndcg@10", "--system", "bm25="+runs[0], "--system", "dense="+runs[1], "--system", "hybrid="+runs[2])
		if got != want || !strings.Contains(got, "hybrid") {
			t.Fatalf("three runs:\n%s\nwant the --system comparison:\n%s", got, want)
		}
	})

	t.Run("two rankers' shuffled logs", func(t *testing.T) {
		var a, b []string
		for q := range 40 {
			for d := range 5 {
				a = append(a, fmt.Sprintf(`{"query_id":"q%02d","doc_id":"d%d","score":%d,"label":%d}`, q, d, (q*7+d*3)%11, (q+d)%3))
				b = append(b, fmt.Sprintf(`{"query_id":"q%02d","doc_id":"d%d","score":%d,"label":%d}`, q, d, (q*5+d*2)%13, (q+d)%3))
			}
		}
		sortedA, sortedB := write("a.jsonl", strings.Join(a, "\n")+"\n"), write("b.jsonl", strings.Join(b, "\n")+"\n")
		r := rand.New(rand.NewPCG(1, 2))
		r.Shuffle(len(a), func(i, j int) { a[i], a[j] = a[j], a[i] })
		r.Shuffle(len(b), func(i, j int) { b[i], b[j] = b[j], b[i] })
		shufA, shufB := write("a.shuffled.jsonl", strings.Join(a, "\n")+"\n"), write("b.shuffled.jsonl", strings.Join(b, "\n")+"\n")
		want := summary(t, "--format", "json", "--system", "a="+sortedA, "--system", "b="+sortedB)
		got := summary(t, "--format", "json", "--unsorted", "--system", "a="+shufA, "--system", "b="+shufB)
		if metricsOf(t, got) != metricsOf(t, want) {
			t.Fatalf("shuffled logs:\n%s\nwant the sorted logs':\n%s", got, want)
		}
	})

	t.Run("a misspelt command", func(t *testing.T) {
		t.Chdir(dir)
		code, _, stderr := cli(t, "trec-eval")
		if code != 2 || !strings.Contains(stderr, "did you mean rankeval trec_eval?") {
			t.Fatalf("trec-eval: exit %d %q", code, stderr)
		}
		code, out, _ := cli(t, "help")
		if code != 0 || !slices.ContainsFunc(strings.Split(out, "\n"), func(l string) bool { return strings.Contains(l, "rankeval trec_eval") }) {
			t.Fatalf("help: exit %d\n%s", code, out)
		}
	})
}

// metricsOf is a JSON summary without the lines that name its inputs, so
// that runs over different files compare by their figures.
func metricsOf(t *testing.T, summary string) string {
	t.Helper()
	var keep []string
	for _, l := range strings.Split(summary, "\n") {
		if !strings.Contains(l, `"inputs"`) && !strings.Contains(l, `"missing_score"`) && !strings.Contains(l, `"options"`) && !strings.Contains(l, `"rows"`) {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}
