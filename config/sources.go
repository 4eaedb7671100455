package config

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/pipeline"
	"github.com/rankeval/rankeval/reader"
	"github.com/rankeval/rankeval/reader/trec"
	"github.com/rankeval/rankeval/summary"
)

// Sources are the settings that say what a run reads besides its INPUT files:
// several logs compared as systems (--system, --missing) and a TREC run's
// judgments (--qrels, --complete). Plain data, like Config, so a
// distributed runner ships them to its workers.
type Sources struct {
	// System holds every --system NAME=PATH as given, the baseline first.
	System   []string
	Missing  string
	Qrels    string
	Complete bool
	// Comments skips the comment lines of the qrels and runs (a first
	// field starting with '#'), as trec_eval 10.0 does; rankeval
	// trec_eval sets it, no flag does.
	Comments bool
	// ExtraFields lets a run's line have fields after its sixth, ignored
	// as trec_eval ignores them; rankeval trec_eval sets it.
	ExtraFields bool
	// StrictLines reads the qrels' lines as trec_eval's reader does
	// (trec.QrelsFormat.Strict: blank lines and the comments it
	// misreads are errors), and refuses a NUL byte in a run too, where
	// trec_eval crashes (trec.RunOptions.RefuseNul); rankeval
	// trec_eval sets it.
	StrictLines bool
}

// QrelsFormat is how the qrels of src read under --profile profile: a
// trec_eval profile reads each label as trec_eval does, with atol ("2.5"
// is 2, "0.5" 0, "1e2" 1, "abc" 0: trec.AtolLabel), so that the
// ordinary command and rankeval trec_eval read one file alike; the other
// profiles, and none, read it as a number (a label that is not one is an
// error).
func (src *Sources) QrelsFormat(profile string) trec.QrelsFormat {
	return trec.QrelsFormat{Comments: src.Comments, Atol: profiles[profile].atolLabels, Strict: src.StrictLines}
}

// RunSystems makes several TREC runs given as INPUT (with --qrels and no
// --system) the systems compared, as if each were given as --system
// NAME=PATH, the first the baseline: it sets src.System and returns no
// inputs. A run is named by its run tag (the sixth field of its last line,
// as trec_eval's runid), or by its path as given where the tag is shared
// with another run, is empty or holds '=', or where reading the tag would
// consume the input (standard input, a pipe) or the path is no file (a
// directory, a glob: the readers then report what they find there). One
// run, or none, stays one system: inputs come back unchanged.
func (src *Sources) RunSystems(inputs []string) ([]string, error) {
	if src.Qrels == "" || len(src.System) > 0 || len(inputs) < 2 {
		return inputs, nil
	}
	tags := make([]string, len(inputs))
	count := map[string]int{}
	for i, in := range inputs {
		if st, err := os.Stat(in); in == reader.Stdin || err != nil || !st.Mode().IsRegular() {
			continue
		}
		tag, err := trec.RunTag(in)
		if src.Comments {
			tag, err = trec.RunTagComments(in)
		}
		if err != nil {
			return nil, err
		}
		tags[i] = tag
		count[tag]++
	}
	systems := make([]string, len(inputs))
	for i, in := range inputs {
		name := tags[i]
		if name == "" || count[name] > 1 || strings.Contains(name, "=") {
			name = in
		}
		if strings.Contains(name, "=") {
			return nil, Usagef("run %s is named by its path, which holds '=': name each run with --system NAME=PATH", in)
		}
		systems[i] = name + "=" + in
	}
	src.System = systems
	return nil, nil
}

// Apply checks the sources against the resolved settings s and the INPUT
// files, and completes s: with --system, s.Rules.Systems names the logs,
// and logs holds each one's path (nil otherwise).
func (src *Sources) Apply(s *Settings, inputs []string) (logs [][]string, err error) {
	if src.Complete && src.Qrels == "" {
		return nil, Usagef("--complete needs --qrels")
	}
	if len(s.Slices) > 0 && src.Qrels != "" {
		return nil, Usagef("--by cannot slice TREC runs: they have no other columns")
	}
	if s.Rules.Propensity.From != pipeline.PropNone && src.Qrels != "" {
		// a TREC run has no such column: its reader gives none
		return nil, Usagef("the IPS estimates read each row's propensity or logged position from a click log; TREC runs (--qrels) have neither")
	}
	if s.Rules.Teams.On() && src.Qrels != "" {
		return nil, Usagef("the interleave outcome reads each row's team from a click log; TREC runs (--qrels) have none")
	}
	if s.InputFormat != reader.FormatAuto && src.Qrels != "" {
		return nil, Usagef("--input-format names the format of logs; with --qrels the inputs are TREC runs")
	}
	if (s.Delimiter != 0 || s.DecimalComma) && src.Qrels != "" {
		return nil, Usagef("--delimiter and --decimal-comma are for CSV logs; with --qrels the inputs are TREC runs")
	}
	rules := &s.Rules
	if len(src.System) > 0 {
		if len(src.System) < 2 {
			return nil, Usagef("--system: give two or more, the baseline first")
		}
		if len(inputs) > 0 {
			return nil, Usagef("give either --system NAME=PATH logs or INPUT files, not both")
		}
		if len(rules.Systems) > 1 {
			return nil, Usagef("--system compares logs: give one --score-col with it")
		}
		if src.Complete {
			return nil, Usagef("--complete counts judged queries missing from a single run, not from several runs (--system); --missing zero counts a query that some of the systems lack as 0 for them")
		}
		rules.Systems = nil
		if rules.Systems, logs, err = src.systems(); err != nil {
			return nil, err
		}
	}
	if logs != nil && metrics.AnyPair(rules.Metrics) {
		// the rank-similarity measures match the logs' rows by doc id
		s.Columns.DocOptional = false
	}
	if err := distinctSystems(rules.Systems); err != nil {
		return nil, err
	}
	switch src.Missing {
	case "error":
	case "zero":
		if logs == nil {
			return nil, Usagef("--missing zero applies to --system logs")
		}
	default:
		return nil, Usagef("--missing %q: want error or zero", src.Missing)
	}
	if err := s.CheckSystems(); err != nil { // --system added systems
		return nil, err
	}
	if err := checkClickSystems(rules.Metrics, len(logs)); err != nil {
		return nil, err
	}
	if err := s.CheckCompare(); err != nil {
		return nil, err
	}
	return logs, nil
}

// systems reads every --system NAME=PATH into the names and each one's
// log.
func (src *Sources) systems() (names []string, logs [][]string, err error) {
	for _, f := range src.System {
		name, path, ok := strings.Cut(f, "=")
		if !ok || name == "" || path == "" {
			return nil, nil, Usagef("--system %q: want NAME=PATH", f)
		}
		names = append(names, name)
		logs = append(logs, []string{path})
	}
	return names, logs, nil
}

// distinctSystems refuses a system named twice.
func distinctSystems(names []string) error {
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			return Usagef("system %q is named twice", n)
		}
		seen[n] = true
	}
	return nil
}

// CheckState refuses --state with --complete.
func (src *Sources) CheckState(state string) error {
	if state != "" && src.Complete {
		return Usagef("--state with --complete: each day would count the judged queries missing from its own run, and a merge would count them again; save states without --complete")
	}
	return nil
}

// CheckState refuses --state with --missing-score or --missing-label
// other than error: a state holds no count of the rows they dropped,
// ranked last or counted as 0, which a merge would lose.
func (s *Settings) CheckState(state string) error {
	if r := s.Rules; state != "" && (r.MissingScore != pipeline.MissingError || r.MissingLabel != pipeline.MissingError) {
		return Usagef("--state with --missing-score %s --missing-label %s: a state does not keep the count of rows without a score or a label, so a merge would hide it; save states with both left at error, or evaluate the logs in one run", r.MissingScore, r.MissingLabel)
	}
	return nil
}

// Describe adds to run what a summary says of the sources: the qrels and
// --complete, the --missing policy of --system logs, and the inputs read
// (inputs, expanded, and each log's files as NAME=PATH), sorted so that
// merged states list the same inputs in any merge order.
func (src *Sources) Describe(run *summary.Run, inputs []string, logs [][]string) {
	run.Qrels, run.Complete = src.Qrels, src.Complete
	run.SkipUnjudged = run.SkipUnjudged && src.Qrels != ""
	if logs != nil {
		run.Missing = src.Missing
	}
	run.Inputs = append(run.Inputs, InputNames(run, inputs, logs)...)
	slices.Sort(run.Inputs)
}

// InputNames names the inputs of run in the order it reads them, as its
// summary and state name them: inputs, then each log's files as
// NAME=PATH, the logs in the order of run.Systems.
func InputNames(run *summary.Run, inputs []string, logs [][]string) []string {
	names := slices.Clone(inputs)
	for s, l := range logs {
		for _, f := range l {
			names = append(names, run.Systems[s]+"="+f)
		}
	}
	return names
}

// Left is what the join of a TREC run with its qrels left out: the run's
// queries without judgments that a profile skipped, and their rows; and
// the judged queries absent from the run.
type Left struct {
	UnjudgedQueries, UnjudgedRows, Unseen int64
	// IRMeasures says that the run names measures in ir_measures' syntax,
	// whose means count the judged queries missing from the run as 0
	IRMeasures bool
}

// ReportLeft says on w, after the command's name cmd, what the join left
// out, so that nothing is dropped silently: profile is the --profile that
// skipped the unjudged queries. It says nothing of a count of 0.
func (src *Sources) ReportLeft(w io.Writer, cmd, profile string, l Left) {
	if l.UnjudgedQueries > 0 {
		fmt.Fprintf(w, "%s: %d run queries (%d rows) have no judgments in %s and were ignored, as %s does\n",
			cmd, l.UnjudgedQueries, l.UnjudgedRows, src.Qrels, profile)
	}
	if l.Unseen > 0 {
		run, what := "the run", "ignored (--complete counts them as 0)"
		if l.IRMeasures {
			what = "ignored (--complete counts them as 0, as ir_measures does in its measures: add it to match ir_measures' means)"
		}
		switch {
		case src.Complete:
			what = "counted as 0 (--complete)"
		case len(src.System) > 0:
			// --complete is refused with several runs: not offered
			run, what = "every run", "ignored (--complete, which counts them as 0, takes a single run)"
		}
		fmt.Fprintf(w, "%s: %d judged queries are missing from %s: %s\n", cmd, l.Unseen, run, what)
	}
}
