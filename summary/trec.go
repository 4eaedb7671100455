package summary

import (
	"fmt"
	"math"
	"strconv"

	"github.com/rankeval/rankeval/metrics"
)

// trecLine appends one line of trec_eval's layout.
func trecLine(b []byte, measure, qid string, v float64) []byte {
	b = fmt.Appendf(b, "%-22s\t%s\t", measure, qid)
	if math.IsNaN(v) {
		return append(b, "nan\n"...)
	}
	return fmt.Appendf(b, "%6.4f\n", v)
}

// TrecQuery appends one query's block of trec_eval's layout: a line per
// metric, named as trec_eval names it.
func TrecQuery(b []byte, ms []metrics.Metric, id []byte, vals []float64) []byte {
	for i, m := range ms {
		b = trecLine(b, metrics.TrecName(m), string(id), vals[i])
	}
	return b
}

// Trec writes the summary in trec_eval's layout: the "all" block, num_q
// then each metric's mean.
func (r *Results) Trec() []byte {
	ms, set := r.Run.Metrics, r.Agg.Sys[0]
	b := fmt.Appendf(nil, "%-22s\tall\t%s\n", "num_q", strconv.FormatInt(set.Queries, 10))
	for i, m := range ms {
		b = trecLine(b, metrics.TrecName(m), "all", set.Stats[i].Summary().Mean)
	}
	return b
}

// Format writes the summary in the named format: "json", "trec" or text.
func (r *Results) Format(format string) []byte {
	switch format {
	case "json":
		return r.JSON()
	case "trec":
		return r.Trec()
	}
	return r.Text()
}
