package treceval

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/reader"
)

// jgOf readies the qrels_jg family of the given text for the measures of
// args (-m ...), under release.
func jgOf(t testing.TB, text, release string, args ...string) (*relFamily, *selection, error) {
	p := filepath.Join(t.TempDir(), "qrels_jg")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	a := &trecEvalArgs{qrels: p, relFormat: "qrels_jg", release: release, level: 1}
	sel, err := selectMeasures(args, release)
	if err != nil {
		t.Fatal(err)
	}
	s, err := settings(a, sel)
	if err != nil {
		t.Fatal(err)
	}
	fam, err := jgFamily(a, sel, s)
	return fam, sel, err
}

// TestJGMeasures: map_avgjg, P_avgjg and Rprec_mult_avgjg worked out by
// hand: the groups' values summed in the groups' order and, when there
// are several, divided by their number.
func TestJGMeasures(t *testing.T) {
	// ranking a b c d; group 1 judges a and c relevant (AP (1 + 2/3)/2),
	// group 2 only d, and b non-relevant (AP 1/4 / 1); group 3 nothing
	// relevant (AP 0)
	text := "q 1 a 1\nq 1 c 2\nq 2 d 1\nq 2 b 0\nq 3 a 0\n"
	fam, sel, err := jgOf(t, text, "10.0", "map_avgjg", "P_avgjg.2,4", "Rprec_mult_avgjg.1,2")
	if err != nil {
		t.Fatal(err)
	}
	vals := make([]float64, len(sel.metrics))
	docs := [][]byte{[]byte("a"), []byte("b"), []byte("c"), []byte("d")}
	if err := fam.eval("q", docs, []float64{4, 3, 2, 1}, vals); err != nil {
		t.Fatal(err)
	}
	want := []float64{
		((1.0+2.0/3)/2 + 0.25 + 0) / 3, // map
		(1.0/2 + 0 + 0) / 3,            // P_2
		(2.0/4 + 1.0/4 + 0) / 3,        // P_4
		// Rprec_mult at ⌊x·R + 0.9⌋ documents, read from the ranking's end
		// back to its first relevant document only (m_Rprec_mult.c):
		// group 2's is d, at 4, so its cuts 1 and 2 stay 0
		(1.0/2 + 0 + 0) / 3, // x = 1: 2, 1 and 0 documents
		(2.0/4 + 0 + 0) / 3, // x = 2: 4, 2 and 0
	}
	for i, w := range want {
		if math.Abs(vals[i]-w) > 1e-15 {
			t.Errorf("%s = %v, want %v", sel.metrics[i].Name, vals[i], w)
		}
	}
	if got := fam.judged.IDs(); len(got) != 1 || got[0] != "q" {
		t.Errorf("queries %v", got)
	}
}

// TestJGErrors: a bad qrels_jg line names its file and line.
func TestJGErrors(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"fields", "q 1 a\n", "qrels_jg:1: a -R qrels_jg line has 4 fields"},
		// a label reads as atol reads it ("x" is 0); one past maxLevel is refused
		{"label", "q 1 a 1\nq 1 b 2000000\n", "qrels_jg:2: judgment 2000000 is above 1048576"},
		{"twice in a group", "q 1 a 1\nq 2 a 0\nq 1 a 0\n", "qrels_jg:3: docno \"a\" judged twice for query \"q\" in judgment group \"1\" (first at line 1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := jgOf(t, tc.text, "10.0", "qrels_jg")
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, reader.ErrSyntax) && !errors.Is(err, reader.ErrValue) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
}

// FuzzJG reads any bytes as a qrels_jg file and evaluates every query
// against a fixed ranking: an error or values within [0, 1], never a
// panic.
func FuzzJG(f *testing.F) {
	f.Add([]byte("q 1 a 1\nq 1 c 2\nq 2 d 1\nq 2 b 0\nq 3 a -1\n"))
	f.Add([]byte("# c\nq 0 a 3\n\nr x b 1e300\n"))
	docs := [][]byte{[]byte("a"), []byte("b"), []byte("c"), []byte("d"), []byte("e")}
	scores := []float64{1, 3, 3, 0.5, -2}
	f.Fuzz(func(t *testing.T, data []byte) {
		fam, sel, err := jgOf(t, string(data), "10.0", "qrels_jg")
		if err != nil {
			return
		}
		vals := make([]float64, len(sel.metrics))
		for _, q := range fam.judged.IDs() {
			if err := fam.eval(q, docs, scores, vals); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			for i, v := range vals {
				if !(v >= 0 && v <= 1) {
					t.Fatalf("%s: %s = %v", q, sel.metrics[i].Name, v)
				}
			}
		}
	})
}
