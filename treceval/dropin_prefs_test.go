package treceval_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The -R prefs, qrels_prefs and qrels_jg formats, checked against trec_eval
// 9.0.8 and 10.0 on inputs of our own (testdata/trec_eval/prefs, written
// by genPrefsInputs): several judgment groups a query, groups of one and
// of several sub-groups (transitive preferences), tied rel_levels and
// levels that tie only as 32-bit floats, a document twice in a group,
// judged documents the run lacks, run rows without judgments, score ties
// (prefs break them by docno ascending, the rest descending), queries only
// in the judgments or only in the run, and comment lines for 10.0.

var prefsDir = filepath.Join("..", "testdata", "trec_eval", "prefs")

// prefsData are the judgments files and the -R format each is read as;
// comments: read by 10.0 only.
var prefsData = []struct {
	name, format, file string
	comments           bool
}{
	{"prefs", "prefs", "prefs.txt", false},
	{"prefs_comments", "prefs", "prefs.comments.txt", true},
	{"qrels_prefs", "qrels_prefs", "graded.qrels", false},
	{"jg", "qrels_jg", "graded.qrels", false},
	{"jg_neg", "qrels_jg", "neg.qrels", false},
	{"jg_comments", "qrels_jg", "graded.comments.qrels", true},
}

// prefsCommands are the option sets of each family; partial: also run on
// partial.run, which lacks judged queries (10.0 stops without -c).
var prefsCommands = map[string][]struct {
	name, args string
	partial    bool
}{
	"prefs": {
		{"q", "-m all_prefs -q", true},
		{"sum", "-m all_prefs", false},
		{"qc", "-m all_prefs -q -c", true},
		{"qM4", "-m all_prefs -q -M 4", false},
		{"cMJ", "-m prefs -c -q -M 6 -J", true},
		{"n", "-m prefs_pair -m prefs_avgjg_Rnonrel_ret -m num_q -q -n", false},
		{"D", "-m all_prefs -q -D 0.p03", false},
		{"Z", "-m prefs -q -Z ZSCORES", false},
	},
	"qrels_jg": {
		{"q", "-m qrels_jg -q", true},
		{"sum", "-m qrels_jg", false},
		{"qc", "-m qrels_jg -q -c", true},
		{"ql2", "-m qrels_jg -q -l 2", false},
		{"qJ", "-m qrels_jg -q -J", false},
		{"qMJ", "-m qrels_jg -q -M 4 -J -c", true},
		{"params", "-m P_avgjg.1,3,7 -m Rprec_mult_avgjg.0.5,1.5,3 -m map_avgjg -q -c", false},
		{"DZ", "-m qrels_jg -q -D 0.p03 -Z ZSCORES", false},
	},
}

// TestTrecEvalPrefsDropIn runs every command on every judgments file and
// run through rankeval trec_eval --release R and compares with what
// trec_eval R printed (recorded under prefs/R; -record with TREC_EVAL and
// TREC_EVAL10 set records them again). Where trec_eval stopped (NAME.err),
// the drop-in must fail with its message and print nothing.
func TestTrecEvalPrefsDropIn(t *testing.T) {
	for _, rel := range trecReleases {
		for _, d := range prefsData {
			if d.comments && rel.release == "9.0.8" {
				continue
			}
			fam := d.format
			if fam == "qrels_prefs" {
				fam = "prefs"
			}
			for _, c := range prefsCommands[fam] {
				runs := []string{"run"}
				if c.partial {
					runs = append(runs, "partial")
				}
				for _, run := range runs {
					name := d.name + "." + run + "." + c.name
					t.Run(rel.release+"/"+name, func(t *testing.T) {
						args := append([]string{"-R", d.format}, strings.Fields(strings.ReplaceAll(c.args, "ZSCORES", filepath.Join(prefsDir, "zscores.txt")))...)
						judgments, runFile := filepath.Join(prefsDir, d.file), filepath.Join(prefsDir, run+".txt")
						golden := filepath.Join(prefsDir, rel.release, name+".txt.zst")
						if *record {
							os.MkdirAll(filepath.Dir(golden), 0o755)
							recordTrecEval(t, rel.env, golden, args, judgments, runFile)
						}
						checkTrecEval(t, rel.release, golden, args, judgments, runFile)
					})
				}
			}
		}
	}
}

// TestPrefsInputs: the inputs under testdata/trec_eval/prefs are what
// genPrefsInputs writes (-record writes them again), so the recordings
// and the generator cannot drift apart.
func TestPrefsInputs(t *testing.T) {
	files := genPrefsInputs()
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range files {
			if !yield(k) {
				return
			}
		}
	}) {
		p := filepath.Join(prefsDir, name)
		if *record {
			if err := os.WriteFile(p, []byte(files[name]), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != files[name] {
			t.Fatalf("%s is not what genPrefsInputs writes (go test -run TestPrefsInputs -record)", p)
		}
	}
}

// genPrefsInputs makes the judgments and runs of TestTrecEvalPrefsDropIn,
// by file name. Queries p01-p09 are judged; the run ranks p00-p09 minus
// p09 (every judged query), partial.txt only p00-p06; p08's judged documents are never
// retrieved.
func genPrefsInputs() map[string]string {
	rng := rand.New(rand.NewPCG(27, 2024))
	doc := func(i int) string { return fmt.Sprintf("d%02d", i) }
	var prefs, graded, neg, run, partial strings.Builder
	for q := 1; q <= 9; q++ {
		qid := fmt.Sprintf("p%02d", q)
		// the pool: judged documents and a hidden worth each (0: not relevant)
		pool := rng.Perm(25)[:6+rng.IntN(9)]
		if q == 8 {
			for i := range pool {
				pool[i] = 30 + i // never retrieved
			}
		}
		worth := map[int]float64{}
		for _, d := range pool {
			if rng.IntN(10) < 3 {
				worth[d] = 0
			} else {
				worth[d] = float64(1 + rng.IntN(4))
			}
		}
		for g := 1; g <= 1+rng.IntN(3); g++ {
			jg := fmt.Sprintf("u%d", g)
			if rng.IntN(2) == 0 {
				// one sub-group: coarse levels, ties; now and then a level
				// equal to another only as a float32, and a line twice
				for _, d := range pool {
					if rng.IntN(5) == 0 {
						continue
					}
					lev := fmt.Sprint(worth[d])
					if worth[d] == 2 && rng.IntN(2) == 0 {
						lev = "2.0000000001"
					}
					fmt.Fprintf(&prefs, "%s %s s0 %s %s\n", qid, jg, doc(d), lev)
					if rng.IntN(12) == 0 {
						fmt.Fprintf(&prefs, "%s %s s0 %s %s\n", qid, jg, doc(d), lev)
					}
				}
				continue
			}
			// several sub-groups: short rankings consistent with one hidden
			// order of the group (its own noise), transitive between them
			fine := map[int]float64{}
			for _, d := range pool {
				if worth[d] > 0 {
					fine[d] = worth[d] + float64(rng.IntN(3))/4
				}
			}
			for s := range 2 + rng.IntN(2) {
				for _, i := range rng.Perm(len(pool))[:2+rng.IntN(min(4, len(pool)-1))] {
					d := pool[i]
					fmt.Fprintf(&prefs, "%s %s s%d %s %g\n", qid, jg, s, doc(d), fine[d]*float64(s+1))
				}
			}
		}
		// qrels: the iter field a judgment group (qrels_jg, qrels_prefs)
		for g := range 1 + q%3 {
			for _, d := range pool {
				if rng.IntN(6) == 0 {
					continue
				}
				lab := int(worth[d]) - rng.IntN(2)
				lab = max(lab, 0)
				fmt.Fprintf(&graded, "%s %d %s %d\n", qid, g, doc(d), lab)
				if rng.IntN(5) == 0 {
					lab = -1 - rng.IntN(2) // in the pool, not judged
				}
				fmt.Fprintf(&neg, "%s %d %s %d\n", qid, g, doc(d), lab)
			}
		}
	}
	// runs: scores with ties (by docno), and some that tie only as float32
	for q := 0; q <= 9; q++ {
		qid := fmt.Sprintf("p%02d", q)
		for _, d := range rng.Perm(25)[:10+rng.IntN(10)] {
			score := fmt.Sprintf("%.1f", float64(rng.IntN(8))/10)
			if rng.IntN(6) == 0 {
				score = "0.50000001"
			}
			line := fmt.Sprintf("%s Q0 %s 0 %s gen\n", qid, doc(d), score)
			run.WriteString(line)
			if q <= 6 {
				partial.WriteString(line)
			}
		}
	}
	// z-scores of some measures of some queries (-Z): the others are
	// missing (-1000000)
	var z strings.Builder
	for q := 1; q <= 9; q += 2 {
		for _, m := range []string{"prefs_simp", "prefs_num_prefs_poss", "prefs_pair", "map_avgjg", "P_avgjg_5", "Rprec_mult_avgjg_1.00"} {
			fmt.Fprintf(&z, "p%02d %s %.3f %.3f\n", q, m, rng.Float64(), float64(rng.IntN(3))/4)
		}
	}
	comments := func(s string) string {
		lines := strings.SplitAfter(s, "\n")
		var b strings.Builder
		for i, l := range lines {
			if i%7 == 3 && i+1 < len(lines) {
				b.WriteString("# a comment line\n")
			}
			b.WriteString(l)
		}
		return b.String()
	}
	return map[string]string{
		"prefs.txt": prefs.String(), "prefs.comments.txt": comments(prefs.String()),
		"graded.qrels": graded.String(), "graded.comments.qrels": comments(graded.String()), "neg.qrels": neg.String(),
		"run.txt": run.String(), "partial.txt": partial.String(), "zscores.txt": z.String(),
	}
}
