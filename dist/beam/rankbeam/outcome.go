package rankbeam

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/metrics"

	"github.com/rankeval/rankeval/config"
	"github.com/rankeval/rankeval/summary"
)

// How a job's outcome reaches the launcher. A runner reports a failed step
// as text: the worker's error inside its own report (some 8 KB of
// execution plan on Prism, a Java stack on Flink). A step's error is
// therefore marked, with the exit code rankeval gives it, so the launcher
// finds rankeval's own message in any runner's report (JobError). A failed
// gate is not an error of the job, which writes its summary: it is a
// counter whose name is the gate's message (GateFailure).

// Exit codes, rankeval's.
const (
	ExitInput = 1 // input or runtime error
	ExitUsage = 2 // a corrected command line fixes it
	ExitGate  = 3 // a quality gate failed
)

const (
	markOpen  = "[rankeval-error "
	markClose = " [/rankeval-error]"
	// GateNamespace is the namespace of the counter a failed gate sets.
	GateNamespace = "rankeval-gates"
	// JoinNamespace is the namespace of the counters of what the join of
	// a TREC run with its qrels left out (joinFn).
	JoinNamespace = "rankeval-join"
)

// The join's counters (joinFn), by name, and the count each adds to in
// JoinLeft.
const (
	unjudgedQueriesName = "unjudged-queries"
	unjudgedRowsName    = "unjudged-rows"
	unseenName          = "unseen"
)

var (
	unjudgedQueries = beam.NewCounter(JoinNamespace, unjudgedQueriesName)
	unjudgedRows    = beam.NewCounter(JoinNamespace, unjudgedRowsName)
	unseen          = beam.NewCounter(JoinNamespace, unseenName)
	joinCounts      = map[string]func(*config.Left) *int64{
		unjudgedQueriesName: func(l *config.Left) *int64 { return &l.UnjudgedQueries },
		unjudgedRowsName:    func(l *config.Left) *int64 { return &l.UnjudgedRows },
		unseenName:          func(l *config.Left) *int64 { return &l.Unseen },
	}
)

var marked = regexp.MustCompile(`(?s)\[rankeval-error (\d)\] (.*?) \[/rankeval-error\]`)

// stepError is an error of a step, marked for the launcher.
type stepError struct {
	code int
	err  error
}

func (e stepError) Error() string {
	return markOpen + strconv.Itoa(e.code) + "] " + e.err.Error() + markClose
}

func (e stepError) Unwrap() error { return e.err }

// mark marks *err, a step's error, with its exit code; deferred by every
// step.
func mark(err *error) {
	var done stepError
	if *err == nil || errors.As(*err, &done) {
		return
	}
	code := ExitInput
	if errors.Is(*err, config.ErrUsage) || errors.Is(*err, ErrConfig) {
		code = ExitUsage
	}
	*err = stepError{code, *err}
}

// JobError finds rankeval's message and exit code in the error a runner
// reported for a failed job; ok is false when no step of rankeval failed
// (the runner itself did, or the job was cancelled).
func JobError(err error) (msg string, code int, ok bool) {
	if err == nil {
		return "", 0, false
	}
	m := marked.FindStringSubmatch(err.Error())
	if m == nil {
		return "", 0, false
	}
	code, _ = strconv.Atoi(m[1])
	return m[2], code, true
}

// GateFailure is the failure of a gate the finished job counted (an error
// wrapping summary.ErrGateFailed, with rankeval's message), or nil.
func GateFailure(res metrics.Results) error {
	var why []string
	for _, c := range res.AllMetrics().Counters() {
		if c.Namespace() == GateNamespace && c.Result() > 0 {
			why = append(why, strings.TrimPrefix(c.Name(), summary.ErrGateFailed.Error()+": "))
		}
	}
	if why == nil {
		return nil
	}
	return fmt.Errorf("%w: %s", summary.ErrGateFailed, strings.Join(why, "; "))
}

// JoinLeft is what the join of the finished job left out, for the
// launcher to say as rankeval does (config.Sources.ReportLeft): the
// runner sums each counter over the workers.
func JoinLeft(res metrics.Results) config.Left {
	var l config.Left
	for _, c := range res.AllMetrics().Counters() {
		if field, ok := joinCounts[c.Name()]; ok && c.Namespace() == JoinNamespace {
			*field(&l) += c.Result()
		}
	}
	return l
}

// figures says whether the run keeps the report's figures (histograms and
// curves): for the report, and in a state, as rankeval does.
func (c *Config) figures() bool { return c.Outputs.State != "" || c.Outputs.Report != "" }
