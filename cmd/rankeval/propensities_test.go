package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rankeval/rankeval"
	"github.com/rankeval/rankeval/state"

	"github.com/rankeval/rankeval/internal/objtest"
	"github.com/rankeval/rankeval/internal/synth"
	"github.com/rankeval/rankeval/pipeline"
)

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// propLog writes a PropSim log of three rankers (examination 1/k, 6
// positions) in each of the given formats, and each ranker's rows apart
// (JSONL), and returns the paths and the simulation.
func propLog(t *testing.T, impressions int, exts ...string) (paths map[string]string, perRanker []string, sim *synth.PropSim) {
	t.Helper()
	cfg := synth.PropConfig{Impressions: impressions, Queries: 300, Docs: 20, Positions: 6, Noise: synth.DefaultNoise[:3], Eta: 1}
	sim = synth.NewPropSim(5, cfg)
	var rows []synth.Row
	var r synth.Row
	for sim.Next(&r) {
		rows = append(rows, r)
	}
	dir := t.TempDir()
	paths = map[string]string{}
	for _, ext := range exts {
		paths[ext] = filepath.Join(dir, "log"+ext)
		if err := synth.Write(paths[ext], &synth.Rows{R: rows}, -1, synth.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	byRanker := map[string][]synth.Row{}
	for _, r := range rows {
		byRanker[r.Ranker] = append(byRanker[r.Ranker], r)
	}
	for _, name := range []string{"r1", "r2", "r3"} {
		p := filepath.Join(dir, name+".jsonl")
		if err := synth.Write(p, &synth.Rows{R: byRanker[name]}, -1, synth.Options{}); err != nil {
			t.Fatal(err)
		}
		perRanker = append(perRanker, name+"="+p)
	}
	return paths, perRanker, sim
}

// readEstimate reads a propensities file into its propensities and
// intervals, by position.
func readEstimate(t *testing.T, file string) (p, lo, hi []float64) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(file), "\n")
	if lines[0] != "position,propensity,lower,upper,pairs,clicks" {
		t.Fatalf("header %q", lines[0])
	}
	for i, l := range lines[1:] {
		f := strings.Split(l, ",")
		if len(f) != 6 || f[0] != strconv.Itoa(i+1) {
			t.Fatalf("line %q", l)
		}
		v := make([]float64, 3)
		for j := range v {
			var err error
			if v[j], err = strconv.ParseFloat(f[j+1], 64); err != nil {
				t.Fatalf("line %q: %v", l, err)
			}
		}
		p, lo, hi = append(p, v[0]), append(lo, v[1]), append(hi, v[2])
	}
	return p, lo, hi
}

// TestPropensities runs rankeval propensities on a simulated log of three
// rankers: the file is the same bytes from every format, standard input,
// one --system log per ranker, any worker count and batch size; its
// propensities are near the truth, their intervals cover it at most
// positions; both methods agree; and rankeval --position-bias reads the
// file as it is, and its IPS estimate of a candidate on a click log of
// the same examination lands as near the truth as with the true
// propensities.
func TestPropensities(t *testing.T) {
	n := 30_000
	if testing.Short() {
		n = 10_000
	}
	paths, perRanker, sim := propLog(t, n, ".jsonl", ".csv.gz", ".parquet", ".arrows")
	args := []string{"--position-col", "position", "--replicates", "60"}
	code, want, stderr := cli(t, append([]string{"propensities", "--ranker-col", "ranker"}, append(args, paths[".jsonl"])...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, fmt.Sprintf("propensities by harvest from %d rows", 6*n)) || !strings.Contains(stderr, "3 rankers (r1, r2, r3); positions 1 to 6 estimated") {
		t.Errorf("stderr %q", stderr)
	}
	p, lo, hi := readEstimate(t, want)
	covered := 0
	for k := range p {
		truth := sim.Prop(k + 1)
		// within 8% of the truth, or (on the smaller log of -short) within
		// one and a half times the 95% interval's width
		if d := math.Abs(p[k] - truth); d > 0.08*truth && d > 1.5*(hi[k]-lo[k]) {
			t.Errorf("position %d: %v [%v, %v], truth %v", k+1, p[k], lo[k], hi[k], truth)
		}
		if lo[k] <= truth && truth <= hi[k] {
			covered++
		}
	}
	if len(p) != 6 || covered < 4 {
		t.Errorf("%d positions, the truth covered at %d", len(p), covered)
	}
	for name, extra := range map[string][]string{
		"csv.gz":               {"--ranker-col", "ranker", paths[".csv.gz"]},
		"parquet, 1 worker":    {"--ranker-col", "ranker", "--workers", "1", paths[".parquet"]},
		"arrows, batches of 7": {"--ranker-col", "ranker", "--batch-size", "7", "--workers", "3", paths[".arrows"]},
		"--system per ranker":  {"--system", perRanker[0], "--system", perRanker[1], "--system", perRanker[2]},
	} {
		code, got, stderr := cli(t, append(append([]string{"propensities"}, args...), extra...)...)
		if code != 0 || got != want {
			t.Errorf("%s: exit %d, %s\n%s\nwant\n%s", name, code, stderr, got, want)
		}
	}
	for _, scheme := range objtest.Schemes {
		srv := objtest.Start(t, scheme)
		srv.Put(t, "ab/log.parquet", must(os.ReadFile(paths[".parquet"])))
		code, got, stderr := cli(t, append([]string{"propensities", "--ranker-col", "ranker"}, append(args, srv.Object("ab/log.parquet"))...)...)
		if code != 0 || got != want {
			t.Errorf("%s: exit %d, %s\n%s", scheme, code, stderr, got)
		}
	}
	code, got, stderr := cliStdin(t, paths[".jsonl"], append([]string{"propensities", "--ranker-col", "ranker"}, append(args, "-")...)...)
	if code != 0 || got != want {
		t.Errorf("standard input: exit %d, %s\n%s", code, stderr, got)
	}
	// rows past --max-position are counted apart, and said so
	code, got, stderr = cli(t, append([]string{"propensities", "--ranker-col", "ranker", "--max-position", "4"}, append(args, paths[".jsonl"])...)...)
	if p4, _, _ := readEstimate(t, got); code != 0 || len(p4) != 4 || !strings.Contains(stderr, fmt.Sprintf("note: %d rows past --max-position 4 were not counted", 2*n)) {
		t.Errorf("--max-position 4: exit %d %s\n%s", code, stderr, got)
	}
	// the two methods agree
	code, em, stderr := cli(t, append([]string{"propensities", "--ranker-col", "ranker", "--method", "em"}, append(args, paths[".jsonl"])...)...)
	if code != 0 {
		t.Fatalf("em: exit %d: %s", code, stderr)
	}
	pe, _, _ := readEstimate(t, em)
	for k := range p {
		if math.Abs(pe[k]-p[k]) > 0.06*p[k] {
			t.Errorf("position %d: harvest %v, em %v", k+1, p[k], pe[k])
		}
	}
	// --output, then --position-bias reads the file as it is
	est := filepath.Join(t.TempDir(), "est.csv")
	if code, out, stderr := cli(t, append([]string{"propensities", "--ranker-col", "ranker", "--output", est}, append(args, paths[".jsonl"])...)...); code != 0 || out != "" {
		t.Fatalf("--output: exit %d %q %s", code, out, stderr)
	}
	if b, _ := os.ReadFile(est); string(b) != want {
		t.Errorf("--output wrote %q", b)
	}
	all, _ := simRows(9, 20_000)
	var rows []synth.Row
	for _, r := range all {
		if r.Position <= 6 { // impressions of the 6 positions the estimate covers
			rows = append(rows, r)
		}
	}
	clicks := filepath.Join(t.TempDir(), "clicks.jsonl")
	if err := synth.Write(clicks, &synth.Rows{R: rows}, -1, synth.Options{}); err != nil {
		t.Fatal(err)
	}
	var ips []float64
	for _, bias := range []string{est, "pow:1"} {
		code, out, stderr := cli(t, "--quiet", "--format", "json", "--score-col", "score_b", "-m", "ips_dcg@5", "--position-col", "position", "--position-bias", bias, clicks)
		if code != 0 {
			t.Fatalf("--position-bias %s: exit %d: %s", bias, code, stderr)
		}
		ips = append(ips, *parseClicks(t, body(out)).Metrics["ips_dcg@5"].Mean)
	}
	if math.Abs(ips[0]-ips[1]) > 0.03*ips[1] {
		t.Errorf("ips_dcg@5 with the estimated propensities %v, with the true ones %v", ips[0], ips[1])
	}
}

// TestPropensitiesErrors: bad rows name their file and line (exit 1),
// settings that cannot go together are usage errors (exit 2), and a log
// with no document shown at two positions has no estimate (exit 1).
func TestPropensitiesErrors(t *testing.T) {
	row := func(q, d string, pos, click any, ranker string) string {
		return fmt.Sprintf(`{"query_id":%q,"doc_id":%q,"position":%v,"label":%v,"ranker":%q}`+"\n", q, d, pos, click, ranker)
	}
	good := row("q", "a", 1, 1, "A") + row("q", "b", 2, 0, "A")
	// 20 queries (q0, q1, ...), each one document d shown at positions 1
	// and 2 and clicked at both: an estimate p(2)/p(1) = 1, exit 0, unless
	// a row is refused
	both := func(q, d string) string {
		var b strings.Builder
		for i := range 20 {
			b.WriteString(row(fmt.Sprint(q, i), d, 1, 1, "A") + row(fmt.Sprint(q, i), d, 2, 1, "B"))
		}
		return b.String()
	}
	for _, tc := range []struct {
		name, data string
		args       []string
		code       int
		msg        string
	}{
		{"a graded label", good + row("q", "c", 3, 2, "A"), nil, 1, "log.jsonl:3: click 2: want 0 or 1"},
		{"position 0", good + row("q", "c", 0, 0, "A"), nil, 1, "log.jsonl:3: logged position 0: want a whole number from 1 to 2147483647"},
		{"a fractional position", row("q", "c", 1.5, 0, "A"), nil, 1, "log.jsonl:1: logged position 1.5"},
		{"an empty doc id", both("q", ""), []string{"--min-clicks", "1"}, 1, "log.jsonl:1: empty doc id"},
		{"an empty query id", both("q", "a") + row("", "a", 1, 1, "A"), []string{"--min-clicks", "1"}, 1, "log.jsonl:41: empty query id"},
		{"a position past int32", good + row("q", "c", 1e10, 0, "A"), nil, 1, "log.jsonl:3: logged position 1e+10: want a whole number from 1 to 2147483647"},
		{"no ranker column", `{"query_id":"q","doc_id":"a","position":1,"label":1}` + "\n", nil, 1, "ranker"},
		{"one order", good + good, nil, 1, "no position past 1 can be estimated"},
		{"no position column", good, []string{"--position-col", ""}, 2, "--position-col: rankeval propensities needs"},
		{"an unknown method", good, []string{"--method", "regression"}, 2, `--method "regression": want harvest or em`},
		{"max position 1", good, []string{"--max-position", "1"}, 2, "--max-position 1: want 2 to 1000 (position 1 is the reference)"},
		{"no row", "", nil, 1, "position 2: no row at this position"},
		{"few replicates", good, []string{"--replicates", "10"}, 2, "--replicates 10: want 40 to 100000"},
		{"min clicks 0", good, []string{"--min-clicks", "0"}, 2, "--min-clicks 0: want 1 or more"},
		{"system and input", good, []string{"--system", "A=x.jsonl"}, 2, "give either --system NAME=PATH logs (one a ranker) or INPUT files, not both"},
		{"a run's flag", good, []string{"-m", "ndcg"}, 2, "flag provided but not defined: -m"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := writeTemp(t, "log.jsonl", tc.data)
			args := append([]string{"propensities", "--position-col", "position", "--ranker-col", "ranker"}, tc.args...)
			code, stdout, stderr := cli(t, append(args, in)...)
			if code != tc.code || !strings.Contains(stderr, tc.msg) || stdout != "" {
				t.Fatalf("exit %d stderr %q stdout %q; want %d and %q", code, stderr, stdout, tc.code, tc.msg)
			}
		})
	}
	in := writeTemp(t, "log.jsonl", good)
	if code, _, stderr := cli(t, "propensities", "--position-col", "position", "--system", "A="+in, "--ranker-col", "ranker"); code != 2 || !strings.Contains(stderr, "--ranker-col names each row's ranker; --system names each log's") {
		t.Errorf("--ranker-col with --system: exit %d %q", code, stderr)
	}
	if code, _, stderr := cli(t, "propensities", "--position-col", "position"); code != 2 || !strings.Contains(stderr, "no input") {
		t.Errorf("no input: exit %d %q", code, stderr)
	}
	out := filepath.Join(t.TempDir(), "est.csv")
	if code, _, _ := cli(t, "propensities", "--position-col", "position", "--output", out, in); code != 1 {
		t.Errorf("no estimate with --output: exit %d", code)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("no estimate left %s: %v", out, err)
	}
}

// TestPropensitiesReport: --report writes the HTML page (to a file or an
// object) beside the unchanged propensity file; stderr and the page say
// the same closest power law, near the simulation's η = 1, with the
// model --position-bias reads; a position refused for too few clicks is
// shown as refused; --report naming an input or standard output is a
// usage error, and a run that fails leaves no page.
func TestPropensitiesReport(t *testing.T) {
	paths, _, _ := propLog(t, 10_000, ".jsonl")
	in := paths[".jsonl"]
	args := []string{"propensities", "--ranker-col", "ranker", "--position-col", "position", "--replicates", "40"}
	_, want, _ := cli(t, append(args, in)...)
	rep := filepath.Join(t.TempDir(), "prop.html")
	code, out, stderr := cli(t, append(args, "--report", rep, in)...)
	if code != 0 || out != want {
		t.Fatalf("--report: exit %d, %s\n%s\nwant\n%s", code, stderr, out, want)
	}
	page := string(must(os.ReadFile(rep)))
	line := regexp.MustCompile(`rankeval: (closest power law over positions 2 to 6: k\^−η with η = ([0-9.]+) ± ([0-9.e-]+), [^\n]*; --position-bias (pow:[0-9.]+) is the power law nearest the file)\n`).FindStringSubmatch(stderr)
	if line == nil {
		t.Fatalf("stderr lacks the closest power law:\n%s", stderr)
	}
	eta, _ := strconv.ParseFloat(line[2], 64)
	se, _ := strconv.ParseFloat(line[3], 64)
	if math.Abs(eta-1) > 0.15 || !(se > 0 && se < 0.2) {
		t.Errorf("η = %v ± %v for a simulation of η 1", eta, se)
	}
	if sentence := strings.ToUpper(line[1][:1]) + line[1][1:]; !strings.Contains(page, "<p><b>"+html.EscapeString(sentence)+".</b></p>") {
		t.Errorf("the page does not say %q", sentence)
	}
	// the model it names is one --position-bias reads
	if b, err := pipeline.ParsePositionBias(line[4]); err != nil || math.Abs(b.Eta-eta) > 0.005 {
		t.Errorf("--position-bias %s: %v, %+v", line[4], err, b)
	}
	// too few clicks at 5 and 6: shown as refused, not drawn
	code, _, stderr = cli(t, append(args, "--min-clicks", "1200", "--report", rep, in)...)
	page = string(must(os.ReadFile(rep)))
	if code != 0 || !strings.Contains(stderr, "position 6: no estimate:") {
		t.Fatalf("--min-clicks 1200: exit %d: %s", code, stderr)
	}
	for k := 2; k <= 6; k++ {
		refused := strings.Contains(stderr, fmt.Sprintf("position %d: no estimate:", k))
		drawn := regexp.MustCompile(fmt.Sprintf(`<title>position %d: [0-9]`, k)).MatchString(page)
		shown := strings.Contains(page, fmt.Sprintf("<title>position %d: no estimate: ", k)) &&
			strings.Contains(page, fmt.Sprintf("<tr><td>%d</td><td class=\"name\" colspan=\"2\">no estimate: ", k))
		if refused == drawn || refused != shown {
			t.Errorf("position %d: refused %v, drawn as an estimate %v, shown as refused %v", k, refused, drawn, shown)
		}
	}
	// to an object
	for _, scheme := range objtest.Schemes[:1] {
		srv := objtest.Start(t, scheme)
		if code, _, stderr := cli(t, append(args, "--report", srv.Object("out/prop.html"), in)...); code != 0 {
			t.Fatalf("%s: exit %d: %s", scheme, code, stderr)
		}
		if got := string(readObject(t, srv.Object("out/prop.html"))); !strings.HasPrefix(got, "<!DOCTYPE html>") || !strings.Contains(got, "Closest power law") {
			t.Errorf("%s: page %.200q", scheme, got)
		}
	}
	// usage errors, and no page from a failed run
	gone := filepath.Join(t.TempDir(), "gone.html")
	for name, tc := range map[string]struct {
		args []string
		code int
		msg  string
	}{
		"the input":       {[]string{"--report", in, in}, 2, "is the input"},
		"standard output": {[]string{"--report", "-", in}, 2, "--report -: name a file"},
		"same as output":  {[]string{"--output", gone, "--report", gone, in}, 2, "--output and --report name the same file"},
		"failed run":      {[]string{"--report", gone, "--max-position", "1", in}, 2, "--max-position 1"},
		"no estimate":     {[]string{"--report", gone, "--min-clicks", "1000000", in}, 1, "no position past 1 can be estimated"},
	} {
		code, _, stderr := cli(t, append(args, tc.args...)...)
		if code != tc.code || !strings.Contains(stderr, tc.msg) {
			t.Errorf("%s: exit %d: %s", name, code, stderr)
		}
		if _, err := os.Stat(gone); err == nil {
			t.Errorf("%s: a page was written", name)
		}
	}
}

// TestPropensitiesStateMerge: the states of three days' logs merge into
// the estimate and the state of one run over the three logs, byte for
// byte, in any order and grouping, whatever the format, workers and order
// of the rows; a day merged twice (under another name, or within a
// merge of it), states of other settings and a run's state are refused;
// a day too thin for an estimate still saves its state.
func TestPropensitiesStateMerge(t *testing.T) {
	cfg := synth.PropConfig{Impressions: 6000, Queries: 200, Docs: 20, Positions: 6, Noise: synth.DefaultNoise[:3], Eta: 1}
	sim := synth.NewPropSim(7, cfg)
	var rows []synth.Row
	var r synth.Row
	for sim.Next(&r) {
		rows = append(rows, r)
	}
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	write := func(name string, rs []synth.Row) string {
		if err := synth.Write(path(name), &synth.Rows{R: rs}, -1, synth.Options{}); err != nil {
			t.Fatal(err)
		}
		return path(name)
	}
	third := len(rows) / 3
	days := []string{write("day1.jsonl", rows[:third]), write("day2.parquet", rows[third:2*third]), write("day3.csv", rows[2*third:])}
	args := []string{"propensities", "--position-col", "position", "--ranker-col", "ranker", "--replicates", "60"}
	prop := func(t *testing.T, extra ...string) (int, string, string) {
		t.Helper()
		return cli(t, append(append([]string{}, args...), extra...)...)
	}
	code, want, stderr := prop(t, append([]string{"--state", path("all.state")}, days...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	wantState := must(os.ReadFile(path("all.state")))
	for i, d := range days {
		if code, _, stderr := prop(t, "--state", path(fmt.Sprint("d", i+1, ".state")), d); code != 0 {
			t.Fatalf("day %d: exit %d: %s", i+1, code, stderr)
		}
	}
	d1, d2, d3 := path("d1.state"), path("d2.state"), path("d3.state")
	merge := func(t *testing.T, args ...string) (int, string, string) {
		t.Helper()
		return cli(t, append([]string{"merge"}, args...)...)
	}
	for name, states := range map[string][]string{
		"in order":   {d1, d2, d3},
		"reversed":   {d3, d2, d1},
		"a glob":     {path("d*.state")},
		"one state":  {path("all.state")},
		"two merges": nil, // d1+d2, then with d3
	} {
		t.Run(name, func(t *testing.T) {
			if states == nil {
				if code, _, stderr := merge(t, "--state", path("m12.state"), d2, d1); code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				states = []string{path("m12.state"), d3}
			}
			out := path("merged-" + strings.ReplaceAll(name, " ", "-") + ".state")
			code, got, stderr := merge(t, append([]string{"--state", out}, states...)...)
			if code != 0 || got != want {
				t.Fatalf("exit %d: %s\n%s\nwant\n%s", code, stderr, got, want)
			}
			if !strings.Contains(stderr, fmt.Sprintf("propensities by harvest from %d rows", len(rows))) {
				t.Errorf("stderr %q", stderr)
			}
			if b := must(os.ReadFile(out)); !bytes.Equal(b, wantState) {
				t.Errorf("the merged state differs from one run's")
			}
		})
	}
	// one run's state is the same bytes whatever the workers, batches and
	// order of the rows
	shuffled := slices.Clone(rows)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	for name, extra := range map[string][]string{
		"1 worker, batches of 5": {"--workers", "1", "--batch-size", "5"},
		"4 workers":              {"--workers", "4"},
	} {
		st := path("w.state")
		code, got, stderr := prop(t, append(extra, "--state", st, days[0], days[1], days[2])...)
		if code != 0 || got != want || !bytes.Equal(must(os.ReadFile(st)), wantState) {
			t.Errorf("%s: exit %d %s\n%s", name, code, stderr, got)
		}
	}
	// the rows shuffled across the three days' files: another state (its
	// inputs' digests differ), the same table and estimate
	sh := []string{write("s1.jsonl", shuffled[:third]), write("s2.jsonl", shuffled[third:2*third]), write("s3.jsonl", shuffled[2*third:])}
	for i, s := range sh {
		if code, _, stderr := prop(t, "--state", path(fmt.Sprint("s", i+1, ".state")), s); code != 0 {
			t.Fatalf("shuffled day %d: %s", i+1, stderr)
		}
	}
	if code, got, stderr := merge(t, path("s1.state"), path("s2.state"), path("s3.state")); code != 0 || got != want {
		t.Errorf("shuffled rows: exit %d %s\n%s", code, stderr, got)
	}

	// refusals: exit 1, naming the states and what differs
	copyFile := func(from, to string) string {
		if err := os.WriteFile(path(to), must(os.ReadFile(from)), 0o644); err != nil {
			t.Fatal(err)
		}
		return path(to)
	}
	if code, _, stderr := prop(t, "--max-position", "5", "--state", path("d3m5.state"), days[2]); code != 0 {
		t.Fatal(stderr)
	}
	if code, _, stderr := prop(t, "--method", "em", "--state", path("d3em.state"), days[2]); code != 0 {
		t.Fatal(stderr)
	}
	if code, _, stderr := cli(t, "--state", path("run.state"), "--unsorted", "--dedup", "first", "--score-col", "propensity", "-m", "ndcg@5", days[0]); code != 0 {
		t.Fatal(stderr)
	}
	for _, tc := range []struct {
		name   string
		states []string
		code   int
		msg    string
		err    error
	}{
		{"a day twice under two names", []string{d1, d2, copyFile(d1, "d1-copy.state")}, 1, "d1.state and " + path("d1-copy.state") + " were made from one input (" + days[0], state.ErrSharedInput},
		{"a merge with one of its days", []string{path("m12.state"), d2}, 1, "were made from one input", state.ErrSharedInput},
		{"a state with itself", []string{d1, d1}, 2, "are one file, given twice", nil},
		{"another --max-position", []string{d1, path("d3m5.state")}, 1, "d3m5.state: made with max_position 5 against 20 in " + d1, state.ErrMismatch},
		{"another --method", []string{d1, path("d3em.state")}, 1, `made with method "em" against "harvest"`, state.ErrMismatch},
		{"a run's state after", []string{d1, path("run.state")}, 1, "run.state: states of two kinds: a run's state (rankeval --state), not a propensity state", state.ErrKind},
		{"a run's state first", []string{path("run.state"), d1}, 1, "d1.state: states of two kinds: a propensity state (rankeval propensities --state), not a run's", state.ErrKind},
		{"a log", []string{d1, days[0]}, 1, "not a rankeval state file", state.ErrNotState},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := path("refused.csv")
			code, stdout, stderr := merge(t, append([]string{"--output", out}, tc.states...)...)
			if code != tc.code || stdout != "" || !strings.Contains(stderr, tc.msg) {
				t.Errorf("exit %d %q %q; want %d and %q", code, stdout, stderr, tc.code, tc.msg)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("a refused merge wrote %s", out)
			}
			if tc.err != nil {
				_, _, err := rankeval.MergeStates(context.Background(), rankeval.MergeConfig{}, sources(tc.states)...)
				if !errors.Is(err, tc.err) {
					t.Errorf("MergeStates: %v, want %v", err, tc.err)
				}
			}
		})
	}
	for _, flags := range [][]string{{"--format", "json"}, {"--fail-under", "ndcg=0.5"}, {"--correction", "bh"}, {"--detect", "ndcg@10=0.01"}} {
		if code, _, stderr := merge(t, append(flags, d1, d2)...); code != 2 || !strings.Contains(stderr, flags[0]) {
			t.Errorf("%v: exit %d %q", flags, code, stderr)
		}
	}

	// the merge's report is the one run's, but for the inputs it names
	// (the logs the states were made from, sorted)
	if code, got, stderr := merge(t, "--report", path("merged.html"), d1, d2, d3); code != 0 || got != want {
		t.Errorf("--report: exit %d %s", code, stderr)
	}
	if code, _, stderr := prop(t, append([]string{"--report", path("one.html")}, days...)...); code != 0 {
		t.Fatal(stderr)
	}
	sorted := slices.Clone(days)
	slices.Sort(sorted)
	if m, o := string(must(os.ReadFile(path("merged.html")))), string(must(os.ReadFile(path("one.html")))); m != strings.Replace(o, strings.Join(days, ", "), strings.Join(sorted, ", "), 1) {
		t.Errorf("the merge's report differs from the run's")
	}

	// a day too thin for an estimate saves its state (exit 1), which a
	// merge with the other days uses
	thin := write("thin.jsonl", rows[:40])
	code, stdout, stderr := prop(t, "--state", path("thin.state"), thin)
	if code != 1 || stdout != "" || !strings.Contains(stderr, "no position past 1 can be estimated") || !strings.Contains(stderr, "the count table is saved in "+path("thin.state")) {
		t.Errorf("a thin day: exit %d %q %q", code, stdout, stderr)
	}
	rest := write("rest.jsonl", rows[40:])
	if code, _, stderr := prop(t, "--state", path("rest.state"), rest); code != 0 {
		t.Fatal(stderr)
	}
	if code, got, stderr := merge(t, path("thin.state"), path("rest.state")); code != 0 || got != want {
		t.Errorf("thin + rest: exit %d %s\n%s", code, stderr, got)
	}
}

func sources(names []string) []rankeval.Source {
	var s []rankeval.Source
	for _, n := range names {
		s = append(s, rankeval.File(n))
	}
	return s
}

// bigPropLog writes to dir a simulated Parquet log of some 300,000
// distinct cells (3 rankers, 6 positions, examination 1/k) and returns
// its path.
func bigPropLog(t *testing.T, dir string) string {
	t.Helper()
	cfg := synth.PropConfig{Impressions: 60000, Queries: 30000, Docs: 20, Positions: 6, Noise: synth.DefaultNoise[:3], Eta: 1}
	sim := synth.NewPropSim(3, cfg)
	var rows []synth.Row
	var r synth.Row
	for sim.Next(&r) {
		rows = append(rows, r)
	}
	log := filepath.Join(dir, "log.parquet")
	if err := synth.Write(log, &synth.Rows{R: rows}, -1, synth.Options{}); err != nil {
		t.Fatal(err)
	}
	return log
}

// TestPropensitiesMemLimit: past --mem-limit the count table spills
// sorted runs under --tmp-dir (so a --tmp-dir that does not exist fails
// the run, naming it), and the estimate and state are the same bytes as
// with the table held whole; no run file is left.
func TestPropensitiesMemLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("a log of some 300,000 distinct cells")
	}
	dir := t.TempDir()
	log := bigPropLog(t, dir)
	args := []string{"propensities", "--position-col", "position", "--ranker-col", "ranker", "--replicates", "40", "--min-clicks", "5"}
	run := func(extra ...string) (int, string, string) {
		return cli(t, append(append(append([]string{}, args...), extra...), log)...)
	}
	code, want, stderr := run("--state", filepath.Join(dir, "whole.state"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	code, got, stderr := run("--mem-limit", "16MiB", "--tmp-dir", tmp, "--state", filepath.Join(dir, "spilled.state"))
	if code != 0 || got != want {
		t.Fatalf("--mem-limit 16MiB: exit %d %s\n%s\nwant\n%s", code, stderr, got, want)
	}
	if !bytes.Equal(must(os.ReadFile(filepath.Join(dir, "whole.state"))), must(os.ReadFile(filepath.Join(dir, "spilled.state")))) {
		t.Errorf("the spilled table's state differs")
	}
	if files, _ := os.ReadDir(tmp); len(files) != 0 {
		t.Errorf("%d files left in --tmp-dir", len(files))
	}
	code, _, stderr = run("--mem-limit", "16MiB", "--tmp-dir", filepath.Join(dir, "missing"))
	if code != 1 || !strings.Contains(stderr, "propensity spill file") || !strings.Contains(stderr, "missing") {
		t.Errorf("a --tmp-dir that does not exist: exit %d %q", code, stderr)
	}
}

// FuzzMergePropensities feeds bytes to rankeval merge as a propensity
// state, as given and with a valid checksum, alone and with a real state
// before and after it. Merge never panics, allocates in proportion to the
// file, and exits 0, or 1 naming the file; what it accepts merges in
// either order into the same estimate, and the merged state it writes
// gives that estimate again.
func FuzzMergePropensities(f *testing.F) {
	dir := f.TempDir()
	var a, b strings.Builder
	for q := range 30 {
		for i := range 4 {
			fmt.Fprintf(&a, `{"query_id":"q%d","doc_id":"d1","position":1,"label":%d,"ranker":"A"}`+"\n", q, i%2)
			fmt.Fprintf(&a, `{"query_id":"q%d","doc_id":"d1","position":2,"label":%d,"ranker":"B"}`+"\n", q, i%4/3)
			fmt.Fprintf(&b, `{"query_id":"q%d","doc_id":"d2","position":1,"label":%d,"ranker":"A"}`+"\n", q, i%2)
			fmt.Fprintf(&b, `{"query_id":"q%d","doc_id":"d2","position":3,"label":%d,"ranker":"B"}`+"\n", q, i%4/3)
		}
	}
	var seeds []string
	for i, log := range []string{a.String(), b.String()} {
		in := filepath.Join(dir, fmt.Sprint("log", i, ".jsonl"))
		if err := os.WriteFile(in, []byte(log), 0o644); err != nil {
			f.Fatal(err)
		}
		st := filepath.Join(dir, fmt.Sprint("seed", i, ".state"))
		cli(f, "propensities", "--position-col", "position", "--ranker-col", "ranker", "--min-clicks", "1", "--replicates", "40", "--max-position", "3", "--state", st, in)
		seeds = append(seeds, st)
		f.Add(must(os.ReadFile(st)))
	}
	good := seeds[0]
	fuzzed, out := filepath.Join(dir, "fuzzed.state"), filepath.Join(dir, "merged.state")
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, b := range [][]byte{data, reseal(data)} {
			if err := os.WriteFile(fuzzed, b, 0o644); err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			code, alone, stderr := cli(t, "merge", "--state", out, fuzzed)
			runtime.ReadMemStats(&after)
			if got, most := after.TotalAlloc-before.TotalAlloc, 16<<20+uint64(256*len(b)); got > most {
				t.Fatalf("merge of a %d-byte state allocated %d bytes, more than %d", len(b), got, most)
			}
			noEstimate := strings.Contains(stderr, "no position past 1 can be estimated")
			if code != 0 && (code != 1 || !strings.Contains(stderr, fuzzed) && !noEstimate) {
				t.Fatalf("exit %d, stderr %q: want 0, or 1 naming %s or saying there is no estimate", code, stderr, fuzzed)
			}
			if code == 0 {
				if code, again, stderr := cli(t, "merge", out); code != 0 || again != alone {
					t.Fatalf("the merged state gives another estimate (exit %d, %s)", code, stderr)
				}
			}
			code, ab, _ := cli(t, "merge", good, fuzzed)
			if code != 0 {
				continue // refused (or no estimate), naming the file: checked alone
			}
			if code, ba, stderr := cli(t, "merge", fuzzed, good); code != 0 || ba != ab {
				t.Fatalf("merged in the other order: exit %d, %s, other bytes: %v", code, stderr, ba != ab)
			}
		}
	})
}
