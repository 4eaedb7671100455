package summary

import (
	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/metrics"
)

// QueryFormat returns the per-query record (--per-query) of the named
// summary format: trec_eval's per-query block for "trec", else a JSON
// object a line. The function appends one query's record to b: its id,
// its slice's values (nil without slices), its figures. It only reads c,
// so workers call it at once.
func (c *Run) QueryFormat(format string) func(b, id []byte, slice []string, q *aggregate.Query) []byte {
	if format == "trec" {
		return func(b, id []byte, _ []string, q *aggregate.Query) []byte {
			return TrecQuery(b, c.Metrics, id, q.Vals[0])
		}
	}
	return c.appendQueryJSON
}

// appendQueryJSON writes a query's JSON record. An empty query's metrics
// are undefined for that query and written as null, whatever value the
// empty-query policy gives them in the means; Kendall and Spearman do not
// depend on relevance and are written as computed. With several systems
// each has its object under "systems" (null where the query is missing);
// with slices, "slice" holds the query's slice.
func (c *Run) appendQueryJSON(b, id []byte, slice []string, q *aggregate.Query) []byte {
	b = append(b, `{"query_id":`...)
	b = AppendJSONString(b, id)
	if slice != nil {
		b = append(b, `,"slice":{`...)
		for i, v := range slice {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendJSONString(b, []byte(c.Slices[i]))
			b = append(b, ':')
			b = AppendJSONString(b, []byte(v))
		}
		b = append(b, '}')
	}
	if len(c.Systems) <= 1 {
		b = appendValues(b, c.Metrics, q.Vals[0], q.Empty[0])
		return append(b, '}', '\n')
	}
	b = append(b, `,"systems":{`...)
	for s, name := range c.Systems {
		if s > 0 {
			b = append(b, ',')
		}
		b = AppendJSONString(b, []byte(name))
		b = append(b, ':')
		if q.Missing[s] {
			b = append(b, "null"...)
			continue
		}
		b = append(b, '{')
		start := len(b)
		b = appendValues(b, c.Metrics, q.Vals[s], q.Empty[s])
		b = append(b[:start], b[start+1:]...) // the first value's comma
		b = append(b, '}')
	}
	return append(b, '}', '}', '\n')
}

// appendValues appends ,"name":value for each metric.
func appendValues(b []byte, ms []metrics.Metric, vals []float64, empty bool) []byte {
	for i, m := range ms {
		b = append(b, ',')
		b = AppendJSONString(b, []byte(m.Name))
		b = append(b, ':')
		if empty && m.FollowsEmpty() {
			b = append(b, "null"...)
		} else {
			b = AppendJSONFloat(b, vals[i])
		}
	}
	return b
}
