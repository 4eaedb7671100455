package treceval_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/internal/vectors"
)

// quicktest is one command line of the quicktest target of trec_eval's
// Makefile: its arguments as the Makefile gives them (files under test/),
// the recorded output it is compared with, and the releases whose output
// rankeval trec_eval reproduces yet. Where it does not, it must fail (a
// usage error for a measure or option it lacks, an input error for a
// comment line) and print nothing: never a wrong number with exit 0.
type quicktest struct {
	args, out string
	passes    []string
}

// quicktests is the 10.0 suite (commit f425365), in the Makefile's order;
// 9.0.8's (tag v9.0.8) is the same less the lines reading files with
// comments, which 10.0 added (quicktestsOf).
var quicktests = []quicktest{
	{"test/qrels.test test/results.test", "out.test", []string{"10.0", "9.0.8"}},
	{"test/qrels.test.with-comments test/results.test", "out.test", []string{"10.0"}},
	{"test/qrels.comment.test test/results.comment.test", "out.comment.test", []string{"10.0"}},
	{"-m all_trec test/qrels.test test/results.test", "out.test.a", []string{"10.0", "9.0.8"}},
	{"-m all_trec -q test/qrels.test test/results.test", "out.test.aq", []string{"10.0", "9.0.8"}},
	{"-m all_trec -q -c test/qrels.test test/results.trunc", "out.test.aqc", []string{"10.0", "9.0.8"}},
	{"-m all_trec -q -c -M100 test/qrels.test test/results.trunc", "out.test.aqcM", []string{"10.0", "9.0.8"}},
	{"-m all_trec -mrelstring.20 -q -l2 test/qrels.rel_level test/results.test", "out.test.aql", []string{"10.0", "9.0.8"}},
	{"-m all_prefs -q -R prefs test/prefs.test test/prefs.results.test", "out.test.prefs", []string{"10.0", "9.0.8"}},
	{"-m all_prefs -q -R prefs test/prefs.comment.test test/prefs.results.test", "out.test.prefs", []string{"10.0"}},
	{"-m all_prefs -q -R qrels_prefs test/qrels.test test/results.test", "out.test.qrels_prefs", []string{"10.0", "9.0.8"}},
	{"-m qrels_jg -q -R qrels_jg  test/qrels.123 test/results.test", "out.test.qrels_jg", []string{"10.0", "9.0.8"}},
	{"-m qrels_jg -q -R qrels_jg  test/qrels.comments.123 test/results.test", "out.test.qrels_jg", []string{"10.0"}},
	{"-q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 -m Rprec_mult.5.0,0.2,0.35 -mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 -mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 -msuccess.2,5,20 test/qrels.test test/results.test", "out.test.meas_params", []string{"10.0", "9.0.8"}},
	{"-q -m all_trec -Z test/zscores_file test/qrels.test test/results.test", "out.test.aqZ", []string{"10.0", "9.0.8"}},
}

// quicktestsOf is the suite of a release.
func quicktestsOf(release string) []quicktest {
	if release == "10.0" {
		return quicktests
	}
	return slices.DeleteFunc(slices.Clone(quicktests), func(q quicktest) bool { return strings.Contains(q.args, "comment") })
}

// TestTrecEvalQuicktest runs trec_eval's own suites (testdata/trec_eval/
// quicktest, README there) through rankeval trec_eval --release R and
// compares with the outputs each release ships, byte for byte.
func TestTrecEvalQuicktest(t *testing.T) {
	dir := filepath.Join("..", "testdata", "trec_eval", "quicktest")
	// test/NAME is the Makefile's; here a large input is NAME.zst, and
	// zscores_file is each release's own
	file := func(release, name string) string {
		if name == "zscores_file" {
			return filepath.Join(dir, release, name)
		}
		if _, err := os.Stat(filepath.Join(dir, name+".zst")); err == nil {
			return filepath.Join(dir, name+".zst")
		}
		return filepath.Join(dir, name)
	}
	for _, release := range []string{"10.0", "9.0.8"} {
		suite := quicktestsOf(release)
		passed := 0
		t.Run(release, func(t *testing.T) {
			for i, q := range suite {
				t.Run(q.out+"#"+string(rune('a'+i)), func(t *testing.T) {
					args := []string{"trec_eval", "--release", release}
					for _, a := range strings.Fields(q.args) {
						if name, ok := strings.CutPrefix(a, "test/"); ok {
							a = file(release, name)
						}
						args = append(args, a)
					}
					want, err := os.ReadFile(filepath.Join(dir, release, q.out))
					if err != nil {
						t.Fatal(err)
					}
					code, out, stderr := cli(t, args...)
					if !slices.Contains(q.passes, release) {
						if code == 0 || out != "" {
							t.Fatalf("not reproduced yet, so it must fail: exit %d, %d bytes out, stderr %q", code, len(out), stderr)
						}
						return
					}
					if code != 0 {
						t.Fatalf("exit %d: %s", code, stderr)
					}
					if out != string(want) {
						t.Fatalf("differs from trec_eval %s's %s:\n%s", release, q.out, vectors.FirstDiff(string(want), out))
					}
					passed++
				})
			}
		})
		t.Logf("trec_eval %s quicktest: %d of %d command lines byte for byte", release, passed, len(suite))
	}
}
