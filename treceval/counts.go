package treceval

import "github.com/rankeval/rankeval/metrics"

// The counts: the run's tag, the queries, and the documents retrieved,
// relevant, relevant retrieved and judged non-relevant retrieved. Each
// count prints as a whole number; its summary is the total, the number of
// queries for num_q.

var runidMeasure = &measure{name: "runid",
	init: func(*initContext, string) ([]value, error) { return []value{{name: "runid", rule: ruleRunID}}, nil },
	doc:  "the run's tag: the last field of the run's last line (the summary only)"}

var numQ = &measure{name: "num_q",
	init: func(*initContext, string) ([]value, error) { return []value{{name: "num_q", rule: ruleNumQ}}, nil },
	doc:  "the queries evaluated (the summary only); with -c, every query of the qrels"}

var numRet = &measure{name: "num_ret", init: single("num_ret", metrics.KindNumRet, ruleCount),
	doc: "documents retrieved (after -M and -J); the summary is the total"}

var numRel = &measure{name: "num_rel", init: single("num_rel", metrics.KindNumRel, ruleNumRel),
	doc: "relevant documents (judged at -l or above); the summary is the total,\n" +
		"with -c every judgment above 0 of the qrels whatever -l is"}

var numRelRet = &measure{name: "num_rel_ret", init: single("num_rel_ret", metrics.KindNumRelRet, ruleCount),
	doc: "relevant documents retrieved; the summary is the total"}

var numNonrelJudgedRet = &measure{name: "num_nonrel_judged_ret",
	init: single("num_nonrel_judged_ret", metrics.KindNumNonrelJudgedRet, ruleCount),
	doc:  "documents retrieved judged below -l (not a negative judgment); the summary is the total"}
