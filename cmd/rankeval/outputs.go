package main

import (
	"io"

	"github.com/rankeval/rankeval/state"
	"github.com/rankeval/rankeval/summary"
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

func openOutputs(stdout io.Writer, output, report, statePath string) (*outputs, error) {
	o := &outputs{stdout: stdout}
	for _, f := range []struct {
		name string
		to   **atomicFile
	}{{output, &o.summary}, {report, &o.report}, {statePath, &o.state}} {
		if f.name == "" {
			continue
		}
		a, err := createAtomic(f.name)
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
// the state st (when asked), commits them with more (the per-query file),
// and returns the gates' verdict.
func (o *outputs) finish(r *summary.Results, format string, st *state.State, more ...*atomicFile) error {
	body := r.Format(format)
	if o.report != nil {
		if err := r.WriteReport(o.report); err != nil {
			return err
		}
	}
	if o.state != nil {
		b, err := st.AppendBinary(nil)
		if err != nil {
			return err
		}
		if _, err := o.state.Write(b); err != nil {
			return err
		}
	}
	if o.summary != nil {
		if _, err := o.summary.Write(body); err != nil {
			return err
		}
	} else if _, err := o.stdout.Write(body); err != nil {
		return err
	}
	for _, a := range append([]*atomicFile{o.summary, o.report, o.state}, more...) {
		if a != nil {
			if err := a.commit(); err != nil {
				return err
			}
		}
	}
	return r.Run.Gates.Err()
}
