package treceval

import "github.com/rankeval/rankeval/metrics"

// Average precision and its kin: map, gm_map, map_cut, recip_rank, bpref,
// gm_bpref, infAP and yaap. map, map_cut, recip_rank and bpref are the
// ordinary command's ap, ap@k, rr and bpref.

var mapMeasure = &measure{name: "map", init: single("map", metrics.KindAP, ruleMean),
	doc: "average precision: over the relevant documents, the precision at each\n" +
		"one retrieved (0 for those not retrieved)"}

var gmMap = &measure{name: "gm_map", init: single("gm_map", metrics.KindGMAP, ruleGeo),
	doc: "geometric mean of average precision, each at least 0.00001 (the summary only)"}

var mapCut = &measure{name: "map_cut", init: wholeCutoffs("map_cut", metrics.KindAP, 5, 10, 15, 20, 30, 100, 200, 500, 1000),
	doc: "average precision of the first k documents, over all relevant ones\n" +
		"(parameters: the cutoffs k, default 5,10,15,20,30,100,200,500,1000)"}

var recipRank = &measure{name: "recip_rank", init: single("recip_rank", metrics.KindRR, ruleMean),
	doc: "1 over the rank of the first relevant document, 0 without one"}

var bpref = &measure{name: "bpref", init: single("bpref", metrics.KindBpref, ruleMean),
	doc: "binary preference: over the relevant documents, 1 less the share of the\n" +
		"judged non-relevant ones (at most R) ranked above each"}

var gmBpref = &measure{name: "gm_bpref", init: single("gm_bpref", metrics.KindGMBpref, ruleGeo),
	doc: "geometric mean of bpref, each at least 0.00001 (the summary only)"}

var infAP = &measure{name: "infAP", init: single("infAP", metrics.KindInfAP, ruleMean),
	doc: "inferred average precision (Yilmaz and Aslam), for a sampled pool: a\n" +
		"qrels judgment of -1 marks a pooled document not judged"}

var yaap = &measure{name: "yaap", init: single("yaap", metrics.KindYaap, ruleMean),
	doc: "yet another average precision (Robertson): ln((1 + S)/(1 + R - S)), S the\n" +
		"sum of the precisions at the relevant documents retrieved"}
