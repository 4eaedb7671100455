package summary

import (
	"fmt"
	"math"
	"strings"

	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/stats"
)

// Detect is one --detect request: how many queries (or impressions) the
// paired t-test needs to detect a true difference Delta in metric Metric
// (an index of Run.Metrics) with 80% power at α = 0.05, two-sided.
type Detect struct {
	Metric int
	Delta  float64
}

// ParseDetect reads --detect ("ndcg@10=0.005,map=0.01"; repeats of the
// flag joined by commas) against the metrics computed: each difference a
// number > 0. Errors name the flag; a caller makes them usage errors.
func ParseDetect(spec string, ms []metrics.Metric) ([]Detect, error) {
	if strings.TrimSpace(spec) == "" {
		return nil, nil
	}
	var out []Detect
	for _, item := range metrics.SplitMetrics(spec) {
		idx, v, err := parseMetricValue("--detect", "difference, as ndcg@10=0.005", item, ms, nil)
		if err != nil {
			return nil, err
		}
		if !(v > 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("--detect: the difference of %s is %g: want a number > 0, the true difference of means to detect", ms[idx].Name, v)
		}
		out = append(out, Detect{Metric: idx, Delta: v})
	}
	return out, nil
}

// unitOf is what a metric's mean is over: impressions for the click
// metrics (each query group of a click log is one impression), queries
// otherwise. The power figures count it.
func unitOf(m metrics.Metric) string {
	if m.Clicks() {
		return "impressions"
	}
	return "queries"
}

var singular = map[string]string{"queries": "query", "impressions": "impression"}

// detected is a --detect request's answer on comparison d: the number of
// units needed (stats.DetectN), or 0 with a note saying why there is
// none.
func detected(d *stats.Paired, delta float64, unit string) (n int64, note string) {
	switch {
	case d.N < 2:
		return 0, fmt.Sprintf("fewer than 2 %s define the difference: no spread to plan with", unit)
	case !(d.SD > 0) || math.IsInf(d.SD, 0):
		return 0, "the per-" + singular[unit] + " differences have no spread: the t-test has no power function"
	}
	switch n := stats.DetectN(delta, d.SD); n {
	case -1:
		return 0, fmt.Sprintf("more than %d %s", int64(stats.MaxDetectN), unit)
	case 0:
		return 0, "undefined"
	default:
		return n, ""
	}
}

// mdeText is a minimum detectable effect as the text summary and the
// report print it: 4 decimals, "n/a" when undefined.
func mdeText(v float64) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return fmt.Sprintf("%.4f", v)
}

// detectLines are the text lines answering the run's --detect requests on
// one pair's comparisons ps, each "  metric +delta: N queries ...".
func (r *Results) detectLines(ps []stats.Paired) []string {
	var out []string
	for _, q := range r.Run.Detect {
		m := r.Run.Metrics[q.Metric]
		d := &ps[q.Metric]
		if toBaseline(m, d) {
			continue
		}
		unit := unitOf(m)
		n, note := detected(d, q.Delta, unit)
		head := fmt.Sprintf("%s, a difference of %s: ", m.Name, deltaText(q.Delta))
		if n == 0 {
			out = append(out, head+"n/a ("+note+")")
			continue
		}
		if all := r.pairUnits(d); d.N < all {
			out = append(out, fmt.Sprintf("%s%d %s that define the difference, about %d in all at this run's rate (sd of the differences %s over %d of %d %s)",
				head, n, unit, inAll(n, d.N, all), sdText(d.SD), d.N, all, unit))
			continue
		}
		out = append(out, fmt.Sprintf("%s%d %s (sd of the differences %s over %d %s)", head, n, unit, sdText(d.SD), d.N, unit))
	}
	return out
}

// pairUnits is the number of queries (or impressions) of comparison d's
// two systems: the more of the two; the difference is defined over d.N of
// them.
func (r *Results) pairUnits(d *stats.Paired) int64 {
	return max(r.Agg.Sys[d.I].Queries, r.Agg.Sys[d.J].Queries)
}

// inAll is the units to collect for n that define the difference, at the
// run's rate of defined of all: ⌈n·all/defined⌉.
func inAll(n, defined, all int64) int64 {
	if defined <= 0 || defined >= all {
		return n
	}
	return int64(math.Ceil(float64(n) * (float64(all) / float64(defined))))
}

// deltaText is a --detect difference as given: its shortest form.
func deltaText(v float64) string { return fmt.Sprintf("%g", v) }

// sdText is a standard deviation with 4 significant digits.
func sdText(v float64) string { return fmt.Sprintf("%.4g", v) }

// toBaseline reports whether comparison d of metric m is a rank
// similarity's against the baseline, whose own value is undefined: it has
// no difference, so no row in the text table and no --detect answer.
func toBaseline(m metrics.Metric, d *stats.Paired) bool { return m.Pair() && d.I == 0 }

// appendDetect writes the "detect" member of one comparison's metric i:
// an array with one object per --detect request on it; nothing without
// one, nor for a rank similarity against the baseline (toBaseline).
func (r *Results) appendDetect(b []byte, i int, d *stats.Paired) []byte {
	if toBaseline(r.Run.Metrics[i], d) {
		return b
	}
	first := true
	for _, q := range r.Run.Detect {
		if q.Metric != i {
			continue
		}
		if first {
			b = append(b, `, "detect": [`...)
			first = false
		} else {
			b = append(b, ", "...)
		}
		unit := unitOf(r.Run.Metrics[i])
		n, note := detected(d, q.Delta, unit)
		b = append(b, `{"delta": `...)
		b = AppendJSONFloat(b, q.Delta)
		b = append(b, `, "needed": `...)
		if n == 0 {
			b = append(b, "null"...)
		} else {
			b = fmt.Appendf(b, "%d", n)
		}
		b = append(b, `, "unit": `...)
		b = AppendJSONString(b, []byte(unit))
		if n != 0 {
			all := r.pairUnits(d)
			b = fmt.Appendf(b, `, "defined": %d, "of": %d, "in_all": %d`, d.N, all, inAll(n, d.N, all))
		}
		if note != "" {
			b = append(b, `, "note": `...)
			b = AppendJSONString(b, []byte(note))
		}
		b = append(b, '}')
	}
	if !first {
		b = append(b, ']')
	}
	return b
}

// PowerNote says what the MDE column and the --detect lines assume, for
// the text summary and the report.
const PowerNote = "MDE (80%): the smallest true difference the paired t-test (two-sided, alpha 0.05) detects with 80% power over the queries (or impressions) compared, taking the observed sd of the differences as the truth"
