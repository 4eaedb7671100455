package treceval

import "github.com/rankeval/rankeval/metrics"

// What the qrels say of the documents retrieved: relstring spells the
// judgments of the first ones, unj counts those without one.

// maxRelstring bounds relstring's length: each character is a value of
// every query's record.
const maxRelstring = 1 << 16

var relstring = &measure{name: "relstring",
	init: func(_ *initContext, param string) ([]value, error) {
		n := int64(10)
		if param != "" {
			n = cLong(doubleParams(param)[0])
		}
		if n > maxRelstring {
			return nil, paramError("relstring.%s: rankeval trec_eval spells at most %d judgments", param, maxRelstring)
		}
		v := value{name: named("relstring", param), rule: ruleString}
		for k := int64(1); k <= n; k++ {
			m := metricOf(v.name, metrics.KindRelAt)
			m.K = int(k)
			v.metrics = append(v.metrics, m)
		}
		return []value{v}, nil
	},
	doc: "the judgments of the first n documents, a character each: the level\n" +
		"from 0 to 9, > above 9, - outside the qrels, . a negative judgment (per\n" +
		"query only) (parameter: n, default 10)"}

var unj = &measure{name: "unj", since: "10.0", init: wholeCutoffs("unj", metrics.KindUnj, 5, 10, 20),
	doc: "documents among the first k without a judgment (outside the qrels, or\n" +
		"judged negative), over k (parameters: the cutoffs k, default 5,10,20)"}
