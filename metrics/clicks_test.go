package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// clickMetrics covers every click metric and IPS estimate, with cutoffs
// below, at and beyond the generated lists' sizes.
var clickMetrics = func() []Metric {
	names := []string{"abandon", "first_click", "last_click", "clicks", "ctr", "ips_clicks", "ips_dcg", "snips_clicks", "snips_dcg"}
	for _, k := range []string{"1", "2", "3", "5", "10"} {
		for _, b := range []string{"clicks", "ctr", "ips_clicks", "ips_p", "ips_dcg", "snips_clicks", "snips_p", "snips_dcg"} {
			names = append(names, b+"@"+k)
		}
	}
	ms, err := ParseList(strings.Join(names, ","))
	if err != nil {
		panic(err)
	}
	return ms
}()

func evalNamed(t *testing.T, names []string, o Options, l *List) (map[string]float64, *Evaluator) {
	t.Helper()
	ms := mustParseList(t, names)
	e := NewEvaluator(ms, o)
	out := make([]float64, len(ms))
	e.Eval(l, out)
	got := map[string]float64{}
	for j, m := range ms {
		got[m.Name] = out[j]
	}
	return got, e
}

// TestClickMetricsWorked checks the definitions on lists worked by hand.
func TestClickMetricsWorked(t *testing.T) {
	names := []string{"clicks@3", "clicks", "ctr@3", "ctr@10", "abandon", "first_click", "last_click",
		"ips_clicks@3", "ips_clicks", "ips_p@3", "ips_dcg@3", "ips_dcg", "snips_dcg@3", "ndcg@3"}
	t.Run("no ties", func(t *testing.T) {
		// Five rows ranked as given; the rows at ranks 2 and 4 are clicked.
		// Rank 2's propensity 0.5 weighs 2; rank 4's, 0.25, is below the
		// clip 0.3, so it weighs 1/0.3 = 10/3 and counts as clipped.
		l := List{Score: []float64{5, 4, 3, 2, 1}, Label: []float64{0, 1, 0, 1, 0}, Prop: []float64{1, 0.5, 0.4, 0.25, 0.2}}
		got, e := evalNamed(t, names, Options{MaxGrade: 4, PropClip: 0.3}, &l)
		want := map[string]float64{
			"clicks@3":     1,          // rank 2
			"clicks":       2,          // ranks 2 and 4
			"ctr@3":        1.0 / 3,    // clicks@3 / min(3, 5)
			"ctr@10":       2.0 / 5,    // clicks@10 / min(10, 5)
			"abandon":      0,          // a row is clicked
			"first_click":  2,          // rank 2
			"last_click":   4,          // rank 4
			"ips_clicks@3": 2,          // 1/0.5
			"ips_clicks":   2 + 10.0/3, // 1/0.5 + 1/max(0.25, 0.3)
			"ips_p@3":      2.0 / 3,    // ips_clicks@3 / 3
			"ips_dcg@3":    2 / math.Log2(3),
			"ips_dcg":      2/math.Log2(3) + 10.0/3/math.Log2(5),
			"snips_dcg@3":  2 / math.Log2(3), // per query the numerator, ips_dcg@3
			"ndcg@3":       (1 / math.Log2(3)) / (1 + 1/math.Log2(3)),
		}
		checkNamed(t, got, want, 1e-15)
		if w, c := e.ClickWeight(); !near(w, 2+10.0/3, 1e-15) || c != 1 {
			t.Errorf("ClickWeight = %v, %d; want 16/3 (2 + 10/3), 1 clipped", w, c)
		}
	})
	t.Run("no click", func(t *testing.T) {
		// Under --empty skip every other metric of this impression is
		// undefined; the click metrics are defined (the ranks are not:
		// there is no click to rank).
		l := List{Score: []float64{2, 1}, Label: []float64{0, 0}, Prop: []float64{1, 0.5}}
		got, e := evalNamed(t, names, Options{MaxGrade: 4, PropClip: 0.01}, &l)
		want := map[string]float64{"clicks@3": 0, "clicks": 0, "ctr@3": 0, "ctr@10": 0, "abandon": 1,
			"first_click": math.NaN(), "last_click": math.NaN(), "ips_clicks@3": 0, "ips_clicks": 0, "ips_p@3": 0,
			"ips_dcg@3": 0, "ips_dcg": 0, "snips_dcg@3": 0, "ndcg@3": math.NaN()}
		checkNamed(t, got, want, 0)
		if w, c := e.ClickWeight(); w != 0 || c != 0 {
			t.Errorf("ClickWeight = %v, %d; want 0, 0", w, c)
		}
	})
	t.Run("ties average", func(t *testing.T) {
		// Rows 1-3 tie (positions 1..3, clicks on two of them: weights
		// 1/0.5 = 2 and 1/0.25 = 4), row 4 is below them, clicked, weight 1.
		// Each tied row sits at each of positions 1..3 with probability 1/3.
		l := List{Score: []float64{1, 1, 1, 0}, Label: []float64{1, 0, 1, 1}, Prop: []float64{0.5, 1, 0.25, 1}}
		got, _ := evalNamed(t, names, Options{Ties: TiesAverage, MaxGrade: 4, PropClip: 0.01}, &l)
		d1, d2, d3, d4 := 1.0, 1/math.Log2(3), 1/math.Log2(4), 1/math.Log2(5)
		want := map[string]float64{
			"clicks@3": 2, "clicks": 3, "ctr@3": 2.0 / 3, "ctr@10": 3.0 / 4, "abandon": 0,
			// the first of 2 clicked among 3 positions: {1,2}, {1,3}, {2,3}
			// equally likely, so (1 + 1 + 2)/3 = (m+1)/(r+1) = 4/3
			"first_click": 4.0 / 3,
			// the last click is row 4's, at rank 4
			"last_click":   4,
			"ips_clicks@3": 6, "ips_clicks": 7, "ips_p@3": 2,
			// the tied clicks' weight 6 at the mean discount of positions 1-3
			"ips_dcg@3":   6 * (d1 + d2 + d3) / 3,
			"ips_dcg":     6*(d1+d2+d3)/3 + d4,
			"snips_dcg@3": 6 * (d1 + d2 + d3) / 3,
			// ndcg@3's expectation: the group's mean gain (2/3) at each
			// position, over the ideal 1 + d2 + d3
			"ndcg@3": 2.0 / 3 * (d1 + d2 + d3) / (d1 + d2 + d3),
		}
		checkNamed(t, got, want, 1e-15)
		// clicks@2: the two clicks of three rows take 2 of its 3 positions
		// on average, 2·2/3; last_click inside a group: 2·4/3 = 8/3
		got, _ = evalNamed(t, []string{"clicks@2", "last_click", "ips_clicks@2"}, Options{Ties: TiesAverage, MaxGrade: 4},
			&List{Score: []float64{1, 1, 1}, Label: []float64{1, 0, 1}, Prop: []float64{0.5, 1, 0.25}})
		checkNamed(t, got, map[string]float64{"clicks@2": 4.0 / 3, "last_click": 8.0 / 3, "ips_clicks@2": 6 * 2.0 / 3}, 1e-15)
	})
	t.Run("threshold", func(t *testing.T) {
		// Graded clicks (1 short, 2 long): with --rel-threshold 2 only the
		// long click at rank 3 counts.
		l := List{Score: []float64{3, 2, 1}, Label: []float64{1, 0, 2}, Prop: []float64{1, 1, 0.5}}
		got, _ := evalNamed(t, []string{"clicks", "first_click", "ips_clicks"}, Options{MaxGrade: 4, HasThreshold: true, RelThreshold: 2}, &l)
		checkNamed(t, got, map[string]float64{"clicks": 1, "first_click": 3, "ips_clicks": 2}, 0)
	})
}

func checkNamed(t *testing.T, got, want map[string]float64, tol float64) {
	t.Helper()
	for name, w := range want {
		g, ok := got[name]
		if !ok {
			t.Errorf("%s not computed", name)
			continue
		}
		if !near(g, w, tol) {
			t.Errorf("%s = %.17g, want %.17g", name, g, w)
		}
	}
}

// TestClickEmptyPolicy checks that no --empty policy reaches the click
// metrics, whose values for an impression without a click are defined.
func TestClickEmptyPolicy(t *testing.T) {
	l := List{Score: []float64{2, 1}, Label: []float64{0, 0}, Prop: []float64{1, 1}}
	for _, empty := range []Empty{EmptySkip, EmptyZero, EmptyOne} {
		t.Run(empty.String(), func(t *testing.T) {
			got, _ := evalNamed(t, []string{"abandon", "clicks@1", "ips_dcg@2", "first_click"}, Options{MaxGrade: 4, Empty: empty}, &l)
			checkNamed(t, got, map[string]float64{"abandon": 1, "clicks@1": 0, "ips_dcg@2": 0, "first_click": math.NaN()}, 0)
		})
	}
}

// refClicks is every click metric of one query straight from its
// definition: the ranking by a plain stable sort with the full
// comparator, TiesAverage by enumerating every order of the rows of every
// tied group. It shares no code with the Evaluator beyond the API types.
func refClicks(ms []Metric, o Options, l *List) []float64 {
	rows := refRank(refRows(l), o.Ties)
	one := func(order []refRow) []float64 {
		out := make([]float64, len(ms))
		var clicked []int // 1-based ranks
		for i, r := range order {
			if o.Relevant(r.label) {
				clicked = append(clicked, i+1)
			}
		}
		w := func(r refRow) float64 { return 1 / math.Max(l.Prop[r.in], o.PropClip) }
		n := len(order)
		for j, m := range ms {
			k := n
			if m.K > 0 && m.K < n {
				k = m.K
			}
			var c, ipsC, ipsD float64
			for i, r := range order[:k] {
				if o.Relevant(r.label) {
					c++
					ipsC += w(r)
					ipsD += w(r) / math.Log2(float64(i+2))
				}
			}
			switch m.Kind {
			case KindClicks:
				out[j] = c
			case KindCTR:
				out[j] = 0 // nothing shown
				if k > 0 {
					out[j] = c / float64(k)
				}
			case KindAbandon:
				out[j] = 1
				if len(clicked) > 0 {
					out[j] = 0
				}
			case KindFirstClick, KindLastClick:
				out[j] = math.NaN()
				if len(clicked) > 0 {
					out[j] = float64(clicked[0])
					if m.Kind == KindLastClick {
						out[j] = float64(clicked[len(clicked)-1])
					}
				}
			case KindIPSClicks, KindSNIPSClicks:
				out[j] = ipsC
			case KindIPSP, KindSNIPSP:
				out[j] = ipsC / float64(m.K)
			case KindIPSDCG, KindSNIPSDCG:
				out[j] = ipsD
			default:
				panic(fmt.Sprint("refClicks: kind ", m.Kind))
			}
		}
		return out
	}
	if o.Ties != TiesAverage {
		return one(rows)
	}
	groups := refGroups(rows)
	sum := make([]kahan, len(ms))
	count := forEachOrder(groups, func(p, q int) { rows[p], rows[q] = rows[q], rows[p] }, func() {
		for j, v := range one(rows) {
			sum[j].add(v)
		}
	})
	out := make([]float64, len(ms))
	for j := range out {
		out[j] = sum[j].value() / float64(count)
	}
	return out
}

// clickCase is decodeCase's list with a propensity for each row, some of
// them below the clip.
func clickCase(data []byte) (Options, List, bool) {
	o, l, ok := decodeCase(data)
	if !ok {
		return o, l, false
	}
	o.PropClip = 0.15
	for i := range l.Label {
		l.Prop = append(l.Prop, float64((i*7+int(l.Label[i]*2)*3)%10)/10)
	}
	l.Judged = nil // a click log's labels are its judgments
	return o, l, true
}

// TestClickBruteForce compares Eval's click metrics with refClicks on
// random small lists with ties, under every tie policy.
func TestClickBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, ties := range allTies {
		t.Run(ties.String(), func(t *testing.T) {
			for range 400 {
				data := make([]byte, 3+2*8+6)
				for i := range data {
					data[i] = byte(rng.UintN(256))
				}
				data[0] = byte(rng.UintN(6)*5) + byte(ties)
				o, l, _ := clickCase(data)
				checkClicks(t, o, &l)
				if t.Failed() {
					return
				}
			}
		})
	}
}

func FuzzClicks(f *testing.F) {
	f.Add([]byte{4, 0, 8, 1, 0, 1, 2, 1, 0, 1, 6, 2, 1, 0, 3, 1, 5, 2, 4})
	f.Add([]byte{24, 4, 7, 0, 6, 0, 0, 0, 3, 0, 1, 0, 5, 0, 2, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		o, l, ok := clickCase(data)
		if !ok {
			t.Skip()
		}
		checkClicks(t, o, &l)
	})
}

func checkClicks(t *testing.T, o Options, l *List) {
	t.Helper()
	want := refClicks(clickMetrics, o, l)
	got := make([]float64, len(clickMetrics))
	e := NewEvaluator(clickMetrics, o)
	e.Eval(l, got)
	for j, m := range clickMetrics {
		if !near(got[j], want[j], 1e-12) {
			t.Errorf("%s = %.17g, reference %.17g (options %+v, list %+v)", m.Name, got[j], want[j], o, *l)
		}
	}
	var w float64
	clipped := 0
	for i, y := range l.Label {
		if o.Relevant(y) {
			w += 1 / math.Max(l.Prop[i], o.PropClip)
			if l.Prop[i] < o.PropClip {
				clipped++
			}
		}
	}
	if gw, gc := e.ClickWeight(); gw != w || gc != clipped {
		t.Errorf("ClickWeight = %v, %d; want %v, %d (list %+v)", gw, gc, w, clipped, *l)
	}
}

// TestClickWeightSameForEveryRanking: the weight of one log's impression
// is the same bits whatever scores rank it, as the self-normalized
// estimates of several score columns divide by one weight.
func TestClickWeightSameForEveryRanking(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	ms := mustParseList(t, []string{"snips_dcg@3"})
	for range 200 {
		n := 2 + rng.IntN(30)
		l := List{}
		for range n {
			l.Score = append(l.Score, rng.Float64())
			l.Label = append(l.Label, float64(rng.IntN(2)))
			l.Prop = append(l.Prop, 0.01+rng.Float64())
		}
		e := NewEvaluator(ms, Options{MaxGrade: 4, PropClip: 0.01})
		out := make([]float64, 1)
		e.Eval(&l, out)
		w0, _ := e.ClickWeight()
		rng.Shuffle(n, func(i, j int) { l.Score[i], l.Score[j] = l.Score[j], l.Score[i] })
		e.Eval(&l, out)
		if w1, _ := e.ClickWeight(); w1 != w0 {
			t.Fatalf("weight %v, then %v under another ranking", w0, w1)
		}
	}
}

// TestClickNoAllocs: the click metrics allocate nothing once warmed up.
func TestClickNoAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	lists := []List{randomList(rng, 50, 6), randomList(rng, 10, 10), randomList(rng, 1, 1)}
	for i := range lists {
		for range lists[i].Label {
			lists[i].Prop = append(lists[i].Prop, rng.Float64())
		}
	}
	for _, ties := range allTies {
		e := NewEvaluator(clickMetrics, Options{Ties: ties, MaxGrade: 4, PropClip: 0.01})
		out := make([]float64, len(clickMetrics))
		run := func() {
			for i := range lists {
				e.Eval(&lists[i], out)
			}
		}
		run()
		if a := testing.AllocsPerRun(20, run); a != 0 {
			t.Errorf("ties %v: Eval allocates %v times per run after warm-up", ties, a)
		}
	}
}

// BenchmarkEvalClicks: the default metrics alone, and with the click
// metrics and IPS estimates, on click-shaped impressions of 10 rows: what
// the click metrics add to a query's evaluation.
func BenchmarkEvalClicks(b *testing.B) {
	clicks := append(append([]string{}, benchDefault...), "clicks@10", "ctr@10", "abandon", "first_click", "last_click")
	ips := append(append([]string{}, clicks...), "ips_dcg@10", "snips_dcg@10")
	for _, c := range []struct {
		name  string
		names []string
	}{{"default", benchDefault}, {"default+clicks", clicks}, {"default+clicks+ips", ips}} {
		b.Run(c.name, func(b *testing.B) {
			benchEval(b, c.names, Options{Ties: TiesInput, MaxGrade: 4, PropClip: 0.01}, 1000, 10, 1e6)
		})
	}
}
