package treceval

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/reader"
	"github.com/rankeval/rankeval/reader/trec"
)

// prefsOf reads a prefs file of the given text (-R format, release).
func prefsOf(t testing.TB, text, format, release string) (*trec.Prefs, error) {
	p := filepath.Join(t.TempDir(), "prefs")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return trec.ReadPrefs(p, format, release, release != "9.0.8")
}

// TestPrefsMeasures: the measures of small cases worked out by hand from
// trec_eval's definitions (form_prefs_counts.c, m_prefs_*.c).
func TestPrefsMeasures(t *testing.T) {
	third := 1.0 / 3
	tests := []struct {
		name, prefs string
		ranked      []string
		want        map[string]float64
	}{
		{
			// A>B unfulfilled among the retrieved (B ranks first), A>C and
			// B>C fulfilled by implication (C not retrieved)
			name:   "classes",
			prefs:  "q u s A 2\nq u s B 1\nq u s C 0\n",
			ranked: []string{"B", "X", "A"},
			want: map[string]float64{"prefs_num_prefs_poss": 3, "prefs_num_prefs_ful": 2, "prefs_num_prefs_ful_ret": 0,
				"prefs_simp": 2 * third, "prefs_simp_ret": 0, "prefs_simp_imp": 2 * third, "prefs_avgjg": 2 * third,
				"prefs_pair": 2 * third, "prefs_pair_ret": 0, "prefs_pair_imp": 2 * third},
		},
		{
			// A>B (s0) and B>C (s1) imply A>C; all retrieved, in order
			name:   "transitive",
			prefs:  "q u s0 A 2\nq u s0 B 1\nq u s1 B 5\nq u s1 C 4\n",
			ranked: []string{"A", "B", "C"},
			want:   map[string]float64{"prefs_num_prefs_poss": 3, "prefs_num_prefs_ful_ret": 3, "prefs_simp": 1, "prefs_simp_ret": 1},
		},
		{
			name:   "transitive reversed",
			prefs:  "q u s0 A 2\nq u s0 B 1\nq u s1 B 5\nq u s1 C 4\n",
			ranked: []string{"C", "B", "A"},
			want:   map[string]float64{"prefs_num_prefs_poss": 3, "prefs_num_prefs_ful": 0, "prefs_simp": 0},
		},
		{
			// two users disagree: the pair counts half, each group fully
			// or not at all
			name:   "conflict",
			prefs:  "q u1 s A 1\nq u1 s B 0\nq u2 s A 0\nq u2 s B 1\n",
			ranked: []string{"A", "B"},
			want:   map[string]float64{"prefs_num_prefs_poss": 2, "prefs_num_prefs_ful": 1, "prefs_simp": 0.5, "prefs_pair": 0.5, "prefs_avgjg": 0.5},
		},
		{
			// neither document retrieved: possible, not fulfilled; _imp
			// leaves it out
			name:   "not retrieved",
			prefs:  "q u s A 1\nq u s B 0\n",
			ranked: []string{"X"},
			want:   map[string]float64{"prefs_num_prefs_poss": 1, "prefs_simp": 0, "prefs_simp_imp": 0, "prefs_pair": 0, "prefs_pair_imp": 0},
		},
		{
			// R = 1 relevant, N = 3 not: only the first non-relevant by
			// docid rank (D) stays. A ranks above D: fulfilled; the
			// non-relevant class against D (D-D, B-D, C-D): possible; 1/4
			name:   "Rnonrel recount",
			prefs:  "q u s A 1\nq u s B 0\nq u s C 0\nq u s D 0\n",
			ranked: []string{"A", "D", "B"},
			want:   map[string]float64{"prefs_avgjg_Rnonrel": 0.25, "prefs_simp": 1, "prefs_num_prefs_ful_ret": 2},
		},
		{
			// R = 2 > N = 1: R·(R-N) = 2 preferences added, fulfilled for
			// the relevant retrieved (one: A): (1 + 1) / (2 + 2)
			name:   "Rnonrel padded",
			prefs:  "q u s A 1\nq u s B 1\nq u s C 0\n",
			ranked: []string{"A", "C"},
			want:   map[string]float64{"prefs_avgjg_Rnonrel": 0.5, "prefs_num_prefs_ful": 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := prefsOf(t, tc.prefs, "prefs", "10.0")
			if err != nil {
				t.Fatal(err)
			}
			var q queryPrefs
			if err := q.form(f, "q", f.ByQuery["q"], tc.ranked, prefsNeed{pairs: true, rn: true, rnRet: true}); err != nil {
				t.Fatal(err)
			}
			for name, want := range tc.want {
				if got := prefsCalcs[name].value(&q); got != want {
					t.Errorf("%s = %v, want %v", name, got, want)
				}
			}
		})
	}
}

// TestPrefsErrors: judgments trec_eval cannot evaluate, and bad lines,
// are errors naming the file and line.
func TestPrefsErrors(t *testing.T) {
	tests := []struct {
		name, prefs, format, release string
		read                         bool // the reader refuses it; else forming does
		want                         string
		is                           error
	}{
		{"two levels in one sub-group", "q u s A 2\nq u s B 1\nq u s A 1\n", "prefs", "10.0", false, "prefs:3: document \"A\" has rel_level 1 here and 2 at line 1", ErrJudgments},
		{"zero and above", "q u s0 A 2\nq u s0 B 1\nq u s1 A 0\nq u s1 C 1\n", "prefs", "10.0", false, "prefs:3: document \"A\" has rel_level 0 here and 2", ErrJudgments},
		{"cycle", "q u s0 A 2\nq u s0 B 1\nq u s1 B 2\nq u s1 A 1\n", "prefs", "10.0", false, "prefers \"A\" to \"B\" and \"B\" to \"A\"", ErrJudgments},
		{"fields", "q u s A\n", "prefs", "10.0", true, "prefs:1: a -R prefs line has 5 fields", reader.ErrSyntax},
		{"qrels_prefs fields", "q 0 A 1 x\n", "qrels_prefs", "10.0", true, "prefs:1: a -R qrels_prefs line has 4 fields", reader.ErrSyntax},
		{"level", "q u s A high\n", "prefs", "10.0", true, "prefs:1: rel_level \"high\" is not a number", reader.ErrValue},
		{"infinite level", "q u s A 1e999\n", "prefs", "10.0", true, "is not a number", reader.ErrValue},
		{"float32 range", "q u s A 1e39\n", "prefs", "9.0.8", true, "32-bit floats", reader.ErrValue},
		{"comment under 9.0.8", "# judged by hand\nq u s A 1\n", "prefs", "9.0.8", true, "prefs:1: a -R prefs line has 5 fields", reader.ErrSyntax},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := prefsOf(t, tc.prefs, tc.format, tc.release)
			if !tc.read {
				if err != nil {
					t.Fatal(err)
				}
				var q queryPrefs
				err = q.form(f, "q", f.ByQuery["q"], []string{"A", "B"}, prefsNeed{pairs: true})
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, tc.is) {
				t.Fatalf("err %v, want %q wrapping %v", err, tc.want, tc.is)
			}
		})
	}
}

// TestPrefsFloat32Levels: 9.0.8 keeps rel_levels as 32-bit floats, so
// two levels that differ beyond float32 precision are one class (no
// preference between them); 10.0 keeps doubles.
func TestPrefsFloat32Levels(t *testing.T) {
	for release, want := range map[string]float64{"9.0.8": 0, "10.0": 1} {
		f, err := prefsOf(t, "q u s A 2.0000000001\nq u s B 2\n", "prefs", release)
		if err != nil {
			t.Fatal(err)
		}
		var q queryPrefs
		if err := q.form(f, "q", f.ByQuery["q"], []string{"A", "B"}, prefsNeed{}); err != nil {
			t.Fatal(err)
		}
		if got := prefsCalcs["prefs_num_prefs_poss"].value(&q); got != want {
			t.Errorf("%s: %v preferences, want %v", release, got, want)
		}
	}
}

// FuzzPrefs reads any bytes as a prefs and a qrels_prefs file, under both
// releases, and forms every query against a fixed ranking: an error or
// values, never a panic; ratios within [0, 1], counts whole and ordered.
func FuzzPrefs(f *testing.F) {
	f.Add([]byte("q u s A 2\nq u s B 1\nq u s C 0\n"))
	f.Add([]byte("q u s0 A 2\nq u s0 B 1\nq u s1 B 5\nq u s1 C 4\nq v s A 0\nq v s C 1\n"))
	f.Add([]byte("q 0 A 1\nq 0 B 0\nq 1 B 2\nr 0 A -1\n"))
	f.Add([]byte("# c\nq u s A 1e300\n\nq u s B -0\n"))
	ranked := []string{"C", "A", "X", "B", "D"}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range []string{"prefs", "qrels_prefs"} {
			for _, release := range []string{"9.0.8", "10.0"} {
				pf, err := prefsOf(t, string(data), format, release)
				if err != nil {
					continue
				}
				var q queryPrefs
				for _, qid := range sortedKeys(pf.ByQuery) {
					if err := q.form(pf, qid, pf.ByQuery[qid], ranked, prefsNeed{pairs: true, rn: true, rnRet: true}); err != nil {
						if !errors.Is(err, ErrJudgments) {
							t.Fatalf("%s: %v", qid, err)
						}
						continue
					}
					for name, m := range prefsCalcs {
						v, count := m.value(&q), strings.HasPrefix(name, "prefs_num_")
						if math.IsNaN(v) || v < 0 || !count && v > 1 || count && v != math.Trunc(v) {
							t.Fatalf("%s %s: %s = %v", format, qid, name, v)
						}
					}
					poss, ful := prefsCalcs["prefs_num_prefs_poss"].value(&q), prefsCalcs["prefs_num_prefs_ful"].value(&q)
					if ful > poss || prefsCalcs["prefs_num_prefs_ful_ret"].value(&q) > ful {
						t.Fatalf("%s %s: fulfilled %v of %v possible", format, qid, ful, poss)
					}
				}
			}
		}
	})
}

// TestPrefsCalcs: each prefs measure of the table has its computation,
// and each computation a measure.
func TestPrefsCalcs(t *testing.T) {
	n := 0
	for _, m := range table {
		if m.Shape != metrics.TrecPrefs {
			continue
		}
		n++
		if _, ok := prefsCalcs[m.Name]; !ok {
			t.Errorf("%s: no computation", m.Name)
		}
	}
	if n != len(prefsCalcs) {
		t.Errorf("%d prefs measures, %d computations", n, len(prefsCalcs))
	}
}
