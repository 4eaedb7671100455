package metrics

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
)

// This file holds a slow reference: every metric straight from its formula
// in docs/metrics.md §4 on one concrete ranking, tie policies by a plain
// stable sort with the full comparator, TiesAverage by enumerating every
// order of every tied group, and the correlations by counting pairs. It
// shares no code with the Evaluator beyond the API types.

// refMetrics covers every kind, with cutoffs below, at and beyond the sizes
// the generated lists take.
var refMetrics = func() []Metric {
	var names []string
	for _, k := range []string{"1", "2", "3", "5", "10"} {
		for _, b := range []string{"p", "r", "f1", "f0.5", "f2", "hit", "ap", "rr", "cg", "dcg", "ndcg", "err", "nerr", "kendall", "spearman"} {
			names = append(names, b+"@"+k)
		}
	}
	names = append(names, "ap", "rr", "rprec", "cg", "dcg", "ndcg", "err", "nerr", "kendall", "spearman")
	ms, err := ParseList(strings.Join(names, ","))
	if err != nil {
		panic(err)
	}
	return ms
}()

type refRow struct {
	key   float64 // higher first
	label float64
	doc   []byte
	in    int // input index
}

func refRows(l *List) []refRow {
	rows := make([]refRow, len(l.Label))
	for i := range rows {
		r := refRow{label: l.Label[i], in: i}
		if l.Rank != nil {
			r.key = -float64(l.Rank[i])
		} else {
			r.key = l.Score[i]
		}
		if l.Doc != nil {
			r.doc = l.Doc[i]
		}
		rows[i] = r
	}
	return rows
}

func refEval(ms []Metric, o Options, l *List) []float64 {
	isRel := func(y float64) bool {
		if o.HasThreshold {
			return y >= o.RelThreshold
		}
		return y > 0
	}
	judged := l.Label
	if l.Judged != nil {
		judged = l.Judged
	}
	nRel := 0
	for _, y := range judged {
		if isRel(y) {
			nRel++
		}
	}
	ideal := append([]float64(nil), judged...)
	sort.Sort(sort.Reverse(sort.Float64Slice(ideal)))

	out := make([]float64, len(ms))
	rows := refRows(l)
	// The TiesInput ranking, which the correlations' cutoffs use.
	input := append([]refRow(nil), rows...)
	sort.SliceStable(input, func(a, b int) bool { return input[a].key > input[b].key })
	for j, m := range ms {
		if m.Kind != KindKendall && m.Kind != KindSpearman {
			continue
		}
		k := len(input)
		if m.K > 0 && m.K < k {
			k = m.K
		}
		var xs, ys []float64
		for _, r := range input[:k] {
			x := r.key
			if l.Rank != nil && l.Score != nil {
				x = l.Score[r.in]
			}
			xs = append(xs, x)
			ys = append(ys, r.label)
		}
		if m.Kind == KindKendall {
			out[j] = refKendall(xs, ys)
		} else {
			out[j] = refSpearman(xs, ys)
		}
	}

	if nRel == 0 {
		fill := math.NaN()
		switch o.Empty {
		case EmptyZero:
			fill = 0
		case EmptyOne:
			fill = 1
		}
		for j, m := range ms {
			if m.Kind != KindKendall && m.Kind != KindSpearman {
				out[j] = fill
			}
		}
		return out
	}

	one := func(ys []float64, acc []float64) {
		for j, m := range ms {
			if m.Kind != KindKendall && m.Kind != KindSpearman {
				acc[j] += refMetric(m, o, isRel, ys, nRel, ideal)
			}
		}
	}
	if o.Ties != TiesAverage {
		ranked := refRank(append([]refRow(nil), rows...), o.Ties)
		ys := make([]float64, len(ranked))
		for i, r := range ranked {
			ys[i] = r.label
		}
		acc := make([]float64, len(ms))
		one(ys, acc)
		for j, m := range ms {
			if m.Kind != KindKendall && m.Kind != KindSpearman {
				out[j] = acc[j]
			}
		}
		return out
	}

	// TiesAverage: the mean over every order of every tied group, summed
	// with compensation so that 8! terms keep 1e-15 accuracy.
	ys := make([]float64, len(input))
	for i, r := range input {
		ys[i] = r.label
	}
	groups := refGroups(input)
	sum := make([]kahan, len(ms))
	acc := make([]float64, len(ms))
	count := forEachOrder(groups, func(p, q int) { ys[p], ys[q] = ys[q], ys[p] }, func() {
		clear(acc)
		one(ys, acc)
		for j := range sum {
			sum[j].add(acc[j])
		}
	})
	for j, m := range ms {
		if m.Kind != KindKendall && m.Kind != KindSpearman {
			out[j] = sum[j].value() / float64(count)
		}
	}
	return out
}

// refRank sorts rows into their ranking under the tie policy t (but
// TiesAverage, whose ties keep the input order): a plain stable sort with
// the full comparator.
func refRank(rows []refRow, t Ties) []refRow {
	sort.SliceStable(rows, func(a, b int) bool {
		x, y := rows[a], rows[b]
		if x.key != y.key {
			return x.key > y.key
		}
		switch t {
		case TiesTrec:
			return bytes.Compare(x.doc, y.doc) > 0
		case TiesOptimistic:
			return x.label > y.label
		case TiesPessimistic:
			return x.label < y.label
		}
		return false
	})
	return rows
}

// refGroups lists the tied groups of a ranking, as [start, end) spans.
func refGroups(ranked []refRow) [][2]int {
	var groups [][2]int
	for i, r := range ranked {
		if i == 0 || r.key != ranked[i-1].key {
			groups = append(groups, [2]int{i, i + 1})
		} else {
			groups[len(groups)-1][1] = i + 1
		}
	}
	return groups
}

// forEachOrder calls visit once for every order of the positions of every
// group (spans [start, end) of a ranking), which swap exchanges, and
// returns how many orders there were.
func forEachOrder(groups [][2]int, swap func(p, q int), visit func()) int {
	count := 0
	var walk func(g int)
	walk = func(g int) {
		if g == len(groups) {
			visit()
			count++
			return
		}
		end := groups[g][1]
		var perm func(p int)
		perm = func(p int) {
			if p >= end-1 {
				walk(g + 1)
				return
			}
			for q := p; q < end; q++ {
				swap(p, q)
				perm(p + 1)
				swap(p, q)
			}
		}
		perm(groups[g][0])
	}
	walk(0)
	return count
}

// kahan is Neumaier's compensated sum.
type kahan struct{ s, c float64 }

func (k *kahan) add(v float64) {
	t := k.s + v
	if math.Abs(k.s) >= math.Abs(v) {
		k.c += (k.s - t) + v
	} else {
		k.c += (v - t) + k.s
	}
	k.s = t
}

func (k *kahan) value() float64 { return k.s + k.c }

// refMetric is one metric of one concrete ranking ys, straight from
// docs/metrics.md §4.
func refMetric(m Metric, o Options, isRel func(float64) bool, ys []float64, nRel int, ideal []float64) float64 {
	cut := func(n int) int {
		if m.K == 0 || m.K > n {
			return n
		}
		return m.K
	}
	top := ys[:cut(len(ys))]
	relIn := func(ys []float64) float64 {
		c := 0
		for _, y := range ys {
			if isRel(y) {
				c++
			}
		}
		return float64(c)
	}
	gain := func(y float64) float64 {
		if o.Gain == GainLinear {
			return y
		}
		return math.Pow(2, y) - 1
	}
	dcg := func(ys []float64) float64 {
		s := 0.0
		for i, y := range ys {
			s += gain(y) / math.Log2(float64(i+2))
		}
		return s
	}
	err := func(ys []float64) float64 {
		s, notYet := 0.0, 1.0 // notYet = Π_{i<r} (1 - R_i)
		for r, y := range ys {
			R := (math.Pow(2, y) - 1) / math.Pow(2, o.MaxGrade)
			s += notYet * R / float64(r+1)
			notYet *= 1 - R
		}
		return s
	}
	R := float64(nRel)
	switch m.Kind {
	case KindP:
		return relIn(top) / float64(m.K)
	case KindR:
		return relIn(top) / R
	case KindF:
		p, r := relIn(top)/float64(m.K), relIn(top)/R
		if p == 0 && r == 0 {
			return 0
		}
		b2 := m.Beta * m.Beta
		return (1 + b2) * p * r / (b2*p + r)
	case KindHit:
		if relIn(top) > 0 {
			return 1
		}
		return 0
	case KindAP:
		s, c := 0.0, 0
		for i, y := range top {
			if isRel(y) {
				c++
				s += float64(c) / float64(i+1)
			}
		}
		return s / R
	case KindRR:
		for i, y := range top {
			if isRel(y) {
				return 1 / float64(i+1)
			}
		}
		return 0
	case KindRPrec:
		return relIn(ys[:min(nRel, len(ys))]) / R
	case KindCG:
		s := 0.0
		for _, y := range top {
			s += y
		}
		return s
	case KindDCG:
		return dcg(top)
	case KindNDCG:
		id := dcg(ideal[:cut(len(ideal))])
		if id == 0 {
			return 0
		}
		return dcg(top) / id
	case KindERR:
		return err(top)
	case KindNERR:
		id := err(ideal[:cut(len(ideal))])
		if id == 0 {
			return 0
		}
		return err(top) / id
	}
	panic(fmt.Sprint("refMetric: kind ", m.Kind))
}

func refKendall(xs, ys []float64) float64 {
	n := len(xs)
	var conc, disc, tx, ty float64
	for i := range n {
		for j := i + 1; j < n; j++ {
			dx, dy := cmpF(xs[i], xs[j]), cmpF(ys[i], ys[j])
			switch {
			case dx == 0 && dy == 0:
			case dx == 0:
				tx++
			case dy == 0:
				ty++
			case dx == dy:
				conc++
			default:
				disc++
			}
		}
	}
	d := math.Sqrt((conc + disc + tx) * (conc + disc + ty))
	if n < 2 || d == 0 || conc+disc+tx == 0 || conc+disc+ty == 0 {
		return math.NaN()
	}
	return (conc - disc) / d
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// refRanks gives each value its average rank (1-based) by counting.
func refRanks(vs []float64) []float64 {
	rs := make([]float64, len(vs))
	for i, v := range vs {
		less, eq := 0, 0
		for _, w := range vs {
			if w < v {
				less++
			} else if w == v {
				eq++
			}
		}
		rs[i] = float64(less) + float64(eq+1)/2
	}
	return rs
}

func refSpearman(xs, ys []float64) float64 {
	n := len(xs)
	if n < 2 {
		return math.NaN()
	}
	rx, ry := refRanks(xs), refRanks(ys)
	var mx, my float64
	for i := range n {
		mx += rx[i]
		my += ry[i]
	}
	mx /= float64(n)
	my /= float64(n)
	var sxy, sxx, syy float64
	for i := range n {
		sxy += (rx[i] - mx) * (ry[i] - my)
		sxx += (rx[i] - mx) * (rx[i] - mx)
		syy += (ry[i] - my) * (ry[i] - my)
	}
	if sxx == 0 || syy == 0 {
		return math.NaN()
	}
	return sxy / math.Sqrt(sxx*syy)
}

// decodeCase turns arbitrary bytes into options and a small list with few
// distinct scores (so ties are common) and at most 8 rows (so enumerating
// orders stays cheap). ok is false when the bytes are too short.
func decodeCase(data []byte) (o Options, l List, ok bool) {
	if len(data) < 3 {
		return o, l, false
	}
	b0, b1, b2 := data[0], data[1], data[2]
	data = data[3:]
	o = Options{
		Ties:     Ties(b0 % 5),
		Gain:     Gain(b0 / 5 % 2),
		Empty:    Empty(b0 / 10 % 3), // skip, zero, one: EmptyError's values are unspecified
		MaxGrade: 3 + float64(b1%3),  // labels stay <= 3, as the caller guarantees
	}
	switch b1 / 3 % 3 {
	case 1:
		o.HasThreshold, o.RelThreshold = true, 1
	case 2:
		o.HasThreshold, o.RelThreshold = true, 2.5
	}
	n := min(int(b2%9), len(data)/2)
	if o.Ties == TiesAverage {
		// 8 tied rows are 40320 orders, too slow for the fuzzer to make
		// progress; TestAverageOneBigGroup covers that size.
		n = min(n, 7)
	}
	useRank := b2/9%2 == 1
	bothKeys := b2/18%2 == 1
	for i := range n {
		s, y := data[2*i], data[2*i+1]
		// Labels 0, 0.5, ..., 3: graded, binary-ish and fractional.
		l.Label = append(l.Label, float64(y%7)/2)
		l.Doc = append(l.Doc, []byte{'d', y / 7 % 5})
		if useRank {
			l.Rank = append(l.Rank, int64(s%4)+1)
			if bothKeys {
				l.Score = append(l.Score, float64(s/4%5))
			}
		} else {
			l.Score = append(l.Score, float64(s%4)-1.5)
		}
	}
	if rest := data[2*n:]; len(rest) > 0 && rest[0]%2 == 1 {
		// Judged: some of the list's labels plus unretrieved ones.
		for i, y := range l.Label {
			if (int(rest[0])>>(i%7))&2 == 0 {
				l.Judged = append(l.Judged, y)
			}
		}
		for _, v := range rest[1:min(len(rest), 6)] {
			l.Judged = append(l.Judged, float64(v%7)/2)
		}
		if l.Judged == nil {
			l.Judged = []float64{}
		}
	}
	return o, l, true
}

func checkAgainstRef(t *testing.T, o Options, l *List, tol float64) {
	t.Helper()
	want := refEval(refMetrics, o, l)
	got := make([]float64, len(refMetrics))
	NewEvaluator(refMetrics, o).Eval(l, got)
	for j, m := range refMetrics {
		if !near(got[j], want[j], tol) {
			t.Errorf("%s = %.17g, reference %.17g (options %+v, list %+v)", m.Name, got[j], want[j], o, *l)
		}
	}
}

// TestBruteForce compares Eval with the reference on random small lists with
// ties, for every tie policy (TiesAverage by enumerating orders).
func TestBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, ties := range []Ties{TiesInput, TiesTrec, TiesOptimistic, TiesPessimistic, TiesAverage} {
		t.Run(fmt.Sprintf("ties=%d", ties), func(t *testing.T) {
			for range 400 {
				data := make([]byte, 3+2*8+6)
				for i := range data {
					data[i] = byte(rng.UintN(256))
				}
				data[0] = byte(rng.UintN(6)*5) + byte(ties) // every gain and empty policy
				o, l, _ := decodeCase(data)
				checkAgainstRef(t, o, &l, 1e-12)
				if t.Failed() {
					return
				}
			}
		})
	}
}

// TestLongTiedGroups: tied groups longer than the insertion sort's (12
// rows) break as the reference says, for each policy that orders ties.
func TestLongTiedGroups(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, ties := range []Ties{TiesInput, TiesTrec, TiesOptimistic, TiesPessimistic} {
		t.Run(fmt.Sprintf("ties=%d", ties), func(t *testing.T) {
			for range 50 {
				var l List
				for range 60 {
					y := rng.UintN(7)
					l.Score = append(l.Score, float64(rng.UintN(3))) // groups of about 20
					l.Label = append(l.Label, float64(y)/2)
					l.Doc = append(l.Doc, []byte{'d', byte(rng.UintN(40))})
				}
				checkAgainstRef(t, Options{Ties: ties, MaxGrade: 3}, &l, 1e-12)
				if t.Failed() {
					return
				}
			}
		})
	}
}

// TestAverageOneBigGroup pins the TiesAverage formulas where a whole list is
// one tied group, the case where they differ most from any single order.
func TestAverageOneBigGroup(t *testing.T) {
	l := List{
		Score: []float64{1, 1, 1, 1, 1, 1, 1, 1},
		Label: []float64{0, 3, 0, 1, 0, 2.5, 0, 1},
	}
	for _, th := range []bool{false, true} {
		o := Options{Ties: TiesAverage, MaxGrade: 3, HasThreshold: th, RelThreshold: 1}
		t.Run(fmt.Sprintf("threshold=%v", th), func(t *testing.T) { checkAgainstRef(t, o, &l, 1e-12) })
	}
}

func FuzzEval(f *testing.F) {
	f.Add([]byte{4, 0, 8, 1, 0, 1, 2, 1, 0, 1, 6, 2, 1, 0, 3, 1, 5, 2, 4})
	f.Add([]byte{24, 4, 7, 0, 6, 0, 0, 0, 3, 0, 1, 0, 5, 0, 2, 0, 0})
	f.Add([]byte{1, 1, 17, 0, 1, 1, 2, 2, 3, 3, 4, 0, 5, 1, 6, 2, 0, 3, 7, 1, 2})
	f.Add([]byte{13, 7, 35, 5, 6, 5, 0, 9, 4, 2, 2, 3, 1, 1, 9, 3})
	f.Add([]byte{42, 2, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		o, l, ok := decodeCase(data)
		if !ok {
			t.Skip()
		}
		checkAgainstRef(t, o, &l, 1e-12)
	})
}
