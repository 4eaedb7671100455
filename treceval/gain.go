package treceval

import (
	"errors"
	"math"
	"slices"

	"github.com/rankeval/rankeval/metrics"
)

// Measures of graded gains: ndcg and ndcg_cut (the ordinary command's
// ndcg and ndcg@k, gains the judgments), dcg and ideal_dcg (10.0), and
// under trec_eval's gain table (pairs level=gain, -m ndcg.1=3,2=9; each
// level without one gains its own number) ndcg, dcg, ideal_dcg,
// ndcg_rel, Rndcg, G and rbp; binG and rbp_resid, which read no gains.

var (
	plainNDCG = metrics.Metric{Kind: metrics.KindNDCG}
	plainDCG  = metrics.Metric{Kind: metrics.KindDCG}
	plainIDCG = metrics.Metric{Kind: metrics.KindIDCG}
)

const gainDoc = "\n(parameters: a gain table level=gain,..., each level without one gaining\n" +
	"its own number)"

var ndcg = &measure{name: "ndcg", init: gainPairs("ndcg", metrics.KindGainNDCG, &plainNDCG),
	doc: "normalized discounted cumulative gain: the sum over ranks i of gain/log2(i+1),\n" +
		"over that of the ideal ranking of the judged documents" + gainDoc}

var dcg = &measure{name: "dcg", since: "10.0", init: gainPairs("dcg", metrics.KindGainDCG, &plainDCG),
	doc: "discounted cumulative gain, ndcg's numerator" + gainDoc}

var idealDCG = &measure{name: "ideal_dcg", since: "10.0", init: gainPairs("ideal_dcg", metrics.KindGainIDCG, &plainIDCG),
	doc: "discounted cumulative gain of the ideal ranking, ndcg's denominator" + gainDoc}

var ndcgCut = &measure{name: "ndcg_cut", init: wholeCutoffs("ndcg_cut", metrics.KindNDCG, defaultCutoffs...),
	doc: "ndcg of the first k documents (gains the judgments)\n" +
		"(parameters: the cutoffs k, default 5,10,15,20,30,100,200,500,1000)"}

var ndcgRel = &measure{name: "ndcg_rel", init: gainPairs("ndcg_rel", metrics.KindNDCGRel, nil),
	doc: "ndcg averaged over the relevant documents: at each one retrieved, and at\n" +
		"the ranking's end for the others" + gainDoc}

var rndcg = &measure{name: "Rndcg", init: gainPairs("Rndcg", metrics.KindRNDCG, nil),
	doc: "ndcg averaged over the ranks where the ideal gain changes, and the\n" +
		"ranking's end" + gainDoc}

var gMeasure = &measure{name: "G", init: gainPairs("G", metrics.KindG, nil),
	doc: "G: gains discounted by the log of the cost so far less the gain so far,\n" +
		"over the ideal gains" + gainDoc}

var binG = &measure{name: "binG", init: single("binG", metrics.KindBinG, ruleMean),
	doc: "G with gain 1 for each relevant document"}

var rbp = &measure{name: "rbp", since: "10.0", init: gainPairs("rbp", metrics.KindRBP, nil),
	doc: "rank-biased precision (Moffat and Zobel): (1-p) times the sum over ranks\n" +
		"i of gain·p^(i-1), gains scaled into [0,1] (parameters: p=persistence,\n" +
		"default 0.9, and a gain table level=gain,...)"}

var rbpResid = &measure{name: "rbp_resid", since: "10.0", init: gainPairs("rbp_resid", metrics.KindRBPResid, nil),
	doc: "what rbp could gain from the unjudged documents retrieved, were each\n" +
		"of gain 1; 0 without one (parameter: p=persistence, default 0.9)"}

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
	for _, m := range []*measure{dcg, idealDCG, ndcg} {
		if marked[m] {
			n++
			withParams = withParams || slices.ContainsFunc(params, func(a measureArg) bool { return a.name == m.name })
		}
	}
	if n > 1 && withParams {
		return errors.New("trec_eval: free(): double free detected in tcache 2 (or munmap_chunk(): invalid pointer): trec_eval 10.0 aborts here and prints nothing " +
			"(dcg, ideal_dcg and ndcg share one set of parameters, which each frees); ask for them apart")
	}
	return nil
}

// staleIdeal is another flaw of trec_eval: for a query whose judgments
// are all negative (no level from 0 up), te_form_res_rels keeps the
// previous query's count of documents per level, so that ideal_dcg is the
// previous query's (0 for the first). Every other measure comes out the
// same either way: with no judged level, nothing is relevant or gains.
func (ev *evaluated) staleIdeal(qs []query) {
	var slots []int
	slot := 0
	for _, v := range ev.sel.values {
		for _, m := range v.metrics {
			if m.Kind == metrics.KindIDCG || m.Kind == metrics.KindGainIDCG {
				slots = append(slots, slot)
			}
			slot++
		}
	}
	if len(slots) == 0 {
		return
	}
	prev := make([]float64, len(slots))
	for _, q := range qs {
		if !slices.ContainsFunc(ev.qrels.Judged([]byte(q.id)), func(v float64) bool { return v >= 0 && !math.Signbit(v) }) {
			for i, s := range slots {
				q.vals[s] = prev[i]
			}
		}
		for i, s := range slots {
			prev[i] = q.vals[s]
		}
	}
}
