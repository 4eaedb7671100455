package metrics

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

var allTies = []Ties{TiesInput, TiesTrec, TiesOptimistic, TiesPessimistic, TiesAverage}

// randomList makes n rows whose scores take `distinct` values (so ties are
// common) and labels 0..4.
func randomList(rng *rand.Rand, n, distinct int) List {
	l := List{}
	for i := range n {
		l.Score = append(l.Score, float64(rng.IntN(distinct)))
		l.Label = append(l.Label, float64(rng.IntN(5)*rng.IntN(2)))
		l.Doc = append(l.Doc, fmt.Appendf(nil, "doc%04d", i))
	}
	return l
}

func TestEvalNoAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	lists := []List{randomList(rng, 50, 6), randomList(rng, 80, 3), randomList(rng, 1, 1), {}}
	ranked := randomList(rng, 40, 40)
	ranked.Rank = make([]int64, 40)
	for i := range ranked.Rank {
		ranked.Rank[i] = int64(i/3 + 1)
	}
	judged := randomList(rng, 30, 5)
	judged.Judged = append([]float64{4, 3, 0, 1}, judged.Label...)
	lists = append(lists, ranked, judged)
	for _, ties := range allTies {
		t.Run(fmt.Sprintf("ties=%d", ties), func(t *testing.T) {
			e := NewEvaluator(refMetrics, Options{Ties: ties, MaxGrade: 4})
			out := make([]float64, len(refMetrics))
			for i := range lists {
				e.Eval(&lists[i], out)
			}
			allocs := testing.AllocsPerRun(20, func() {
				for i := range lists {
					e.Eval(&lists[i], out)
				}
			})
			if allocs != 0 {
				t.Errorf("Eval allocates %v times per run after warm-up", allocs)
			}
		})
	}
}

// TestLargeList checks the O(n log n) correlations (merge-sort swap counts
// over many runs) and the sweep against the reference's pair counting on a
// long list.
func TestLargeList(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	l := randomList(rng, 3000, 200)
	ms := mustParseList(t, []string{"kendall", "spearman", "kendall@100", "spearman@1000", "ndcg", "ap", "err@50", "p@20", "rprec", "rr", "hit@2"})
	for _, ties := range []Ties{TiesInput, TiesTrec, TiesOptimistic, TiesPessimistic} {
		o := Options{Ties: ties, MaxGrade: 4}
		t.Run(fmt.Sprintf("ties=%d", ties), func(t *testing.T) {
			want := refEval(ms, o, &l)
			got := make([]float64, len(ms))
			NewEvaluator(ms, o).Eval(&l, got)
			for j, m := range ms {
				if !near(got[j], want[j], 1e-12) {
					t.Errorf("%s = %.17g, reference %.17g", m.Name, got[j], want[j])
				}
			}
		})
	}
}

// TestEmptyPolicy checks that the policy reaches every metric but the
// correlations, and that R comes from Judged when it is given.
func TestEmptyPolicy(t *testing.T) {
	ms := mustParseList(t, []string{"ndcg@3", "p@2", "rprec", "err", "kendall", "spearman"})
	l := List{Score: []float64{3, 2, 1}, Label: []float64{0, 1, 2}}
	o := Options{MaxGrade: 4, HasThreshold: true, RelThreshold: 3}
	for _, c := range []struct {
		empty Empty
		want  float64
	}{{EmptySkip, math.NaN()}, {EmptyZero, 0}, {EmptyOne, 1}} {
		o.Empty = c.empty
		t.Run(fmt.Sprintf("empty=%d", c.empty), func(t *testing.T) {
			out := make([]float64, len(ms))
			if !NewEvaluator(ms, o).Eval(&l, out) {
				t.Fatal("query with no label >= 3 not reported empty")
			}
			for j, m := range ms[:4] {
				if !near(out[j], c.want, 0) {
					t.Errorf("%s = %v, want %v", m.Name, out[j], c.want)
				}
			}
			// Scores descend while labels ascend: both correlations are -1.
			if out[4] != -1 || out[5] != -1 {
				t.Errorf("kendall, spearman = %v, %v, want -1, -1", out[4], out[5])
			}
		})
	}
	t.Run("judged", func(t *testing.T) {
		o := Options{MaxGrade: 4}
		lj := List{Score: []float64{3, 2, 1}, Label: []float64{1, 0, 0}, Judged: []float64{1, 2, 0}}
		ms := mustParseList(t, []string{"r@3", "rprec", "ndcg", "ap"})
		out := make([]float64, len(ms))
		if NewEvaluator(ms, o).Eval(&lj, out) {
			t.Fatal("reported empty")
		}
		idcg := 3 + 1/math.Log2(3)
		want := []float64{0.5, 0.5, 1 / idcg, 0.5}
		for j, m := range ms {
			if !near(out[j], want[j], 1e-15) {
				t.Errorf("%s = %.17g, want %.17g", m.Name, out[j], want[j])
			}
		}
		lj.Judged = []float64{0, 0}
		if !NewEvaluator(ms, o).Eval(&lj, out) {
			t.Error("relevant rows but no relevant judged label: not reported empty")
		}
	})
}

// TestAverageHugeGroup runs the ERR DP over one tied group of 3000 rows with
// a whole-list cutoff (the O(m²) case) and checks the values every order
// shares or that follow from symmetry.
func TestAverageHugeGroup(t *testing.T) {
	const n = 3000
	l := List{Score: make([]float64, n), Label: make([]float64, n)}
	for i := range n {
		l.Label[i] = float64(i % 5)
	}
	ms := mustParseList(t, []string{"err", "nerr", "ap", "p@10", "rprec", "hit@1", "rr"})
	out := make([]float64, len(ms))
	NewEvaluator(ms, Options{Ties: TiesAverage, MaxGrade: 4}).Eval(&l, out)
	const frac = 0.8 // relevant share
	want := map[string]float64{"p@10": frac, "rprec": frac, "hit@1": frac}
	for j, m := range ms {
		v := out[j]
		if w, ok := want[m.Name]; ok && !near(v, w, 1e-12) {
			t.Errorf("%s = %.17g, want %v", m.Name, v, w)
		}
		if math.IsNaN(v) || v <= 0 || v > 1 {
			t.Errorf("%s = %v, outside (0, 1]", m.Name, v)
		}
	}
	// Every row stops the user with positive probability, so over 3000
	// rows ERR must be close to E[R at the top] plus more: at least R_1.
	if out[0] < (15.0+7+3+1)/5/16 {
		t.Errorf("err = %v, below the expected R of the first row", out[0])
	}
}

var benchDefault = []string{"map", "mrr", "ndcg@10", "err@10", "p@10", "r@10"}

func benchEval(b *testing.B, names []string, o Options, queries, rows, distinct int) {
	rng := rand.New(rand.NewPCG(7, 8))
	lists := make([]List, queries)
	for i := range lists {
		lists[i] = randomList(rng, rows, distinct)
		for j := range rows {
			lists[i].Prop = append(lists[i].Prop, 1/float64(j+1)) // for the IPS estimates
		}
	}
	ms := mustParseList(b, names)
	e := NewEvaluator(ms, o)
	out := make([]float64, len(ms))
	b.ResetTimer()
	for b.Loop() {
		for i := range lists {
			e.Eval(&lists[i], out)
		}
	}
	b.ReportMetric(float64(b.N)*float64(queries*rows)/b.Elapsed().Seconds(), "rows/s")
}

// Scores drawn from 1e6 values: practically no ties, as with real models.
func BenchmarkEvalDefaultInput(b *testing.B) {
	benchEval(b, benchDefault, Options{Ties: TiesInput, MaxGrade: 4}, 1000, 50, 1e6)
}

func BenchmarkEvalDefaultAverage(b *testing.B) {
	b.Run("no-ties", func(b *testing.B) {
		benchEval(b, benchDefault, Options{Ties: TiesAverage, MaxGrade: 4}, 1000, 50, 1e6)
	})
	b.Run("5-scores", func(b *testing.B) {
		benchEval(b, benchDefault, Options{Ties: TiesAverage, MaxGrade: 4}, 1000, 50, 5)
	})
}

func BenchmarkEvalCorrelations(b *testing.B) {
	benchEval(b, []string{"kendall", "spearman"}, Options{MaxGrade: 4}, 1000, 50, 1e6)
}

func BenchmarkEvalMillionRows(b *testing.B) {
	benchEval(b, []string{"ndcg@10", "map", "kendall"}, Options{MaxGrade: 4}, 1, 1_000_000, 1e9)
}

// TestSignedZeroTies: -0 and +0 are the same score, so they tie.
func TestSignedZeroTies(t *testing.T) {
	l := List{Score: []float64{math.Copysign(0, -1), 0, -1}, Label: []float64{0, 1, 1}}
	ms := mustParseList(t, []string{"p@1", "kendall"})
	out := make([]float64, len(ms))
	NewEvaluator(ms, Options{Ties: TiesAverage, MaxGrade: 4}).Eval(&l, out)
	if out[0] != 0.5 {
		t.Errorf("p@1 = %v, want 0.5 (two tied rows, one relevant)", out[0])
	}
	if want := refKendall(l.Score, l.Label); !near(out[1], want, 1e-15) {
		t.Errorf("kendall = %v, want %v", out[1], want)
	}
}

// One tied group of m rows with a whole-list ERR: the O(m²) case.
func BenchmarkEvalERRHugeGroup(b *testing.B) {
	benchEval(b, []string{"err", "nerr"}, Options{Ties: TiesAverage, MaxGrade: 4}, 1, 20000, 1)
}

// TestAverageERRPrecision redoes the ERR expectation of one large tied group
// in 256-bit floats: the float64 DP and its differences M_{t-1} - M_t must
// not lose accuracy as the group grows. (The formula itself is checked by
// enumeration in TestBruteForce.)
func TestAverageERRPrecision(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const m = 300
	l := List{Score: make([]float64, m), Label: make([]float64, m)}
	for i := range l.Label {
		l.Label[i] = float64(rng.IntN(5) * rng.IntN(2))
	}
	for _, k := range []int{0, 7, 100} {
		t.Run(fmt.Sprintf("k=%d", k), func(t *testing.T) {
			ms := []Metric{{Name: "err", Kind: KindERR, K: k}}
			out := []float64{0}
			NewEvaluator(ms, Options{Ties: TiesAverage, MaxGrade: 4}).Eval(&l, out)

			const prec = 256
			nf := func(v float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(v) }
			T := cutAt(k, m)
			M := make([]*big.Float, T+1)
			for j := range M {
				M[j] = nf(0)
			}
			M[0] = nf(1)
			for q, y := range l.Label {
				x := nf(1 - (math.Exp2(y)-1)/16)
				n := nf(float64(q + 1))
				for j := min(q+1, T); j >= 1; j-- {
					a := nf(float64(q + 1 - j))
					a.Mul(a, M[j]).Quo(a, n)
					b := nf(float64(j))
					b.Mul(b, x).Mul(b, M[j-1]).Quo(b, n)
					M[j] = a.Add(a, b)
				}
			}
			sum := nf(0)
			for tt := 1; tt <= T; tt++ {
				d := nf(0).Sub(M[tt-1], M[tt])
				sum.Add(sum, d.Quo(d, nf(float64(tt))))
			}
			want, _ := sum.Float64()
			if !near(out[0], want, 1e-13) {
				t.Errorf("err@%d = %.17g, 256-bit %.17g", k, out[0], want)
			}
		})
	}
}

// Lists of 1000 rows, as TREC runs have: the radix sort's range.
func BenchmarkEvalDepth1000(b *testing.B) {
	benchEval(b, benchDefault, Options{Ties: TiesInput, MaxGrade: 4}, 100, 1000, 1e6)
}

// TestAbsent: a query a run lacks takes each metric's Missing value, but
// num_rel, which is the query's R from its judgments (a negative one,
// -0.0, never counts), as trec_eval -c counts it; 0 when they are unknown.
func TestAbsent(t *testing.T) {
	ms := mustParseList(t, []string{"num_rel", "num_rel_ret", "num_ret", "num_q", "map", "gm_map", "kendall"})
	negative := math.Copysign(0, -1)
	judged := []float64{2, 1, 0, negative, 3}
	tests := []struct {
		name   string
		o      Options
		judged []float64
		numRel float64
	}{
		{"label > 0", Options{}, judged, 3},
		{"threshold 2", Options{RelThreshold: 2, HasThreshold: true}, judged, 2},
		{"threshold 0, negative judgment left out", Options{HasThreshold: true}, judged, 4},
		{"judgments unknown", Options{}, nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := make([]float64, len(ms))
			NewEvaluator(ms, tc.o).Absent(tc.judged, out)
			want := []float64{tc.numRel, 0, 0, 1, 0, math.Log(0.00001), math.NaN()}
			for j, m := range ms {
				if !(out[j] == want[j] || math.IsNaN(out[j]) && math.IsNaN(want[j])) {
					t.Errorf("%s = %v, want %v", m.Name, out[j], want[j])
				}
			}
		})
	}
}
