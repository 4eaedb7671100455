package main

import (
	"context"
	"io"

	"github.com/rankeval/rankeval"
)

// outputs are the files a run writes besides standard output: the
// summary (--output), the report and the state. They are created before
// the work starts, so an unwritable place fails before hours of reading,
// and committed one after another at the end, once everything is written;
// a run that fails before that leaves none.
type outputs struct {
	stdout                 io.Writer
	summary, report, state *atomicFile
}

// openOutputs creates them; an object's requests are made under ctx
// (its read timeout).
func openOutputs(ctx context.Context, stdout io.Writer, output, report, statePath string) (*outputs, error) {
	o := &outputs{stdout: stdout}
	for _, f := range []struct {
		name string
		to   **atomicFile
	}{{output, &o.summary}, {report, &o.report}, {statePath, &o.state}} {
		if f.name == "" {
			continue
		}
		a, err := createAtomic(ctx, f.name)
		if err != nil {
			o.abort()
			return nil, err
		}
		*f.to = a
	}
	return o, nil
}

// abort removes every output not committed.
func (o *outputs) abort() {
	for _, a := range []*atomicFile{o.summary, o.report, o.state} {
		if a != nil {
			a.abortUnlessCommitted()
		}
	}
}

// finish renders r in format to the summary's place, writes the report and
// the state (when asked), commits them with more (the per-query file),
// and returns the gates' verdict.
func (o *outputs) finish(r *rankeval.Results, format string, more ...*atomicFile) error {
	if o.report != nil {
		if err := r.WriteReport(o.report); err != nil {
			return err
		}
	}
	if o.state != nil {
		if err := r.WriteState(o.state); err != nil {
			return err
		}
	}
	var w io.Writer = o.stdout
	if o.summary != nil {
		w = o.summary
	}
	if err := r.Write(w, format); err != nil {
		return err
	}
	for _, a := range append([]*atomicFile{o.summary, o.report, o.state}, more...) {
		if a != nil {
			if err := a.commit(); err != nil {
				return err
			}
		}
	}
	return r.Err()
}

// finishPropensities writes the propensity file to the summary's place,
// the report and the state (when asked), and commits them.
func (o *outputs) finishPropensities(res *rankeval.Propensities) error {
	if o.state != nil {
		if err := res.WriteState(o.state); err != nil {
			return err
		}
	}
	if o.report != nil {
		if err := res.WriteReport(o.report); err != nil {
			return err
		}
	}
	var w io.Writer = o.stdout
	if o.summary != nil {
		w = o.summary
	}
	if err := res.WriteFile(w); err != nil {
		return err
	}
	for _, a := range []*atomicFile{o.summary, o.report, o.state} {
		if a != nil {
			if err := a.commit(); err != nil {
				return err
			}
		}
	}
	return nil
}
