package treceval

import (
	"context"
	"errors"
	"math"
	"slices"

	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/pipeline"
)

// What trec_eval does with the measures of graded gains (ndcg, dcg,
// ideal_dcg, ndcg_rel, Rndcg, G, rbp) beyond computing them: the
// parameters dcg, ideal_dcg and ndcg share, and the per-level counts a
// query judged only below 0 inherits.

// checkSharedGains is a flaw of trec_eval 10.0: dcg, ideal_dcg and ndcg
// share one set of parameters (m_ndcg.c's default_ndcg_gains), and each
// frees it after printing its summary. When two of them are asked for
// and one has parameters, trec_eval aborts there ("double free") and
// prints nothing (its output is buffered); so does rankeval trec_eval.
func checkSharedGains(marked map[*measure]bool, params []measureArg, release string) error {
	if release == "9.0.8" {
		return nil // it has no dcg nor ideal_dcg
	}
	n, withParams := 0, false
	for m := range marked {
		switch m.Kind {
		case metrics.KindGainDCG, metrics.KindGainIDCG, metrics.KindGainNDCG:
			n++
			withParams = withParams || slices.ContainsFunc(params, func(a measureArg) bool { return a.name == m.Name })
		}
	}
	if n > 1 && withParams {
		return errors.New("trec_eval: free(): double free detected in tcache 2 (or munmap_chunk(): invalid pointer): trec_eval 10.0 aborts here and prints nothing " +
			"(dcg, ideal_dcg and ndcg share one set of parameters, which each frees); ask for them apart")
	}
	return nil
}

// leftoverKind reports whether m's value, for a query judged only below 0
// (no judgment from 0 up), is computed from the per-level counts
// trec_eval keeps from a query before it (levels.go): the ideal DCG's, and
// those of ndcg, ndcg_rel, G and rbp under a gain table of pairs, which
// can give a ranked document outside the pool (-1) or judged below 0 (-2)
// a gain, so that its ideal ranking, or rbp's scaling of the gains,
// counts. Every other measure comes out the same with those counts or
// none: without a gain nothing ranked scores; Rndcg and bpref read R,
// which trec_eval counts afresh (0), first; dcg reads only the ranked
// documents' gains.
func leftoverKind(m metrics.Metric) bool {
	switch m.Kind {
	case metrics.KindIDCG, metrics.KindGainIDCG:
		return true
	case metrics.KindGainNDCG, metrics.KindNDCGRel, metrics.KindG, metrics.KindRBP:
		return m.Param != ""
	}
	return false
}

// leftover is another flaw of trec_eval: te_form_res_rels keeps, for a
// query of qs judged only below 0, the per-level counts of the last query
// before it in qs judged from 0 up (negativeOnly refused such a query
// first), so that the measures of leftoverKind see that query's ideal
// ranking. They are evaluated again for it, on its own ranking (the run's
// rows, re-read for these queries only, or under -c the bogus ranking of
// one the run lacks, lacking[i] for qs[i]) with the judgments of that
// query in place of its own.
func (ev *evaluated) leftover(ctx context.Context, a *trecEvalArgs, qs []query, lacking map[int]bool) error {
	if a.relFormat != "qrels" {
		return nil // prefs' and jg's forms count levels from 0 up
	}
	var slots []int
	for i, m := range ev.sel.metrics {
		if leftoverKind(m) {
			slots = append(slots, i)
		}
	}
	if len(slots) == 0 {
		return nil
	}
	fromZero := func(v float64) bool { return !math.Signbit(v) }
	stale := map[string][]float64{} // a query judged only below 0: the judgments trec_eval counts for it
	inRun := map[string]bool{}
	var last []float64
	for i, q := range qs {
		j := ev.qrels.Judged([]byte(q.id))
		if slices.ContainsFunc(j, fromZero) {
			last = j
			continue
		}
		stale[q.id] = last
		if !lacking[i] {
			inRun[q.id] = true
		}
	}
	if len(stale) == 0 {
		return nil
	}
	vals := make([]float64, ev.numVals)
	take := func(q *query) {
		for _, s := range slots {
			q.vals[s] = vals[s]
		}
	}
	for i := range qs {
		if q := &qs[i]; lacking[i] && stale[q.id] != nil {
			vals = ev.bogusOver(stale[q.id])
			take(q)
		}
	}
	if len(inRun) == 0 {
		return nil
	}
	r := ev.s.Rules
	r.Qrels = leftoverQrels{Judgments: ev.join, judged: stale}
	groups, where, err := runGroups(ctx, ev.run, a, &r, inRun)
	if err != nil {
		return err
	}
	unit := r.NewUnit(where)
	for i := range qs {
		q := &qs[i]
		g := groups[q.id]
		if g == nil || lacking[i] {
			continue
		}
		if _, err := unit.Prepare(g); err != nil {
			return err
		}
		vals = vals[:ev.numVals]
		if _, err := unit.Eval(g, g.Score, vals); err != nil {
			return err
		}
		take(q)
	}
	return nil
}

// leftoverQrels are the qrels with the judgments of some queries
// replaced, for the per-level counts and the ideal rankings only: the
// ranked documents' judgments are the qrels' (Join).
type leftoverQrels struct {
	pipeline.Judgments
	judged map[string][]float64
}

func (l leftoverQrels) Judged(q []byte) []float64 {
	if j, ok := l.judged[string(q)]; ok {
		return j
	}
	return l.Judgments.Judged(q)
}
