package rankeval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/config"
	"github.com/rankeval/rankeval/objstore"
	"github.com/rankeval/rankeval/pipeline"
	"github.com/rankeval/rankeval/state"
	"github.com/rankeval/rankeval/summary"
)

// MergeConfig is how Merge combines states and summarizes them; the zero
// value is rankeval merge's defaults.
type MergeConfig struct {
	// Format is the summary's format (config.Formats; "" is text).
	Format string
	// TableNames names metrics and systems in LaTeX and Markdown tables
	// (Config.TableNames).
	TableNames string
	// Correction adjusts the comparisons' p-values ("" : the first
	// state's).
	Correction string
	Gates      config.Gates
	// Detect asks how many queries each comparison needs to detect a
	// difference (Config.Detect), answered on the merged figures.
	Detect string
	// ReadTimeout bounds a read of a state in object storage that
	// receives nothing (0: objstore's default; below 0 refused).
	ReadTimeout time.Duration
	// Outputs are where the caller will write the results: each is
	// refused when it is one of the states, and a report needs the
	// states' figures.
	Outputs config.Outputs
	// Log receives warnings, one a line, each led by "rankeval: warning: ".
	Log io.Writer
}

// Merge reads the states (files, quoted globs, object-store URLs or
// globs: File; or Stream of a state's bytes; Records are refused), checks that they merge
// (made with the same settings, from different inputs), and returns the
// results of the union of their runs, as one run over all their inputs
// would give them. Propensity states are refused (MergePropensities).
func Merge(ctx context.Context, cfg MergeConfig, states ...Source) (*Results, error) {
	ctx, names, streams, err := gatherStates(ctx, cfg, states)
	if err != nil {
		return nil, err
	}
	return mergeRuns(ctx, cfg, names, streams, nil)
}

// MergeStates merges states of one kind, the first state's: runs' states
// as Merge does (the Results), or propensity states as
// MergePropensities does (the Propensities); the other is nil, and a
// state of the other kind is refused.
func MergeStates(ctx context.Context, cfg MergeConfig, states ...Source) (*Results, *Propensities, error) {
	ctx, names, streams, err := gatherStates(ctx, cfg, states)
	if err != nil {
		return nil, nil, err
	}
	first, err := readStateBytes(ctx, names[0], streams[names[0]])
	if err != nil {
		return nil, nil, err
	}
	kind, err := state.KindOf(first)
	if err != nil {
		return nil, nil, stateError(names[0], err)
	}
	if kind == state.KindPropensities {
		p, err := mergePropensities(ctx, cfg, names, streams, first)
		return nil, p, err
	}
	r, err := mergeRuns(ctx, cfg, names, streams, first)
	return r, nil, err
}

// gatherStates checks cfg's settings common to every merge and lists the
// states to read: their names (globs expanded), and the bytes of those
// given as streams.
func gatherStates(ctx context.Context, cfg MergeConfig, states []Source) (context.Context, []string, map[string]io.Reader, error) {
	if err := config.CheckFormat(cmp(cfg.Format, "text")); err != nil {
		return nil, nil, nil, err
	}
	if cfg.ReadTimeout < 0 {
		return nil, nil, nil, config.CheckReadTimeout(cfg.ReadTimeout)
	}
	ctx = objstore.WithReadTimeout(ctx, cfg.ReadTimeout)
	if _, err := config.ParseCorrection(cfg.Correction); err != nil {
		return nil, nil, nil, err
	}
	if _, err := summary.ParseTableNames(cfg.TableNames); err != nil {
		return nil, nil, nil, config.Usagef("--table-names %w", err)
	}
	if len(states) == 0 {
		return nil, nil, nil, config.Usagef("no state: give the files rankeval --state wrote")
	}
	var names []string
	streams := map[string]io.Reader{}
	for _, s := range states {
		if err := s.check(); err != nil {
			return nil, nil, nil, err
		}
		if s.open != nil && s.data == nil {
			return nil, nil, nil, config.Usagef("%s: not a state's bytes: give the state's file (File) or its bytes (Stream)", s.name)
		}
		if s.data != nil {
			names = append(names, s.name)
			streams[s.name] = s.data
			continue
		}
		ns, err := expandStates(ctx, s.name)
		if err != nil {
			return nil, nil, nil, err
		}
		names = append(names, ns...)
	}
	if err := config.CheckDistinctInputs("state", names); err != nil {
		return nil, nil, nil, err
	}
	if err := config.CheckOutputs(cfg.Outputs.Flags(), names...); err != nil {
		return nil, nil, nil, err
	}
	return ctx, names, streams, nil
}

// mergeRuns merges runs' states; first, when not nil, is the first
// state's bytes, read already.
func mergeRuns(ctx context.Context, cfg MergeConfig, names []string, streams map[string]io.Reader, first []byte) (*Results, error) {
	format := cmp(cfg.Format, "text")
	corr, _ := config.ParseCorrection(cfg.Correction)
	tableNames, _ := summary.ParseTableNames(cfg.TableNames)
	corrGiven := cfg.Correction != ""
	log := cfg.Log
	if log == nil {
		log = io.Discard
	}
	var merged *state.State
	corrWarned := false
	held := map[aggregate.Digest]heldInput{}
	var err error
	for i, name := range names {
		data := first
		if i > 0 || first == nil {
			if data, err = readStateBytes(ctx, name, streams[name]); err != nil {
				return nil, err
			}
		}
		s, err := state.Decode(data)
		if err != nil {
			return nil, stateError(name, err)
		}
		if s.Undigested {
			fmt.Fprintf(log, "rankeval: warning: %s holds a state written before rankeval recorded what states are made from (state version 1): whether it shares an input with another state is not checked, and a query in both would count twice\n", name)
		}
		if merged == nil {
			sharedInput(held, name, "queries", s.Digests) // the first: nothing held yet
			merged = s
			continue
		}
		if diff := state.Mismatch(merged, s); diff != "" {
			return nil, fmt.Errorf("%s: made with %s in %s; states merge only when made under the same options: %w", name, diff, names[0], state.ErrMismatch)
		}
		if err := sharedInput(held, name, "queries", s.Digests); err != nil {
			return nil, err
		}
		if c := s.Run.Correction; c != merged.Run.Correction && !corrGiven && !corrWarned {
			fmt.Fprintf(log, "rankeval: warning: %s was made with --correction %s, %s with %s: the summary adjusts p-values by %s, the first state's (give --correction to choose)\n",
				name, c, names[0], merged.Run.Correction, merged.Run.Correction)
			corrWarned = true
		}
		if err := merged.Merge(s); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	run := merged.Run
	if corrGiven {
		run.Correction = corr
	}
	if cfg.Outputs.Report != "" && len(run.Curves) == 0 {
		return nil, config.Usagef("--report: the states hold no report figures")
	}
	if err := config.CheckTrecFormat(format, run); err != nil {
		return nil, err
	}
	// a merged summary lists its inputs sorted: the same bytes whatever
	// order or grouping the states were merged in
	slices.Sort(run.Inputs)
	run.Version = summary.Version()
	if len(run.Slices) > 0 && len(merged.SliceKeys) > run.MaxSlices {
		return nil, fmt.Errorf("the merged states hold %d slices, more than --max-slices %d of the runs that made them: %w",
			len(merged.SliceKeys), run.MaxSlices, pipeline.ErrTooManySlices)
	}
	run.Warnings = nil
	run.TableNames = tableNames
	if err := run.CheckTableNames(); err != nil {
		return nil, config.Usagef("--table-names %w", err)
	}
	gates, err := cfg.Gates.Spec(run.Metrics, len(run.Systems))
	if err != nil {
		return nil, err
	}
	if run.Detect, err = summary.ParseDetect(cfg.Detect, run.Metrics); err != nil {
		return nil, config.Usagef("%w", err)
	}
	if err := config.CheckDetect(run.Detect, run.Metrics, len(run.Systems), run.Compare.AllPairs, cmp(cfg.Format, "text")); err != nil {
		return nil, err
	}
	r := NewResults(run, Part{Agg: merged.Agg, SliceKeys: merged.SliceKeys, BinaryLabels: run.Labels == "binary", GradedLabels: run.Labels == "graded",
		Report: len(run.Curves) > 0},
		gates, log)
	r.state = merged
	return r, nil
}

func cmp(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// heldInput is an input of a state being merged: the state's name and
// the input's as that state names it.
type heldInput struct{ state, input string }

// sharedInput refuses the state read from name, whose inputs' digests
// (of their queries or rows: what) are ds, when it was made from an
// input that a state merged before it was made from too (held maps each
// digest met to where it was met), naming both states and the input as
// each names it; otherwise it adds ds to held.
func sharedInput(held map[aggregate.Digest]heldInput, name, what string, ds []state.InputDigest) error {
	for _, d := range ds {
		if h, ok := held[d.Digest]; ok {
			return fmt.Errorf("%s and %s were made from one input (%s in %s, %s in %s: digest %s of its %s): its %s would count twice; merge each input once (a merged state holds all of its parts' inputs): %w",
				h.state, name, h.input, h.state, d.Input, name, d.Digest, what, what, state.ErrSharedInput)
		}
	}
	for _, d := range ds {
		held[d.Digest] = heldInput{name, d.Input}
	}
	return nil
}

// expandStates expands a glob of local files or of object-store URLs.
func expandStates(ctx context.Context, a string) ([]string, error) {
	if objstore.IsURL(a) {
		return objstore.Expand(ctx, a)
	}
	if !strings.ContainsAny(a, "*?[") {
		return []string{a}, nil
	}
	names, err := filepath.Glob(a)
	if err != nil {
		return nil, config.Usagef("%s: %v", a, err)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s: no state file matches", a)
	}
	return names, nil
}

// readStateBytes reads one state's bytes (from r when not nil), naming
// it in every error.
func readStateBytes(ctx context.Context, name string, r io.Reader) ([]byte, error) {
	var data []byte
	var err error
	if r != nil {
		if data, err = io.ReadAll(r); err != nil {
			err = fmt.Errorf("%s: %w", name, err)
		}
	} else {
		data, err = readWhole(ctx, name)
	}
	return data, err
}

// stateError names the state in an error of its decoding, and says what
// makes a state file or which kinds merge.
func stateError(name string, err error) error {
	switch {
	case errors.Is(err, state.ErrNotState):
		return fmt.Errorf("%s: %w (rankeval --state and rankeval propensities --state write them)", name, err)
	case errors.Is(err, state.ErrKind):
		return fmt.Errorf("%s: %w; rankeval merge merges runs' states together, or propensity states together, not the two", name, err)
	}
	return fmt.Errorf("%s: %w", name, err)
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
