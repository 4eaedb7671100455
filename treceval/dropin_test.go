package treceval_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rankeval/rankeval"
	"github.com/rankeval/rankeval/internal/vectors"
	"github.com/rankeval/rankeval/treceval"

	"github.com/klauspost/compress/zstd"
)

var record = flag.Bool("record", false, "record testdata/trec_eval's expected outputs by running the trec_eval binaries named by $TREC_EVAL (9.0.8) and $TREC_EVAL10 (10.0)")

// trecReleases are the releases of trec_eval the drop-in is checked
// against: where each one's recordings are, and the variable naming its
// binary for -record.
var trecReleases = []struct{ release, dir, env string }{
	{"9.0.8", "trec_eval", "TREC_EVAL"},
	{"10.0", "trec_eval/10.0", "TREC_EVAL10"},
}

// trecEvalData are the qrels and runs the drop-in is checked on: both
// folders of the shared references, and trec_eval's own test files
// (testdata/trec_eval/upstream, from usnistgov/trec_eval v9.0.8 test/),
// with its graded qrels for -l.
var trecEvalData = []struct{ name, qrels, run string }{
	{"trec_a", "reference/trec_a/qrels.txt", "reference/trec_a/run.txt"},
	{"trec_b", "reference/trec_b/qrels.txt", "reference/trec_b/run.txt"},
	{"upstream", "trec_eval/upstream/qrels.test.zst", "trec_eval/upstream/results.test.zst"},
	{"upstream_graded", "trec_eval/upstream/qrels.rel_level.zst", "trec_eval/upstream/results.test.zst"},
	// scripts/gentrec's pairs (testdata/trec_eval/gen/README.md)
	{"gen_binary", "trec_eval/gen/binary.qrels.zst", "trec_eval/gen/binary.run.zst"},
	{"gen_graded", "trec_eval/gen/graded.qrels.zst", "trec_eval/gen/graded.run.zst"},
	{"gen_short", "trec_eval/gen/short.qrels.zst", "trec_eval/gen/short.run.zst"},
}

// trecEvalCommands are the option sets, each run on every data set, by
// both releases or the one named.
var trecEvalCommands = []struct{ name, args, only string }{
	{"default", "", ""},
	{"q", "-q", ""},
	{"c", "-c", ""},
	{"qc", "-q -c", ""},
	{"l2", "-l 2", ""},
	{"ql2", "-q -l2", ""},
	{"cl2", "-c -l 2", ""},
	{"M100", "-M 100", ""},
	{"qM100", "-q -M 100", ""},
	{"qJ", "-q -J", ""},
	{"qnJM5", "-qn -J -M 5", ""},
	{"mlist", "-q -m map -m P.5,10 -m ndcg_cut.5,10 -m recip_rank -m num_q", ""},
	{"mmixed", "-q -c -m official -m recall.5,100 -m ndcg -m map_cut.5,1000 -m success.1,5 -m iprec_at_recall.0.25,0.5 -m P.20", ""},
	{"mlong", "--query_eval_wanted --measure=bpref --measure gm_map --level_for_rel=1", ""},
	{"mset", "-q -m set_P -m set_relative_P -m set_recall -m set_map -m set_F -m num_nonrel_judged_ret -m P.5", ""},
	{"m11pt", "-q -m 11pt_avg -m iprec_at_recall -m map -m gm_bpref -m relative_P", ""},
	{"mrelP", "-q -c -J -m relative_P.1,3,50,2000 -m gm_bpref -m bpref", ""},
	{"m11ptcJ", "-q -c -J -M 30 -l 2 -m 11pt_avg", ""},
	{"msetcJM", "-q -c -J -M 50 -l 2 -m set_F -m set_map -m set_P -m set_relative_P -m set_recall -m num_nonrel_judged_ret", ""},
	// every measure of all_trec
	{"aq", "-q -m all_trec", ""},
	{"aqc", "-q -c -m all_trec", ""},
	{"aql2", "-q -l 2 -m all_trec", ""},
	{"aqcl2", "-q -c -l2 -m all_trec", ""},
	{"aqcl0", "-q -c -l 0 -m all_trec", ""},
	// -l 0 with no measure that reads judgments: an unjudged document is
	// not relevant (trec_eval's code -1 < 0), a judged 0 is
	{"l0", "-q -l 0 -m P.5 -m map -m recip_rank -m num_rel_ret", ""},
	{"aqcM100", "-q -c -M 100 -m all_trec", ""},
	{"aqcJ", "-q -c -J -m all_trec", ""},
	{"acJMl2", "-c -J -M 20 -l 2 -m all_trec", ""},
	// every form of parameters
	{"mparams", "-q -c -N 5000 -m ndcg.0=1,1=0.5,2=2.5,3=7 -m G.1=2,2=0.7 -m ndcg_rel.2=5 -m Rndcg.1=3 -m utility.1,-2,0.5,0.001 " +
		"-m 11pt_avg.0.3,0.1,0.9 -m set_F.0.25 -m relstring.15 -m Rprec_mult.0.5,3 -m iprec_at_recall.0.33,0.66,1.5 -m yaap " +
		"-m success.3 -m binG -m map_cut.2,7 -m ndcg_cut.3", ""},
	{"mrbp", "-q -c -m rbp.p=0.8,1=3,2=5 -m rbp_resid.p=0.5 -m unj.1,3,50", "10.0"},
	{"mdcg", "-q -c -m dcg -m ideal_dcg -m ndcg", "10.0"},
	{"mdcgp", "-q -c -m ideal_dcg.1=2,3=0.5", "10.0"},
}

// TestTrecEvalDropIn checks that rankeval trec_eval --release R prints,
// byte for byte, what trec_eval R printed for the same command line
// (recorded in testdata/trec_eval and trec_eval/10.0; -record, with
// TREC_EVAL and TREC_EVAL10 set, records them again). Where trec_eval
// stopped with an error (recorded as NAME.err.zst, its stderr), the
// drop-in must fail with the same message and print nothing.
func TestTrecEvalDropIn(t *testing.T) {
	td := filepath.Join("..", "testdata")
	for _, rel := range trecReleases {
		for _, d := range trecEvalData {
			for _, c := range trecEvalCommands {
				if c.only != "" && c.only != rel.release {
					continue
				}
				name := d.name + "." + c.name
				t.Run(rel.release+"/"+name, func(t *testing.T) {
					args := strings.Fields(c.args)
					golden := filepath.Join(td, rel.dir, name+".txt.zst")
					if *record {
						recordTrecEval(t, rel.env, golden, args, filepath.Join(td, d.qrels), filepath.Join(td, d.run))
					}
					checkTrecEval(t, rel.release, golden, args, filepath.Join(td, d.qrels), filepath.Join(td, d.run))
				})
			}
		}
	}
}

// checkTrecEval runs rankeval trec_eval --release release with args on
// qrels and run, and compares its output with golden, what trec_eval
// printed; where trec_eval stopped (NAME.err, its stderr), the drop-in
// must fail with the same message and print nothing.
func checkTrecEval(t *testing.T, release, golden string, args []string, qrels, run string) {
	t.Helper()
	want := readZstd(t, golden)
	code, out, stderr := cli(t, append(append([]string{"trec_eval", "--release", release}, args...), qrels, run)...)
	if wantErr, err := os.ReadFile(strings.TrimSuffix(golden, ".txt.zst") + ".err"); err == nil {
		msg := strings.TrimSpace(strings.Split(string(wantErr), "\n")[0])
		if code != 1 || out != "" || !strings.Contains(stderr, msg) {
			t.Fatalf("exit %d, stdout %d bytes, stderr %q; trec_eval %s stopped: %q", code, len(out), stderr, release, msg)
		}
		return
	}
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if out != want {
		t.Fatalf("differs from trec_eval %s (%s):\n%s", release, golden, vectors.FirstDiff(want, out))
	}
}

// recordTrecEval runs the trec_eval that $env names (it reads plain files
// only) and saves its output, compressed, as golden; when it fails, its
// stderr too, as NAME.err.
func recordTrecEval(t *testing.T, env, golden string, args []string, qrels, run string) {
	bin := os.Getenv(env)
	if bin == "" {
		t.Fatalf("-record needs %s=/path/to/trec_eval (built outside the repository)", env)
	}
	errFile := strings.TrimSuffix(golden, ".txt.zst") + ".err"
	os.Remove(errFile)
	plain := func(p string) string {
		if !strings.HasSuffix(p, ".zst") {
			return p
		}
		out := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(p), ".zst"))
		if err := os.WriteFile(out, []byte(readZstd(t, p)), 0o644); err != nil {
			t.Fatal(err)
		}
		return out
	}
	cmd := exec.Command(bin, append(args, plain(qrels), plain(run))...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		if err := os.WriteFile(errFile, stderr.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	case err != nil:
		t.Fatalf("%s: %v", bin, err)
	}
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
	if err := os.WriteFile(golden, enc.EncodeAll(out, nil), 0o644); err != nil {
		t.Fatal(err)
	}
}

// cli runs rankeval trec_eval as the command does: args start with
// "trec_eval"; standard input is the process's. It returns the exit
// status, and what the command printed on stdout and stderr.
func cli(t testing.TB, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	if len(args) == 0 || args[0] != "trec_eval" {
		t.Fatalf("cli %q: not a trec_eval command line", args)
	}
	var out, errb bytes.Buffer
	err := treceval.Run(context.Background(), args[1:], os.Stdin, &out, &errb)
	return rankeval.ExitCode(err, &errb), out.String(), errb.String()
}

func readZstd(t *testing.T, p string) string {
	f, err := os.Open(p)
	if err != nil {
		t.Fatalf("%v (record with TREC_EVAL=... go test ./treceval -run TestTrecEvalDropIn -record)", err)
	}
	defer f.Close()
	z, err := zstd.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	b, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTrecEvalArgs checks the command line: trec_eval's measure rules and
// what is refused, with the exit code.
func TestTrecEvalArgs(t *testing.T) {
	td := filepath.Join("..", "testdata", "reference", "trec_a")
	q, r := filepath.Join(td, "qrels.txt"), filepath.Join(td, "run.txt")
	tests := []struct {
		name  string
		args  []string
		code  int
		lines []string // summary lines expected, in order, by measure name
		err   string
	}{
		// the first -m with parameters wins; the order is trec_eval's table
		{"first params win", []string{"-m", "P.10", "-m", "P.5", "-m", "map"}, 0, []string{"map", "P_10"}, ""},
		{"bare -m keeps params", []string{"-m", "P", "-m", "P.20,5"}, 0, []string{"P_5", "P_20"}, ""},
		{"runid first", []string{"-m", "num_q", "-m", "runid"}, 0, []string{"runid", "num_q"}, ""},
		{"illegal", []string{"-m", "mapp"}, 2, nil, "illegal measure 'mapp'"},
		{"illegal with params", []string{"-m", "mapp.5"}, 2, nil, "illegal measure 'mapp'"},
		{"10.0's measure", []string{"-m", "rbp"}, 2, nil, "trec_eval 9.0.8 has no rbp"},
		{"prefs measure needs prefs", []string{"-m", "prefs_simp"}, 2, nil, "'prefs_simp' needs -R prefs or -R qrels_prefs (not -R qrels)"},
		{"jg measure needs qrels_jg", []string{"-R", "qrels_prefs", "-m", "num_q", "-m", "P_avgjg"}, 2, nil, "'P_avgjg' needs -R qrels_jg"},
		{"a set's params ignored", []string{"-m", "official.5", "-m", "set_F.0.5"}, 0,
			[]string{"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
				"iprec_at_recall_0.00", "iprec_at_recall_0.10", "iprec_at_recall_0.20", "iprec_at_recall_0.30",
				"iprec_at_recall_0.40", "iprec_at_recall_0.50", "iprec_at_recall_0.60", "iprec_at_recall_0.70",
				"iprec_at_recall_0.80", "iprec_at_recall_0.90", "iprec_at_recall_1.00",
				"P_5", "P_10", "P_15", "P_20", "P_30", "P_100", "P_200", "P_500", "P_1000", "set_F_0.5"}, ""},
		{"zero cutoff", []string{"-m", "P.0"}, 2, nil, "Negative cutoff"},
		{"duplicate cutoffs", []string{"-m", "P.5,5"}, 2, nil, "duplicate cutoffs"},
		{"empty params", []string{"-m", "P."}, 2, nil, "improper measure in parameter 'P'"},
		{"malformed pairs", []string{"-m", "ndcg.1=2,3"}, 2, nil, "malformed pair parameters in '1=2,3'"},
		{"utility's coefficients", []string{"-m", "utility.1,2"}, 2, nil, "utility takes 4 coefficients"},
		{"gains named", []string{"-m", "ndcg.1=2", "-m", "G.0=1"}, 0, []string{"G_0=1", "ndcg_1=2"}, ""},
		{"no zscores file", []string{"-Z", "z.txt"}, 1, nil, "Cannot read zscores file 'z.txt'"},
		{"official needs qrels", []string{"-R", "prefs"}, 2, nil, "measure 'num_ret' needs -R qrels (not -R prefs)"},
		{"-R unknown", []string{"-R", "qrel"}, 2, nil, "Illegal rel_format 'qrel'"},
		{"-T unknown", []string{"-T", "trec"}, 2, nil, "Illegal retrieval results format 'trec'"},
		{"-D traces", []string{"-D", "1"}, 2, nil, "debug traces are not reproduced"},
		{"-D a query", []string{"-D", "0.101", "-m", "num_q", "-m", "num_ret"}, 0, []string{"num_q", "num_ret"}, ""},
		{"long prefix", []string{"--meas=num_q", "--Judged"}, 0, []string{"num_q"}, ""},
		{"ambiguous long prefix", []string{"--Re", "qrels"}, 2, nil, "unknown option --Re"},
		{"bad -l", []string{"-l", "x"}, 2, nil, "-l \"x\""},
		{"negative -l", []string{"-l", "-1"}, 2, nil, "-l -1: rankeval trec_eval takes a level from 0 up"},
		{"one file", nil, 2, nil, "want two files"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"trec_eval", "--release", "9.0.8"}, tc.args...)
			if tc.name != "one file" {
				args = append(args, q, r)
			} else {
				args = append(args, q)
			}
			code, out, stderr := cli(t, args...)
			if code != tc.code || !strings.Contains(stderr, tc.err) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, stderr, tc.code, tc.err)
			}
			if code == 2 && !strings.Contains(stderr, "Run 'rankeval trec_eval -h' for usage.") {
				t.Fatalf("a usage error points to rankeval trec_eval -h: %q", stderr)
			}
			var names []string
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				if f := strings.Fields(l); len(f) == 3 {
					names = append(names, f[0])
				}
			}
			if tc.lines != nil && strings.Join(names, " ") != strings.Join(tc.lines, " ") {
				t.Fatalf("measures %v, want %v", names, tc.lines)
			}
		})
	}
}

// TestTrecEvalUnsortedRun: trec_eval sorts the run itself, so a run whose
// queries are interleaved gives the same output as the sorted one.
func TestTrecEvalUnsortedRun(t *testing.T) {
	td := filepath.Join("..", "testdata", "reference", "trec_b")
	run, err := os.ReadFile(filepath.Join(td, "run.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(bytes.TrimSpace(run), []byte("\n"))
	var shuffled []byte
	for i := range lines { // a fixed interleaving: odd lines, then even ones
		if i%2 == 1 {
			shuffled = append(shuffled, lines[i]...)
		}
	}
	for i := range lines {
		if i%2 == 0 {
			shuffled = append(append(shuffled, bytes.TrimSuffix(lines[i], []byte("\n"))...), '\n')
		}
	}
	p := filepath.Join(t.TempDir(), "run.txt")
	if err := os.WriteFile(p, shuffled, 0o644); err != nil {
		t.Fatal(err)
	}
	q := filepath.Join(td, "qrels.txt")
	_, want, _ := cli(t, "trec_eval", "--release", "9.0.8", "-q", q, filepath.Join(td, "run.txt"))
	code, got, stderr := cli(t, "trec_eval", "--release", "9.0.8", "-q", q, p)
	if code != 0 || got != want {
		t.Fatalf("exit %d (%s):\n%s", code, stderr, vectors.FirstDiff(want, got))
	}
}

// TestTrecEvalSharedGains: in trec_eval 10.0, dcg, ideal_dcg and ndcg
// share their parameters and each frees them: asked for together with
// parameters, trec_eval aborts and prints nothing, and so does the
// drop-in, saying why; apart, or without parameters, they are computed.
func TestTrecEvalSharedGains(t *testing.T) {
	td := filepath.Join("..", "testdata", "trec_eval", "upstream")
	q, r := filepath.Join(td, "qrels.rel_level.zst"), filepath.Join(td, "results.test.zst")
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"-m", "dcg.1=2", "-m", "ndcg"}, 1},
		{[]string{"-m", "ideal_dcg", "-m", "ndcg.1=2"}, 1},
		{[]string{"-m", "dcg", "-m", "ideal_dcg", "-m", "ndcg"}, 0},
		{[]string{"-m", "ideal_dcg.1=2", "-m", "Rndcg.1=2"}, 0},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, stderr := cli(t, append(append([]string{"trec_eval"}, tc.args...), q, r)...)
			if code != tc.code || tc.code == 1 && (out != "" || !strings.Contains(stderr, "double free")) {
				t.Fatalf("exit %d, stdout %d bytes, stderr %q; want exit %d", code, len(out), stderr, tc.code)
			}
		})
	}
}

// TestTrecEvalLackingQueries: under -c, the judged queries a run lacks
// (here 140, enough to be evaluated on several goroutines) print the
// values of a ranking of trec_eval's one unjudged document: the same as
// a run that ranks that document for them, but for the measures trec_eval
// clears by name.
func TestTrecEvalLackingQueries(t *testing.T) {
	dir := t.TempDir()
	var qrels, lacking, ranked strings.Builder
	for q := range 150 {
		for d := range 12 {
			fmt.Fprintf(&qrels, "q%03d 0 d%d %d\n", q, d, (q+d)%4-1)
		}
		var rows string
		if q < 10 {
			for d := range 8 {
				rows += fmt.Sprintf("q%03d Q0 d%d %d %d.5 tag\n", q, 2*d, d+1, 20-d)
			}
		} else {
			ranked.WriteString(fmt.Sprintf("q%03d Q0 ceci_nest_pas_un_docno 1 1 tag\n", q))
		}
		lacking.WriteString(rows)
		ranked.WriteString(rows)
	}
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	q, a, b := write("qrels", qrels.String()), write("lacking", lacking.String()), write("ranked", ranked.String())
	code, got, stderr := cli(t, "trec_eval", "-c", "-q", "-m", "all_trec", q, a)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, want, _ := cli(t, "trec_eval", "-c", "-q", "-m", "all_trec", q, b)
	cleared := regexp.MustCompile(`^(num_ret|utility|unj_\d+|rbp_resid|relstring)\s`)
	perQuery := func(out string) map[string]string {
		m := map[string]string{}
		for _, l := range strings.Split(out, "\n") {
			f := strings.Fields(l)
			if len(f) == 3 && f[1] != "all" && !cleared.MatchString(l) {
				m[f[0]+" "+f[1]] = f[2]
			}
		}
		return m
	}
	g, w := perQuery(got), perQuery(want)
	if len(w) < 150*80 {
		t.Fatalf("only %d per-query values", len(w))
	}
	for k, v := range w {
		if g[k] != v {
			t.Fatalf("%s: %s for the lacking query, %s ranking the unjudged document", k, g[k], v)
		}
	}
	// and the cleared ones are cleared
	for _, l := range strings.Split(got, "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[1] == "q100" && cleared.MatchString(l) && f[2] != "0" && f[2] != "0.0000" && f[2] != "''" {
			t.Fatalf("%s: not cleared", l)
		}
	}
}

// TestTrecEvalJudgmentLines: a qrels file's blank and comment lines as
// trec_eval reads them. The values are trec_eval's own (both releases, run
// on these files, 2026-11-26): a '#' after blanks starts a judgment of
// query "#", so 3 queries; a blank line stops both releases ("Malformed
// line"); under 10.0 a comment right after another is read as a judgment
// (of query "#", 3 queries), one at the end crashes it (exit 139), and a
// NUL byte in a field aborts it (malloc: invalid size; 9.0.8 segfaults)
// or, starting a line, ends its read (the rest ignored): rankeval refuses
// those, naming the line.
func TestTrecEvalJudgmentLines(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	if err := os.WriteFile(run, []byte("1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 c 3 1 t\n2 Q0 a 1 1 t\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const indented = "num_q                 \tall\t3\nnum_rel               \tall\t3\nmap                   \tall\t0.6667\n"
	cases := []struct {
		name, qrels, release, want, err string
	}{
		{"a '#' after blanks", "1 0 a 1\n  # x y 1\n2 0 a 1\n", "10.0", indented, ""},
		{"a '#' after blanks, 9.0.8", "1 0 a 1\n  # x y 1\n2 0 a 1\n", "9.0.8", indented, ""},
		{"a comment", "# judged by hand\n1 0 a 1\n2 0 a 1\n", "10.0",
			"num_q                 \tall\t2\nnum_rel               \tall\t2\nmap                   \tall\t1.0000\n", ""},
		{"two comments", "# c\n# x y 1\n1 0 a 1\n2 0 a 1\n", "10.0", indented, ""},
		{"two comments mid-file", "1 0 a 1\n#c\n#d 0 a 1\n2 0 a 1\n", "10.0", indented, ""},
		{"a NUL in a field", "1 0 a 1\n2 0 a\x00x 1\n", "10.0", "", "q:2: a NUL byte"},
		{"a NUL starting a line", "1 0 a 1\n\x002 0 a 1\n", "9.0.8", "", "q:2: a NUL byte"},
		{"a comment last", "1 0 a 1\n2 0 a 1\n# end\n", "10.0", "", "q:3: the file ends with a comment line"},
		{"a blank line", "1 0 a 1\n\n2 0 a 1\n", "10.0", "", "q:2: a blank line"},
		{"a blank line, 9.0.8", "1 0 a 1\n\n2 0 a 1\n", "9.0.8", "", "q:2: a blank line"},
		{"9.0.8 has no comments", "# c\n1 0 a 1\n", "9.0.8", "", "q:1: a qrels line has 4 fields"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := filepath.Join(dir, "q")
			if err := os.WriteFile(q, []byte(c.qrels), 0o644); err != nil {
				t.Fatal(err)
			}
			code, got, stderr := cli(t, "trec_eval", "--release", c.release, "-c", "-m", "num_q", "-m", "num_rel", "-m", "map", q, run)
			if c.err != "" {
				if code != 1 || got != "" || !strings.Contains(stderr, c.err) {
					t.Fatalf("exit %d, stdout %q, stderr %q; want exit 1 and %q", code, got, stderr, c.err)
				}
				return
			}
			if code != 0 || got != c.want {
				t.Fatalf("exit %d (%s):\n%s", code, stderr, vectors.FirstDiff(c.want, got))
			}
		})
	}
	// the -R formats read their lines so too
	for format, lines := range map[string]string{"prefs": "1 g s1 a 1\n\n1 g s2 b 0\n",
		"qrels_prefs": "1 g a 1\n\n1 g b 0\n", "qrels_jg": "1 g a 1\n\n1 g b 0\n"} {
		p := filepath.Join(dir, format)
		if err := os.WriteFile(p, []byte(lines), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, _, stderr := cli(t, "trec_eval", "-R", format, "-m", "num_q", p, run); code != 1 || !strings.Contains(stderr, format+":2: a blank line") {
			t.Errorf("-R %s: exit %d, %s", format, code, stderr)
		}
	}
}

// TestRunNilStdin: a run named - with no standard input given to Run is a
// usage error, not a panic.
func TestRunNilStdin(t *testing.T) {
	q := filepath.Join("..", "testdata", "reference", "trec_b", "qrels.txt")
	var out, errb bytes.Buffer
	err := treceval.Run(context.Background(), []string{"-m", "map", q, "-"}, nil, &out, &errb)
	var u treceval.UsageError
	if !errors.As(err, &u) || !strings.Contains(err.Error(), "Run was given none") {
		t.Fatalf("err = %v, want a usage error", err)
	}
}
