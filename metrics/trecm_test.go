package metrics

import (
	"fmt"
	"math"
	"testing"
)

// TestTrecMeasures checks docs/metrics.md §7's measures on a list worked by hand:
// five rows ranked by score, judged relevant, judged non-relevant,
// unjudged, relevant, and a negative judgment (kept as -0.0); the query
// has 3 relevant and 2 judged non-relevant documents besides.
func TestTrecMeasures(t *testing.T) {
	neg := math.Copysign(0, -1)
	l := List{
		Score:  []float64{5, 4, 3, 2, 1},
		Label:  []float64{1, 0, 0, 1, neg},
		Status: []Judgment{Judged, Judged, Unjudged, Judged, JudgedOut},
		Judged: []float64{1, 0, 1, 0, neg, 1},
	}
	// ap = (1/1 + 2/4) / 3 = 0.5
	tests := []struct {
		name string
		o    func(*Options)
		want float64
	}{
		{"num_q", nil, 1},
		{"num_ret", nil, 5},
		{"num_rel", nil, 3},
		{"num_rel_ret", nil, 2},
		// rank 1: +1; rank 4: one judged non-relevant above, J = 2 (the
		// negative judgment is not one): 1 - 1/2; over R = 3
		{"bpref", nil, 0.5},
		{"gm_map", nil, math.Log(0.5)},
		// precision: 1, 1/2, 1/3, 1/2, 2/5; level x needs ⌊3x + 0.9⌋
		// relevant rows: 0 and 1 from rank 1 (best below: 1), 2 from rank
		// 4 (1/2), 3 never
		{"iprec@0", nil, 1},
		{"iprec@0.3", nil, 1},
		{"iprec_at_recall_0.50", nil, 0.5},
		{"iprec@1", nil, 0},
		{"judged@3", nil, 2.0 / 3},
		{"judged@5", nil, 4.0 / 5}, // a negative judgment is a judgment
		{"judged@10", nil, 4.0 / 5},
		{"num_ret", func(o *Options) { o.MaxRanked = 2 }, 2},
		{"num_rel_ret", func(o *Options) { o.MaxRanked = 2 }, 1},
		{"num_ret", func(o *Options) { o.JudgedOnly = true }, 3},
		// -J: ranks 1, 2, 3 are rel, non-rel, rel: 1 + (1 - 1/2), over 3
		{"bpref", func(o *Options) { o.JudgedOnly = true }, 0.5},
		{"p@3", func(o *Options) { o.JudgedOnly = true }, 2.0 / 3},
		// -M 3 then -J: rel, non-rel
		{"num_ret", func(o *Options) { o.MaxRanked = 3; o.JudgedOnly = true }, 2},
		// x·R = 1.2: 9.0.8 needs ⌊2.1⌋ = 2 relevant rows (best from rank
		// 4: 1/2), 10.0 round(1.2) = 1 (rank 1: 1)
		{"iprec@0.4", nil, 0.5},
		{"iprec@0.4", func(o *Options) { o.IPrecRound = true }, 1},
		{"iprec@0.5", func(o *Options) { o.IPrecRound = true }, 0.5}, // round(1.5) = 2
		// iprec at 0, 0.1, ..., 1: 9.0.8's cuts 0,1,1,1,2,2,2,2 (0.7·3 + 0.9
		// is 2.9999…),3,3,3 give four 1s and four .5s; 10.0's
		// 0,0,1,1,1,2,2,2,2,3,3 give five 1s and four .5s
		{"11pt_avg", nil, 6.0 / 11},
		{"11pt_avg", func(o *Options) { o.IPrecRound = true }, 7.0 / 11},
		// the set measures: 2 relevant of n = 5 rows, R = 3
		{"set_p", nil, 2.0 / 5},
		{"set_P", nil, 2.0 / 5},
		{"set_relative_p", nil, 2.0 / 3},
		{"set_recall", nil, 2.0 / 3},
		{"set_map", nil, 4.0 / 15},
		{"set_F", nil, 2 * 0.4 * (2.0 / 3) / (0.4 + 2.0/3)},
		// judged non-relevant: rank 2 only (not the unjudged row, not the
		// negative judgment)
		{"num_nonrel_judged_ret", nil, 1},
		{"set_p", func(o *Options) { o.MaxRanked = 2 }, 1.0 / 2},
		{"set_relative_p", func(o *Options) { o.MaxRanked = 2 }, 1.0 / 2},
		{"num_nonrel_judged_ret", func(o *Options) { o.MaxRanked = 1 }, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Parse(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			o := DefaultOptions()
			o.Ties, o.Empty = TiesTrec, EmptyZero
			if tc.o != nil {
				tc.o(&o)
			}
			l.Doc = [][]byte{[]byte("a"), []byte("b"), []byte("c"), []byte("d"), []byte("e")}
			out := []float64{0}
			NewEvaluator([]Metric{m}, o).Eval(&l, out)
			if math.Abs(out[0]-tc.want) > 1e-15 {
				t.Fatalf("%s = %v, want %v", tc.name, out[0], tc.want)
			}
		})
	}
}

// TestTrecMeasuresEmpty: the counts and judged@k are defined for a query
// with no relevant document; bpref follows the empty-query policy, and
// gm_map takes the logarithm of its floor under --empty zero.
func TestTrecMeasuresEmpty(t *testing.T) {
	l := List{Score: []float64{2, 1}, Label: []float64{0, 0}}
	for _, c := range []struct {
		name  string
		empty Empty
		want  float64
	}{
		{"num_ret", EmptySkip, 2}, {"num_q", EmptySkip, 1}, {"judged@1", EmptySkip, 1},
		{"bpref", EmptySkip, math.NaN()}, {"bpref", EmptyZero, 0},
		{"gm_map", EmptyZero, math.Log(gmFloor)}, {"gm_map", EmptyOne, 0},
	} {
		m, _ := Parse(c.name)
		o := DefaultOptions()
		o.Empty = c.empty
		out := []float64{-1}
		NewEvaluator([]Metric{m}, o).Eval(&l, out)
		if !(out[0] == c.want || math.IsNaN(out[0]) && math.IsNaN(c.want)) {
			t.Errorf("%s under %s = %v, want %v", c.name, c.empty, out[0], c.want)
		}
		if math.IsNaN(c.want) && m.Missing() != 0 {
			t.Errorf("%s: Missing() = %v", c.name, m.Missing())
		}
	}
}

// TestParseListTrecForms: trec_eval's name.k1,k2 and a repeated cutoff
// list give one metric per cutoff.
func TestParseListTrecForms(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"P.5,10", "p.5 p.10"},
		{"ndcg_cut.5,10,map", "ndcg_cut.5 ndcg_cut.10 map"},
		{"ndcg@5,10", "ndcg@5 ndcg@10"},
		{"P_5,10", "p_5 p_10"},
		{"iprec@0.2,0.5", "iprec@0.2 iprec@0.5"},
	} {
		ms, err := ParseList(c.in)
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		var got string
		for i, m := range ms {
			if i > 0 {
				got += " "
			}
			got += m.Name
		}
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.in, got, c.want)
		}
	}
	for _, bad := range []string{"10,map", "map,10", "P.5,5"} {
		if _, err := ParseList(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// TestTrecHugeLevel: a judgment past int64's range is a relevant level,
// counted in R, not a negative index.
func TestTrecHugeLevel(t *testing.T) {
	l := List{Score: []float64{2, 1}, Label: []float64{1e300, 1}, Status: []Judgment{Judged, Judged}, Judged: []float64{1e300, 1}}
	ms := []Metric{{Name: "Rprec_mult_1.00", Kind: KindRprecMult, Level: 1}, {Name: "infAP", Kind: KindInfAP}}
	vals := make([]float64, len(ms))
	NewEvaluator(ms, Options{NoEmpty: true}).Eval(&l, vals)
	if vals[0] != 1 || !(vals[1] > 0.99 && vals[1] <= 1) {
		t.Fatalf("Rprec_mult_1.00 %v, infAP %v; want 1, and about 1", vals[0], vals[1])
	}
}

// TestTrecHugeLevelGains: a judgment past int64's range (level MaxInt64,
// as Atol reads "9223372036854775807") is looked up in a measure's gain
// table, gaining its level, 2^63, although offset by the codes' two slots
// it wraps below 0 (no index into the table's dense part). Here it is
// ranked second, below a document judged 1: the ideal ranks it first.
func TestTrecHugeLevelGains(t *testing.T) {
	l := List{Score: []float64{2, 1}, Label: []float64{1, 1e300}, Status: []Judgment{Judged, Judged}, Judged: []float64{1, 1e300}}
	const huge = 1 << 63
	d2 := math.Log2(3) // trec_eval's discount at rank 2
	for _, tc := range []struct {
		name string
		m    Metric
		want float64
	}{
		{"dcg", Metric{Kind: KindGainDCG}, 1 + huge/d2},
		{"ideal dcg", Metric{Kind: KindGainIDCG}, huge + 1/d2},
		{"ndcg", Metric{Kind: KindGainNDCG}, (1 + huge/d2) / (huge + 1/d2)},
		// the relevant rows' ndcg so far: 1/2^63 at rank 1, ndcg at rank 2
		{"ndcg_rel", Metric{Kind: KindNDCGRel}, (1/(huge+1/d2) + (1+huge/d2)/(huge+1/d2)) / 2},
		// rbp scales the gains to [0, 1]: level 1 is (1-0)/(2^63-0), 2^63 is 1
		{"rbp", Metric{Kind: KindRBP, Beta: 0.5}, 0.5 * (1.0/huge + 0.5)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := Options{NoEmpty: true, HasThreshold: true, RelThreshold: 1}
			out := []float64{0}
			NewEvaluator([]Metric{tc.m}, o).Eval(&l, out)
			if out[0] != tc.want {
				t.Fatalf("%v, want %v", out[0], tc.want)
			}
		})
	}
}

// TestIPrecBelowZero: a recall level below 0 (iprec_at_recall.-0.5, which
// trec_eval takes) needs no relevant row or fewer, as level 0 does: its
// value is the best precision of the whole ranking, or 0/0 with nothing
// ranked, as trec_eval's loop leaves every cut it has not reached.
func TestIPrecBelowZero(t *testing.T) {
	l := List{
		Score:  []float64{3, 2, 1},
		Label:  []float64{0, 1, 1},
		Status: []Judgment{Judged, Judged, Judged},
		Judged: []float64{0, 1, 1, 1},
		Doc:    [][]byte{[]byte("a"), []byte("b"), []byte("c")},
	}
	tests := []struct {
		name  string
		level float64
		round bool
		l     List
		want  float64
	}{
		// precision 0, 1/2, 2/3: the best is 2/3
		{"9.0.8 -0.5", -0.5, false, l, 2.0 / 3}, // (long)(-1.5 + 0.9) = 0
		{"9.0.8 -2", -2, false, l, 2.0 / 3},     // (long)(-5.1) = -5
		{"10.0 -0.5", -0.5, true, l, 2.0 / 3},   // lround(-1.5) = -2
		{"10.0 -2", -2, true, l, 2.0 / 3},
		{"10.0 0", 0, true, l, 2.0 / 3},
		{"nothing ranked", -2, true, List{Judged: []float64{1}}, math.NaN()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := DefaultOptions()
			o.Ties, o.Empty, o.IPrecRound = TiesTrec, EmptyZero, tc.round
			out := []float64{0}
			NewEvaluator([]Metric{{Kind: KindIPrec, Level: tc.level}}, o).Eval(&tc.l, out)
			if !(out[0] == tc.want || math.IsNaN(out[0]) && math.IsNaN(tc.want)) {
				t.Fatalf("iprec at %v = %v, want %v", tc.level, out[0], tc.want)
			}
		})
	}
}

// TestCutsOutOfRange: a recall level or Rprec_mult whose cut x·R is past
// int64's range or NaN (iprec_at_recall.1e300, Rprec_mult.inf, which
// trec_eval takes) cuts where trec_eval's (long) and lround put it on
// amd64, the least int64, on every machine: iprec is the best precision of
// the ranking (the cut of recall 0), Rprec_mult 0. A saturating
// conversion (arm64's) put the cut past every row, iprec 0 and Rprec_mult
// R/2^63.
func TestCutsOutOfRange(t *testing.T) {
	l := List{
		Score:  []float64{3, 2, 1},
		Label:  []float64{0, 1, 1},
		Status: []Judgment{Judged, Judged, Judged},
		Judged: []float64{0, 1, 1, 1},
		Doc:    [][]byte{[]byte("a"), []byte("b"), []byte("c")},
	}
	for _, x := range []float64{1e300, math.Inf(1), math.Inf(-1), math.NaN(), 1e19, -1e19} {
		for _, round := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v round %v", x, round), func(t *testing.T) {
				if got := IPrecRels(x, 2, round); got != math.MinInt64 {
					t.Fatalf("IPrecRels(%v, 2) = %d, want %d", x, got, math.MinInt64)
				}
				o := DefaultOptions()
				o.Ties, o.Empty, o.IPrecRound = TiesTrec, EmptyZero, round
				o.HasThreshold, o.RelThreshold = true, 1
				out := []float64{0, 0}
				NewEvaluator([]Metric{{Kind: KindIPrec, Level: x}, {Kind: KindRprecMult, Level: x}}, o).Eval(&l, out)
				if out[0] != 2.0/3 || out[1] != 0 {
					t.Fatalf("iprec, Rprec_mult at %v = %v, %v; want %v, 0", x, out[0], out[1], 2.0/3)
				}
			})
		}
	}
}
