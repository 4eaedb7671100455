package treceval

import (
	"fmt"

	"github.com/rankeval/rankeval/reader/trec"
)

// prefs_avgjg_Rnonrel and prefs_avgjg_Rnonrel_ret count a group's
// preferences again when it has more non-relevant documents (N) than
// relevant (R): only R of the non-relevant ones take part, the first in
// docid rank order (m_prefs_avgjg_Rnonrel.c's recalculate, and its _ret
// twin's, followed step for step: their quirks are the measures').

// recountClasses recounts a group of equivalence classes: the pairs of
// classes but the last (the non-relevant one, when no rel_level is below
// 0), then every class against the first r documents of the last. A pair
// is fulfilled when the first document ranks above the second and is
// retrieved. With ret, only the retrieved documents of each class count,
// and any order between them fulfils. r is R (ret: the retrieved R).
func recountClasses(f *trec.Prefs, qid string, es []prefEntry, ecs []prefClass, njr int, r int64, ret bool) (recount, error) {
	last := ecs[len(ecs)-1].ranks
	if r > int64(len(last)) {
		// trec_eval reads past the class (a rel_level below 0 makes the
		// last class not the non-relevant one): no number to reproduce
		return recount{}, fmt.Errorf("%s:%d: judgment group %q of query %q: prefs_avgjg_Rnonrel takes its first %d non-relevant documents from the lowest rel_level, %v, which has %d; trec_eval reads past its arrays here (rel_levels below 0 are not prefs judgments): %w",
			f.Name, es[0].Line, es[0].JG, qid, r, ecs[len(ecs)-1].rel, len(last), ErrJudgments)
	}
	nonrel := last[:r]
	var c recount
	count := func(a, b []int) {
		if ret {
			a, b = a[:retrieved(a, njr)], b[:retrieved(b, njr)]
		}
		for _, r1 := range a {
			for _, r2 := range b {
				if r1 < r2 && (ret || r1 < njr) {
					c.ful++
				} else {
					c.poss++
				}
			}
		}
	}
	for c1 := range ecs {
		for c2 := c1 + 1; c2 < len(ecs)-1; c2++ {
			count(ecs[c1].ranks, ecs[c2].ranks)
		}
	}
	for c1 := range ecs {
		count(ecs[c1].ranks, nonrel)
	}
	c.poss += c.ful
	return c, nil
}

// recountArray recounts a preference array without its non-relevant
// documents after the (rel+1)th, in docid rank order (with ret, among the
// retrieved ones; rel is the group's R either way, as in trec_eval). A
// preference is fulfilled when the preferred document is retrieved and
// ranks above the other; with ret, only preferences between retrieved
// documents count.
func recountArray(p *prefsArray, njr int, rel int64, ret bool) recount {
	first := len(p.ranks) // the first discarded document
	seen := int64(0)
	for i, r := range p.ranks {
		if ret && r >= njr {
			break
		}
		if p.rel[i] == 0 {
			if seen++; seen == rel+1 {
				first = i
				break
			}
		}
	}
	dropped := func(i int) bool { return i >= first && p.rel[i] == 0 }
	var c recount
	p.each(func(i, j int) {
		ri, rj := p.ranks[i], p.ranks[j]
		if dropped(i) || dropped(j) || ret && (ri >= njr || rj >= njr) {
			return
		}
		if ri < njr && rj > ri {
			c.ful++
		} else {
			c.poss++
		}
	})
	c.poss += c.ful
	return c
}
