package summary

import (
	"fmt"
	"math"
	"strconv"

	"github.com/rankeval/rankeval/internal/printable"
	"github.com/rankeval/rankeval/stats"

	"github.com/rankeval/rankeval/metrics"
)

// AppendTrecLine appends one line of trec_eval's layout:
// "%-22s\t%s\t%6.4f", or "%ld" for a count.
func AppendTrecLine(b []byte, m metrics.Metric, qid string, v float64) []byte {
	b = appendTrecHead(b, metrics.TrecName(m), qid)
	switch {
	case math.IsNaN(v):
		return append(b, "  -nan\n"...) // C's %6.4f of 0.0/0.0, what trec_eval prints
	case m.Count():
		return append(strconv.AppendInt(b, int64(v), 10), '\n')
	}
	return fmt.Appendf(b, "%6.4f\n", v)
}

// TrecQuery appends one query's block of trec_eval's layout: a line per
// metric, named as trec_eval names it, but for those trec_eval prints in
// the summary only (num_q, gm_map).
func TrecQuery(b []byte, ms []metrics.Metric, id []byte, vals []float64) []byte {
	for i, m := range ms {
		if !m.SummaryOnly() {
			b = AppendTrecLine(b, m, printable.String(string(id)), vals[i])
		}
	}
	return b
}

// Trec writes the summary in trec_eval's layout: the "all" block, num_q
// (unless it is one of the metrics) then each metric's summary.
func (r *Results) Trec() []byte {
	var b []byte
	if !hasKind(r.Run.Metrics, metrics.KindNumQ) {
		b = append(strconv.AppendInt(appendTrecHead(b, "num_q", "all"), r.Agg.Sys[0].Queries, 10), '\n')
	}
	for i, m := range r.Run.Metrics {
		b = AppendTrecLine(b, m, "all", r.sys[0][i].Mean)
	}
	return b
}

// Figure is the summary of metric m of system s: its mean, or what the
// metric's Aggregation makes of it (Summarize), and the queries behind it.
func (r *Results) Figure(s, m int) stats.Summary { return r.sys[s][m] }

// AppendTrecRunID appends trec_eval's runid line: the run's tag.
func AppendTrecRunID(b []byte, tag string) []byte {
	return append(printable.Append(appendTrecHead(b, "runid", "all"), tag), '\n')
}

// appendTrecHead appends the measure and query columns of a line of
// trec_eval's layout ("%-22s\t%s\t").
func appendTrecHead(b []byte, measure, qid string) []byte {
	return fmt.Appendf(b, "%-22s\t%s\t", measure, qid)
}

func hasKind(ms []metrics.Metric, k metrics.Kind) bool {
	for _, m := range ms {
		if m.Kind == k {
			return true
		}
	}
	return false
}

// Format writes the summary in the named format: "json", "trec",
// "latex", "markdown" or text.
func (r *Results) Format(format string) []byte {
	switch format {
	case "json":
		return r.JSON()
	case "trec":
		return r.Trec()
	case "latex":
		return r.LaTeX()
	case "markdown":
		return r.Markdown()
	}
	return r.Text()
}
