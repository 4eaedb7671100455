// Package summary turns a run's merged aggregate into the summary a user
// reads: a text table, one JSON object, or trec_eval's layout, with every
// convention in force. It is shared so that the local CLI and the
// distributed runner (dist/beam) print byte-identical summaries from equal
// aggregates.
package summary

import (
	"bytes"
	"fmt"
	"math"
	"strconv"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/pipeline"
	"github.com/rankeval/rankeval/reader"
)

// Run is what a summary explains besides the numbers: the metrics and the
// conventions they were computed under.
type Run struct {
	Metrics      []metrics.Metric
	Options      metrics.Options
	Columns      reader.Columns
	Profile      string
	ScoreFloat32 bool
	// DedupFirst: repeated doc ids of a query were dropped (--dedup first)
	// rather than refused.
	DedupFirst bool
	// TREC input only (Qrels non-empty).
	Qrels        string
	Complete     bool
	SkipUnjudged bool
	// Gates, when set, is the verdict of the quality gates, printed with
	// the summary.
	Gates *Gates
}

// Gates is the verdict of a run's quality gates (--fail-under,
// --fail-on-empty).
type Gates struct {
	Checks      []GateCheck
	FailOnEmpty bool // --fail-on-empty was given
	Empty       bool // and it tripped
}

// GateCheck is one --fail-under bar and how the run fared.
type GateCheck struct {
	Name      string
	Min, Mean float64
	Passed    bool
}

// Failed reports whether any gate failed.
func (g *Gates) Failed() bool {
	if g.Empty {
		return true
	}
	for _, c := range g.Checks {
		if !c.Passed {
			return true
		}
	}
	return false
}

// FmtMean prints a gate's mean for a person.
func FmtMean(v float64) string {
	if math.IsNaN(v) {
		return "undefined (no queries)"
	}
	return strconv.FormatFloat(v, 'f', 4, 64)
}

// Profiles set every convention a peer tool uses at once (SPEC §6); a flag
// given explicitly overrides its profile's value.
var Profiles = map[string]struct {
	Flags        map[string]string
	ScoreFloat32 bool // trec_eval stores scores as 32-bit floats
}{
	"trec_eval": {Flags: map[string]string{"ties": "trec", "gain": "linear", "empty": "zero", "rel-threshold": "1"}, ScoreFloat32: true},
	"gdeval":    {Flags: map[string]string{"ties": "trec", "gain": "exp", "empty": "skip", "max-grade": "4"}},
}

// Names of the convention values, as flags take them and summaries print them.
var (
	Ties = map[string]metrics.Ties{"input": metrics.TiesInput, "trec": metrics.TiesTrec,
		"optimistic": metrics.TiesOptimistic, "pessimistic": metrics.TiesPessimistic, "average": metrics.TiesAverage}
	Gains   = map[string]metrics.Gain{"exp": metrics.GainExp, "linear": metrics.GainLinear}
	Empties = map[string]metrics.Empty{"skip": metrics.EmptySkip, "zero": metrics.EmptyZero, "one": metrics.EmptyOne, "error": metrics.EmptyError}
)

// NameOf returns the name of v in m ("?" when absent).
func NameOf[T comparable](m map[string]T, v T) string {
	for k, x := range m {
		if x == v {
			return k
		}
	}
	return "?"
}

// OptionsJSON lists every convention in force, so a summary explains itself.
func OptionsJSON(c *Run) []byte {
	b := []byte(`{"ties": `)
	b = strconv.AppendQuote(b, NameOf(Ties, c.Options.Ties))
	b = append(b, `, "gain": `...)
	b = strconv.AppendQuote(b, NameOf(Gains, c.Options.Gain))
	b = append(b, `, "max_grade": `...)
	b = pipeline.AppendJSONFloat(b, c.Options.MaxGrade)
	b = append(b, `, "rel_threshold": `...)
	if c.Options.HasThreshold {
		b = pipeline.AppendJSONFloat(b, c.Options.RelThreshold)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `, "empty": `...)
	b = strconv.AppendQuote(b, NameOf(Empties, c.Options.Empty))
	b = append(b, `, "dedup": `...)
	if c.DedupFirst {
		b = append(b, `"first"`...)
	} else {
		b = append(b, `"error"`...)
	}
	b = append(b, `, "profile": `...)
	if c.Profile == "" {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendQuote(b, c.Profile)
	}
	b = append(b, `, "score_precision": `...)
	if c.ScoreFloat32 {
		b = append(b, `"float32"`...)
	} else {
		b = append(b, `"float64"`...)
	}
	if c.Qrels != "" {
		b = append(b, `, "qrels": `...)
		b = pipeline.AppendJSONString(b, []byte(c.Qrels))
		b = append(b, `, "complete": `...)
		b = strconv.AppendBool(b, c.Complete)
		b = append(b, `, "unjudged_queries": `...)
		if c.SkipUnjudged {
			b = append(b, `"ignored"`...)
		} else {
			b = append(b, `"evaluated"`...)
		}
	}
	for _, col := range []struct{ k, v string }{
		{"query_col", c.Columns.Query}, {"doc_col", c.Columns.Doc}, {"score_col", c.Columns.Score},
		{"label_col", c.Columns.Label}, {"rank_col", c.Columns.Rank},
	} {
		b = append(b, `, "`+col.k+`": `...)
		if col.v == "" {
			b = append(b, "null"...)
		} else {
			b = pipeline.AppendJSONString(b, []byte(col.v))
		}
	}
	return append(b, '}')
}

// AppendCounts appends the summary's "rows" and "queries" members (and
// "duplicates_dropped" under --dedup first), each after a comma.
func AppendCounts(b []byte, set *aggregate.Set, dedupFirst bool) []byte {
	b = append(b, ",\n  \"rows\": "...)
	b = strconv.AppendInt(b, set.Rows, 10)
	b = append(b, ",\n  \"queries\": {\"total\": "...)
	b = strconv.AppendInt(b, set.Queries, 10)
	b = append(b, `, "empty": `...)
	b = strconv.AppendInt(b, set.Empty, 10)
	b = append(b, '}')
	if dedupFirst {
		b = append(b, ",\n  \"duplicates_dropped\": "...)
		b = strconv.AppendInt(b, set.Dropped, 10)
	}
	return b
}

// JSON writes the summary one metric a line: valid JSON that a person can
// also read and diff.
func JSON(c *Run, set *aggregate.Set) []byte {
	b := []byte("{\n  \"metrics\": {")
	for i, m := range c.Metrics {
		if i > 0 {
			b = append(b, ',')
		}
		s := set.Stats[i].Summary()
		b = append(b, "\n    "...)
		b = pipeline.AppendJSONString(b, []byte(m.Name))
		b = append(b, `: {"mean": `...)
		b = pipeline.AppendJSONFloat(b, s.Mean)
		b = append(b, `, "queries": `...)
		b = strconv.AppendInt(b, s.N, 10)
		b = append(b, `, "ci95": `...)
		if math.IsNaN(s.Lo) {
			b = append(b, "null"...)
		} else {
			b = append(b, '[')
			b = pipeline.AppendJSONFloat(b, s.Lo)
			b = append(b, ", "...)
			b = pipeline.AppendJSONFloat(b, s.Hi)
			b = append(b, ']')
		}
		b = append(b, '}')
	}
	b = append(b, "\n  }"...)
	b = AppendCounts(b, set, c.DedupFirst)
	b = append(b, ",\n  \"options\": "...)
	b = append(b, OptionsJSON(c)...)
	b = AppendGates(b, c.Gates)
	return append(b, "\n}\n"...)
}

// Text writes the summary as a table a person reads.
func Text(c *Run, set *aggregate.Set) []byte {
	var w bytes.Buffer
	width := len("metric")
	for _, m := range c.Metrics {
		width = max(width, len(m.Name))
	}
	fmt.Fprintf(&w, "%-*s  %8s  %-19s  %9s\n", width, "metric", "mean", "95% CI", "queries")
	for i, m := range c.Metrics {
		s := set.Stats[i].Summary()
		ci := "-"
		if !math.IsNaN(s.Lo) {
			ci = fmt.Sprintf("[%.4f, %.4f]", s.Lo, s.Hi)
		}
		mean := "-"
		if !math.IsNaN(s.Mean) {
			mean = fmt.Sprintf("%.4f", s.Mean)
		}
		fmt.Fprintf(&w, "%-*s  %8s  %-19s  %9d\n", width, m.Name, mean, ci, s.N)
	}
	w.WriteByte('\n')
	WriteFooter(&w, c.Options, c.DedupFirst, set, c.Gates)
	return w.Bytes()
}

// WriteFooter ends a text summary, the one-system one and the CLI's for
// several systems alike: the counts of set (system 0), the conventions in
// force, and the quality gates.
func WriteFooter(w *bytes.Buffer, o metrics.Options, dedupFirst bool, set *aggregate.Set, g *Gates) {
	rel := "label > 0"
	if o.HasThreshold {
		rel = "label >= " + strconv.FormatFloat(o.RelThreshold, 'g', -1, 64)
	}
	emptyNote := map[metrics.Empty]string{metrics.EmptySkip: "left out", metrics.EmptyZero: "counted as 0",
		metrics.EmptyOne: "counted as 1", metrics.EmptyError: "an error"}[o.Empty]
	fmt.Fprintf(w, "%d rows, %d queries, %d with no relevant row (%s).\n", set.Rows, set.Queries, set.Empty, emptyNote)
	if dedupFirst {
		fmt.Fprintf(w, "%d rows dropped as repeats of a doc id within their query (--dedup first).\n", set.Dropped)
	}
	fmt.Fprintf(w, "ties %s, gain %s, max grade %g, relevant: %s.\n",
		NameOf(Ties, o.Ties), NameOf(Gains, o.Gain), o.MaxGrade, rel)
	writeGates(w, g)
}

// trecLine appends one line of trec_eval's layout.
func trecLine(b []byte, measure, qid string, v float64) []byte {
	b = fmt.Appendf(b, "%-22s\t%s\t", measure, qid)
	if math.IsNaN(v) {
		return append(b, "nan\n"...)
	}
	return fmt.Appendf(b, "%6.4f\n", v)
}

// AppendTrecQuery appends one query's block of trec_eval's layout.
func AppendTrecQuery(b []byte, c *Run, id []byte, vals []float64) []byte {
	return TrecQuery(b, c.Metrics, id, vals)
}

// TrecQuery appends one query's block of trec_eval's layout: a line per
// metric, named as trec_eval names it.
func TrecQuery(b []byte, ms []metrics.Metric, id []byte, vals []float64) []byte {
	for i, m := range ms {
		b = trecLine(b, metrics.TrecName(m), string(id), vals[i])
	}
	return b
}

// Trec writes the summary in trec_eval's layout (measure, "all", value).
func Trec(c *Run, set *aggregate.Set) []byte { return TrecAll(c.Metrics, set) }

// TrecAll writes the "all" block of trec_eval's layout: num_q, then each
// metric's mean.
func TrecAll(ms []metrics.Metric, set *aggregate.Set) []byte {
	b := fmt.Appendf(nil, "%-22s\tall\t%s\n", "num_q", strconv.FormatInt(set.Queries, 10))
	for i, m := range ms {
		b = trecLine(b, metrics.TrecName(m), "all", set.Stats[i].Summary().Mean)
	}
	return b
}

// Format writes the summary in the named format: "json", "trec" or text.
func Format(format string, c *Run, set *aggregate.Set) []byte {
	switch format {
	case "json":
		return JSON(c, set)
	case "trec":
		return Trec(c, set)
	}
	return Text(c, set)
}

// AppendGates appends the summary's "gates" member (nothing when g is nil,
// no gate having been asked for).
func AppendGates(b []byte, g *Gates) []byte {
	if g == nil {
		return b
	}
	b = append(b, ",\n  \"gates\": {\"passed\": "...)
	b = strconv.AppendBool(b, !g.Failed())
	b = append(b, `, "checks": [`...)
	for i, ch := range g.Checks {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, `{"metric": `...)
		b = pipeline.AppendJSONString(b, []byte(ch.Name))
		b = append(b, `, "min": `...)
		b = pipeline.AppendJSONFloat(b, ch.Min)
		b = append(b, `, "mean": `...)
		b = pipeline.AppendJSONFloat(b, ch.Mean)
		b = append(b, `, "passed": `...)
		b = strconv.AppendBool(b, ch.Passed)
		b = append(b, '}')
	}
	b = append(b, `], "fail_on_empty": `...)
	b = strconv.AppendBool(b, g.FailOnEmpty)
	b = append(b, `, "empty": `...)
	b = strconv.AppendBool(b, g.Empty)
	return append(b, '}')
}

// writeGates writes a line per gate for the text summary (nothing when g
// is nil).
func writeGates(w *bytes.Buffer, g *Gates) {
	if g == nil {
		return
	}
	for _, ch := range g.Checks {
		verdict := "passed"
		if !ch.Passed {
			verdict = "FAILED"
		}
		fmt.Fprintf(w, "gate %s >= %g: %s (mean %s)\n", ch.Name, ch.Min, verdict, FmtMean(ch.Mean))
	}
	if g.Empty {
		fmt.Fprintln(w, "gate --fail-on-empty: FAILED (no rows or no query with a relevant row)")
	}
}
