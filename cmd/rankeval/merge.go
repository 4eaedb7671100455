package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/evalflags"
	"github.com/rankeval/rankeval/objstore"
	"github.com/rankeval/rankeval/pipeline"
	"github.com/rankeval/rankeval/state"
	"github.com/rankeval/rankeval/summary"
)

const mergeUsage = `Usage: rankeval merge [flags] STATE... (flags may also follow the states)

Prints the summary of the union of runs saved with rankeval --state, as one
run over all their logs would print it, without reading the logs. A STATE is
a file, a quoted glob, or an s3:// or gs:// object or glob. The states must
have been made with the same metrics, options, systems, slice columns and
bootstrap size; not the same --correction, which adjusts p-values as the
summary is printed: merge's when given, else the first state's. States
made from one input (a day's log, known by its queries' digest whatever its
path or format) are refused: a merged state holds its parts' inputs, so a
week merged again with one of its days is too. Otherwise a query id in two
states counts twice (two evaluations).

Flags:
`

// mergeStates is the merge subcommand: read the states, check they merge,
// merge, and write the summary and whatever else is asked as a run would.
func mergeStates(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("rankeval merge", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	format := new(string)
	evalflags.RegisterFormat(fs, format)
	output := fs.String("output", "", "write the summary to this file instead of standard output (- is standard output)")
	report := fs.String("report", "", "also write the HTML report to this file")
	statePath := fs.String("state", "", "also write the merged state to this file (a weekly state from seven daily ones)")
	gate := evalflags.RegisterGates(fs)
	var readTimeout time.Duration
	evalflags.RegisterReadTimeout(fs, &readTimeout)
	evalflags.RegisterQuiet(fs, new(bool)) // merge shows no progress
	correction := new(string)
	evalflags.RegisterCorrection(fs, correction, "") // "": the first state's
	help := fs.Bool("help", false, "show this help")
	fs.BoolVar(help, "h", false, "show this help")
	names, err := evalflags.Parse(fs, args)
	if err != nil || *help {
		fmt.Fprint(stderr, mergeUsage)
		evalflags.PrintFlags(stderr, fs, nil)
		if err != nil {
			return usageError{err: err}
		}
		return errHelp
	}
	if err := evalflags.CheckFormat(*format); err != nil {
		return err
	}
	if err := evalflags.ApplyReadTimeout(readTimeout); err != nil {
		return err
	}
	corr, err := evalflags.ParseCorrection(*correction)
	if err != nil {
		return err
	}
	corrGiven := *correction != ""
	if *output == "-" {
		*output = ""
	}
	if len(names) == 0 {
		return usagef("no state: give the files rankeval --state wrote")
	}
	if names, err = expandStates(ctx, names); err != nil {
		return err
	}
	if err := evalflags.CheckDistinctInputs("state", names); err != nil {
		return err
	}
	outputs := map[string]string{"--output": *output, "--report": *report, "--state": *statePath}
	if err := evalflags.CheckOutputs(outputs, names...); err != nil {
		return err
	}
	outs, err := openOutputs(stdout, *output, *report, *statePath)
	if err != nil {
		return err
	}
	defer outs.abort()
	var merged *state.State
	corrWarned := false
	held := map[aggregate.Digest]heldInput{}
	for _, name := range names {
		s, err := readState(ctx, name)
		if err != nil {
			return err
		}
		if s.Undigested {
			fmt.Fprintf(stderr, "rankeval: warning: %s holds a state written before rankeval recorded what states are made from (state version 1): whether it shares an input with another state is not checked, and a query in both would count twice\n", name)
		}
		if merged == nil {
			sharedInput(held, name, s) // the first: nothing held yet
			merged = s
			continue
		}
		if diff := state.Mismatch(merged, s); diff != "" {
			return fmt.Errorf("%s: made with %s in %s; states merge only when made under the same options: %w", name, diff, names[0], state.ErrMismatch)
		}
		if err := sharedInput(held, name, s); err != nil {
			return err
		}
		if c := s.Run.Correction; c != merged.Run.Correction && !corrGiven && !corrWarned {
			fmt.Fprintf(stderr, "rankeval: warning: %s was made with --correction %s, %s with %s: the summary adjusts p-values by %s, the first state's (give --correction to choose)\n",
				name, c, names[0], merged.Run.Correction, merged.Run.Correction)
			corrWarned = true
		}
		if err := merged.Merge(s); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	run := merged.Run
	if corrGiven {
		run.Correction = corr
	}
	if *report != "" && len(run.Curves) == 0 {
		return usagef("--report: the states hold no report figures")
	}
	if err := evalflags.CheckTrecFormat(*format, run); err != nil {
		return err
	}
	// a merged summary lists its inputs sorted: the same bytes whatever
	// order or grouping the states were merged in
	slices.Sort(run.Inputs)
	run.Version = summary.Version()
	if len(run.Slices) > 0 && len(merged.SliceKeys) > run.MaxSlices {
		return fmt.Errorf("the merged states hold %d slices, more than --max-slices %d of the runs that made them: %w",
			len(merged.SliceKeys), run.MaxSlices, pipeline.ErrTooManySlices)
	}
	run.Warnings = nil
	if w := run.NoteLabels(run.Labels == "binary", run.Labels == "graded"); w != "" {
		fmt.Fprintln(stderr, "rankeval: warning:", w)
	}
	gates, err := gate.Spec(run.Metrics, len(run.Systems))
	if err != nil {
		return err
	}
	r := summary.NewResults(run, merged.Agg, merged.SliceKeys)
	run.Gates = r.CheckGates(gates)
	return outs.finish(r, *format, merged)
}

// heldInput is an input of a state being merged: the state's name and
// the input's as that state names it.
type heldInput struct{ state, input string }

// sharedInput refuses state s, read from name, when it was made from an
// input that a state merged before it was made from too (held maps each
// digest met to where it was met), naming both states and the input as
// each names it; otherwise it adds s's inputs to held.
func sharedInput(held map[aggregate.Digest]heldInput, name string, s *state.State) error {
	for _, d := range s.Digests {
		if h, ok := held[d.Digest]; ok {
			return fmt.Errorf("%s and %s were made from one input (%s in %s, %s in %s: digest %s of its queries): its queries would count twice; merge each input once (a merged state holds all of its parts' inputs): %w",
				h.state, name, h.input, h.state, d.Input, name, d.Digest, state.ErrSharedInput)
		}
	}
	for _, d := range s.Digests {
		held[d.Digest] = heldInput{name, d.Input}
	}
	return nil
}

// expandStates expands globs of local files and of object-store URLs.
func expandStates(ctx context.Context, args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		if objstore.IsURL(a) {
			names, err := objstore.Expand(ctx, a)
			if err != nil {
				return nil, err
			}
			out = append(out, names...)
			continue
		}
		if !strings.ContainsAny(a, "*?[") {
			out = append(out, a)
			continue
		}
		names, err := filepath.Glob(a)
		if err != nil {
			return nil, usagef("%s: %v", a, err)
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("%s: no state file matches", a)
		}
		out = append(out, names...)
	}
	return out, nil
}

// readState reads and decodes one state, naming it in every error.
func readState(ctx context.Context, name string) (*state.State, error) {
	data, err := readWhole(ctx, name)
	if err != nil {
		return nil, err
	}
	s, err := state.Decode(data)
	if errors.Is(err, state.ErrNotState) {
		return nil, fmt.Errorf("%s: %w (rankeval --state writes them)", name, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return s, nil
}

// readWhole reads a local file or a stored object whole.
func readWhole(ctx context.Context, name string) ([]byte, error) {
	if !objstore.IsURL(name) {
		return os.ReadFile(name)
	}
	o, err := objstore.Open(ctx, name)
	if err != nil {
		return nil, err
	}
	defer o.Close()
	r, err := o.Stream()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r) // its errors name the object, as os.ReadFile's name the file
}
