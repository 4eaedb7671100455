package treceval

import (
	"cmp"
	"slices"

	"github.com/rankeval/rankeval/reader/trec"
)

// The all_prefs measures (m_prefs_*.c), from a query's preferences
// (prefs.go). Of a preference A > B: _ret counts it only when both are
// retrieved; _imp also when one is (fulfilled when it is A); the plain
// measure also when neither is, as not fulfilled. simp is fulfilled over
// possible over the query; avgjg the same ratio within each judgment
// group, averaged over the groups; pair the share of the groups that
// prefer the retrieved-first (or the retrieved) document of each pair,
// averaged over the pairs; avgjg_Rnonrel counts each group as if it had
// as many non-relevant documents as relevant (recount.go).

// prefsCalc computes one measure from a query's preferences.
type prefsCalc struct {
	value func(q *queryPrefs) float64
	need  prefsNeed
}

// prefsInit is the init of a measure of the family: one value its
// family computes (own), printed and summed by r.
func prefsInit(name string, r rule) initFunc {
	return func(*initContext, string) ([]value, error) { return []value{{name: name, rule: r, own: true}}, nil }
}

// prefsCalcs are the measures' computations, by name.
var prefsCalcs = map[string]prefsCalc{
	"prefs_num_prefs_poss": {value: func(q *queryPrefs) float64 {
		return float64(sumJG(q, func(g *jgPrefs) int64 { return g.possRet + g.possImp + g.notOccur }))
	}},
	"prefs_num_prefs_ful": {value: func(q *queryPrefs) float64 {
		return float64(sumJG(q, func(g *jgPrefs) int64 { return g.fulRet + g.fulImp }))
	}},
	"prefs_num_prefs_ful_ret": {value: func(q *queryPrefs) float64 {
		return float64(sumJG(q, func(g *jgPrefs) int64 { return g.fulRet }))
	}},
	"prefs_simp": {value: func(q *queryPrefs) float64 { return simp(q, fulAll, possAll) }},
	"prefs_simp_ret": {value: func(q *queryPrefs) float64 {
		return simp(q, func(g *jgPrefs) int64 { return g.fulRet }, func(g *jgPrefs) int64 { return g.possRet })
	}},
	"prefs_simp_imp": {value: func(q *queryPrefs) float64 { return simp(q, fulAll, possImp) }},
	"prefs_pair":     {value: func(q *queryPrefs) float64 { return pairs(q, 3) }, need: prefsNeed{pairs: true}},
	"prefs_pair_ret": {value: func(q *queryPrefs) float64 { return pairs(q, 1) }, need: prefsNeed{pairs: true}},
	"prefs_pair_imp": {value: func(q *queryPrefs) float64 { return pairs(q, 2) }, need: prefsNeed{pairs: true}},
	"prefs_avgjg":    {value: func(q *queryPrefs) float64 { return avgjg(q, fulAll, possAll) }},
	"prefs_avgjg_ret": {value: func(q *queryPrefs) float64 {
		return avgjg(q, func(g *jgPrefs) int64 { return g.fulRet }, func(g *jgPrefs) int64 { return g.possRet })
	}},
	"prefs_avgjg_imp":         {value: func(q *queryPrefs) float64 { return avgjg(q, fulAll, possImp) }},
	"prefs_avgjg_Rnonrel":     {value: func(q *queryPrefs) float64 { return rnonrel(q, false) }, need: prefsNeed{rn: true}},
	"prefs_avgjg_Rnonrel_ret": {value: func(q *queryPrefs) float64 { return rnonrel(q, true) }, need: prefsNeed{rnRet: true}},
}

func fulAll(g *jgPrefs) int64  { return g.fulRet + g.fulImp }
func possAll(g *jgPrefs) int64 { return g.possRet + g.possImp + g.notOccur }
func possImp(g *jgPrefs) int64 { return g.possRet + g.possImp }

func sumJG(q *queryPrefs, f func(*jgPrefs) int64) int64 {
	var s int64
	for i := range q.jgs {
		s += f(&q.jgs[i])
	}
	return s
}

// simp is fulfilled over possible over every group, 0 when none is
// possible.
func simp(q *queryPrefs, ful, poss func(*jgPrefs) int64) float64 {
	f, p := sumJG(q, ful), sumJG(q, poss)
	if p == 0 {
		return 0
	}
	return float64(f) / float64(p)
}

// avgjg is the mean over the groups of each one's fulfilled over possible
// (a group with none possible adds 0); 0 when the sum is not above 0.
func avgjg(q *queryPrefs, ful, poss func(*jgPrefs) int64) float64 {
	sum := 0.0
	for i := range q.jgs {
		if p := poss(&q.jgs[i]); p != 0 {
			sum += float64(ful(&q.jgs[i])) / float64(p)
		}
	}
	return avgOverJG(q, sum)
}

// avgOverJG is trec_eval's last step of the avgjg measures: a sum over
// the groups that is not above 0 (0, or NaN from a 0/0) gives 0.
func avgOverJG(q *queryPrefs, sum float64) float64 {
	if sum > 0 {
		return sum / float64(len(q.jgs))
	}
	return 0
}

// rnonrel is prefs_avgjg_Rnonrel (ret: _ret): each group's N
// non-relevant documents made R, by adding R·(R-N) preferences of the
// relevant over them when N < R, else by counting again with R of them.
func rnonrel(q *queryPrefs, ret bool) float64 {
	sum := 0.0
	for i := range q.jgs {
		g := &q.jgs[i]
		var ful, poss int64
		r, n := g.rel, g.nonrel
		if ret {
			r, n = g.relRet, g.nonrelRet
		}
		switch {
		case r >= n && ret:
			ful = g.fulRet + g.relRet*(r-n)
			poss = g.possRet + g.rel*(r-n)
		case r >= n:
			ful = fulAll(g) + g.relRet*(r-n)
			poss = possAll(g) + g.rel*(r-n)
		case ret:
			ful, poss = g.rnRet.ful, g.rnRet.poss
		default:
			ful, poss = g.rn.ful, g.rn.poss
		}
		sum += float64(ful) / float64(poss) // 0/0 makes the sum NaN, and the value 0
	}
	return avgOverJG(q, sum)
}

// pairs averages, over the pairs of documents some group orders, the share
// of the groups that prefer the first of the pair: the pairs of retrieved
// documents (areas 1), then those of a retrieved and an unretrieved one,
// the retrieved first (2); with 3, the pairs of unretrieved documents
// count too, as 0.
func pairs(q *queryPrefs, areas int) float64 {
	n, njr := q.judged, q.judgedRet
	c := q.counts
	sum, np := 0.0, 0
	add := func(i, j int) {
		if a, b := c[i*n+j], c[j*n+i]; a != 0 || b != 0 {
			np++
			sum += float64(a) / (float64(a) + float64(b))
		}
	}
	for i := range njr {
		for j := i + 1; j < njr; j++ {
			add(i, j)
		}
	}
	if areas >= 2 {
		for i := range njr {
			for j := njr; j < n; j++ {
				add(i, j)
			}
		}
	}
	if areas >= 3 {
		for i := njr; i < n; i++ {
			for j := i + 1; j < n; j++ {
				if c[i*n+j] != 0 || c[j*n+i] != 0 {
					np++
				}
			}
		}
	}
	if np == 0 {
		return 0
	}
	return sum / float64(np)
}

// prefsFamily reads the prefs file of a and readies the measures of sel:
// eval computes a query's values, one per value of sel (its own ones).
func prefsFamily(a *trecEvalArgs, sel *selection) (*relFamily, error) {
	f, err := trec.ReadPrefs(a.qrels, a.relFormat, a.release, a.comments())
	if err != nil {
		return nil, err
	}
	var need prefsNeed
	var calcs []prefsCalc
	for _, v := range sel.values {
		if !v.own {
			continue
		}
		c := prefsCalcs[v.name]
		calcs = append(calcs, c)
		need.pairs = need.pairs || c.need.pairs
		need.rn = need.rn || c.need.rn
		need.rnRet = need.rnRet || c.need.rnRet
	}
	fam := &relFamily{judged: relQueries(f.ByQuery)}
	var q queryPrefs
	var order []int
	var ranked []string
	fam.eval = func(qid string, docs [][]byte, scores []float64, vals []float64) error {
		// form_prefs_counts ranks by score, ties by docno ascending (the
		// other measures' rankings break them descending), then -M
		order = order[:0]
		for i := range docs {
			order = append(order, i)
		}
		slices.SortFunc(order, func(x, y int) int {
			return cmp.Or(cmp.Compare(scores[y], scores[x]), slices.Compare(docs[x], docs[y]))
		})
		if a.maxDocs > 0 && int64(len(order)) > a.maxDocs {
			order = order[:a.maxDocs]
		}
		ranked = ranked[:0]
		for _, i := range order {
			ranked = append(ranked, string(docs[i]))
		}
		if err := q.form(f, qid, f.ByQuery[qid], ranked, need); err != nil {
			return err
		}
		for i, c := range calcs {
			vals[i] = c.value(&q)
		}
		return nil
	}
	return fam, nil
}
