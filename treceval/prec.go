package treceval

import "github.com/rankeval/rankeval/metrics"

// Precision and recall, at cutoffs, at R and its multiples, interpolated
// at recall levels, and of the retrieved set as a whole (the set_
// measures, utility). P, recall, relative_P, success, Rprec,
// iprec_at_recall, 11pt_avg and the set_ measures are the ordinary
// command's p@k, r@k, relative_p@k, hit@k, rprec, iprec@x, 11pt_avg and
// set_*.

var defaultCutoffs = []int64{5, 10, 15, 20, 30, 100, 200, 500, 1000}

var recallLevels = []float64{0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0}

var rprec = &measure{name: "Rprec", init: single("Rprec", metrics.KindRPrec, ruleMean),
	doc: "precision at R, the number of relevant documents"}

var iprecAtRecall = &measure{name: "iprec_at_recall", init: realCutoffs("iprec_at_recall", metrics.KindIPrec, recallLevels...),
	doc: "interpolated precision at recall x: the best precision at x·R relevant\n" +
		"documents retrieved or more (9.0.8: x·R + 0.9 truncated; 10.0: x·R rounded)\n" +
		"(parameters: the levels x, default 0,.1,...,1)"}

var precision = &measure{name: "P", init: wholeCutoffs("P", metrics.KindP, defaultCutoffs...),
	doc: "precision of the first k documents: relevant ones over k\n" +
		"(parameters: the cutoffs k, default 5,10,15,20,30,100,200,500,1000)"}

var recall = &measure{name: "recall", init: wholeCutoffs("recall", metrics.KindR, defaultCutoffs...),
	doc: "recall of the first k documents: relevant ones over R\n" +
		"(parameters: the cutoffs k, default 5,10,15,20,30,100,200,500,1000)"}

var rprecMult = &measure{name: "Rprec_mult", init: realCutoffs("Rprec_mult", metrics.KindRprecMult, 0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
	doc: "precision at x·R documents (x·R + 0.9 truncated, in both releases)\n" +
		"(parameters: the multiples x, default .2,.4,...,2)"}

var utility = &measure{name: "utility",
	init: reals("utility", metrics.KindUtility, []float64{1, -1, 0, 0}, func(m *metrics.Metric, xs []float64) {
		m.Param = metrics.FloatsParam(xs)
	}),
	doc: "p1·a + p2·b + p3·c + p4·d of the retrieved relevant (a), retrieved\n" +
		"non-relevant (b), relevant not retrieved (c) and other documents of the\n" +
		"collection (d, from -N) (parameters: p1,p2,p3,p4, default 1,-1,0,0)"}

var elevenPoint = &measure{name: "11pt_avg",
	init: reals("11pt_avg", metrics.Kind11pt, nil, func(m *metrics.Metric, xs []float64) {
		if xs != nil {
			m.Param = metrics.FloatsParam(xs)
		}
	}),
	doc: "mean of iprec_at_recall at the levels 0,.1,...,1 (parameters: other levels)"}

var relativeP = &measure{name: "relative_P", init: wholeCutoffs("relative_P", metrics.KindRelP, defaultCutoffs...),
	doc: "relevant documents among the first k over min(k, R)\n" +
		"(parameters: the cutoffs k, default 5,10,15,20,30,100,200,500,1000)"}

var success = &measure{name: "success", init: wholeCutoffs("success", metrics.KindHit, 1, 5, 10),
	doc: "1 when a relevant document is among the first k, else 0\n" +
		"(parameters: the cutoffs k, default 1,5,10)"}

var setP = &measure{name: "set_P", init: single("set_P", metrics.KindSetP, ruleMean),
	doc: "relevant documents retrieved over documents retrieved"}

var setRelativeP = &measure{name: "set_relative_P", init: single("set_relative_P", metrics.KindSetRelP, ruleMean),
	doc: "relevant documents retrieved over min(retrieved, R)"}

var setRecall = &measure{name: "set_recall", init: single("set_recall", metrics.KindSetRecall, ruleMean),
	doc: "relevant documents retrieved over R"}

var setMAP = &measure{name: "set_map", init: single("set_map", metrics.KindSetMAP, ruleMean),
	doc: "set_P times set_recall"}

var setF = &measure{name: "set_F",
	init: reals("set_F", metrics.KindSetF, []float64{1}, func(m *metrics.Metric, xs []float64) { m.Beta = xs[0] }),
	doc:  "F of set_P and set_recall: (β+1)·P·R/(β·P + R) (parameter: β, default 1)"}
