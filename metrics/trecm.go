package metrics

import (
	"math"

	"github.com/rankeval/rankeval/internal/pmath"
)

// trec_eval's own measures (docs/metrics.md §7) that the sweep's sums cannot give:
// the counts, bpref, interpolated precision and judged@k. They are
// computed here in one walk of the ranking (after Options.MaxRanked and
// JudgedOnly), with trec_eval's arithmetic in trec_eval's order, so that
// every value is the very double trec_eval computes.

// iprecCut is one iprec metric of a query: its index in the output and the
// number of relevant rows its recall level stands for.
type iprecCut struct {
	j   int
	cut int
}

// negativeJudgment reports whether a judged label stands for a negative
// judgment (the qrels loader keeps it as -0.0): in the pool, not judged.
//
// -0.0 is the one value whose bits are the sign's alone: one comparison,
// where v == 0 && Signbit(v) branched on v == 0 (most labels are 0).
func negativeJudgment(v float64) bool { return math.Float64bits(v) == 1<<63 }

// ownValues writes the values of the metrics computed apart, for a query
// whose ranking e.ents holds n rows, with nRel relevant judged documents
// among judged. The counts and judged@k are defined for every query; bpref
// and iprec are left to the empty-query policy when nRel is 0.
func (e *Evaluator) ownValues(l *List, n, nRel int, judged []float64, out []float64) {
	relRet := len(e.rpos)
	bpref := math.NaN() // computed once for bpref and gm_bpref
	bprefOnce := func() float64 {
		if bpref != bpref {
			bpref = e.bpref(l, n, nRel, judged)
		}
		return bpref
	}
	e.ip = e.ip[:0]
	if e.rels {
		e.readRels(l, n, judged)
	}
	for j, m := range e.ms {
		switch m.Kind {
		case KindNumQ:
			out[j] = 1
		case KindNumRet:
			out[j] = float64(n)
		case KindNumRel:
			out[j] = float64(nRel)
		case KindNumRelRet:
			out[j] = float64(relRet)
		case KindJudged:
			out[j] = e.judgedAt(l, cutAt(m.K, n))
		case KindBpref:
			out[j] = 0
			if nRel > 0 {
				out[j] = bprefOnce()
			}
		case KindGMBpref:
			out[j] = geoTerm(0)
			if nRel > 0 {
				out[j] = geoTerm(bprefOnce())
			}
		case KindSetP:
			out[j] = 0
			if n > 0 {
				out[j] = float64(relRet) / float64(n)
			}
		case KindSetRelP:
			out[j] = 0
			if n > 0 && nRel > 0 {
				out[j] = float64(relRet) / float64(min(n, nRel))
			}
		case KindSetRecall:
			out[j] = 0
			if nRel > 0 {
				out[j] = float64(relRet) / float64(nRel)
			}
		case KindSetMAP:
			out[j] = 0
			if n > 0 && nRel > 0 {
				out[j] = float64(relRet) * float64(relRet) / (float64(n) * float64(nRel))
			}
		case KindSetF:
			out[j] = 0
			if relRet > 0 {
				// trec_eval's arithmetic, beta x: (x+1)·P·R / (x·P + R)
				p, r := float64(relRet)/float64(n), float64(relRet)/float64(nRel)
				x := m.Beta
				out[j] = float64((x+1.0)*p) * r / (float64(x*p) + r)
			}
		case KindNumNonrelJudgedRet:
			c := 0
			for _, jc := range e.jc[:n] {
				c += nonrelAt(jc)
			}
			out[j] = float64(c)
		case Kind11pt:
			out[j] = e.elevenPoint(l, n, nRel, relRet, e.par[j].floats)
		case KindIPrec:
			e.ip = append(e.ip, iprecCut{j: j, cut: IPrecRels(m.Level, nRel, e.o.IPrecRound)})
		default:
			if families[m.Kind].needs&needRels != 0 {
				out[j] = e.trecValue(j, &e.ms[j])
			}
		}
	}
	if len(e.ip) > 0 {
		e.iprec(l, n, relRet, out)
	}
}

// judgedAt is the share of the first k rows that the qrels judge (a
// negative judgment is a judgment); 0 when k is 0.
func (e *Evaluator) judgedAt(l *List, k int) float64 {
	if k == 0 {
		return 0
	}
	if l.Status == nil {
		return 1
	}
	c := 0
	for _, st := range e.st[:k] {
		if st != Unjudged {
			c++
		}
	}
	return float64(c) / float64(k)
}

// bpref is trec_eval's: over the relevant rows, the share of the judged
// non-relevant documents (at most R of them) not ranked above each.
// Unjudged rows and negative judgments are neither.
func (e *Evaluator) bpref(l *List, n, nRel int, judged []float64) float64 {
	// the judged documents neither relevant nor negative judgments: all
	// but R and those (countRel's classes)
	numNonrel := len(judged) - nRel
	if l.Judged != nil {
		for _, v := range judged {
			numNonrel -= int(b2u(negativeJudgment(v)))
		}
	}
	// A relevant row adds its term, any other row +0 (b never negative:
	// b + 0 is b), chosen by a mask of the term's bits rather than a
	// branch on the row's class, which a ranking's random mix of classes
	// mispredicted; the term's own branch flips once, at the first
	// nonrelevant row.
	var b float64
	nonrel := 0
	for _, c := range e.jc[:n] {
		term := 1.0
		if nonrel > 0 {
			term = 1.0 - float64(min(nonrel, nRel))/float64(min(numNonrel, nRel))
		}
		keep := -uint64(b2u(c == judgedRow|relevantRow))
		b += math.Float64frombits(math.Float64bits(term) & keep)
		nonrel += nonrelAt(c)
	}
	return b / float64(nRel)
}

// iprec writes the interpolated precision of every iprec metric in e.ip,
// walking the ranking up from the bottom as trec_eval does: the value at a
// level is the best precision at or below the rank where that many
// relevant rows have been seen; a level the ranking never reaches is 0.
func (e *Evaluator) iprec(l *List, n, relRet int, out []float64) {
	e.iprecAt(l, n, relRet, e.ip, out)
}

// iprecAt writes the interpolated precision at each cut of ip to out.
func (e *Evaluator) iprecAt(l *List, n, relRet int, ip []iprecCut, out []float64) {
	if n == 0 {
		// nothing ranked (Options.JudgedOnly left no row): trec_eval's
		// precision is 0/0, so a level that needs no relevant row is NaN
		// (undefined), whether or not the query is empty
		for _, c := range ip {
			out[c.j] = 0
			if c.cut <= 0 {
				out[c.j] = float64(relRet) / float64(n) // 0/0: NaN as C's, sign and all
			}
		}
		return
	}
	for _, c := range ip {
		out[c.j] = 0
	}
	// trec_eval takes the precision at every rank going up; the best one
	// so far, read at the relevant rows, is the best at those rows (the
	// precision grows up to each from the row below it)
	best := float64(relRet) / float64(n)
	for seen := relRet; seen > 0; seen-- {
		if p := float64(seen) / float64(e.rpos[seen-1]+1); best < p {
			best = p
		}
		for _, c := range ip {
			if c.cut == seen {
				out[c.j] = best
			}
		}
	}
	// a cut the walk never reaches (0, or below 0 for a recall level
	// below 0) gets the best precision of the whole ranking, as trec_eval
	// leaves it
	for _, c := range ip {
		if c.cut <= 0 {
			out[c.j] = best
		}
	}
}

// IPrecRels is the number of relevant rows that recall level x of nRel
// means: trec_eval 9.0.8's (long) (x * num_rel + 0.9), or, with round,
// 10.0's lround(x * num_rel) (halves away from zero). 11pt_avg uses it too.
func IPrecRels(x float64, nRel int, round bool) int {
	if round {
		return int(pmath.CLong(math.Round(x * float64(nRel))))
	}
	return int(pmath.CLong(float64(x*float64(nRel)) + 0.9))
}

// elevenPointLevels are 11pt_avg's recall levels, trec_eval's literals.
var elevenPointLevels = []float64{0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0}

// elevenPoint is trec_eval's 11pt_avg: the mean of the interpolated
// precision at the recall levels xs (11pt_avg's parameters, in the order
// given; elevenPointLevels by default), each x standing for iprec's number
// of relevant rows. As trec_eval, it walks the ranking up from the bottom
// and takes the levels from the last down, as if they ascended: it adds
// the best precision so far to the sum each time the relevant rows seen
// come down to the current level's, and the best precision of the whole
// ranking for the levels left. With no row ranked the best precision is
// 0/0, NaN.
func (e *Evaluator) elevenPoint(l *List, n, nRel, relRet int, xs []float64) float64 {
	cur := len(xs) - 1
	cut := func(i int) int { return IPrecRels(xs[i], nRel, e.o.IPrecRound) }
	for cur >= 0 && cut(cur) > relRet {
		cur--
	}
	best := float64(relRet) / float64(n)
	sum := 0.0
	for seen := relRet; seen > 0; seen-- { // as iprecAt
		if p := float64(seen) / float64(e.rpos[seen-1]+1); best < p {
			best = p
		}
		for cur >= 0 && seen == cut(cur) {
			sum += best
			cur--
		}
	}
	for ; cur >= 0; cur-- {
		sum += best
	}
	return sum / float64(len(xs))
}
