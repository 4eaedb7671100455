package metrics

import (
	"math"
	"testing"
)

// TestTrecOwnMeasures checks trec_eval's measures of trecrels.go and
// trecgain.go on a ranking worked by hand: six rows judged 2, unjudged,
// 0, negatively (-0.0), 1 and 0; the qrels judge two more documents, at 1
// and 3. Under -l 1: R = 4 (levels 1, 1, 2, 3), relevant rows at ranks 1
// and 5.
func TestTrecOwnMeasures(t *testing.T) {
	neg := math.Copysign(0, -1)
	l := List{
		Score:  []float64{6, 5, 4, 3, 2, 1},
		Label:  []float64{2, 0, 0, neg, 1, 0},
		Status: []Judgment{Judged, Unjudged, Judged, JudgedOut, Judged, Judged},
		Judged: []float64{2, 0, neg, 1, 0, 1, 3},
	}
	log2 := math.Log2
	ndcgGains := (2 + 1/log2(6)) / (10 + 2/log2(3) + 1/log2(4) + 1/log2(5))
	for _, tc := range []struct {
		name string
		m    Metric
		want float64
	}{
		// rank 1: 1; rank 5 (j = 4, r = 2, n = 1, u = 1 above it):
		// 1/5 + (4/5)·(3/4)·((1+ε)/(2+2ε)) = 0.5; over R
		{"infAP", Metric{Kind: KindInfAP}, 1.5 / 4},
		{"binG", Metric{Kind: KindBinG}, (1 + 1/log2(5)) / 4},
		// S = 1/1 + 2/5
		{"yaap", Metric{Kind: KindYaap}, math.Log((1 + 1.4) / (1 + 4 - 1.4))},
		{"unj_3", Metric{Kind: KindUnj, K: 3}, 1.0 / 3},
		{"unj_5", Metric{Kind: KindUnj, K: 5}, 2.0 / 5},
		{"unj_10", Metric{Kind: KindUnj, K: 10}, 2.0 / 10},
		// unjudged at ranks 2 and 4: p^6 + (1-p)(p + p^3)
		{"rbp_resid", Metric{Kind: KindRBPResid, Beta: 0.5}, 1.0/64 + 0.5*0.625},
		// gains 0..3 scaled by 1/3: (1-p)(2/3 + (1/3)·p^4)
		{"rbp", Metric{Kind: KindRBP, Beta: 0.5}, 0.5 * (2.0/3 + 1.0/48)},
		// 1·2 - 1·4
		{"utility", Metric{Kind: KindUtility}, -2},
		{"utility.0,0,1,1 -N 100", Metric{Kind: KindUtility, Param: "0,0,1,1"}, 2 + (100 + 2 - 6 - 4)},
		// ⌊x·4 + 0.9⌋ rows: 1 (relevant), 4 (one), 8 > 6 (2 of 8)
		{"Rprec_mult_0.20", Metric{Kind: KindRprecMult, Level: 0.2}, 1},
		{"Rprec_mult_1.00", Metric{Kind: KindRprecMult, Level: 1}, 0.25},
		{"Rprec_mult_2.00", Metric{Kind: KindRprecMult, Level: 2}, 0.25},
		{"relat_1", Metric{Kind: KindRelAt, K: 1}, 2},
		{"relat_2", Metric{Kind: KindRelAt, K: 2}, relNonpool},
		{"relat_4", Metric{Kind: KindRelAt, K: 4}, relUnjudged},
		{"ndcg.3=10", Metric{Kind: KindGainNDCG, Param: "3=10"}, ndcgGains},
		{"dcg.3=10", Metric{Kind: KindGainDCG, Param: "3=10"}, 2 + 1/log2(6)},
		{"ideal_dcg", Metric{Kind: KindIDCG}, 3 + 2/log2(3) + 1/log2(4) + 1/log2(5)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := DefaultOptions()
			o.HasThreshold, o.RelThreshold, o.NoEmpty, o.Ties, o.Gain = true, 1, true, TiesInput, GainLinear
			o.NumDocs = 100
			out := []float64{0}
			NewEvaluator([]Metric{tc.m}, o).Eval(&l, out)
			if math.Abs(out[0]-tc.want) > 1e-12 {
				t.Fatalf("%v, want %v", out[0], tc.want)
			}
		})
	}
	o := DefaultOptions()
	o.HasThreshold, o.RelThreshold, o.NoEmpty = true, 1, true
	out := []float64{0}
	NewEvaluator([]Metric{{Kind: KindRelAt, K: 7}}, o).Eval(&l, out)
	if !math.IsNaN(out[0]) {
		t.Fatalf("the judgment past the ranking: %v, want NaN", out[0])
	}
}

// TestMsortGains: trec_eval sorts a gain table by a comparison that
// truncates the difference of two gains to an int, with glibc's merge
// sort: gains less than 1 apart compare equal and keep their order, and
// the result need not be sorted.
func TestMsortGains(t *testing.T) {
	for _, tc := range []struct{ in, want []float64 }{
		{[]float64{0.5, 0.3, 0.9}, []float64{0.5, 0.3, 0.9}},
		{[]float64{2.5, 0.4, 1.7}, []float64{0.4, 2.5, 1.7}},
		{[]float64{3, 0, 2, 1}, []float64{0, 1, 2, 3}},
	} {
		g := make([]relGain, len(tc.in))
		for i, x := range tc.in {
			g[i] = relGain{level: int64(i), gain: x}
		}
		msortGains(g, nil)
		for i := range g {
			if g[i].gain != tc.want[i] {
				t.Errorf("%v sorted as %v, want %v", tc.in, g, tc.want)
				break
			}
		}
	}
}

// TestUtilityNaN: utility's coefficients keep a NaN's sign through Param,
// and of two NaN terms its sum keeps the one trec_eval's does on amd64
// (the first two terms' over the third's, the fourth's over the rest):
// the sign prints (nan or -nan), the same on every architecture. The
// wants are both releases' outputs for utility.p1,p2,p3,p4 with these
// signs.
func TestUtilityNaN(t *testing.T) {
	l := List{
		Score:  []float64{3, 2, 1},
		Label:  []float64{0, 1, 1},
		Status: []Judgment{Judged, Judged, Judged},
		Judged: []float64{0, 1, 1, 1},
		Doc:    [][]byte{[]byte("a"), []byte("b"), []byte("c")},
	}
	nan, neg := math.NaN(), -math.NaN()
	for _, tc := range []struct {
		name  string
		c     []float64
		minus bool // the result prints -nan
	}{
		{"nan,-nan,0,0", []float64{nan, neg, 0, 0}, false},
		{"-nan,nan,0,0", []float64{neg, nan, 0, 0}, true},
		{"0,-nan,nan,0", []float64{0, neg, nan, 0}, true},
		{"0,0,nan,-nan", []float64{0, 0, nan, neg}, true},
		{"0,0,-nan,nan", []float64{0, 0, neg, nan}, false},
		{"nan,0,-nan,0", []float64{nan, 0, neg, 0}, false},
		{"-nan,0,0,nan", []float64{neg, 0, 0, nan}, false},
		{"-nan,0,0,0", []float64{neg, 0, 0, 0}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := DefaultOptions()
			o.HasThreshold, o.RelThreshold, o.Ties, o.NumDocs = true, 1, TiesTrec, 100
			out := []float64{0}
			NewEvaluator([]Metric{{Kind: KindUtility, Param: FloatsParam(tc.c)}}, o).Eval(&l, out)
			if !math.IsNaN(out[0]) || math.Signbit(out[0]) != tc.minus {
				t.Fatalf("utility %v: %v (sign bit %v), want NaN with sign bit %v", tc.c, out[0], math.Signbit(out[0]), tc.minus)
			}
		})
	}
}
