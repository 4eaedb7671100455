package treceval

import "github.com/rankeval/rankeval/metrics"

// relstring spells the judgments of the first documents retrieved, a
// character each.

// maxRelstring bounds relstring's length: each character is a value of
// every query's record.
const maxRelstring = 1 << 16

// relstringInit is relstring's init: one value, a metric per rank up to
// n (parameter: n, def without one).
func relstringInit(name string, def int64) initFunc {
	return func(_ *initContext, param string) ([]value, error) {
		n := def
		if param != "" {
			n = cLong(doubleParams(param)[0])
		}
		if n > maxRelstring {
			return nil, paramError("relstring.%s: rankeval trec_eval spells at most %d judgments", param, maxRelstring)
		}
		v := value{name: named(name, param), rule: ruleString}
		for k := int64(1); k <= n; k++ {
			m := metricOf(v.name, metrics.KindRelAt)
			m.K = int(k)
			v.metrics = append(v.metrics, m)
		}
		return []value{v}, nil
	}
}
