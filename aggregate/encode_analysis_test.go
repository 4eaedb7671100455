package aggregate

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/stats"
)

// testLayouts cover every part an analysis can have: systems and
// comparisons, every range (cg-like open values), a bootstrap, histograms,
// metrics beyond the core, and the bare minimum.
var testLayouts = map[string]*Layout{
	"full":    {Metrics: 5, Core: []Range{RangeUnit, RangeSigned, RangeOpen}, Systems: 3, Bootstrap: 40, Hist: true},
	"boot":    {Metrics: 2, Core: []Range{RangeOpen, RangeUnit}, Systems: 2, Bootstrap: 7},
	"hist":    {Metrics: 3, Core: []Range{RangeSigned}, Systems: 2, Hist: true},
	"one sys": {Metrics: 4, Core: []Range{RangeUnit, RangeUnit}, Systems: 1, Bootstrap: 3},
	"no core": {Metrics: 2, Systems: 2},
	"rand all pairs": {Metrics: 4, Core: []Range{RangeUnit, RangeSigned, RangeOpen}, Systems: 3,
		Compare: Compare{AllPairs: true, Test: stats.TestRandom, Permutations: 70, Seed: 9}, Bootstrap: 5},
	"tukey": {Metrics: 2, Core: []Range{RangeUnit, RangeOpen}, Systems: 4, Compare: Compare{Test: stats.TestTukey, Permutations: 33, Seed: 1}},
	"bare":  {Systems: 1},
	// click weights, ratio metrics among the core (the self-normalized
	// estimates), with everything else a run can ask for
	"ratio": {Metrics: 4, Core: []Range{RangeOpen, RangeUnit, RangeOpen}, Systems: 3, Bootstrap: 9, Hist: true,
		Compare: Compare{Test: stats.TestRandom, Permutations: 20, Seed: 3}, Weights: true, Ratio: []bool{true, false, true}},
	"weights": {Metrics: 2, Core: []Range{RangeOpen}, Systems: 2, Weights: true,
		Compare: Compare{AllPairs: true, Test: stats.TestTukey, Permutations: 11}},
}

// tq is a query with its slice's key; Slice holds the key's index in one
// numbering for all the queries.
type tq struct {
	key string
	q   Query
}

// randQueries makes n queries of l over the given number of slice keys (0:
// no slices), with undefined values, missing and empty systems, and
// non-finite values beyond the core.
func randQueries(r *rand.Rand, l *Layout, n, keys int) []tq {
	out := make([]tq, n)
	for i := range out {
		q := Query{Slice: -1, Hash: r.Uint64()}
		for s := range l.Systems {
			vals := make([]float64, l.Metrics)
			for m := range vals {
				var v float64
				switch {
				case m >= len(l.Core):
					v = (r.Float64() - 0.3) * math.Ldexp(1, r.IntN(200)-100)
					if r.IntN(500) == 0 {
						v = math.Inf(1 - 2*r.IntN(2))
					}
				case l.Core[m] == RangeUnit:
					v = float64(r.IntN(3)) / 2
					if r.IntN(2) == 0 {
						v = r.Float64() / float64(1+r.IntN(9))
					}
				case l.Core[m] == RangeSigned:
					v = 2*r.Float64() - 1
				default:
					v = r.Float64() * math.Ldexp(1, r.IntN(30))
				}
				if r.IntN(9) == 0 && !(l.Ratio != nil && m < len(l.Ratio) && l.Ratio[m]) { // a ratio's value is defined
					v = math.NaN()
				}
				vals[m] = v
			}
			q.Vals = append(q.Vals, vals)
			q.Rows = append(q.Rows, r.IntN(100))
			q.Empty = append(q.Empty, r.IntN(7) == 0)
			q.Missing = append(q.Missing, s > 0 && r.IntN(11) == 0)
			if l.Weights {
				// one log's clicks: every system's weight is the first's
				w := 0.0
				if s > 0 {
					w = q.Weight[0]
				} else if r.IntN(3) > 0 {
					w = float64(1+r.IntN(4)) / (0.05 + r.Float64())
				}
				q.Weight = append(q.Weight, w)
				q.Clipped = append(q.Clipped, r.IntN(2)*r.IntN(3))
			}
		}
		key := ""
		if keys > 0 {
			key = fmt.Sprint("k", r.IntN(keys))
		}
		out[i] = tq{key: key, q: q}
	}
	return out
}

// number sets every query's Slice by first appearance of its key in qs,
// continuing the numbering in keys, as one run does.
func number(qs []tq, keys map[string]int) {
	for i := range qs {
		if qs[i].key == "" {
			qs[i].q.Slice = -1
			continue
		}
		k, ok := keys[qs[i].key]
		if !ok {
			k = len(keys)
			keys[qs[i].key] = k
		}
		qs[i].q.Slice = k
	}
}

func build(t testing.TB, l *Layout, qs []tq) *Analysis {
	a := NewAnalysis(l)
	for i := range qs {
		if err := a.Add(&qs[i].q); err != nil {
			t.Fatal(err)
		}
	}
	return a
}

func encode(t testing.TB, a *Analysis) []byte {
	t.Helper()
	b, err := a.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func decode(t testing.TB, b []byte) *Analysis {
	t.Helper()
	var a Analysis
	if err := a.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	return &a
}

// render writes every figure an analysis gives, each float exactly.
func render(a *Analysis) string {
	var w strings.Builder
	f := func(xs ...float64) {
		for _, x := range xs {
			w.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
			w.WriteByte(' ')
		}
	}
	sum := func(s stats.Summary) { fmt.Fprintf(&w, "n%d ", s.N); f(s.Mean, s.Lo, s.Hi, s.Stdev) }
	pairs := func(ps [][]stats.Paired) {
		for _, row := range ps {
			for _, p := range row {
				fmt.Fprintf(&w, "n%d ", p.N)
				fmt.Fprintf(&w, "%d-%d %v ", p.I, p.J, p.Test)
				f(p.Mean, p.Lo, p.Hi, p.T, p.PT, p.P, p.PAdj, p.BootLo, p.BootHi)
			}
		}
		w.WriteByte('\n')
	}
	nc := len(a.L.Core)
	for s, set := range a.Sys {
		fmt.Fprintf(&w, "system %d: %d %d %d %d %d %d\n", s, set.Rows, set.Queries, set.Empty, set.Dropped, a.Missing[s], a.Clipped(s))
		for m := range set.Stats {
			if m < nc {
				sum(a.SysSummary(s, m))
			}
			sum(set.Stats[m].Summary())
			f(set.Stats[m].Sum.Float64(), set.Stats[m].SumSq.Float64())
		}
		if a.W != nil {
			ws := &a.W.Sys[s]
			sum(ws.W.Summary())
			for r := range ws.Cross {
				f(ws.Cross[r].Float64())
			}
		}
		for m := range nc {
			f(a.BootCI(s, m))
		}
		w.WriteByte('\n')
	}
	pairs(a.Pairs(stats.CorrHolm))
	pairs(a.Pairs(stats.CorrBH))
	for s := range a.Hist {
		for m := range a.Hist[s] {
			fmt.Fprintln(&w, a.Hist[s][m].Range, a.Hist[s][m].Counts)
		}
	}
	if a.Boot != nil {
		for k := range a.Boot.K {
			f(a.Boot.Means(k)...)
		}
	}
	if a.Perm != nil {
		for i := range a.Perm.lo {
			fmt.Fprintf(&w, "%d:%d ", a.Perm.hi[i], a.Perm.lo[i])
		}
		w.WriteByte('\n')
	}
	n := len(a.Slices)
	for n > 0 && a.Slices[n-1] == nil {
		n--
	}
	for i, sl := range a.Slices[:n] {
		if sl == nil {
			fmt.Fprintf(&w, "slice %d: none\n", i)
			continue
		}
		fmt.Fprintf(&w, "slice %d: %v %v %v %v\n", i, sl.Rows, sl.Queries, sl.Empty, sl.Missing)
		for s := range sl.Stats {
			for m := range sl.Stats[s] {
				sum(sl.SysSummary(a.L, s, m))
			}
		}
		pairs(sl.Pairs(a.L, stats.CorrHolm))
	}
	return w.String()
}

// same demands equal encodings and equal figures.
func same(t *testing.T, what string, got, want *Analysis) {
	t.Helper()
	if g, w := render(got), render(want); g != w {
		t.Fatalf("%s: figures differ:\n%s\nwant\n%s", what, g, w)
	}
	if !bytes.Equal(encode(t, got), encode(t, want)) {
		t.Fatalf("%s: encodings differ", what)
	}
}

func TestAnalysisBinaryRoundTrip(t *testing.T) {
	for name, l := range testLayouts {
		for _, keys := range []int{0, 1, 13} {
			t.Run(fmt.Sprint(name, "/", keys, " keys"), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(keys), uint64(len(name))))
				qa, qb := randQueries(r, l, 150, keys), randQueries(r, l, 90, keys)
				numbering := map[string]int{}
				number(qa, numbering)
				number(qb, numbering)
				a := build(t, l, qa)
				a.Sys[0].Dropped = 17
				d := decode(t, encode(t, a))
				same(t, "decoded", d, a)
				if !d.L.Equal(l) || d.L == l {
					t.Fatalf("layout %+v, want a copy of %+v", d.L, l)
				}
				// the decoded aggregate takes merges from either side and
				// further queries like the original
				enc := encode(t, build(t, l, qa))
				m1, m2 := build(t, l, qa), decode(t, enc)
				m1.Merge(build(t, l, qb))
				m2.Merge(decode(t, encode(t, build(t, l, qb))))
				same(t, "merged", m2, m1)
				m3 := build(t, l, qb)
				m3.Merge(decode(t, enc))
				same(t, "merged into", m3, m1)
				d = decode(t, enc)
				for i := range qb {
					if err := d.Add(&qb[i].q); err != nil {
						t.Fatal(err)
					}
				}
				same(t, "added to", d, m1)
			})
		}
	}
}

// TestAnalysisBinaryCanonical splits the same queries into parts, adds
// each part in its own order, sends some through bytes and merges them in
// a random tree: every way gives the bytes of one analysis of all.
func TestAnalysisBinaryCanonical(t *testing.T) {
	for _, name := range []string{"full", "boot", "hist"} {
		l := testLayouts[name]
		t.Run(name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(11, uint64(len(name))))
			qs := randQueries(r, l, 400, 9)
			number(qs, map[string]int{})
			want := encode(t, build(t, l, qs))
			defer func(n int32) { normalizeEvery = n }(normalizeEvery)
			for trial := range 12 {
				normalizeEvery = 1 << 28
				if trial%4 == 3 { // force carry propagation mid-stream
					normalizeEvery = int32(2 + trial)
				}
				perm := r.Perm(len(qs))
				parts := make([]*Analysis, 1+r.IntN(8))
				for i := range parts {
					parts[i] = NewAnalysis(l)
				}
				for _, j := range perm {
					if err := parts[r.IntN(len(parts))].Add(&qs[j].q); err != nil {
						t.Fatal(err)
					}
				}
				for len(parts) > 1 {
					i, j := r.IntN(len(parts)), r.IntN(len(parts)-1)
					if j >= i {
						j++
					}
					if r.IntN(2) == 0 {
						parts[j] = decode(t, encode(t, parts[j]))
					}
					parts[i].Merge(parts[j])
					parts = append(parts[:j], parts[j+1:]...)
				}
				if got := encode(t, parts[0]); !bytes.Equal(got, want) {
					t.Fatalf("trial %d: encoding differs from one analysis of all", trial)
				}
			}
		})
	}
}

// TestMergeMapped saves daily runs, each numbering its slices by first
// appearance, and merges them with the keys mapped: the bytes of one run
// over all the days.
func TestMergeMapped(t *testing.T) {
	l := testLayouts["full"]
	r := rand.New(rand.NewPCG(3, 4))
	var all []tq
	var days [][]byte
	var dayKeys [][]string
	for range 9 {
		qs := randQueries(r, l, 30+r.IntN(60), 5+r.IntN(20))
		keys := map[string]int{}
		number(qs, keys)
		byIndex := make([]string, len(keys))
		for k, i := range keys {
			byIndex[i] = k
		}
		days = append(days, encode(t, build(t, l, qs)))
		dayKeys = append(dayKeys, byIndex)
		all = append(all, qs...)
	}
	number(all, map[string]int{})
	want := build(t, l, all)

	total := NewAnalysis(l)
	global := map[string]int{}
	for i, enc := range days {
		mapping := make([]int, len(dayKeys[i]))
		for j, k := range dayKeys[i] {
			g, ok := global[k]
			if !ok {
				g = len(global)
				global[k] = g
			}
			mapping[j] = g
		}
		if err := total.MergeMapped(decode(t, enc), mapping); err != nil {
			t.Fatal(err)
		}
	}
	same(t, "merged days", total, want)

	before := encode(t, total)
	other := *l
	other.Bootstrap++
	if err := total.MergeMapped(NewAnalysis(&other), nil); !errors.Is(err, ErrLayout) {
		t.Fatalf("other layout: err = %v, want ErrLayout", err)
	}
	if err := total.MergeMapped(decode(t, days[0]), []int{0}); err == nil {
		t.Fatal("a short mapping was accepted")
	}
	if err := total.MergeMapped(decode(t, days[0]), make([]int, len(dayKeys[0]))); err != nil {
		t.Fatalf("every slice mapped to one: %v", err)
	}
	if bytes.Equal(before, encode(t, total)) {
		t.Fatal("a merge changed nothing")
	}
	mapped := decode(t, days[0])
	mapped.MergeMapped(decode(t, days[1]), make([]int, len(dayKeys[1])))
	neg := make([]int, len(dayKeys[0]))
	neg[len(neg)-1] = -1
	if err := mapped.MergeMapped(decode(t, days[0]), neg); err == nil {
		t.Fatal("a negative index was accepted")
	}
}

func TestLayoutBinary(t *testing.T) {
	for name, l := range testLayouts {
		b, err := l.MarshalBinary()
		if err != nil {
			t.Fatal(name, err)
		}
		var got Layout
		if err := got.UnmarshalBinary(b); err != nil || !got.Equal(l) {
			t.Fatalf("%s: %+v, %v", name, got, err)
		}
		for n := range b {
			if err := got.UnmarshalBinary(b[:n]); !errors.Is(err, ErrEncoding) {
				t.Fatalf("%s truncated to %d: err = %v", name, n, err)
			}
		}
	}
	for _, l := range []*Layout{{Systems: 0}, {Metrics: 1, Core: []Range{0, 0}, Systems: 1}, {Metrics: 1, Core: []Range{7}, Systems: 1},
		{Systems: 1, Bootstrap: -1}} {
		if _, err := l.MarshalBinary(); !errors.Is(err, ErrLayout) {
			t.Fatalf("%+v: err = %v, want ErrLayout", l, err)
		}
	}
	var nilLayout *Layout
	if !nilLayout.Equal(nil) || nilLayout.Equal(testLayouts["bare"]) || testLayouts["full"].Equal(testLayouts["boot"]) {
		t.Fatal("Equal")
	}
	// an analysis not made by NewAnalysis does not encode into garbage
	hand := &Analysis{Sys: []*Set{NewSet(1)}, Missing: []int64{0}}
	if _, err := hand.MarshalBinary(); !errors.Is(err, ErrLayout) {
		t.Fatalf("no layout: err = %v", err)
	}
	hand.L = &Layout{Metrics: 2, Systems: 1}
	if _, err := hand.MarshalBinary(); !errors.Is(err, ErrLayout) {
		t.Fatalf("wrong shape: err = %v", err)
	}
	// a count beyond its number of queries neither saves nor loads
	l := testLayouts["hist"]
	qs := randQueries(rand.New(rand.NewPCG(2, 2)), l, 5, 2)
	number(qs, map[string]int{})
	a := build(t, l, qs)
	enc := encode(t, a)
	a.Slices[0].Diff[0][0].N = a.Slices[0].Queries[0] + 1
	if _, err := a.MarshalBinary(); !errors.Is(err, ErrLayout) {
		t.Fatalf("slice count beyond its queries: err = %v", err)
	}
	// Sys[0]'s Stats[0].N follows the layout, the set's header and its
	// count bytes: make it the number of queries plus one
	i := 1 + len(l.mustEncode()) + 2
	for _, v := range []int64{a.Sys[0].Rows, a.Sys[0].Queries, a.Sys[0].Empty, a.Sys[0].Dropped} {
		i += len(binary.AppendVarint(nil, v))
	}
	if enc[i] != byte(2*a.Sys[0].Stats[0].N) || a.Sys[0].Queries != 5 {
		t.Fatalf("byte %d is %d, not metric 0's count %d", i, enc[i], a.Sys[0].Stats[0].N)
	}
	enc[i] = 2 * 6
	var d Analysis
	if err := d.UnmarshalBinary(enc); !errors.Is(err, ErrEncoding) {
		t.Fatalf("metric count beyond the queries: err = %v", err)
	}
}
