package rankbeam

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/pipeline"
	"github.com/rankeval/rankeval/state"
)

// Partial is the accumulator of the merge: a partial aggregate, the
// CLI's. It crosses process boundaries in aggregate's canonical binary
// form, so merging on any worker, in any order, loses nothing.
//
// Keys holds the values of each slice of Agg, numbered in the order this
// partial met them; merging maps another partial's slices by their values.
type Partial struct {
	Agg  *aggregate.Analysis
	Keys [][]string
	// Labels and NonBinary or the queries' (Result)
	Labels, NonBinary bool
	// Digests holds each input file's digest (MergeFn.Digests); nil
	// otherwise
	Digests *aggregate.InputDigests
	// index finds a slice by its values (state.SliceKey); rebuilt from Keys when a
	// decoded partial has none
	index map[string]int
}

// encodePartial writes the flags (a byte: the labels', whether input
// digests follow, and whether counts of rows without a score or label
// do), the input digests, those counts (the number of systems, then each
// system's rows without a score and without a label; aggregate's binary
// form, a state's, holds none), the slice keys (JSON) behind their
// length, then the aggregate's binary form.
func encodePartial(p Partial) ([]byte, error) {
	keys, err := json.Marshal(p.Keys)
	if err != nil {
		return nil, err
	}
	var flags byte
	if p.Labels {
		flags |= 1
	}
	if p.NonBinary {
		flags |= 2
	}
	b := []byte{flags}
	if p.Digests != nil {
		b[0] |= 4
		b = p.Digests.AppendBinary(b)
	}
	if slices.ContainsFunc(p.Agg.Sys, func(s *aggregate.Set) bool { return s.NoScore != 0 || s.NoLabel != 0 }) {
		b[0] |= 8
		b = binary.AppendUvarint(b, uint64(len(p.Agg.Sys)))
		for _, s := range p.Agg.Sys {
			b = binary.AppendUvarint(b, uint64(s.NoScore))
			b = binary.AppendUvarint(b, uint64(s.NoLabel))
		}
	}
	b = binary.AppendUvarint(b, uint64(len(keys)))
	return p.Agg.AppendBinary(append(b, keys...))
}

func decodePartial(b []byte) (Partial, error) {
	if len(b) == 0 || b[0] > 15 {
		return Partial{}, fmt.Errorf("partial aggregate: %w", aggregate.ErrEncoding)
	}
	var p Partial
	p.Labels, p.NonBinary = b[0]&1 != 0, b[0]&2 != 0
	digests, missing := b[0]&4 != 0, b[0]&8 != 0
	b = b[1:]
	if digests {
		var err error
		if p.Digests, b, err = aggregate.DecodeInputDigests(b); err != nil {
			return Partial{}, fmt.Errorf("partial aggregate: %w", err)
		}
	}
	var counts []uint64 // rows without a score, without a label, per system
	if missing {
		systems, k := binary.Uvarint(b)
		if k <= 0 || systems > uint64(len(b)) {
			return Partial{}, fmt.Errorf("partial aggregate: %w", aggregate.ErrEncoding)
		}
		b = b[k:]
		for range 2 * systems {
			v, k := binary.Uvarint(b)
			if k <= 0 || v > 1<<62 {
				return Partial{}, fmt.Errorf("partial aggregate: %w", aggregate.ErrEncoding)
			}
			counts, b = append(counts, v), b[k:]
		}
	}
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return Partial{}, fmt.Errorf("partial aggregate: %w", aggregate.ErrEncoding)
	}
	if err := json.Unmarshal(b[k:k+int(n)], &p.Keys); err != nil {
		return Partial{}, fmt.Errorf("partial aggregate: %v: %w", err, aggregate.ErrEncoding)
	}
	p.Agg = new(aggregate.Analysis)
	if err := p.Agg.UnmarshalBinary(b[k+int(n):]); err != nil {
		return Partial{}, err
	}
	if counts != nil {
		if len(counts) != 2*len(p.Agg.Sys) {
			return Partial{}, fmt.Errorf("partial aggregate: counts of rows without a score for %d systems, of %d: %w", len(counts)/2, len(p.Agg.Sys), aggregate.ErrEncoding)
		}
		for s, set := range p.Agg.Sys {
			set.NoScore, set.NoLabel = int64(counts[2*s]), int64(counts[2*s+1])
		}
	}
	return p, nil
}

// slice returns the index of the slice of values key, adding it if new.
func (p *Partial) slice(key []string) int {
	if p.index == nil {
		p.index = make(map[string]int, len(p.Keys))
		for i, k := range p.Keys {
			p.index[state.SliceKey(k)] = i
		}
	}
	k := state.SliceKey(key)
	if i, ok := p.index[k]; ok {
		return i
	}
	p.Keys = append(p.Keys, key)
	p.index[k] = len(p.Keys) - 1
	return len(p.Keys) - 1
}

// MergeFn is the Beam CombineFn that merges per-query results into one
// aggregate. Its sums are exact, so the result does not depend on how the
// runner splits, orders or nests AddInput and MergeAccumulators calls.
type MergeFn struct {
	Layout aggregate.Layout // the run's, for empty accumulators
	// Digests keeps each input file's digest of the queries whose first
	// row it holds, for the state (Config.Outputs.State), as rankeval does.
	Digests bool
}

// CreateAccumulator returns an empty aggregate.
func (f *MergeFn) CreateAccumulator() Partial {
	l := f.Layout
	p := Partial{Agg: aggregate.NewAnalysis(&l)}
	if f.Digests {
		p.Digests = aggregate.NewInputDigests(&l)
	}
	return p
}

// AddInput records one query.
func (f *MergeFn) AddInput(a Partial, r Result) Partial {
	if r.Rows == nil {
		return a // the seed (Build)
	}
	idx := -1
	if r.Slice != nil {
		idx = a.slice(r.Slice)
	}
	// Add fails only for a cg or dcg beyond the bootstrap's fixed point
	// (|v| >= 2^32), which no ranking reaches; the sums are kept then,
	// but not that query's replicates
	q := r.query(idx, f.Layout.NeedsHash())
	a.Agg.Add(q)
	// a judged query absent from a TREC run (--complete) is in no file's
	// digest, as in rankeval: a state refuses --complete
	if a.Digests != nil && !r.Unseen {
		file, _ := pipeline.Unpack(r.First)
		a.Digests.Add(file, []byte(r.Query), q)
	}
	for sys, n := range r.Dropped {
		a.Agg.Sys[sys].Dropped += n
	}
	for sys := range r.NoScore {
		a.Agg.Sys[sys].NoScore += r.NoScore[sys]
		a.Agg.Sys[sys].NoLabel += r.NoLabel[sys]
	}
	a.Labels, a.NonBinary = a.Labels || r.Labels, a.NonBinary || r.NonBinary
	return a
}

// MergeAccumulators adds b into a, b's slices mapped to a's by their
// values.
func (f *MergeFn) MergeAccumulators(a, b Partial) Partial {
	mapping := make([]int, len(b.Keys))
	for i, key := range b.Keys {
		mapping[i] = a.slice(key)
	}
	if err := a.Agg.MergeMapped(b.Agg, mapping); err != nil {
		panic(err) // equal layouts by construction: a bug
	}
	if a.Digests != nil && b.Digests != nil {
		a.Digests.Merge(b.Digests)
	}
	a.Labels, a.NonBinary = a.Labels || b.Labels, a.NonBinary || b.NonBinary
	return a
}

// ExtractOutput returns the merged aggregate.
func (f *MergeFn) ExtractOutput(a Partial) Partial { return a }
