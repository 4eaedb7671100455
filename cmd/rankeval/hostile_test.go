package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/internal/vectors"
)

// TestHugeLabels holds issue 23's case 3: a label whose gain (or a sum of
// gains, or of their squares) overflows a float64 is an input error naming
// the row, never a query that silently drops out of a mean or a mean that
// prints as +Inf or null with exit 0.
func TestHugeLabels(t *testing.T) {
	row := func(q, d string, label string) string {
		return `{"query_id":"` + q + `","doc_id":"` + d + `","score":0.5,"label":` + label + "}\n"
	}
	tests := []struct {
		name, log string
		args      []string
		msg       string // "" when the run must succeed
	}{
		{"2^1024 under exp", row("a", "d1", "1024") + row("a", "d2", "0") + row("b", "d1", "1"),
			[]string{"-m", "ndcg,dcg"}, `log.jsonl:1: query "a": ndcg is +Inf from its largest label 1024`},
		{"under exp, unsorted", row("b", "d1", "1") + row("a", "d1", "1024") + row("a", "d2", "0"),
			[]string{"-m", "dcg", "--unsorted"}, `log.jsonl:2: query "a": dcg is +Inf from its largest label 1024`},
		{"the largest label named, not the first row", row("a", "d1", "1") + row("a", "d2", "3000"),
			[]string{"-m", "dcg@1"}, ""},
		{"an ideal ranking that overflows", row("a", "d1", "1") + row("a", "d2", "3000"),
			[]string{"-m", "ndcg@1"}, `log.jsonl:2: query "a": ndcg@1 is +Inf from its largest label 3000`},
		{"a sum of finite gains", row("a", "d1", "1e308") + row("a", "d2", "1e308"),
			[]string{"-m", "cg", "--gain", "linear"}, `query "a": cg is +Inf from its largest label 1e+308`},
		{"a finite value whose square overflows", row("a", "d1", "1.5e308") + row("b", "d1", "1.5e308"),
			[]string{"-m", "cg,map", "--gain", "linear"}, `cg is 1.5e+308`},
		{"linear gains take the same label", row("a", "d1", "1024") + row("a", "d2", "0"),
			[]string{"-m", "ndcg,dcg", "--gain", "linear"}, ""},
		{"a large label where the metric sees no gain", row("a", "d1", "5000") + row("a", "d2", "0"),
			[]string{"-m", "map,p@1"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			log := writeLog(t, "log.jsonl", tc.log)
			out := filepath.Join(filepath.Dir(log), "out.json")
			args := append(append([]string{}, tc.args...), "--format", "json", "--output", out, log)
			code, _, stderr := cli(t, args...)
			if tc.msg == "" {
				b, err := os.ReadFile(out)
				if code != 0 || err != nil || strings.Contains(string(b), `"mean": null`) {
					t.Fatalf("exit %d, stderr %q, summary %s (%v); want exit 0 and every mean a number", code, stderr, b, err)
				}
				return
			}
			if code != 1 || !strings.Contains(stderr, tc.msg) {
				t.Fatalf("exit %d, stderr %q; want exit 1 and %q", code, stderr, tc.msg)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Fatalf("an output file after a failed run (%v)", err)
			}
		})
	}
	t.Run("a qrels label", func(t *testing.T) {
		dir := t.TempDir()
		qrels, run := filepath.Join(dir, "qrels.txt"), filepath.Join(dir, "run.txt")
		os.WriteFile(qrels, []byte("q1 0 d1 1\nq1 0 d9 2000\n"), 0o644)
		os.WriteFile(run, []byte("q1 Q0 d1 1 0.9 r\nq1 Q0 d2 2 0.5 r\n"), 0o644)
		code, _, stderr := cli(t, "--qrels", qrels, "-m", "ndcg", "--gain", "exp", run)
		if want := `run.txt:1: query "q1": ndcg is +Inf from its largest label 2000`; code != 1 || !strings.Contains(stderr, want) {
			t.Fatalf("exit %d, stderr %q; want exit 1 and %q", code, stderr, want)
		}
	})
}

// TestHugeCutoffs holds issue 23's case 4: a cutoff above metrics.MaxCutoff
// is a usage error at parse time, on every command, never a panic in the
// report's curves or the state; the largest one works everywhere.
func TestHugeCutoffs(t *testing.T) {
	sample := filepath.Join("..", "..", "testdata", "sample.jsonl.zst")
	dir := t.TempDir()
	td := filepath.Join(vectors.TestdataDir(t), "reference", "trec_a")
	for _, tc := range []struct {
		name string
		args []string
		msg  string
	}{
		{"report", []string{"-m", "p@9200000000000000000", "--report", filepath.Join(dir, "r.html"), sample}, `metric "p@9200000000000000000": cutoff k must be a whole number from 1 to 1000000000`},
		{"state", []string{"-m", "ndcg@1000000001", "--state", filepath.Join(dir, "s.state"), sample}, `metric "ndcg@1000000001": cutoff k`},
		{"trec_eval", []string{"trec_eval", "-m", "P.9200000000000000000", filepath.Join(td, "qrels.txt"), filepath.Join(td, "run.txt")}, "cutoff 9200000000000000000 is above 1000000000"},
		{"trec_eval above 2^53", []string{"trec_eval", "-m", "P.9007199254740993", filepath.Join(td, "qrels.txt"), filepath.Join(td, "run.txt")}, "cutoff 9007199254740993 is above"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := cli(t, tc.args...)
			if code != 2 || out != "" || !strings.Contains(stderr, tc.msg) || strings.Contains(stderr, "goroutine") {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2 and %q", code, out, stderr, tc.msg)
			}
		})
	}
	t.Run("the largest cutoff", func(t *testing.T) {
		report, state := filepath.Join(dir, "r.html"), filepath.Join(dir, "s.state")
		code, out, stderr := cli(t, "-m", "p@1000000000,ndcg@10", "--report", report, "--state", state, "--format", "json", sample)
		if code != 0 || !strings.Contains(out, `"p@1000000000": {"mean": `) {
			t.Fatalf("exit %d, stderr %q, stdout %s", code, stderr, out)
		}
		code, merged, stderr := cli(t, "merge", "--format", "json", state)
		if code != 0 || !strings.Contains(merged, `"p@1000000000"`) {
			t.Fatalf("merge: exit %d, stderr %q, stdout %s", code, stderr, merged)
		}
	})
}

// TestOutputIsInput holds issue 23's case 8: an output that is an input
// (under any spelling, through a link, inside an input directory, the
// qrels, a state to merge) or another output is a usage error, and the
// input is left as it was.
func TestOutputIsInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	os.WriteFile(in, []byte(twoQueries), 0o644)
	if err := os.Symlink(in, filepath.Join(dir, "link.jsonl")); err != nil {
		t.Fatal(err)
	}
	td := filepath.Join(vectors.TestdataDir(t), "reference", "trec_a")
	qrels := filepath.Join(dir, "qrels.txt")
	b, _ := os.ReadFile(filepath.Join(td, "qrels.txt"))
	os.WriteFile(qrels, b, 0o644)
	state := filepath.Join(dir, "a.state")
	if code, _, stderr := cli(t, "--state", state, in); code != 0 {
		t.Fatalf("writing a state: exit %d, %s", code, stderr)
	}
	rel := func(p string) string {
		wd, _ := os.Getwd()
		r, err := filepath.Rel(wd, p)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	sub := filepath.Join(dir, "logs")
	os.Mkdir(sub, 0o755)
	subIn := filepath.Join(sub, "day1.jsonl")
	os.WriteFile(subIn, []byte(twoQueries), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		msg  string
	}{
		{"--output", []string{"--output", in, in}, "--output"},
		{"--per-query, another spelling", []string{"--per-query", filepath.Join(dir, ".", "x", "..", "in.jsonl"), in}, "--per-query"},
		{"--report, a relative path", []string{"--report", rel(in), in}, "--report"},
		{"--state through a link", []string{"--state", filepath.Join(dir, "link.jsonl"), in}, "--state"},
		{"a file of an input directory", []string{"--output", subIn, sub}, "--output"},
		{"the qrels", []string{"--qrels", qrels, "--output", qrels, filepath.Join(td, "run.txt")}, "--output"},
		{"merge's input", []string{"merge", "--state", state, state}, "--state"},
		{"two outputs", []string{"--output", filepath.Join(dir, "o.json"), "--report", filepath.Join(dir, "x", "..", "o.json"), in}, "name the same file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := map[string][]byte{}
			for _, f := range []string{in, qrels, state, subIn} {
				before[f], _ = os.ReadFile(f)
			}
			code, out, stderr := cli(t, tc.args...)
			if code != 2 || out != "" || !strings.Contains(stderr, tc.msg) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2 and %q", code, out, stderr, tc.msg)
			}
			for f, b := range before {
				if now, _ := os.ReadFile(f); string(now) != string(b) {
					t.Fatalf("%s changed", f)
				}
			}
		})
	}
}

// TestDataPrintedAsData holds issue 23's case 6: ids and slice values with
// line breaks, tabs and escape sequences print escaped in text and trec
// layouts (summary.Printable), so they cannot forge a line or reach the
// terminal raw.
func TestDataPrintedAsData(t *testing.T) {
	log := writeLog(t, "log.jsonl", `{"query_id":"a\nmap\tall\t0.9999","doc_id":"d1","score":0.9,"label":0,"market":"\u001b[31mred"}
{"query_id":"a\nmap\tall\t0.9999","doc_id":"d2","score":0.1,"label":1,"market":"\u001b[31mred"}
{"query_id":"b\u202e","doc_id":"d1","score":0.9,"label":1,"market":"x\ty"}
`)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"trec per query", []string{"-m", "map", "--format", "trec", "--per-query", "-", log}},
		{"text slices", []string{"-m", "map", "--by", "market", log}},
		{"text systems", []string{"-m", "map", "--system", "\x1b[2Jsys=" + log, "--system", "b=" + log}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := cli(t, tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			for i, c := range []byte(out + stderr) {
				if c < ' ' && c != '\n' && c != '\t' || c == 0x7f {
					t.Fatalf("byte %#x at %d of %q", c, i, out+stderr)
				}
			}
			if strings.Contains(out, "\u202e") {
				t.Fatalf("a bidi override printed raw: %q", out)
			}
			if tc.name != "trec per query" {
				return
			}
			alls := 0
			for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
				f := strings.Split(line, "\t")
				if len(f) != 3 || strings.TrimSpace(f[0]) != "map" && strings.TrimSpace(f[0]) != "num_q" {
					t.Fatalf("line %q is not one of trec_eval's", line)
				}
				if f[1] == "all" {
					alls++
				}
			}
			if alls != 2 || !strings.Contains(out, `"a\nmap\tall\t0.9999"`) {
				t.Fatalf("want the two all lines (num_q, map) and the query quoted:\n%s", out)
			}
		})
	}
}

// TestUnjudgedCountEveryPath holds issue 23's case 9: the stderr count of
// run queries without judgments is the number of distinct query ids, the
// same on every path, however the run's lines are spread (it counted
// stretches of lines: 201 for a shuffled run where 8 is true).
func TestUnjudgedCountEveryPath(t *testing.T) {
	td := filepath.Join(vectors.TestdataDir(t), "reference", "trec_a")
	qrels, sorted := filepath.Join(td, "qrels.txt"), filepath.Join(td, "run.txt")
	run, _ := os.ReadFile(sorted)
	judged := map[string]bool{}
	qb, _ := os.ReadFile(qrels)
	for _, l := range strings.Split(strings.TrimSpace(string(qb)), "\n") {
		judged[strings.Fields(l)[0]] = true
	}
	lines := strings.Split(strings.TrimSuffix(string(run), "\n"), "\n")
	unjudged, rows := map[string]bool{}, 0
	for _, l := range lines {
		if q := strings.Fields(l)[0]; !judged[q] {
			unjudged[q] = true
			rows++
		}
	}
	want := fmt.Sprintf(" %d run queries (%d rows) have no judgments", len(unjudged), rows)
	rand.New(rand.NewPCG(5, 6)).Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	shuffled := writeLog(t, "shuffled.txt", strings.Join(lines, "\n")+"\n")
	for _, tc := range []struct {
		name  string
		args  []string
		stdin string
	}{
		{"sorted", []string{"--qrels", qrels, "--profile", "trec_eval", sorted}, ""},
		{"sorted, unsorted", []string{"--qrels", qrels, "--profile", "trec_eval", "--unsorted", sorted}, ""},
		{"shuffled, unsorted", []string{"--qrels", qrels, "--profile", "trec_eval", "--unsorted", "--workers", "1", "--batch-size", "7", shuffled}, ""},
		{"shuffled, unsorted, standard input", []string{"--qrels", qrels, "--profile", "trec_eval", "--unsorted", "-"}, shuffled},
		{"trec_eval 9.0.8, shuffled", []string{"trec_eval", "--release", "9.0.8", "-m", "map", qrels, shuffled}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var code int
			var stderr string
			if tc.stdin != "" {
				code, _, stderr = cliStdin(t, tc.stdin, tc.args...)
			} else {
				code, _, stderr = cli(t, tc.args...)
			}
			if code != 0 || !strings.Contains(stderr, want) {
				t.Fatalf("exit %d, stderr %q; want%s", code, stderr, want)
			}
		})
	}
}

// cliStdin is cli with the bytes of file path on standard input, through a
// pipe.
func cliStdin(t *testing.T, path string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		pw.Write(data)
		pw.Close()
	}()
	old := os.Stdin
	os.Stdin = pr
	defer func() { os.Stdin = old; pr.Close() }()
	return cli(t, args...)
}

// TestDashOutputs: "-" is standard output for --output and --per-query,
// and CheckOutputs leaves "-" out of its checks for every output; but
// --state - and --report - created a file named "-" in the working
// directory, so a log named "-" (given as ./-) was replaced by the state,
// and --report - --state - wrote both to that one file, the state
// replacing the report, all with exit 0. Either refused or written to
// standard output, such an output must never replace an input or another
// output.
func TestDashOutputs(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string // run in a directory holding the log "-" and a.state
	}{
		{"--state - over a log named -", []string{"--quiet", "--state", "-", "./-"}},
		{"--report - over a log named -", []string{"--quiet", "--report", "-", "./-"}},
		{"--report - and --state -", []string{"--quiet", "--report", "-", "--state", "-", "log.jsonl"}},
		{"merge --state - and --report -", []string{"merge", "--report", "-", "--state", "-", "a.state"}},
		{"merge --state -", []string{"merge", "--state", "-", "a.state"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			os.WriteFile("-", []byte(twoQueries), 0o644)
			os.WriteFile("log.jsonl", []byte(twoQueries), 0o644)
			if code, _, stderr := cli(t, "--quiet", "--state", "a.state", "log.jsonl"); code != 0 {
				t.Fatalf("writing a state: exit %d, %s", code, stderr)
			}
			if tc.args[len(tc.args)-1] != "./-" {
				os.Remove("-")
			}
			code, _, stderr := cli(t, tc.args...)
			if b, err := os.ReadFile("-"); err == nil && string(b) != twoQueries {
				t.Fatalf("exit %d (%s): a file named - was written (%d bytes, starting %q)", code, stderr, len(b), b[:min(len(b), 16)])
			}
			if code != 2 || !strings.Contains(stderr, " -: name a file (standard output carries the summary") {
				t.Fatalf("exit %d, stderr %q; want a usage error", code, stderr)
			}
		})
	}
}

// TestFlagValuesThatRound: a flag's value that parses into another
// meaning. --rel-threshold 1e-400 underflowed to 0, so label 0 became
// relevant: map 1 over every query, with exit 0, where any positive
// threshold up to the smallest label above 0 gives the default's figures
// (on labels 0 and 1: label >= 1e-400 is label > 0, map 0.5).
func TestFlagValuesThatRound(t *testing.T) {
	log := writeLog(t, "log.jsonl", `{"query_id":"a","doc_id":"d1","score":0.9,"label":0}
{"query_id":"a","doc_id":"d2","score":0.1,"label":1}
`)
	mapOf := func(args ...string) (int, float64, string) {
		code, out, stderr := cli(t, append(append([]string{"--quiet", "--format", "json", "-m", "map"}, args...), log)...)
		var s summaryJSON
		if code != 0 {
			return code, 0, stderr
		}
		if err := json.Unmarshal([]byte(out), &s); err != nil || s.Metrics["map"].Mean == nil {
			t.Fatalf("summary %q: %v", out, err)
		}
		return code, *s.Metrics["map"].Mean, stderr
	}
	_, want, _ := mapOf()
	for _, th := range []string{"1e-400", "0.5e-323", "1e-320"} {
		t.Run("--rel-threshold "+th, func(t *testing.T) {
			code, got, stderr := mapOf("--rel-threshold", th)
			if code != 2 && (code != 0 || got != want) {
				t.Fatalf("exit %d, map %v (%s); want map %v as label > 0 gives, or a usage error", code, got, stderr, want)
			}
		})
	}
}

// TestStdoutShared: a state or report sent to standard output while the
// summary goes there too made one stream of both (exit 0); it is a usage
// error, whatever the path that names standard output.
func TestStdoutShared(t *testing.T) {
	log := writeLog(t, "log.jsonl", twoQueries)
	for _, tc := range [][]string{
		{"--state", "/dev/stdout", log},
		{"--report", "/dev/fd/1", log},
		{"--output", "-", "--state", "/proc/self/fd/1", log},
		{"merge", "--state", "/dev/stdout", "x.state"},
	} {
		t.Run(strings.Join(tc[:len(tc)-1], " "), func(t *testing.T) {
			code, stdout, stderr := cli(t, tc...)
			if code != 2 || !strings.Contains(stderr, "and the summary would both go to standard output; write the summary to a file with --output") || stdout != "" {
				t.Fatalf("exit %d, stderr %q; want a usage error", code, stderr)
			}
		})
	}
}

// TestInputTwice: a log given twice, under another spelling, or inside a
// directory named too, was read twice: under --unsorted, with no doc id
// to collide, every row counted twice (map 0.7083 for 0.75, exit 0). It
// is a usage error naming both, on every path.
func TestInputTwice(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log.jsonl")
	data := `{"query_id":"a","score":0.9,"label":1}
{"query_id":"a","score":0.1,"label":0}
{"query_id":"b","score":0.9,"label":0}
{"query_id":"b","score":0.1,"label":1}
`
	if err := os.WriteFile(log, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link.jsonl")
	if err := os.Symlink(log, link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		msg  string
	}{
		{"unsorted, one name twice", []string{"--unsorted", log, log}, `input "` + log + `" and "` + log + `" are one file, given twice`},
		{"sorted, another spelling", []string{log, filepath.Join(dir, ".", "log.jsonl")}, "are one file, given twice"},
		{"a directory and a file in it", []string{"--unsorted", dir, log}, "are one file, given twice"},
		{"- twice", []string{"-", "-"}, `input "-" is given twice`},
		{"unsorted, a link", []string{"--unsorted", log, link}, "are one file, given twice"},
		{"one log for two systems", []string{"--system", "a=" + log, "--system", "b=" + log}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := cli(t, append([]string{"--quiet", "-m", "map"}, tc.args...)...)
			if tc.msg == "" {
				if code != 0 {
					t.Fatalf("two systems' logs are not one input: exit %d, %s", code, stderr)
				}
				return
			}
			if code != 2 || stdout != "" || !strings.Contains(stderr, tc.msg) {
				t.Fatalf("exit %d, stderr %q; want a usage error saying %q", code, stderr, tc.msg)
			}
		})
	}
}

// TestStdinIsANamedFile: standard input redirected from a file (rankeval
// --unsorted log - < log) is that file given twice, as /dev/stdin is;
// CheckDistinctInputs skipped - and counted every row twice (map 0.7083
// for 0.75, num_ret 8 for 4) with exit 0.
func TestStdinIsANamedFile(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log.jsonl")
	other := filepath.Join(dir, "other.jsonl")
	data := `{"query_id":"a","score":0.9,"label":1}
{"query_id":"a","score":0.1,"label":0}
{"query_id":"b","score":0.9,"label":0}
{"query_id":"b","score":0.1,"label":1}
`
	for _, p := range []string{log, other} {
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name  string
		stdin string
		args  []string
		code  int
	}{
		{"stdin is the log named too", log, []string{"--unsorted", log, "-"}, 2},
		{"stdin is the log named too, sorted", log, []string{log, "-"}, 2},
		{"stdin is another file", other, []string{"--unsorted", log, "-"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := os.Open(tc.stdin)
			if err != nil {
				t.Fatal(err)
			}
			old := os.Stdin
			os.Stdin = f
			defer func() { os.Stdin = old; f.Close() }()
			code, stdout, stderr := cli(t, append([]string{"--quiet", "-m", "map,num_ret", "--format", "json"}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, stderr %q, stdout %s; want exit %d", code, stderr, stdout, tc.code)
			}
			if code == 2 && (stdout != "" || !strings.Contains(stderr, "are one file, given twice")) {
				t.Fatalf("stderr %q, stdout %q; want a usage error naming the file given twice", stderr, stdout)
			}
		})
	}
}

// TestIntegerScoresRefused holds issue 35's case 4: two integer scores past
// 2^53 that float64 cannot tell apart (nanosecond timestamps used as
// recency scores) are refused, naming the row and both values, on every
// path rows take (sorted, --unsorted, a further score column, a second
// --system log, CSV), where they tied and mrr was 0.5 for a ranking that
// gives 1.0; integers a float64 holds exactly rank as the integers do.
func TestIntegerScoresRefused(t *testing.T) {
	row := func(d, score, scoreB string, label int) string {
		return fmt.Sprintf(`{"query_id":"a","doc_id":"%s","score":%s,"score_b":%s,"label":%d}`+"\n", d, score, scoreB, label)
	}
	const (
		late, early = "1700000000000000001", "1700000000000000000" // one nanosecond apart, one float64
		exact       = "1700000000000000256"                        // the next float64 after early
	)
	bad := row("d0", early, "1", 0) + row("d1", late, "2", 1)
	badB := row("d0", "1", early, 0) + row("d1", "2", late, 1)
	msg := func(where string) string {
		return where + `: "score" (the score column): the integer score 1700000000000000001 is not exactly a float64 (the nearest is 1700000000000000000)`
	}
	tests := []struct {
		name  string
		files map[string]string // name -> content; log is the input
		args  []string
		msg   string // "" when the run succeeds with mrr 1
	}{
		{"sorted", map[string]string{"log.jsonl": bad}, nil, msg("log.jsonl:2")},
		{"unsorted", map[string]string{"log.jsonl": bad}, []string{"--unsorted"}, msg("log.jsonl:2")},
		{"a further score column", map[string]string{"log.jsonl": badB}, []string{"--score-col", "score,score_b"},
			`log.jsonl:2: "score_b" (a score column): the integer score 1700000000000000001 is not exactly a float64`},
		{"a second system's log", map[string]string{"log.jsonl": row("d0", "1", "1", 0) + row("d1", "2", "1", 1), "b.jsonl": bad},
			[]string{"--system", "a=log.jsonl", "--system", "b=b.jsonl"}, msg("b.jsonl:2")},
		{"csv", map[string]string{"log.csv": "query_id,doc_id,score,label\na,d0," + early + ",0\na,d1," + late + ",1\n"}, nil, msg("log.csv:3")},
		{"integers a float64 holds", map[string]string{"log.jsonl": row("d0", early, "1", 0) + row("d1", exact, "2", 1)}, nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var input string
			for name, data := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
				if strings.HasPrefix(name, "log.") {
					input = name
				}
			}
			t.Chdir(dir)
			args := append([]string{"-m", "mrr", "--format", "json"}, tc.args...)
			if !slices.Contains(tc.args, "--system") {
				args = append(args, input)
			}
			code, stdout, stderr := cli(t, args...)
			if tc.msg == "" {
				if code != 0 || !strings.Contains(stdout, `"mean": 1,`) {
					t.Fatalf("exit %d, stderr %q, stdout %s; want mrr 1", code, stderr, stdout)
				}
				return
			}
			if code != 1 || !strings.Contains(stderr, tc.msg) {
				t.Fatalf("exit %d, stderr %q; want exit 1 and %q", code, stderr, tc.msg)
			}
		})
	}
}

// TestJudgedLabelAboveMaxGrade: a judged document the run did not
// retrieve takes part in nERR's and gdeval's nDCG's ideal ranking, so its
// label is held to the maximum grade as a retrieved row's is: above it,
// the run fails (exit 1) naming the label, rather than computing an ideal
// from a grade ERR has no gain for.
func TestJudgedLabelAboveMaxGrade(t *testing.T) {
	dir := t.TempDir()
	qrels, run := filepath.Join(dir, "qrels.txt"), filepath.Join(dir, "run.txt")
	if err := os.WriteFile(qrels, []byte("1 0 d1 1\n1 0 d2 0\n1 0 d3 1024\n2 0 d1 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(run, []byte("1 Q0 d1 1 3 s\n1 Q0 d2 2 2 s\n2 Q0 d1 1 1 s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"nerr@20", "nDCG(dcg='exp-log2')@10"} {
		t.Run(m, func(t *testing.T) {
			code, out, stderr := cli(t, "--quiet", "--qrels", qrels, "-m", m, "--format", "json", run)
			if code != 1 || !strings.Contains(stderr, "label 1024 is above the maximum grade 4") {
				t.Errorf("exit %d, stderr %q, stdout %q; want exit 1 and the label above the maximum grade", code, stderr, out)
			}
		})
	}
}
