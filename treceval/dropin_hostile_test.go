package treceval_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/internal/vectors"
)

// TestTrecEvalHostile: inputs where trec_eval stops, crashes or prints
// memory, and the quirks it keeps. Each want is what trec_eval 9.0.8 and
// 10.0 print for the same files (recorded by hand from both), or, where
// trec_eval crashes or prints uninitialised memory, rankeval's refusal.
func TestTrecEvalHostile(t *testing.T) {
	const twoQueries = "1 Q0 a 1 1 t\n2 Q0 b 1 1 t\n"
	const dupQrels = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 1\nq2 0 d1 1\nq2 0 d3 2\n" // q2 judges d1 twice
	tests := []struct {
		name        string
		release     string
		qrels, run  string
		args        []string
		code        int
		out, stderr string
	}{
		// te_form_res_rels has no buffer for the levels of the first
		// query yet: trec_eval exits 4
		{"first query judged only negative", "9.0.8", "1 0 a -1\n2 0 b 1\n", twoQueries, []string{"-m", "P.5"},
			1, "", "Can't calculate measure 'P'"},
		{"first query judged only -2", "10.0", "1 0 a 1\n2 0 b -2\n", twoQueries, []string{"-D", "0.2", "-m", "num_q", "-m", "ndcg"},
			1, "", "Can't calculate measure 'ndcg'"},
		// a later one keeps the previous query's levels (ideal 1)
		{"later query judged only -1", "9.0.8", "1 0 a 1\n2 0 b -1\n", twoQueries, []string{"-q", "-m", "P.5", "-m", "ndcg"}, 0,
			"P_5                   \t1\t0.2000\nndcg                  \t1\t1.0000\nP_5                   \t2\t0.0000\nndcg                  \t2\t0.0000\n" +
				"P_5                   \tall\t0.1000\nndcg                  \tall\t0.5000\n", ""},
		// a later one judged -2 at most: trec_eval clears a negative size
		// and crashes
		{"later query judged only -2", "10.0", "1 0 a 1\n2 0 b -2\n2 0 c -1000\n", twoQueries, []string{"-m", "P.5"},
			1, "", "trec_eval crashes"},
		{"runid and num_q form no ranking", "10.0", "1 0 a -1\n2 0 b 1\n", twoQueries, []string{"-m", "num_q"},
			0, "num_q                 \tall\t2\n", ""},
		{"label -0.0 is 0", "9.0.8", "1 0 a 1\n1 0 b -0.0\n", "1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n", []string{"-q", "-m", "relstring", "-m", "bpref"},
			0, "bpref                 \t1\t1.0000\nrelstring             \t1\t'10'\nbpref                 \tall\t1.0000\n", ""},
		// atol: "0.5" is 0, "1e2" is 1, "abc" 0
		{"labels as atol reads them", "9.0.8", "1 0 a 0.5\n1 0 b 1e2\n1 0 c abc\n1 0 d 2\n", "1 Q0 a 1 4 t\n1 Q0 b 2 3 t\n1 Q0 c 3 2 t\n1 Q0 d 4 1 t\n",
			[]string{"-q", "-m", "relstring", "-m", "ndcg"}, 0,
			"relstring             \t1\t'0102'\nndcg                  \t1\t0.5672\nndcg                  \tall\t0.5672\n", ""},
		{"labels as atol reads them, qrels_jg", "10.0", "1 0 a 0.5\n1 0 b 1e2\n", "1 Q0 a 1 4 t\n1 Q0 b 2 3 t\n",
			[]string{"-R", "qrels_jg", "-m", "P_avgjg.1"}, 0, "P_avgjg_1             \tall\t0.0000\n", ""},
		// G's log2 of a negative cost (a gain map gives the judged-below-0
		// documents more gain than the ideal ranking has) is C's -nan, on
		// every machine; both releases print these lines
		{"G of a negative cost is -nan", "10.0", "1 0 d1 -1\n1 0 d2 -2\n1 0 d5 1\n2 0 d3 1\n",
			"1 Q0 d1 1 2.0 r\n1 Q0 d2 2 1.0 r\n1 Q0 d5 3 0.5 r\n2 Q0 d3 1 1.0 r\n", []string{"-q", "-m", "G.-1=5,-2=7"}, 0,
			"G_-1=5,-2=7           \t1\t  -nan\nG_-1=5,-2=7           \t2\t1.0000\nG_-1=5,-2=7           \tall\t  -nan\n", ""},
		// the count of documents per level trec_eval allocates fails or
		// not with the machine
		{"huge label", "10.0", "1 0 a 1\n1 0 b 99999999999\n", twoQueries, []string{"-c", "-m", "P.5"}, 1, "", "judgment 99999999999 is above 1048576"},
		// past a long's range atol gives LONG_MAX: the measures of a gain
		// table (G, Rndcg, ndcg_rel, all_trec's) once panicked on it
		{"label past a long's range, G", "10.0", "1 0 a 1\n1 0 b 99999999999999999999\n", "1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n", []string{"-m", "G"}, 1, "", "judgment 9223372036854775808 is above 1048576"},
		{"label past a long's range, all_trec", "9.0.8", "1 0 a 1\n1 0 b 9223372036854775807\n", "1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n", []string{"-m", "all_trec"}, 1, "", "judgment 9223372036854775808 is above 1048576"},
		{"huge label, qrels_jg", "10.0", "1 0 a 1\n1 0 b 99999999999\n", twoQueries, []string{"-R", "qrels_jg", "-c", "-m", "P_avgjg.5"}, 1, "", ":2: judgment 99999999999 is above"},
		// a NUL byte in a run: in a field 9.0.8 segfaults and 10.0 aborts
		// (malloc: invalid size), under -R qrels_jg too; starting a line
		// it ends their read (the rest ignored): refused, as in qrels
		{"a NUL in a run's docno", "9.0.8", "1 0 a 1\n", "1 Q0 a 1 2 t\n1 Q0 b\x00x 2 1 t\n", []string{"-m", "map"}, 1, "", "run:2: a NUL byte"},
		{"a NUL starting a run's line", "10.0", "1 0 a 1\n", "1 Q0 a 1 2 t\n\x001 Q0 b 2 1 t\n", []string{"-m", "map"}, 1, "", "run:2: a NUL byte"},
		{"a NUL in a run, qrels_jg", "10.0", "1 0 a 1\n", "1 Q0 a 1 2 t\n1 Q0 b\x00x 2 1 t\n", []string{"-R", "qrels_jg", "-m", "P_avgjg.5"}, 1, "", "run:2: a NUL byte"},
		{"empty run", "9.0.8", "1 0 a 1\n", "", []string{"-c", "-m", "P.5"}, 1, "", "Cannot read results file"},
		{"empty run 10.0", "10.0", "1 0 a 1\n", "", []string{"-c", "-m", "P.5"}, 1, "", "Cannot read results file"},
		{"comments only, runid", "10.0", "1 0 a 1\n", "# nothing\n", []string{"-c", "-m", "runid"}, 1, "", "runid would be uninitialised memory"},
		{"comments only, no runid", "10.0", "1 0 a 1\n", "# nothing\n", []string{"-c", "-m", "num_q"}, 0, "num_q                 \tall\t1\n", ""},
		// a docno judged twice: trec_eval refuses it in a query it forms
		// the judgments of, and reads no other's; 9.0.8 -c counts its
		// judgments above 0 in num_rel (q2: 3)
		{"judged twice, a query the run lacks", "9.0.8", dupQrels, "q1 Q0 d1 1 2 r\nq1 Q0 d2 2 1 r\n", []string{"-q", "-m", "num_rel", "-m", "map"}, 0,
			"num_rel               \tq1\t1\nmap                   \tq1\t1.0000\nnum_rel               \tall\t1\nmap                   \tall\t1.0000\n", ""},
		{"judged twice, a query the run lacks, -c", "9.0.8", dupQrels, "q1 Q0 d1 1 2 r\nq1 Q0 d2 2 1 r\n", []string{"-c", "-q", "-m", "num_rel", "-m", "map", "-m", "num_q"}, 0,
			"num_rel               \tq1\t1\nmap                   \tq1\t1.0000\nnum_q                 \tall\t2\nnum_rel               \tall\t4\nmap                   \tall\t0.5000\n", ""},
		{"judged twice, -c evaluates it", "10.0", dupQrels, "q1 Q0 d1 1 2 r\nq1 Q0 d2 2 1 r\n", []string{"-c", "-m", "num_rel"}, 1,
			"", `qrels:4: docno "d1" judged twice for query "q2" (first at line 3)`},
		{"judged twice, -D another query", "10.0", dupQrels, "q1 Q0 d1 1 2 r\nq1 Q0 d2 2 1 r\n", []string{"-q", "-D", "0.q1", "-m", "num_rel"}, 0,
			"num_rel               \tq1\t1\nnum_rel               \tall\t1\n", ""},
		{"judged twice, the run names it", "9.0.8", dupQrels, "q2 Q0 d1 1 2 r\nq2 Q0 d3 2 1 r\n", []string{"-m", "map"}, 1,
			"", "Can't calculate measure 'map'"},
		{"judged twice, the run names it, num_q only", "9.0.8", dupQrels, "q2 Q0 d1 1 2 r\nq2 Q0 d3 2 1 r\n", []string{"-m", "num_q"}, 0,
			"num_q                 \tall\t1\n", ""},
		// a query id prints as read, byte for byte: not UTF-8, an escape
		// sequence, quotes (both releases print these bytes)
		{"query ids printed as read", "9.0.8", "\xe9q 0 d1 1\n\x1b[1mq 0 d1 1\n\"a\" 0 d1 1\n", "\xe9q Q0 d1 1 1 r\n\x1b[1mq Q0 d1 1 1 r\n\"a\" Q0 d1 1 1 r\n",
			[]string{"-q", "-m", "P.5"}, 0, "P_5                   \t\x1b[1mq\t0.2000\nP_5                   \t\"a\"\t0.2000\nP_5                   \t\xe9q\t0.2000\nP_5                   \tall\t0.2000\n", ""},
		// relstring.n for n <= 0 (0, -3, or past a long's range, which
		// (long) makes the least long) spells no judgment
		{"relstring of no judgments", "9.0.8", "1 0 a 1\n2 0 b 1\n", "1 Q0 a 1 1 t\n2 Q0 b 1 1 t\n",
			[]string{"-q", "-m", "relstring.0", "-m", "P.5"}, 0,
			"P_5                   \t1\t0.2000\nrelstring_0           \t1\t''\nP_5                   \t2\t0.2000\nrelstring_0           \t2\t''\nP_5                   \tall\t0.2000\n", ""},
		{"relstring past a long's range", "10.0", "1 0 a 1\n", "1 Q0 a 1 1 t\n",
			[]string{"-q", "-m", "relstring.9223372036854775807"}, 0, "relstring_9223372036854775807\t1\t''\n", ""},
		{"query ids printed as read, relstring", "10.0", "\xe9q 0 d1 1\n", "\xe9q Q0 d1 1 1 r\n",
			[]string{"-q", "-m", "relstring"}, 0, "relstring             \t\xe9q\t'1'\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			q, r := filepath.Join(dir, "qrels"), filepath.Join(dir, "run")
			if err := os.WriteFile(q, []byte(tc.qrels), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(r, []byte(tc.run), 0o644); err != nil {
				t.Fatal(err)
			}
			args := append(append([]string{"trec_eval", "--release", tc.release}, tc.args...), q, r)
			code, out, stderr := cli(t, args...)
			if code != tc.code || out != tc.out || !strings.Contains(stderr, tc.stderr) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want %d, %q and %q", code, out, stderr, tc.code, tc.out, tc.stderr)
			}
		})
	}
}

// TestTrecEvalLeftoverLevels: a query judged only below 0 (in the pool,
// not judged) that is not the first evaluated sees the counts per level
// of the last query before it judged from 0 up, which trec_eval keeps
// (te_form_res_rels clears and fills none for it): its ideal ranking is
// that query's, and under a gain table that gives documents outside the
// pool (-1) or judged below 0 (-2) a gain, ndcg, ndcg_rel, G and rbp are
// not 0. b and d are such queries (d after c; under -c, e after d).
// Each want is what the release named printed (trec_eval 9.0.8, tag
// v9.0.8, and 10.0, commit f425365, built with their Makefile) for the
// same files; rbp is asked alone, as its value depends on what the
// measures before it leave on trec_eval's stack (metrics.rbp).
func TestTrecEvalLeftoverLevels(t *testing.T) {
	const (
		qrels = "a 0 d1 1\na 0 d2 2\na 0 d3 0\nb 0 d4 -1\nb 0 d5 -1\nc 0 d6 3\nc 0 d7 1\nc 0 d13 2\nd 0 d8 -1\nf 0 d14 1\n"
		// e, judged only below 0, is not in the run
		lackingE = "a 0 d1 1\na 0 d2 2\na 0 d3 0\nb 0 d4 -1\nb 0 d5 -1\nc 0 d6 3\nc 0 d7 1\nc 0 d13 2\nd 0 d8 -1\ne 0 d12 -1\nf 0 d14 1\n"
		run      = "a Q0 d1 1 3 r\na Q0 d2 2 2 r\na Q0 d9 3 1 r\nb Q0 d4 1 3 r\nb Q0 d10 2 2 r\nb Q0 d5 3 1 r\nc Q0 d6 1 3 r\nc Q0 d7 2 2 r\nd Q0 d11 1 3 r\nd Q0 d8 2 2 r\nf Q0 d14 1 3 r\n"
		// 9.0.8 evaluates the queries of the run: d sees a's counts
		withoutC = "a Q0 d1 1 3 r\na Q0 d2 2 2 r\na Q0 d9 3 1 r\nb Q0 d4 1 3 r\nb Q0 d10 2 2 r\nb Q0 d5 3 1 r\nd Q0 d11 1 3 r\nd Q0 d8 2 2 r\nf Q0 d14 1 3 r\n"
		shuffled = "a Q0 d2 2 2 r\nb Q0 d4 1 3 r\nb Q0 d5 3 1 r\nc Q0 d7 2 2 r\nd Q0 d8 2 2 r\na Q0 d1 1 3 r\na Q0 d9 3 1 r\nb Q0 d10 2 2 r\nc Q0 d6 1 3 r\nd Q0 d11 1 3 r\nf Q0 d14 1 3 r\n"
	)
	tests := []struct {
		name, release, qrels, run, args string
		out                             string
	}{
		{"ndcg, ndcg_rel, G and Rndcg", "9.0.8", qrels, run, "-q -m ndcg.-2=3,-1=-1 -m ndcg_rel.-1=5 -m G.-2=-1,-1=3 -m Rndcg.-1=5",
			"G_-2=-1,-1=3          \ta\t0.8770\n" +
				"ndcg_-2=3,-1=-1       \ta\t0.6697\n" +
				"ndcg_rel_-1=5         \ta\t0.6799\n" +
				"Rndcg_-1=5            \ta\t0.6799\n" +
				"G_-2=-1,-1=3          \tb\t0.3438\n" +
				"ndcg_-2=3,-1=-1       \tb\t1.4706\n" +
				"ndcg_rel_-1=5         \tb\t1.1991\n" +
				"Rndcg_-1=5            \tb\t0.0000\n" +
				"G_-2=-1,-1=3          \tc\t0.6052\n" +
				"ndcg_-2=3,-1=-1       \tc\t0.7625\n" +
				"ndcg_rel_-1=5         \tc\t0.8715\n" +
				"Rndcg_-1=5            \tc\t0.8715\n" +
				"G_-2=-1,-1=3          \td\t0.4282\n" +
				"ndcg_-2=3,-1=-1       \td\t0.1875\n" +
				"ndcg_rel_-1=5         \td\t1.2556\n" +
				"Rndcg_-1=5            \td\t0.0000\n" +
				"G_-2=-1,-1=3          \tf\t1.0000\n" +
				"ndcg_-2=3,-1=-1       \tf\t1.0000\n" +
				"ndcg_rel_-1=5         \tf\t1.0000\n" +
				"Rndcg_-1=5            \tf\t1.0000\n" +
				"G_-2=-1,-1=3          \tall\t0.6508\n" +
				"ndcg_-2=3,-1=-1       \tall\t0.8181\n" +
				"ndcg_rel_-1=5         \tall\t1.0012\n" +
				"Rndcg_-1=5            \tall\t0.5103\n"},
		{"ndcg, ndcg_rel and G", "10.0", qrels, run, "-q -m ndcg.-1=5 -m ndcg_rel.-2=2,0=-1 -m G.-1=2",
			"G_-1=2                \ta\t   inf\n" +
				"ndcg_-1=5             \ta\t1.8100\n" +
				"ndcg_rel_-2=2,0=-1    \ta\t0.6799\n" +
				"G_-1=2                \tb\t0.4206\n" +
				"ndcg_-1=5             \tb\t1.1991\n" +
				"ndcg_rel_-2=2,0=-1    \tb\t1.0701\n" +
				"G_-1=2                \tc\t0.6052\n" +
				"ndcg_-1=5             \tc\t0.7625\n" +
				"ndcg_rel_-2=2,0=-1    \tc\t0.8715\n" +
				"G_-1=2                \td\t0.2103\n" +
				"ndcg_-1=5             \td\t1.0500\n" +
				"ndcg_rel_-2=2,0=-1    \td\t0.2754\n" +
				"G_-1=2                \tf\t1.0000\n" +
				"ndcg_-1=5             \tf\t1.0000\n" +
				"ndcg_rel_-2=2,0=-1    \tf\t1.0000\n" +
				"G_-1=2                \tall\t   inf\n" +
				"ndcg_-1=5             \tall\t1.1643\n" +
				"ndcg_rel_-2=2,0=-1    \tall\t0.7794\n"},
		{"rbp", "10.0", qrels, run, "-q -m rbp.-1=0.5",
			"rbp_-1=0.5            \ta\t0.1602\n" +
				"rbp_-1=0.5            \tb\t0.0225\n" +
				"rbp_-1=0.5            \tc\t0.1300\n" +
				"rbp_-1=0.5            \td\t0.0167\n" +
				"rbp_-1=0.5            \tf\t0.1000\n" +
				"rbp_-1=0.5            \tall\t0.0859\n"},
		{"ideal_dcg", "10.0", qrels, run, "-q -m ideal_dcg.-1=3",
			"ideal_dcg_-1=3        \ta\t2.6309\n" +
				"ideal_dcg_-1=3        \tb\t2.6309\n" +
				"ideal_dcg_-1=3        \tc\t4.7619\n" +
				"ideal_dcg_-1=3        \td\t4.7619\n" +
				"ideal_dcg_-1=3        \tf\t1.0000\n" +
				"ideal_dcg_-1=3        \tall\t3.1571\n"},
		{"-c: a lacking query's bogus ranking", "10.0", lackingE, run, "-q -c -m ndcg.-2=3,-1=-1",
			"ndcg_-2=3,-1=-1       \ta\t0.6697\n" +
				"ndcg_-2=3,-1=-1       \tb\t1.4706\n" +
				"ndcg_-2=3,-1=-1       \tc\t0.7625\n" +
				"ndcg_-2=3,-1=-1       \td\t0.1875\n" +
				"ndcg_-2=3,-1=-1       \te\t-0.2100\n" +
				"ndcg_-2=3,-1=-1       \tf\t1.0000\n" +
				"ndcg_-2=3,-1=-1       \tall\t0.6467\n"},
		{"-c: rbp", "10.0", lackingE, run, "-q -c -m rbp.-1=0,1=-1",
			"rbp_-1=0,1=-1         \ta\t0.1170\n" +
				"rbp_-1=0,1=-1         \tb\t0.0300\n" +
				"rbp_-1=0,1=-1         \tc\t0.1000\n" +
				"rbp_-1=0,1=-1         \td\t0.0250\n" +
				"rbp_-1=0,1=-1         \te\t0.0250\n" +
				"rbp_-1=0,1=-1         \tf\t0.0000\n" +
				"rbp_-1=0,1=-1         \tall\t0.0495\n"},
		{"-c -M1", "9.0.8", lackingE, run, "-q -c -M1 -m ndcg.-2=3,-1=-1",
			"ndcg_-2=3,-1=-1       \ta\t0.3801\n" +
				"ndcg_-2=3,-1=-1       \tb\t1.1403\n" +
				"ndcg_-2=3,-1=-1       \tc\t0.6300\n" +
				"ndcg_-2=3,-1=-1       \td\t-0.2100\n" +
				"ndcg_-2=3,-1=-1       \tf\t1.0000\n" +
				"ndcg_-2=3,-1=-1       \tall\t0.4901\n"},
		{"the query before not in the run", "9.0.8", qrels, withoutC, "-q -m ndcg.-1=5",
			"ndcg_-1=5             \ta\t1.8100\n" +
				"ndcg_-1=5             \tb\t1.1991\n" +
				"ndcg_-1=5             \td\t1.9005\n" +
				"ndcg_-1=5             \tf\t1.0000\n" +
				"ndcg_-1=5             \tall\t1.4774\n"},
		{"run not sorted", "10.0", qrels, shuffled, "-q -m ndcg.-1=5",
			"ndcg_-1=5             \ta\t1.8100\n" +
				"ndcg_-1=5             \tb\t1.1991\n" +
				"ndcg_-1=5             \tc\t0.7625\n" +
				"ndcg_-1=5             \td\t1.0500\n" +
				"ndcg_-1=5             \tf\t1.0000\n" +
				"ndcg_-1=5             \tall\t1.1643\n"},
	}
	for _, tc := range tests {
		t.Run(tc.release+"/"+tc.name, func(t *testing.T) {
			dir := t.TempDir()
			q, r := filepath.Join(dir, "qrels"), filepath.Join(dir, "run")
			if err := os.WriteFile(q, []byte(tc.qrels), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(r, []byte(tc.run), 0o644); err != nil {
				t.Fatal(err)
			}
			args := append(append([]string{"trec_eval", "--release", tc.release}, strings.Fields(tc.args)...), q, r)
			code, out, stderr := cli(t, args...)
			if code != 0 || out != tc.out {
				t.Fatalf("exit %d (%s), differs from trec_eval %s:\n%s", code, stderr, tc.release, vectors.FirstDiff(tc.out, out))
			}
		})
	}
}

// TestTrecEvalZscoresNaN: -Z reads a mean or stddev of nan, -nan, +nan or
// inf as glibc's atof does (a signed NaN keeps its sign), and the summary
// adds a query's NaN as trec_eval does on amd64 (a NaN value is the sum,
// whatever the sum before it), on every machine. The want is what both
// releases printed (trec_eval 9.0.8, tag v9.0.8, and 10.0, commit f425365)
// for the same files; rankeval read -nan as 0 (-1000000.0000 and 0.0000)
// and summed the NaNs in the compiler's order (arm64's all line differed).
func TestTrecEvalZscoresNaN(t *testing.T) {
	const want = "Zmap                   \t1\t   nan\nZP_5                   \t1\t  -nan\n" +
		"Zmap                   \t2\t  -nan\nZP_5                   \t2\t   nan\n" +
		"Zmap                   \t3\t4.5000\nZP_5                   \t3\t  -inf\n" +
		"Zmap                   \tall\t  -nan\nZP_5                   \tall\t   nan\n"
	dir := t.TempDir()
	files := map[string]string{
		"qrels": "1 0 a 1\n1 0 b 0\n2 0 a 1\n3 0 c 1\n",
		"run":   "1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n2 Q0 b 1 2 t\n2 Q0 a 2 1 t\n3 Q0 c 1 1 t\n",
		"zs":    "1 P_5 0.1 -nan\n1 map 0.5 +nan\n2 P_5 nan 0.1\n2 map 0.5 -NaN\n3 P_5 inf 2\n3 map 0.1 0.2\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, release := range []string{"9.0.8", "10.0"} {
		t.Run(release, func(t *testing.T) {
			code, out, stderr := cli(t, "trec_eval", "--release", release, "-q", "-m", "P.5", "-m", "map",
				"-Z", filepath.Join(dir, "zs"), filepath.Join(dir, "qrels"), filepath.Join(dir, "run"))
			if code != 0 || out != want {
				t.Fatalf("exit %d, stdout %q, stderr %q; want 0 and %q", code, out, stderr, want)
			}
		})
	}
}
