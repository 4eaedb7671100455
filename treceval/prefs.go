package treceval

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"

	"github.com/rankeval/rankeval/reader/trec"
)

// The preferences of one query against a ranking, as trec_eval's
// form_prefs_counts.c forms them; the measures (prefs_measures.go) are
// ratios of what it counts.
//
// Every document the query's lines name gets a docid rank: the judged
// documents retrieved (within -M) first, 0 to njr-1 in ranking order,
// then the others, njr to n-1 in docno order. A judgment group with one
// sub-group is a list of equivalence classes, one per rel_level, highest
// first, each preferring its documents to those of every class below;
// one with several sub-groups is a preference array (which document is
// preferred to which), closed transitively. A preference A > B is
// fulfilled among the retrieved when both are retrieved and A ranks
// first, fulfilled by implication when only A is retrieved, and does not
// occur when neither is.

// jgPrefs counts the preferences of one judgment group (trec_eval's JG):
// possible counts include the fulfilled; rel and nonrel count its
// documents above 0 and at 0 (an equivalence class below 0 counts as not
// relevant, a preference array's document below 0 as neither).
type jgPrefs struct {
	fulRet, possRet, fulImp, possImp, notOccur int64
	rel, relRet, nonrel, nonrelRet             int64
	// prefs_avgjg_Rnonrel's and prefs_avgjg_Rnonrel_ret's counts, when
	// they count again (recount.go): with as many non-relevant documents
	// as relevant
	rn, rnRet recount
}

// recount is what prefs_avgjg_Rnonrel counts again when a group has more
// non-relevant documents than relevant: fulfilled and possible.
type recount struct{ ful, poss int64 }

// prefsNeed says what the measures asked for need formed beyond the
// groups' counts.
type prefsNeed struct {
	pairs, rn, rnRet bool
}

// queryPrefs is one query's preferences formed against a ranking
// (trec_eval's RESULTS_PREFS).
type queryPrefs struct {
	judged, judgedRet int // n and njr
	jgs               []jgPrefs
	// counts[i*n+j] is how many groups prefer the document of docid rank
	// i to that of j, in trec_eval's 16 bits (when pairs are needed)
	counts []uint16
	// scratch
	docs    []string       // by docid rank
	rank    map[string]int // docid rank by docno
	entries []prefEntry
	local   []int32 // docid rank -> index among a preference array's documents, or -1
	pa      prefsArray
}

// prefEntry is a line of the query with its document's docid rank.
type prefEntry struct {
	*trec.PrefLine
	rank int
}

// form forms the preferences of lines (one query's, all from f) against
// ranked, the run's documents of the query in ranking order within -M.
func (q *queryPrefs) form(f *trec.Prefs, qid string, lines []trec.PrefLine, ranked []string, need prefsNeed) error {
	// docid ranks: the retrieved judged documents in ranking order, then
	// the other judged ones in docno order
	if q.rank == nil {
		q.rank = map[string]int{}
	}
	clear(q.rank)
	for i := range lines {
		q.rank[lines[i].Doc] = -1
	}
	q.docs = q.docs[:0]
	for _, d := range ranked {
		if r, ok := q.rank[d]; ok && r < 0 {
			q.rank[d] = len(q.docs)
			q.docs = append(q.docs, d)
		}
	}
	q.judgedRet = len(q.docs)
	for _, d := range sortedKeys(q.rank) {
		if q.rank[d] < 0 {
			q.rank[d] = len(q.docs)
			q.docs = append(q.docs, d)
		}
	}
	n := len(q.docs)
	q.judged = n
	q.counts = q.counts[:0]
	if need.pairs {
		q.counts = slices.Grow(q.counts, n*n)[:n*n]
		clear(q.counts)
	}

	q.entries = q.entries[:0]
	for i := range lines {
		q.entries = append(q.entries, prefEntry{&lines[i], q.rank[lines[i].Doc]})
	}
	slices.SortFunc(q.entries, func(x, y prefEntry) int {
		return cmp.Or(cmp.Compare(x.JG, y.JG), cmp.Compare(x.JSG, y.JSG), cmp.Compare(y.Rel, x.Rel),
			cmp.Compare(x.rank, y.rank), cmp.Compare(x.Line, y.Line))
	})
	q.jgs = q.jgs[:0]
	for lo := 0; lo < len(q.entries); {
		hi, subs := lo+1, 1
		for ; hi < len(q.entries) && q.entries[hi].JG == q.entries[lo].JG; hi++ {
			if q.entries[hi].JSG != q.entries[hi-1].JSG {
				subs++
			}
		}
		var jg jgPrefs
		var err error
		if subs > 1 {
			err = q.formArray(f, qid, q.entries[lo:hi], need, &jg)
		} else {
			err = q.formClasses(f, qid, q.entries[lo:hi], need, &jg)
		}
		if err != nil {
			return err
		}
		jg.possRet += jg.fulRet
		jg.possImp += jg.fulImp
		q.jgs = append(q.jgs, jg)
		lo = hi
	}
	return nil
}

// prefClass is an equivalence class: the docid ranks (ascending) of the
// lines of one rel_level of a group with one sub-group (a document twice
// at a level is in it twice, as in trec_eval).
type prefClass struct {
	rel   float64
	ranks []int
}

// formClasses counts a group of one sub-group, entries sorted by
// rel_level (descending) and docid rank: add_ec_pref_to_jg.
func (q *queryPrefs) formClasses(f *trec.Prefs, qid string, es []prefEntry, need prefsNeed, jg *jgPrefs) error {
	var ecs []prefClass
	for _, e := range es {
		if len(ecs) == 0 || ecs[len(ecs)-1].rel != e.Rel {
			ecs = append(ecs, prefClass{rel: e.Rel})
		}
		c := &ecs[len(ecs)-1]
		c.ranks = append(c.ranks, e.rank)
	}
	njr := q.judgedRet
	for c1, ec1 := range ecs {
		ret := int64(retrieved(ec1.ranks, njr))
		if ec1.rel > 0 {
			jg.relRet += ret
			jg.rel += int64(len(ec1.ranks))
		} else {
			jg.nonrelRet += ret
			jg.nonrel += int64(len(ec1.ranks))
		}
		for _, ec2 := range ecs[c1+1:] {
			for _, r1 := range ec1.ranks {
				for _, r2 := range ec2.ranks {
					if r1 == r2 {
						return q.twoLevels(f, qid, es, r1)
					}
					q.prefer(jg, r1, r2)
				}
			}
		}
	}
	var err error
	if need.rn && jg.rel < jg.nonrel {
		jg.rn, err = recountClasses(f, qid, es, ecs, njr, jg.rel, false)
	}
	if err == nil && need.rnRet && jg.relRet < jg.nonrelRet {
		jg.rnRet, err = recountClasses(f, qid, es, ecs, njr, jg.relRet, true)
	}
	return err
}

// prefer counts a preference of the document of docid rank r1 over that
// of r2 in jg, by where they are retrieved, and in the pair counts when
// they are kept.
func (q *queryPrefs) prefer(jg *jgPrefs, r1, r2 int) {
	if len(q.counts) > 0 {
		q.counts[r1*q.judged+r2]++
	}
	njr := q.judgedRet
	switch {
	case r1 < njr && r2 < njr && r1 < r2:
		jg.fulRet++
	case r1 < njr && r2 < njr:
		jg.possRet++
	case r1 < njr:
		jg.fulImp++
	case r2 < njr:
		jg.possImp++
	default:
		jg.notOccur++
	}
}

// retrieved counts the leading ranks below njr: the retrieved documents
// of a class, its ranks ascending.
func retrieved(ranks []int, njr int) int {
	k := 0
	for k < len(ranks) && ranks[k] < njr {
		k++
	}
	return k
}

// twoLevels is the error of a document at two rel_levels in a group of
// one sub-group (trec_eval: "occurs with different rel_level in same
// jsg").
func (q *queryPrefs) twoLevels(f *trec.Prefs, qid string, es []prefEntry, rank int) error {
	var at []prefEntry
	for _, e := range es {
		if e.rank == rank {
			at = append(at, e)
		}
	}
	slices.SortFunc(at, func(x, y prefEntry) int { return cmp.Compare(x.Line, y.Line) })
	first, e := at[0], at[len(at)-1]
	for _, x := range at {
		if x.Rel != first.Rel {
			e = x
			break
		}
	}
	return fmt.Errorf("%s:%d: document %q has rel_level %v here and %v at line %d in judgment group %q of query %q, which has one sub-group (trec_eval stops here): %w",
		f.Name, e.Line, e.Doc, e.Rel, first.Rel, first.Line, e.JG, qid, ErrJudgments)
}

// prefsArray is the preference array of a group of several sub-groups
// over its own documents (local indices, in docid rank order): bit j of
// row i says the document i is preferred to j.
type prefsArray struct {
	ranks []int     // docid rank of each local document, ascending
	rel   []float64 // the rel_level the group's last line of it gives
	bits  []uint64
	words int
}

func (p *prefsArray) has(i, j int) bool { return p.bits[i*p.words+j>>6]>>(j&63)&1 != 0 }
func (p *prefsArray) set(i, j int)      { p.bits[i*p.words+j>>6] |= 1 << (j & 63) }
func (p *prefsArray) row(i int) []uint64 {
	return p.bits[i*p.words : (i+1)*p.words]
}

// each calls fn for every preference i > j of the array.
func (p *prefsArray) each(fn func(i, j int)) {
	for i := range p.ranks {
		for w, x := range p.row(i) {
			for x != 0 {
				fn(i, w<<6+bits.TrailingZeros64(x))
				x &= x - 1
			}
		}
	}
}

// formArray counts a group of several sub-groups, entries sorted by
// sub-group, rel_level (descending) and docid rank: form_jg_pa, then
// add_transitives and add_pa_pref_to_jg.
func (q *queryPrefs) formArray(f *trec.Prefs, qid string, es []prefEntry, need prefsNeed, jg *jgPrefs) error {
	p := &q.pa
	p.ranks = p.ranks[:0]
	for _, e := range es {
		p.ranks = append(p.ranks, e.rank)
	}
	slices.Sort(p.ranks)
	p.ranks = slices.Compact(p.ranks)
	m := len(p.ranks)
	if len(q.local) < q.judged {
		q.local = make([]int32, q.judged)
	}
	for i, r := range p.ranks {
		q.local[r] = int32(i)
	}
	p.rel = slices.Grow(p.rel[:0], m)[:m]
	for i := range p.rel {
		p.rel[i] = -1
	}
	p.words = (m + 63) >> 6
	p.bits = slices.Grow(p.bits[:0], m*p.words)[:m*p.words]
	clear(p.bits)

	for i, e := range es {
		li := int(q.local[e.rank])
		if old := p.rel[li]; old > 0 && e.Rel == 0 || old == 0 && e.Rel > 0 {
			return fmt.Errorf("%s:%d: document %q has rel_level %v here and %v on another line of judgment group %q of query %q: 0 (not relevant) and above 0 cannot both hold (trec_eval stops here): %w",
				f.Name, e.Line, e.Doc, e.Rel, old, e.JG, qid, ErrJudgments)
		}
		p.rel[li] = e.Rel
		j := i + 1
		for j < len(es) && es[j].JSG == e.JSG && es[j].Rel == e.Rel {
			j++
		}
		for ; j < len(es) && es[j].JSG == e.JSG; j++ {
			p.set(li, int(q.local[es[j].rank]))
		}
	}
	// The transitive closure (trec_eval multiplies the array, its diagonal
	// set, by itself until it stops changing: the same relation off the
	// diagonal); then a document preferred to itself is not a preference.
	for k := range m {
		rk := p.row(k)
		for i := range m {
			if p.has(i, k) {
				ri := p.row(i)
				for w := range ri {
					ri[w] |= rk[w]
				}
			}
		}
	}
	for i := range m {
		p.row(i)[i>>6] &^= 1 << (i & 63)
	}
	for i := range m {
		for j := i + 1; j < m; j++ {
			if p.has(i, j) && p.has(j, i) {
				return fmt.Errorf("%s:%d: judgment group %q of query %q prefers %q to %q and %q to %q, through its sub-groups (trec_eval aborts here): %w",
					f.Name, es[0].Line, es[0].JG, qid, q.docs[p.ranks[i]], q.docs[p.ranks[j]], q.docs[p.ranks[j]], q.docs[p.ranks[i]], ErrJudgments)
			}
		}
	}

	njr := q.judgedRet
	for i, r := range p.ranks {
		switch rel := p.rel[i]; {
		case rel > 0:
			jg.rel++
			if r < njr {
				jg.relRet++
			}
		case rel == 0:
			jg.nonrel++
			if r < njr {
				jg.nonrelRet++
			}
		}
	}
	p.each(func(i, j int) { q.prefer(jg, p.ranks[i], p.ranks[j]) })
	if need.rn && jg.rel < jg.nonrel {
		jg.rn = recountArray(p, njr, jg.rel, false)
	}
	if need.rnRet && jg.relRet < jg.nonrelRet {
		jg.rnRet = recountArray(p, njr, jg.rel, true)
	}
	return nil
}
