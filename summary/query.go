package summary

import (
	"math"
	"slices"

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
			vals := q.Vals[0]
			if q.Weight != nil && slices.ContainsFunc(c.Metrics, metrics.Metric.Ratio) {
				vals = slices.Clone(vals) // a ratio's per-query value is not what the aggregate sums
				for i, m := range c.Metrics {
					vals[i] = queryValue(m, vals[i], q.Weight[0])
				}
			}
			return TrecQuery(b, c.Metrics, id, vals)
		}
	}
	return c.appendQueryJSON
}

// appendQueryJSON writes a query's JSON record. An empty query's metrics
// are undefined for that query and written as null, whatever value the
// empty-query policy gives them in the means (but a measure named in
// ir_measures' syntax, which is empty or not by its provider's
// conventions, not the run's: written as computed, null when undefined); Kendall and Spearman do not
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
		b = appendValues(b, c.Metrics, q, 0)
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
		b = appendValues(b, c.Metrics, q, s)
		b = append(b[:start], b[start+1:]...) // the first value's comma
		b = append(b, '}')
	}
	return append(b, '}', '}', '\n')
}

// appendValues appends ,"name":value for each metric of system s.
func appendValues(b []byte, ms []metrics.Metric, q *aggregate.Query, s int) []byte {
	vals, empty := q.Vals[s], q.Empty[s]
	for i, m := range ms {
		b = append(b, ',')
		b = AppendJSONString(b, []byte(m.Name))
		b = append(b, ':')
		switch {
		case empty && m.FollowsEmpty() && m.Conv.Peer == metrics.PeerNone:
			// the query is empty by the run's conventions; a measure
			// named in ir_measures' syntax has its provider's, under
			// which its value (NaN where undefined) is what counts
			b = append(b, "null"...)
		case m.Ratio():
			b = AppendJSONFloat(b, queryValue(m, vals[i], q.Weight[s]))
		default:
			b = AppendJSONFloat(b, vals[i])
		}
	}
	return b
}

// queryValue is what one query's record says of metric m, whose value
// is v: v itself, but for a ratio of sums (the self-normalized estimates)
// the query's own ratio v/w, its IPS value over its click weight;
// undefined (null) without a click. The summary is the mean of these
// weighted by w, Σv/Σw.
func queryValue(m metrics.Metric, v, w float64) float64 {
	if !m.Ratio() {
		return v
	}
	if w == 0 {
		return math.NaN()
	}
	return v / w
}
