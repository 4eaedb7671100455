package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrecEvalHostile: inputs where trec_eval stops, crashes or prints
// memory, and the quirks it keeps. Each want is what trec_eval 9.0.8 and
// 10.0 print for the same files (recorded by hand from both), or, where
// trec_eval crashes or prints uninitialised memory, rankeval's refusal.
func TestTrecEvalHostile(t *testing.T) {
	const twoQueries = "1 Q0 a 1 1 t\n2 Q0 b 1 1 t\n"
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
