package pipeline

import (
	"bytes"
	"fmt"

	"github.com/rankeval/rankeval/reader"
)

// grouper reads one log's inputs in order and hands out one query's rows
// at a time; a query may continue from one batch, or input, into the next.
// It knows the run only through what it is given: the producer's Taker,
// the positions table (whose entries for its inputs it fills in), and
// where to say what a stalled-looking run is doing.
type grouper struct {
	take   *Taker
	srcs   sourceTable
	note   func(string)
	inputs []Source
	base   int // index in srcs of inputs[0]
	next   int // the next input to open
	r      reader.Reader
	b      *reader.Batch
	i      int  // the next unread row of b
	si     int  // index in srcs of the open input
	named  bool // srcs[si] has the reader's name and Locate
	seen   seenSet
	sorted bool // ids must ascend (IDLess): lockstep with --missing zero
	// hint: the log is the run's only one, so inputs that look like
	// several systems' logs get --system suggested (looksLikeSystems)
	hint bool
	prev []byte
	asc  ascent
}

func (gr *grouper) close() error {
	if gr.r == nil {
		return nil
	}
	err := gr.r.Close()
	gr.r, gr.b = nil, nil
	return err
}

// advance makes b hold unread rows; false at the end of the log.
func (gr *grouper) advance() (bool, error) {
	for gr.b == nil || gr.i >= gr.b.N {
		if gr.r != nil {
			if gr.r.Next() {
				gr.b, gr.i = gr.r.Batch(), 0
				if !gr.named {
					// before any query of this input is sent, so no worker
					// reads the entry yet
					gr.srcs.name(gr.si, gr.b)
					gr.named = true
				}
				continue
			}
			err := gr.r.Err()
			name := gr.inputs[gr.next-1].Name
			cerr := gr.close()
			if err != nil {
				return false, err
			}
			if cerr != nil {
				return false, fmt.Errorf("%s: %w", name, cerr)
			}
		}
		if gr.next == len(gr.inputs) {
			return false, nil
		}
		r, err := gr.inputs[gr.next].Open()
		if err != nil {
			return false, err
		}
		if _, ahead := r.(reader.Ahead); !ahead {
			// a reader that decodes as it is asked overlaps the grouping
			// through a read-ahead; one that decodes ahead already would
			// only have each batch copied once more
			r = newReadAhead(r)
		}
		gr.r, gr.si, gr.named = r, gr.base+gr.next, false
		gr.next++
	}
	return true, nil
}

// fill reads the next query's rows into g; false at the end of the log.
func (gr *grouper) fill(g *Group) (bool, error) {
	g.Reset()
	for {
		ok, err := gr.advance()
		if err != nil || !ok {
			return g.N() > 0, err
		}
		b, i, si := gr.b, gr.i, gr.si
		id := b.Query.At(i)
		if g.N() > 0 && !bytes.Equal(id, g.ID) {
			return true, nil
		}
		// the run of rows of this batch that belong to one query
		j := i + 1
		for j < b.N && b.Query.Equal(j, id) {
			j++
		}
		if g.N() == 0 {
			if err := gr.start(b, i, si); err != nil {
				return false, err
			}
		}
		if err := gr.take.Append(g, b, i, j, si); err != nil {
			return false, err
		}
		gr.i = j
	}
}

// start checks that the query opening at row i of b is new: its id has
// had no group before (the ascent, or the seen set), and with --missing
// zero it ascends.
func (gr *grouper) start(b *reader.Batch, i, si int) error {
	id := b.Query.At(i)
	if gr.asc.on && !gr.asc.next(id) {
		if err := gr.indexBefore(b, i, si); err != nil {
			return err
		}
	}
	if !gr.asc.on && !gr.seen.insert(id) {
		if err := gr.reappears(b, i, si); err != nil {
			return err
		}
	}
	if gr.sorted {
		if len(gr.prev) > 0 && !IDLess(gr.prev, id) {
			return fmt.Errorf("%s: query id %q comes after %q; with --missing zero every log must be sorted by query id (numerically when ids are integers, else byte-wise), or give --unsorted to join the logs in any order: %w",
				b.Where(i), id, gr.prev, ErrLockstep)
		}
		gr.prev = append(gr.prev[:0], id...)
	}
	return nil
}

// reappears confirms that the query id at row i of b, whose hash the seen
// set holds, had a group before, and returns the error naming both
// positions; nil when it only shares a hash with another id.
func (gr *grouper) reappears(b *reader.Batch, i, si int) error {
	id := b.Query.At(i)
	const remedy = "another query's rows came between (sort the input by query id, or use --unsorted)"
	gr.note(fmt.Sprintf("query id %q came back at %s: reading the input again to find where its rows began", id, b.Where(i)))
	at, known, err := gr.firstRow(id, si, b.Pos[i])
	gr.note("")
	switch {
	case err != nil:
		return fmt.Errorf("%s: query id %q may reappear, and reading the input again to check failed: %w", b.Where(i), id, err)
	case !known:
		// Standard input cannot be read twice; a 64-bit hash collision
		// (about n²/2⁶⁵ for n queries) is the only other cause.
		return fmt.Errorf("%s: query id %q reappears; its rows began earlier and %s: %w", b.Where(i), id, remedy, ErrReappear)
	case at == "":
		return nil // a collision
	}
	hint := ""
	if gr.hint && len(gr.inputs) > 1 {
		gr.note("reading the inputs again to see whether they are several systems' logs")
		systems, err := gr.looksLikeSystems()
		gr.note("")
		if err != nil {
			return fmt.Errorf("%s: query id %q reappears, and reading the inputs again failed: %w", b.Where(i), id, err)
		}
		if systems {
			hint = "; the inputs look like the logs of several systems (each holds its queries' rows together, and all hold the same queries): to compare them, give each as --system NAME=PATH instead"
		}
	}
	return fmt.Errorf("%s: query id %q reappears; its rows began at %s and %s%s: %w", b.Where(i), id, at, remedy, hint, ErrReappear)
}

// maxHintQueries bounds the query ids looksLikeSystems holds.
const maxHintQueries = 1 << 20

// looksLikeSystems reports whether the log's inputs, read again, look like
// several systems' logs given as one: each holds each of its queries' rows
// together, and all hold the same query ids. It gives false for inputs
// that cannot be read again and past maxHintQueries queries in one input.
func (gr *grouper) looksLikeSystems() (bool, error) {
	var first map[string]bool
	for k, src := range gr.inputs {
		if !src.Reread {
			return false, nil
		}
		r, err := src.Open()
		if err != nil {
			return false, err
		}
		ids := map[string]bool{}
		var last []byte
		ok := true
		_, err = scanRows(r, false, 0, func(b *reader.Batch, j int) bool {
			id := b.Query.At(j)
			if last != nil && bytes.Equal(id, last) {
				return false
			}
			if ids[string(id)] || len(ids) == maxHintQueries || first != nil && !first[string(id)] {
				ok = false
				return true
			}
			ids[string(id)] = true
			last = append(last[:0], id...)
			return false
		})
		if cerr := r.Close(); err == nil && cerr != nil {
			err = cerr
		}
		if err != nil || !ok {
			return false, err
		}
		if k == 0 {
			first = ids
		} else if len(ids) != len(first) {
			return false, nil
		}
	}
	return true, nil
}
