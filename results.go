package rankeval

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/config"
	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/state"
	"github.com/rankeval/rankeval/summary"
)

// Results are a run's (or a merge's) figures, ready to render in every
// output shape of the command.
type Results struct {
	sum   *summary.Results
	part  Part
	state *state.State
}

// ErrNotKept is returned when Results are asked for what the run did not
// keep: the report's figures (Config.Outputs.Report) or a state
// (Config.Outputs.State).
var ErrNotKept = errors.New("not kept by the run")

// Part is what the aggregation of a run gives the finishing sequence:
// its exact sums, the slices' keys, and what the labels looked like.
type Part struct {
	Agg                        *aggregate.Analysis
	SliceKeys                  [][]string
	BinaryLabels, GradedLabels bool
	// Report says the run kept the report's figures (histograms).
	Report bool
}

// NewResults is the sequence that ends every run, whichever path made p
// (an evaluation, a merge, a distributed job): the note on conventions
// that differ from trec_eval's for a TREC run under no profile (led by
// "rankeval: note: " on log), the warning on ERR's
// maximum grade when every label was 0 or 1 (written to log, led by
// "rankeval: warning: ", when log is not nil; in the summary's warnings
// always), the figures, and the verdict of the gates (nil: none).
func NewResults(run *summary.Run, p Part, gates *summary.GateSpec, log io.Writer) *Results {
	if w := run.NoteConventions(); w != "" && log != nil {
		fmt.Fprintln(log, "rankeval: note:", w)
	}
	if w := run.NoteLabels(p.BinaryLabels, p.GradedLabels); w != "" && log != nil {
		fmt.Fprintln(log, "rankeval: warning:", w)
	}
	r := summary.NewResults(run, p.Agg, p.SliceKeys)
	run.Gates = r.CheckGates(gates)
	return &Results{sum: r, part: p}
}

// KeepState keeps the run's state, made from the inputs ds, for
// WriteState.
func (r *Results) KeepState(ds []state.InputDigest) {
	r.state = &state.State{Run: r.sum.Run, Agg: r.part.Agg, SliceKeys: r.part.SliceKeys, Digests: ds}
}

// Summary is the figures: means, intervals, comparisons, slices.
func (r *Results) Summary() *summary.Results { return r.sum }

// Mean is the mean of metric for system ("" for the first, or only, one)
// over the queries it was defined on, and their number; ok is false when
// no such metric or system was evaluated. metric is named as in
// Config.Metrics (rankeval's and trec_eval's names in any case), or by
// another name of the same metric ("P.5" there is "p@5" here too)
// (metrics.Index). A metric defined on no query has the mean NaN.
func (r *Results) Mean(metric, system string) (mean float64, n int64, ok bool) {
	run := r.sum.Run
	m := metrics.Index(run.Metrics, metric)
	s := 0
	if system != "" {
		s = slices.Index(run.Systems, system)
	}
	if m < 0 || s < 0 {
		return 0, 0, false
	}
	f := r.sum.Figure(s, m)
	return f.Mean, f.N, true
}

// Write renders the summary in format: text, json, trec, latex or
// markdown (config.Formats); trec only for a run without slices,
// comparisons or bootstrap intervals, which its layout has no place for.
func (r *Results) Write(w io.Writer, format string) error {
	if err := config.CheckFormat(format); err != nil {
		return err
	}
	if err := config.CheckTrecFormat(format, r.sum.Run); err != nil {
		return err
	}
	_, err := w.Write(r.sum.Format(format))
	return err
}

// WriteReport writes the self-contained HTML report; the run must have
// kept the report's figures (Config.Outputs.Report, or a merge of states,
// which hold them).
func (r *Results) WriteReport(w io.Writer) error {
	if !r.part.Report {
		return fmt.Errorf("the report: %w (set Config.Outputs.Report)", ErrNotKept)
	}
	return r.sum.WriteReport(w)
}

// WriteState writes the run's state, which Merge (rankeval merge)
// combines with others; the run must have kept it (Config.Outputs.State).
func (r *Results) WriteState(w io.Writer) error {
	if r.state == nil {
		return fmt.Errorf("the state: %w (set Config.Outputs.State)", ErrNotKept)
	}
	b, err := r.state.AppendBinary(nil)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// Err is the gates' verdict: an error wrapping ErrGateFailed naming what
// failed, or nil.
func (r *Results) Err() error { return r.sum.Run.Gates.Err() }
