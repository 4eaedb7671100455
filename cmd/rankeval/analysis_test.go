package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// aRow is one row of the analysis test logs.
type aRow struct {
	Q      string  `json:"query_id"`
	D      string  `json:"doc_id"`
	S      float64 `json:"score"`
	SB     float64 `json:"score_b"`
	L      int     `json:"label"`
	Market string  `json:"market"`
	Dev    string  `json:"dev"`
}

// genRows makes queries with varied sizes, empty queries, ties, a market
// and a device per query, and a second model that is a little better.
func genRows(queries, markets int, seed uint64) []aRow {
	r := rand.New(rand.NewPCG(seed, 17))
	var rows []aRow
	for q := range queries {
		n := 1 + r.IntN(30)
		market := fmt.Sprintf("m%d", r.IntN(markets))
		dev := []string{"mobile", "desktop"}[r.IntN(2)]
		empty := r.IntN(15) == 0
		for d := range n {
			l := 0
			if !empty && r.IntN(3) == 0 {
				l = 1 + r.IntN(4)
			}
			s := math.Round((float64(l)*0.15+r.Float64())*20) / 20
			sb := math.Round((float64(l)*0.25+r.Float64())*20) / 20
			rows = append(rows, aRow{Q: fmt.Sprintf("q%05d", q), D: fmt.Sprintf("d%d", d), S: s, SB: sb, L: l, Market: market, Dev: dev})
		}
	}
	return rows
}

func writeRows(t testing.TB, path string, rows []aRow, keep func(aRow) bool, edit func(*aRow) map[string]any) string {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for _, r := range rows {
		if keep != nil && !keep(r) {
			continue
		}
		var v any = r
		if edit != nil {
			v = edit(&r)
		}
		b, _ := json.Marshal(v)
		w.Write(b)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return path
}

type metricJSON struct {
	Mean     *float64  `json:"mean"`
	Queries  int64     `json:"queries"`
	CI95     []float64 `json:"ci95"`
	CI95Boot []float64 `json:"ci95_bootstrap"`
	Diff     *float64  `json:"diff"`
	P        *float64  `json:"p"`
	PAdj     *float64  `json:"p_corrected"`
}

type systemJSON struct {
	Name    string                `json:"name"`
	Rows    int64                 `json:"rows"`
	Queries map[string]int64      `json:"queries"`
	Metrics map[string]metricJSON `json:"metrics"`
}

type pairJSON struct {
	System   string                `json:"system"`
	Baseline string                `json:"baseline"`
	Metrics  map[string]metricJSON `json:"metrics"`
}

type analysisJSON struct {
	Metrics    map[string]metricJSON `json:"metrics"`
	Rows       int64                 `json:"rows"`
	Queries    map[string]int64      `json:"queries"`
	Systems    []systemJSON          `json:"systems"`
	Comparison []pairJSON            `json:"comparison"`
	Slices     []struct {
		Key        map[string]string     `json:"key"`
		Rows       int64                 `json:"rows"`
		Queries    map[string]int64      `json:"queries"`
		Metrics    map[string]metricJSON `json:"metrics"`
		Systems    []systemJSON          `json:"systems"`
		Comparison []pairJSON            `json:"comparison"`
	} `json:"slices"`
}

func runJSON(t testing.TB, args ...string) (analysisJSON, string) {
	t.Helper()
	code, out, stderr := cli(t, append([]string{"--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	var s analysisJSON
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("summary is not JSON: %v\n%s", err, out)
	}
	return s, out
}

const analysisMetrics = "ndcg@10,map,p@5,err@10,kendall"

// TestSlicesEqualFilteredRuns checks each slice against the direct
// computation: rankeval on the rows of that slice alone. Sums are exact,
// so every figure must match to the bit.
func TestSlicesEqualFilteredRuns(t *testing.T) {
	dir := t.TempDir()
	rows := genRows(400, 4, 1)
	in := writeRows(t, filepath.Join(dir, "log.jsonl"), rows, nil, nil)
	got, _ := runJSON(t, "-m", analysisMetrics, "--by", "market,dev", in)
	if len(got.Slices) != 8 {
		t.Fatalf("%d slices, want 8 (4 markets x 2 devices)", len(got.Slices))
	}
	var total int64
	prev := ""
	for _, sl := range got.Slices {
		market, dev := sl.Key["market"], sl.Key["dev"]
		name := market + "/" + dev
		if name <= prev {
			t.Errorf("slices out of order: %s after %s", name, prev)
		}
		prev = name
		sub := writeRows(t, filepath.Join(dir, name[:2]+dev+".jsonl"), rows, func(r aRow) bool { return r.Market == market && r.Dev == dev }, nil)
		want, _ := runJSON(t, "-m", analysisMetrics, sub)
		if sl.Rows != want.Rows || sl.Queries["total"] != want.Queries["total"] || sl.Queries["empty"] != want.Queries["empty"] {
			t.Errorf("%s: rows %d queries %v, want %d %v", name, sl.Rows, sl.Queries, want.Rows, want.Queries)
		}
		for m, w := range want.Metrics {
			g := sl.Metrics[m]
			if fmtp(g.Mean) != fmtp(w.Mean) || g.Queries != w.Queries || fmt.Sprint(g.CI95) != fmt.Sprint(w.CI95) {
				t.Errorf("%s %s: %v %d %v, want %v %d %v", name, m, fmtp(g.Mean), g.Queries, g.CI95, fmtp(w.Mean), w.Queries, w.CI95)
			}
		}
		total += sl.Queries["total"]
	}
	if total != got.Queries["total"] {
		t.Errorf("slices hold %d queries, the log %d", total, got.Queries["total"])
	}
}

// TestComparisonMatchesReference checks the difference, t interval,
// p-value, Holm correction and bootstrap interval of every metric against
// the slow reference, computed from the per-query values.
func TestComparisonMatchesReference(t *testing.T) {
	dir := t.TempDir()
	in := writeRows(t, filepath.Join(dir, "log.jsonl"), genRows(300, 3, 2), nil, nil)
	pq := filepath.Join(dir, "pq.jsonl")
	const B = 200
	got, _ := runJSON(t, "-m", analysisMetrics, "--score-col", "score,score_b", "--bootstrap", strconv.Itoa(B), "--per-query", pq, in)
	if len(got.Comparison) != 1 || got.Comparison[0].System != "score_b" || got.Comparison[0].Baseline != "score" {
		t.Fatalf("comparison %+v", got.Comparison)
	}
	// per-query values of both systems
	data, err := os.ReadFile(pq)
	if err != nil {
		t.Fatal(err)
	}
	names := strings.Split(analysisMetrics, ",")
	ids := map[string][]string{}
	diffs := map[string][]float64{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var rec struct {
			ID      string                         `json:"query_id"`
			Systems map[string]map[string]*float64 `json:"systems"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		for _, m := range names {
			a, b := rec.Systems["score"][m], rec.Systems["score_b"][m]
			if a != nil && b != nil {
				ids[m] = append(ids[m], rec.ID)
				diffs[m] = append(diffs[m], *b-*a)
			}
		}
	}
	gotPairs := got.Comparison[0].Metrics
	var ps []float64
	for _, m := range names {
		ref := refPaired(ids[m], diffs[m], B)
		g := gotPairs[m]
		ps = append(ps, ref.p)
		t.Run(m, func(t *testing.T) {
			if g.Queries != ref.n || math.Abs(*g.Diff-ref.mean) > 1e-15 {
				t.Errorf("diff %v over %d, want %v over %d", *g.Diff, g.Queries, ref.mean, ref.n)
			}
			if math.Abs(g.CI95[0]-ref.lo) > 1e-9 || math.Abs(g.CI95[1]-ref.hi) > 1e-9 {
				t.Errorf("t interval %v, want [%v, %v]", g.CI95, ref.lo, ref.hi)
			}
			if math.Abs(*g.P-ref.p) > 1e-9*math.Max(ref.p, 1e-6) {
				t.Errorf("p %v, want %v", *g.P, ref.p)
			}
			if math.Abs(g.CI95Boot[0]-ref.bootLo) > 1e-12 || math.Abs(g.CI95Boot[1]-ref.bootHi) > 1e-12 {
				t.Errorf("bootstrap interval %v, want [%v, %v]", g.CI95Boot, ref.bootLo, ref.bootHi)
			}
			if !(g.CI95Boot[0] < *g.Diff && *g.Diff < g.CI95Boot[1]) {
				t.Errorf("bootstrap interval %v does not hold the difference %v", g.CI95Boot, *g.Diff)
			}
		})
	}
	for i, want := range refHolm(ps) {
		if g := *gotPairs[names[i]].PAdj; math.Abs(g-want) > 1e-9*math.Max(want, 1e-6) {
			t.Errorf("%s: Holm p %v, want %v", names[i], g, want)
		}
	}
}

// TestAnalysisBitIdentical demands the same bytes for any worker count and
// batch size with slices, two systems and a bootstrap.
func TestAnalysisBitIdentical(t *testing.T) {
	dir := t.TempDir()
	in := writeRows(t, filepath.Join(dir, "log.jsonl"), genRows(2000, 30, 3), nil, nil)
	var ref string
	for _, w := range []int{1, 2, 3, 8} {
		for _, bs := range []int{8192, 97} {
			_, out := runJSON(t, "-m", analysisMetrics+",dcg@5", "--by", "market", "--score-col", "score,score_b", "--bootstrap", "300",
				"--workers", strconv.Itoa(w), "--batch-size", strconv.Itoa(bs), in)
			if ref == "" {
				ref = out
			} else if out != ref {
				t.Fatalf("workers %d batch %d: output differs", w, bs)
			}
		}
	}
}

// TestSystemsInLockstep compares two logs and wants the figures of the
// same comparison made from two score columns of one log.
func TestSystemsInLockstep(t *testing.T) {
	dir := t.TempDir()
	rows := genRows(300, 3, 4)
	both := writeRows(t, filepath.Join(dir, "both.jsonl"), rows, nil, nil)
	asLog := func(name string, score func(aRow) float64, keep func(aRow) bool) string {
		return writeRows(t, filepath.Join(dir, name+".jsonl"), rows, keep, func(r *aRow) map[string]any {
			return map[string]any{"query_id": r.Q, "doc_id": r.D, "score": score(*r), "label": r.L, "market": r.Market}
		})
	}
	a := asLog("a", func(r aRow) float64 { return r.S }, nil)
	b := asLog("b", func(r aRow) float64 { return r.SB }, nil)
	args := []string{"-m", analysisMetrics, "--by", "market", "--bootstrap", "100"}
	fromCols, _ := runJSON(t, append(args, "--score-col", "score,score_b", both)...)
	fromLogs, out := runJSON(t, append(args, "--system", "score="+a, "--system", "score_b="+b)...)
	// groups that straddle batches in both logs, several workers
	if _, out2 := runJSON(t, append(args, "--batch-size", "3", "--workers", "3", "--system", "score="+a, "--system", "score_b="+b)...); out2 != out {
		t.Fatal("lockstep summary depends on batch size or workers")
	}
	for _, part := range []struct {
		name       string
		cols, logs any
	}{{"comparison", fromCols.Comparison, fromLogs.Comparison}, {"slices", fromCols.Slices, fromLogs.Slices}, {"systems", fromCols.Systems, fromLogs.Systems}} {
		c, _ := json.Marshal(part.cols)
		l, _ := json.Marshal(part.logs)
		if string(c) != string(l) || len(c) < 100 {
			t.Fatalf("%s differ:\n%s\n%s", part.name, c, l)
		}
	}

	t.Run("missing zero", func(t *testing.T) {
		// b lacks every 7th query: it counts as 0 there
		dropped := func(r aRow) bool { n, _ := strconv.Atoi(r.Q[1:]); return n%7 == 0 }
		b2 := asLog("b2", func(r aRow) float64 { return r.SB }, func(r aRow) bool { return !dropped(r) })
		code, _, stderr := cli(t, "--system", "a="+a, "--system", "b="+b2, "-m", "map")
		if code != 1 || !regexp.MustCompile(`b2\.jsonl:\d+: query "q00001", but .*a\.jsonl|a\.jsonl:\d+: query "q00000", but .*b2\.jsonl:\d+ has query "q00001"`).MatchString(stderr) {
			t.Fatalf("without --missing: exit %d, %s", code, stderr)
		}
		got, _ := runJSON(t, "--system", "a="+a, "--system", "b="+b2, "--missing", "zero", "-m", "map,kendall")
		if got.Systems[1].Queries["missing"] != 43 || got.Systems[0].Queries["missing"] != 0 || got.Systems[1].Queries["total"] != 300 {
			t.Fatalf("systems %+v", got.Systems)
		}
		// map of b: the same queries as before but 0 where dropped
		runJSON(t, "-m", "map", "--per-query", filepath.Join(dir, "pqb.jsonl"), b)
		pq := readPerQuery(t, filepath.Join(dir, "pqb.jsonl"))
		sum, n := 0.0, 0
		for id, vals := range pq {
			// an absent query counts as 0, unless the log that holds it
			// (a's, whose labels are b's) has no relevant row for it:
			// then it is left out for both (TestMissingZeroEmptyQuery)
			if num, _ := strconv.Atoi(id[1:]); num%7 == 0 && vals["map"] != nil {
				n++
			} else if vals["map"] != nil {
				n++
				sum += *vals["map"]
			}
		}
		if g := *got.Systems[1].Metrics["map"].Mean; math.Abs(g-sum/float64(n)) > 1e-12 {
			t.Fatalf("map of b with missing queries as 0: %v, want %v", g, sum/float64(n))
		}
		if got.Comparison[0].Metrics["kendall"].Queries >= got.Systems[0].Metrics["kendall"].Queries {
			t.Fatalf("kendall is undefined for absent queries, yet compared over %d", got.Comparison[0].Metrics["kendall"].Queries)
		}
	})
}

func TestAnalysisErrors(t *testing.T) {
	dir := t.TempDir()
	good := `{"query_id":"a","score":1,"label":1,"market":"x"}` + "\n"
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(s), 0o644)
		return p
	}
	tests := []struct {
		name string
		args func() []string
		code int
		msg  string
	}{
		{"rows disagree on the slice", func() []string {
			return []string{"--by", "market", write("dis.jsonl", good+`{"query_id":"a","score":2,"label":0,"market":"y"}`+"\n")}
		}, 1, `dis.jsonl:2: query "a" has market "y" here but "x" on its first row at .*dis.jsonl:1`},
		{"slice column missing", func() []string {
			return []string{"--by", "dev", write("nodev.jsonl", good)}
		}, 1, `nodev.jsonl:1: no "dev" field \(a slice column\)`},
		{"null slice value", func() []string {
			return []string{"--by", "market", write("null.jsonl", `{"query_id":"a","score":1,"label":1,"market":null}`)}
		}, 1, `null.jsonl:1: "market" \(a slice column\) is null`},
		{"too many slices", func() []string {
			var sb strings.Builder
			for i := range 5 {
				fmt.Fprintf(&sb, `{"query_id":"q%d","score":1,"label":1,"market":"m%d"}`+"\n", i, i)
			}
			return []string{"--by", "market", "--max-slices", "3", write("many.jsonl", sb.String())}
		}, 1, `many.jsonl:4: query "q3" opens slice number 4 \(market="m3"\), more than --max-slices 3`},
		{"unsorted logs with --missing zero", func() []string {
			a := write("ua.jsonl", `{"query_id":"b","score":1,"label":1}`+"\n"+`{"query_id":"a","score":1,"label":1}`+"\n")
			return []string{"--system", "x=" + a, "--system", "y=" + a, "--missing", "zero"}
		}, 1, `ua.jsonl:2: query id "a" comes after "b"; with --missing zero every log must be sorted`},
		{"one log ends early", func() []string {
			a := write("la.jsonl", good+`{"query_id":"b","score":1,"label":1}`+"\n")
			b := write("lb.jsonl", good)
			return []string{"--system", "x=" + a, "--system", "y=" + b}
		}, 1, `la.jsonl:2: query "b" is in x's log, but y's log has ended`},
		{"an infinite second score", func() []string {
			return []string{"--score-col", "score,s2", write("inf.jsonl", `{"query_id":"a","score":1,"s2":-1e999,"label":1}`)}
		}, 1, `inf.jsonl:1: score of s2 is -Inf`},
		{"NaN in a second score column, not JSON", func() []string {
			return []string{"--score-col", "score,s2", write("nan.jsonl", `{"query_id":"a","score":1,"s2":NaN,"label":1}`)}
		}, 1, `nan.jsonl:1: "s2" \(a score column\) must be a number, found "NaN" \(JSON has no NaN or Infinity\)`},
		{"one --system", func() []string { return []string{"--system", "a=x.jsonl"} }, 2, "give two or more"},
		{"--system and inputs", func() []string { return []string{"--system", "a=x", "--system", "b=y", "in.jsonl"} }, 2, "not both"},
		{"--system without =", func() []string { return []string{"--system", "a", "--system", "b=y"} }, 2, `want NAME=PATH`},
		{"same name twice", func() []string { return []string{"--system", "a=x", "--system", "a=y"} }, 2, `"a" is named twice`},
		{"--missing zero without --system", func() []string { return []string{"--missing", "zero", "in.jsonl"} }, 2, "applies to --system"},
		{"--format trec with --by", func() []string { return []string{"--format", "trec", "--by", "m", "in.jsonl"} }, 2, "--format trec has no place"},
		{"negative bootstrap", func() []string { return []string{"--bootstrap", "-1", "in.jsonl"} }, 2, "--bootstrap -1"},
		{"rank column with score columns", func() []string { return []string{"--rank-col", "r", "--score-col", "a,b", "in.jsonl"} }, 2, "--rank-col"},
		{"column for two roles", func() []string { return []string{"--by", "label", write("two.jsonl", good)} }, 2, `column "label" is named for two roles: the label column and`},
		{"label column is the doc column", func() []string { return []string{"--label-col", "doc_id", write("two2.jsonl", good)} }, 2, `column "doc_id" is named for two roles: the doc column and the label column`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := cli(t, tc.args()...)
			if code != tc.code || stdout != "" || !regexp.MustCompile(tc.msg).MatchString(stderr) {
				t.Fatalf("exit %d (want %d), stdout %q, stderr %q, want match %q", code, tc.code, stdout, stderr, tc.msg)
			}
		})
	}
}

// compareArgs make the analysis goldens: the shipped comparison log with
// slices, two systems and a bootstrap, and the report.
var compareArgs = []string{"--quiet", "-m", "ndcg@10,map,mrr,p@5,r@10,err@10,kendall", "--by", "market",
	"--score-col", "score,score_b", "--bootstrap", "500"}

func comparePaths() (log, summary, report string) {
	return filepath.Join("..", "..", "testdata", "compare.jsonl.zst"),
		filepath.Join("..", "..", "testdata", "golden", "compare.json"),
		filepath.Join("..", "..", "testdata", "golden", "compare.report.html")
}

// TestGoldenAnalysis pins the comparison summary and the report; run with
// -update after a deliberate change and review the diff (the report opens
// in any browser).
func TestGoldenAnalysis(t *testing.T) {
	log, goldenSummary, goldenReport := comparePaths()
	rep := filepath.Join(t.TempDir(), "report.html")
	code, out, stderr := cli(t, append(compareArgs, "--format", "json", "--report", rep, log)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	html, err := os.ReadFile(rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []struct {
		path string
		got  []byte
	}{{goldenSummary, []byte(out)}, {goldenReport, html}} {
		if *update {
			if err := os.WriteFile(g.path, g.got, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(g.path)
		if err != nil {
			t.Fatalf("%v (run go test ./cmd/rankeval -run TestGoldenAnalysis -update)", err)
		}
		if string(g.got) != string(want) {
			t.Errorf("output differs from %s (run with -update after a deliberate change)", g.path)
		}
	}
}

// TestMissingZeroEmptyQuery: under --missing zero, a query that every log
// holding it finds without a relevant row is empty for the systems that
// lack it too (left out under --empty skip, 0 under --empty zero), where
// the absent system scored 0 for a query the other left out; a query with
// a relevant row in some log still counts 0 where it is absent. The same
// over the sorted lockstep and with the logs given the other way round.
func TestMissingZeroEmptyQuery(t *testing.T) {
	row := func(q, d string, score float64, label int) string {
		return fmt.Sprintf(`{"query_id":"%s","doc_id":"%s","score":%g,"label":%d}`+"\n", q, d, score, label)
	}
	a := row("1", "d1", 0.9, 1) + row("1", "d2", 0.1, 0)
	b := row("1", "d1", 0.1, 1) + row("1", "d2", 0.9, 0)
	noRel := row("2", "d1", 0.9, 0)   // query 2: no relevant row
	withRel := row("3", "d1", 0.9, 1) // query 3: a relevant row
	for _, tc := range []struct {
		name      string
		a, b      string
		empty     string
		meanA     float64 // mrr
		queriesA  int64   // queries in A's mean
		emptyA    int64
		missingA  int64
		meanB     float64
		queriesB  int64
		emptyB    int64
		swapOrder bool
	}{
		{"left out for every system", a, b + noRel, "skip", 1, 1, 1, 1, 0.5, 1, 1, false},
		{"the other way round", a, b + noRel, "skip", 1, 1, 1, 1, 0.5, 1, 1, true},
		{"0 for every system under --empty zero", a, b + noRel, "zero", 0.5, 2, 1, 1, 0.25, 2, 1, false},
		{"a relevant row: 0 where absent", a, b + withRel, "skip", 0.5, 2, 0, 1, 0.75, 2, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pa, pb := writeTemp(t, "a.jsonl", tc.a), writeTemp(t, "b.jsonl", tc.b)
			args := []string{"-m", "mrr", "--missing", "zero", "--empty", tc.empty, "--system", "a=" + pa, "--system", "b=" + pb}
			ia, ib := 0, 1
			if tc.swapOrder {
				args = []string{"-m", "mrr", "--missing", "zero", "--empty", tc.empty, "--system", "b=" + pb, "--system", "a=" + pa}
				ia, ib = 1, 0
			}
			got, out := runJSON(t, args...)
			sa, sb := got.Systems[ia], got.Systems[ib]
			ma, mb := sa.Metrics["mrr"], sb.Metrics["mrr"]
			if ma.Mean == nil || *ma.Mean != tc.meanA || ma.Queries != tc.queriesA || sa.Queries["empty"] != tc.emptyA || sa.Queries["missing"] != tc.missingA ||
				mb.Mean == nil || *mb.Mean != tc.meanB || mb.Queries != tc.queriesB || sb.Queries["empty"] != tc.emptyB {
				t.Fatalf("summary:\n%s", out)
			}
		})
	}
}
