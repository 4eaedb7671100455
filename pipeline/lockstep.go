package pipeline

import (
	"bytes"
	"context"
	"fmt"
)

// lockstep reads one query from every log at a time. Each log's next group
// waits in heads[l] until the query it belongs to is built; building swaps
// the buffers into the query, so no rows are copied twice.
func (p *producer) lockstep(ctx context.Context) error {
	n := len(p.logs)
	heads := make([]Group, n)
	has := make([]bool, n)
	for {
		for l, gr := range p.logs {
			if has[l] {
				continue
			}
			ok, err := gr.fill(&heads[l])
			if err != nil {
				return err
			}
			has[l] = ok
		}
		// the query to build: the smallest id among the heads
		first := -1
		for l := range n {
			if has[l] && (first < 0 || IDLess(heads[l].ID, heads[first].ID)) {
				first = l
			}
		}
		if first < 0 {
			return nil // every log is done
		}
		q, err := p.take(ctx)
		if err != nil {
			return err
		}
		for l := range n {
			q.present[l] = has[l] && bytes.Equal(heads[l].ID, heads[first].ID)
			if !q.present[l] && !p.cfg.Analysis.MissingZero {
				p.pool.put(q)
				return p.lockstepError(heads, has, first, l)
			}
		}
		for l := range n {
			if q.present[l] {
				*q.log(l), heads[l] = heads[l], *q.log(l)
				has[l] = false
			}
		}
		if first != 0 {
			// the baseline lacks it: name the query after a log that has it
			q.ID = append(q.ID[:0], q.log(first).ID...)
			q.First = q.log(first).First
		}
		if err := p.slices.assign(q); err != nil {
			p.pool.put(q)
			return err
		}
		if err := p.emit(ctx, q); err != nil {
			return err
		}
	}
}

func (p *producer) lockstepError(heads []Group, has []bool, first, l int) error {
	a := &heads[first]
	systems := p.cfg.Rules.Systems
	if !has[l] {
		return fmt.Errorf("%s: query %q is in %s's log, but %s's log has ended (give --missing zero to count absent queries as 0): %w",
			p.where(a.First), a.ID, systems[first], systems[l], ErrLockstep)
	}
	b := &heads[l]
	return fmt.Errorf("%s: query %q, but %s has query %q in its place (the logs must hold the same queries in the same order; give --unsorted to join logs in any order, and --missing zero to count absent queries as 0): %w",
		p.where(a.First), a.ID, p.where(b.First), b.ID, ErrLockstep)
}
