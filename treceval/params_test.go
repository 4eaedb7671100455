package treceval

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestCNumbers: atol and atof read the longest number at the start, 0
// when there is none, as C's do (measure parameters are read so).
func TestCNumbers(t *testing.T) {
	for _, tc := range []struct {
		s    string
		l    int64
		f    float64
		fNaN bool
	}{
		{"10", 10, 10, false},
		{"  -3x", -3, -3, false},
		{"+7", 7, 7, false},
		{"23.4", 23, 23.4, false},
		{".25", 0, 0.25, false},
		{"1e3", 1, 1000, false},
		{"1e", 1, 1, false},
		{"1e+", 1, 1, false},
		{"0x10", 0, 16, false},
		{"0x1.8p1", 0, 3, false},
		{"0x", 0, 0, false},
		{"abc", 0, 0, false},
		{"", 0, 0, false},
		{"-", 0, 0, false},
		{"inf", 0, math.Inf(1), false},
		{"-Infinity", 0, math.Inf(-1), false},
		{"nan", 0, 0, true},
		{"-nan", 0, 0, true},
		{"+NaN", 0, 0, true},
		{"-nan(123)", 0, 0, true},
		{"99999999999999999999", math.MaxInt64, 1e20, false},
		{"-99999999999999999999", math.MinInt64, -1e20, false},
		{"1_000", 1, 1, false},
	} {
		if got := cAtol(tc.s); got != tc.l {
			t.Errorf("atol(%q) = %d, want %d", tc.s, got, tc.l)
		}
		got := cAtof(tc.s)
		if tc.fNaN && !math.IsNaN(got) || !tc.fNaN && got != tc.f {
			t.Errorf("atof(%q) = %v, want %v", tc.s, got, tc.f)
		}
		if minus := strings.HasPrefix(strings.TrimSpace(tc.s), "-"); math.Signbit(got) != minus && got != 0 {
			t.Errorf("atof(%q) = %v: the sign bit is %v", tc.s, got, !minus)
		}
	}
}

// TestParamReaders: trec_eval's four ways of reading a measure's
// parameters, and the names of its values.
func TestParamReaders(t *testing.T) {
	cuts, err := longCutoffs("10,20,23.4,5")
	if err != nil || !slices.Equal(cuts, []int64{5, 10, 20, 23}) {
		t.Errorf("longCutoffs: %v, %v", cuts, err)
	}
	for _, bad := range []string{"0", "5,x", "5,5", "-1,3"} {
		if _, err := longCutoffs(bad); err == nil {
			t.Errorf("longCutoffs(%q) accepted", bad)
		}
	}
	levels, err := doubleCutoffs(".75,.10,1.5")
	if err != nil || !slices.Equal(levels, []float64{0.1, 0.75, 1.5}) {
		t.Errorf("doubleCutoffs: %v, %v", levels, err)
	}
	if _, err := doubleCutoffs(".5,0.50"); err == nil {
		t.Error("doubleCutoffs took a duplicate")
	}
	if xs := doubleParams("2,-1,x,0.5"); !slices.Equal(xs, []float64{2, -1, 0, 0.5}) {
		t.Errorf("doubleParams: %v", xs)
	}
	pairs, err := paramPairs("1=3,2=9,p=0.8")
	if err != nil || !slices.Equal(pairs, []pair{{"1", 3}, {"2", 9}, {"p", 0.8}}) {
		t.Errorf("paramPairs: %v, %v", pairs, err)
	}
	for _, bad := range []string{"1", "1=2,", "1==2", "1=2,,3=4", ",1=2"} {
		if _, err := paramPairs(bad); err == nil {
			t.Errorf("paramPairs(%q) accepted", bad)
		}
	}
	for _, tc := range []struct{ got, want string }{
		{levelName("iprec_at_recall", 0.1), "iprec_at_recall_0.10"},
		{levelName("Rprec_mult", 5), "Rprec_mult_5.00"},
		// trec_eval's buffer holds the name and 9 more bytes
		{levelName("Rprec_mult", 123456), "Rprec_mult_123456.0"},
		{cutName("P", 5), "P_5"},
		{named("ndcg", "1=3,2=9"), "ndcg_1=3,2=9"},
		{named("ndcg", ""), "ndcg"},
	} {
		if tc.got != tc.want {
			t.Errorf("name %q, want %q", tc.got, tc.want)
		}
	}
}

// TestGainTable: 10.0 takes the pairs named by whole numbers, 9.0.8
// every pair at its name's atol.
func TestGainTable(t *testing.T) {
	pairs := []pair{{"1", 3}, {"p", 0.8}, {"-1", 2}, {"+2", 9}, {"2x", 5}}
	if g := gainTable(pairs, "10.0"); len(g) != 3 || g[0].Level != 1 || g[1].Level != -1 || g[2].Level != 2 {
		t.Errorf("10.0: %v", g)
	}
	if g := gainTable(pairs, "9.0.8"); len(g) != 5 || g[1].Level != 0 || g[4].Level != 2 {
		t.Errorf("9.0.8: %v", g)
	}
}

// TestCFormat: printf's %6.4f and (long), C's words for what is not a
// number.
func TestCFormat(t *testing.T) {
	zero := 0.0
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0.03125, "0.0312"}, // the exact binary value rounds half to even
		{0.00005, "0.0001"}, // 0.00005 is a little above, as a double
		{12345.678, "12345.6780"},
		{math.Copysign(0, -1), "-0.0000"},
		{math.Inf(1), "   inf"},
		{math.Inf(-1), "  -inf"},
		{math.NaN(), "   nan"},
		{-math.NaN(), "  -nan"},
		{math.Float64frombits(0xfff8000000000000), "  -nan"}, // 0/0 on amd64
		{math.Float64frombits(invalidNaN), "  -nan"},         // 0/0 on arm64
		{math.Float64frombits(0x7ff8000000000001), "   nan"}, // "nan" read by Go
		{zero / zero, "  -nan"},                              // this machine's 0/0
	} {
		if got := cFixed(tc.v, 4, 6); got != tc.want {
			t.Errorf("%%6.4f of %v = %q, want %q", tc.v, got, tc.want)
		}
	}
	if cLong(2.9) != 2 || cLong(-2.9) != -2 || cLong(math.NaN()) != math.MinInt64 || cLong(1e300) != math.MinInt64 {
		t.Error("(long) of a double")
	}
	if got := string(appendValue(nil, true, "num_q", "all", 3, true)); got != "Znum_q                 \tall\t3.0000\n" {
		t.Errorf("a count under -Z: %q", got)
	}
	if got := string(appendValue(nil, false, "num_q", "all", 3, true)); got != "num_q                 \tall\t3\n" {
		t.Errorf("a count: %q", got)
	}
}

// TestDoubleCutoffsNaN: real cutoffs sort as trec_eval's qsort (glibc's
// merge sort) sorts them by comp_double, to which a NaN equals everything:
// the NaN stays where that sort leaves it (trec_eval -m
// iprec_at_recall.0.25,nan prints the 0.25 line first), not first.
func TestDoubleCutoffsNaN(t *testing.T) {
	for _, tc := range []struct {
		param string
		want  []string
	}{
		{"0.25,nan", []string{"0.25", "NaN"}},
		{"nan,0.25", []string{"NaN", "0.25"}},
		{"0.5,nan,0.25", []string{"0.5", "NaN", "0.25"}},
		{"0.3,nan,0.1,nan,0.2", []string{"0.1", "0.3", "NaN", "NaN", "0.2"}}, // as trec_eval prints them
		{"0.3,0.1,0.2", []string{"0.1", "0.2", "0.3"}},
	} {
		t.Run(tc.param, func(t *testing.T) {
			cuts, err := doubleCutoffs(tc.param)
			var got []string
			for _, x := range cuts {
				got = append(got, strconv.FormatFloat(x, 'g', -1, 64))
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Fatalf("doubleCutoffs(%q) = %v, %v; want %v", tc.param, got, err, tc.want)
			}
		})
	}
}

// TestWalkableCutoffs: among several real cutoffs, one trec_eval's walk
// never meets (NaN, infinite, or x·R past a long) is refused, since
// trec_eval then prints another cutoff's values for the ones before it
// (Rprec_mult.1e300,0.2: 0.0000 for Rprec_mult_0.20 on quicktest's 301,
// where its value is 0.2211); alone it is evaluated.
func TestWalkableCutoffs(t *testing.T) {
	for _, tc := range []struct {
		m       string
		param   string
		refused bool
	}{
		{"iprec_at_recall", "0.25,nan", true},
		{"iprec_at_recall", "1e300,0.2", true},
		{"Rprec_mult", "inf,0.2", true},
		{"Rprec_mult", "0.2,-1e19", true},
		{"Rprec_mult_avgjg", "0.2,4294967296", true},
		{"Rprec_mult", "0.2,4294967295", false},
		{"iprec_at_recall", "nan", false},
		{"Rprec_mult", "1e300", false},
		{"iprec_at_recall", "0.1,0.5,1.5,-1", false},
	} {
		t.Run(tc.m+"."+tc.param, func(t *testing.T) {
			_, err := lookup(tc.m, "10.0").init(nil, tc.param)
			if refused := err != nil && strings.Contains(err.Error(), "among others"); refused != tc.refused {
				t.Fatalf("init(%q): %v, want refused %v", tc.param, err, tc.refused)
			}
		})
	}
}
