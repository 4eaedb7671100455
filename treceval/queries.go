package treceval

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/rankeval/rankeval/internal/pmath"

	"github.com/rankeval/rankeval/metrics"
)

// What trec_eval does with each query's values: which queries it
// evaluates, in which order, what a judged query the run lacks counts
// for, the z-scores of -Z, the per-query lines of -q and the summary.

// query is one query trec_eval evaluates, with its values.
type query struct {
	id   string
	vals []float64
}

// queries lists the queries a's release evaluates, in its order (ids
// sorted byte-wise as strcmp sorts them): 9.0.8 walks the run's queries
// and skips those without judgments; 10.0 walks the judged queries, and
// stops at one the run lacks (unless -c, which evaluates it on a ranking
// of one unjudged document, as trec_eval does). -D 0.QID keeps only QID.
func (ev *evaluated) queries(ctx context.Context, a *trecEvalArgs) ([]query, error) {
	byID := make(map[string][]float64, len(ev.ids))
	for i, id := range ev.ids {
		byID[id] = ev.vals[i]
	}
	var ids []string
	if a.release == "9.0.8" {
		ids = slices.Clone(ev.ids)
	} else {
		ids = ev.qrels.IDs()
	}
	slices.Sort(ids)
	var qs []query
	var lacking []int // the queries of qs the run lacks (-c)
	forms := ev.formsRanking()
	for _, id := range ids {
		if a.debugQuery != "" && id != a.debugQuery {
			continue
		}
		v, ok := byID[id]
		if !ok {
			if !a.complete {
				return nil, fmt.Errorf("%s: trec_eval: result qid '%s' not found in qrels (trec_eval 10.0 stops here; --release 9.0.8 skips the query, -c counts it)", a.run, id)
			}
			lacking = append(lacking, len(qs))
		}
		// a docno judged twice: trec_eval stops at the first query it
		// forms the judgments of that has one, and reads no other's
		if err := ev.qrels.Duplicate(id); err != nil && forms != "" {
			return nil, fmt.Errorf("%w: trec_eval stops at this query (Can't calculate measure '%s')", err, forms)
		}
		qs = append(qs, query{id, v})
	}
	if len(qs) == 0 {
		return nil, fmt.Errorf("%s, %s: trec_eval: No queries with both results and relevance info", a.qrels, a.run)
	}
	// the values of the queries the run lacks and the check of the
	// judgments are independent, and each reads all of a query's
	// judgments: done at once, they take a core each, not one after the
	// other once the run is read
	var negErr error
	var wg sync.WaitGroup
	wg.Go(func() { negErr = ev.negativeOnly(a, qs) })
	vals, bogusErr := ev.bogusAll(qs, lacking)
	wg.Wait()
	if bogusErr != nil {
		return nil, bogusErr
	}
	if negErr != nil {
		return nil, negErr
	}
	isLacking := make(map[int]bool, len(lacking))
	for j, i := range lacking {
		qs[i].vals = vals[j]
		isLacking[i] = true
	}
	if err := ev.leftover(ctx, a, qs, isLacking); err != nil {
		return nil, err
	}
	return qs, nil
}

// bogusAll returns the values of the queries qs[lacking] (bogus), on
// GOMAXPROCS goroutines when the measures are metrics (each evaluator is
// one goroutine's); the first error in qs's order is returned.
func (ev *evaluated) bogusAll(qs []query, lacking []int) ([][]float64, error) {
	vals := make([][]float64, len(lacking))
	if ev.bogusOf != nil || len(lacking) < 64 {
		for j, i := range lacking {
			v, err := ev.bogus(qs[i].id)
			if err != nil {
				return nil, err
			}
			vals[j] = v
		}
		return vals, nil
	}
	k := min(runtime.GOMAXPROCS(0), len(lacking)/32)
	var wg sync.WaitGroup
	for w := range k {
		wg.Go(func() {
			e := metrics.NewEvaluator(ev.sel.metrics, ev.s.Rules.Options)
			for j := w; j < len(lacking); j += k {
				vals[j] = ev.bogusValues(ev.qrels.Judged([]byte(qs[lacking[j]].id)), e)
			}
		})
	}
	wg.Wait()
	return vals, nil
}

// bogus is trec_eval 10.0's values under -c for a judged query the run
// lacks: those of a ranking of one document the qrels do not judge,
// computed by the metrics' own code (bogusValues). The measures of
// another -R format evaluate the same ranking their own way (bogusOf).
func (ev *evaluated) bogus(id string) ([]float64, error) {
	if ev.bogusOf != nil {
		return ev.bogusOf(id)
	}
	return ev.bogusOver(ev.qrels.Judged([]byte(id))), nil
}

// bogusOver is bogus for a query whose judgments are judged, over qrels.
func (ev *evaluated) bogusOver(judged []float64) []float64 {
	if ev.bogusEval == nil {
		ev.bogusEval = metrics.NewEvaluator(ev.sel.metrics, ev.s.Rules.Options)
	}
	return ev.bogusValues(judged, ev.bogusEval)
}

// bogusValues evaluates the ranking of bogusDoc for a query whose
// judgments are judged by e, then sets the "leftovers" trec_eval clears by name to 0 (num_ret, utility,
// every unj, rbp_resid) and empties relstring's string.
func (ev *evaluated) bogusValues(judged []float64, e *metrics.Evaluator) []float64 {
	l := metrics.List{Score: []float64{1}, Label: []float64{0}, Doc: [][]byte{[]byte(bogusDoc)},
		Status: []metrics.Judgment{metrics.Unjudged}, Judged: judged}
	vals := make([]float64, ev.numVals)
	e.Eval(&l, vals)
	slot := 0
	for _, v := range ev.sel.values {
		switch {
		case v.name == "num_ret", v.name == "utility", strings.HasPrefix(v.name, "unj"), v.name == "rbp_resid":
			vals[slot] = 0
		case v.name == "relstring":
			for i := range v.metrics {
				vals[slot+i] = math.NaN() // past the string's end
			}
		}
		slot += v.width()
	}
	return vals
}

// bogusDoc is the one document of trec_eval 10.0's ranking under -c for a
// judged query the run lacks (score 1).
const bogusDoc = "ceci_nest_pas_un_docno"

// write prints the per-query lines (-q) and the summary (unless -n) of
// qs, as z-scores under -Z; tag is the run's, for runid.
func (ev *evaluated) write(w *bufio.Writer, a *trecEvalArgs, qs []query, z *zscores, tag string) error {
	sel := ev.sel
	sums := make([]float64, len(sel.values))
	// each value's first slot in a query's values, -1 for none
	slots := make([]int, len(sel.values))
	slot := 0
	for i := range sel.values {
		slots[i] = -1
		if w := sel.values[i].width(); w > 0 {
			slots[i] = slot
			slot += w
		}
	}
	var b []byte
	for _, q := range qs {
		if z != nil {
			if err := z.convert(q.id, sel.values, q.vals); err != nil {
				return err
			}
		}
		if !a.perQuery {
			for i, s := range slots {
				if s >= 0 {
					sums[i] = cAccum(sums[i], q.vals[s])
				}
			}
			continue
		}
		b = b[:0]
		for i := range sel.values {
			v, s := &sel.values[i], slots[i]
			var x float64
			if s >= 0 {
				x = q.vals[s]
			}
			sums[i] = cAccum(sums[i], x)
			switch v.rule {
			case ruleMean:
				b = appendValue(b, z != nil, v.name, q.id, x, false)
			case ruleCount, ruleNumRel:
				b = appendValue(b, z != nil, v.name, q.id, x, true)
			case ruleString:
				var codes []float64 // none for n <= 0 (relstring.0): ''
				if s >= 0 {
					codes = q.vals[s : s+len(v.metrics)]
				}
				b = appendRelstring(b, v.name, q.id, codes)
			}
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	if a.noSummary {
		return nil
	}
	// the averages are over the queries evaluated, or with -c every
	// judged query (te_calc_avg_meas_s)
	evaluatedQueries := int64(len(qs))
	n := evaluatedQueries
	if a.complete {
		n = int64(ev.qrels.Queries())
	}
	b = b[:0]
	for i, v := range sel.values {
		s := sums[i]
		switch v.rule {
		case ruleRunID:
			b = append(appendHead(b, false, "runid", "all"), tag...)
			b = append(b, '\n')
			continue
		case ruleString:
			continue
		case ruleNumQ:
			s = float64(n)
		case ruleNumRel:
			if a.complete {
				s = float64(ev.qrels.Positive())
			}
		case ruleMean:
			if n > 0 {
				s /= float64(n)
			}
		case ruleGeo:
			if a.complete {
				// the queries not evaluated were perfect at 0: patch them
				// to the floor (te_calc_avg_meas_s_gm)
				s += float64(float64(n-evaluatedQueries) * pmath.Log(0.00001))
			}
			s = pmath.Exp(s / float64(n))
		}
		count := v.rule == ruleCount || v.rule == ruleNumRel || v.rule == ruleNumQ
		b = appendValue(b, z != nil, v.name, "all", s, count)
	}
	_, err := w.Write(b)
	return err
}

// cAccum is sum + v as trec_eval's summary adds a query's value (the
// value loaded, the sum added to it, on amd64): a NaN v is the result,
// whatever sum is, else a NaN sum is. The sign of the NaN prints ("nan" or
// "-nan"), and which of two NaNs an addition returns depends on the order
// of its operands, which the compiler picks per architecture: so the
// choice is made here, the same on every machine.
func cAccum(sum, v float64) float64 {
	if v != v {
		return v
	}
	return sum + v
}

// appendRelstring appends relstring's line: "%-22s\t%s\t'%s'", one
// character per judgment of codes, up to the first NaN (the ranking's
// end).
func appendRelstring(b []byte, name, qid string, codes []float64) []byte {
	b = appendHead(b, false, name, qid)
	b = append(b, '\'')
	for _, c := range codes {
		switch {
		case math.IsNaN(c):
			return append(b, "'\n"...)
		case c > 9:
			b = append(b, '>')
		case c >= 0:
			b = append(b, byte('0'+int(c)))
		case c == -1:
			b = append(b, '-')
		case c == -2:
			b = append(b, '.')
		default:
			b = append(b, '<')
		}
	}
	return append(b, "'\n"...)
}
