package rankbeam

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
)

// ErrChunk is wrapped when a shuffled chunk cannot be decoded (a bug or a
// corrupted shuffle, never bad input).
var ErrChunk = errors.New("malformed row chunk")

// rows are the rows of one query that one work item read, or, after the
// shuffle, all of them. They cross the shuffle as one encoded chunk per
// (work item, query) rather than one element per row: a query's rows are
// contiguous in most logs, so the shuffle moves about as many elements as
// there are queries.
type rows struct {
	pos   []uint64 // file index << 40 | position in the file: the input order
	score []float64
	label []float64
	rank  []int64
	doc   [][]byte
	// which optional columns the chunk carries
	hasScore, hasRank, hasDoc bool
}

func (r *rows) n() int { return len(r.pos) }

// packPos keeps a row's file and position in one word: 24 bits of file
// index, 40 of position (as the local pipeline packs them).
func packPos(file int, pos int64) uint64 { return uint64(file)<<40 | uint64(pos) }

func unpackPos(v uint64) (file int, pos int64) { return int(v >> 40), int64(v & (1<<40 - 1)) }

const (
	flagScore = 1 << iota
	flagRank
	flagDoc
)

// encode appends the chunk: flags, row count, then each row.
func (r *rows) encode(b []byte) []byte {
	var flags byte
	if r.hasScore {
		flags |= flagScore
	}
	if r.hasRank {
		flags |= flagRank
	}
	if r.hasDoc {
		flags |= flagDoc
	}
	b = append(b, flags)
	b = binary.AppendUvarint(b, uint64(r.n()))
	for i := range r.pos {
		b = binary.AppendUvarint(b, r.pos[i])
		if r.hasScore {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(r.score[i]))
		}
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(r.label[i]))
		if r.hasRank {
			b = binary.AppendVarint(b, r.rank[i])
		}
		if r.hasDoc {
			b = binary.AppendUvarint(b, uint64(len(r.doc[i])))
			b = append(b, r.doc[i]...)
		}
	}
	return b
}

// decodeAppend appends the rows of chunk b to r.
func (r *rows) decodeAppend(b []byte) error {
	if len(b) < 1 {
		return fmt.Errorf("empty chunk: %w", ErrChunk)
	}
	flags := b[0]
	b = b[1:]
	if r.n() == 0 {
		r.hasScore, r.hasRank, r.hasDoc = flags&flagScore != 0, flags&flagRank != 0, flags&flagDoc != 0
	} else if r.hasScore != (flags&flagScore != 0) || r.hasRank != (flags&flagRank != 0) || r.hasDoc != (flags&flagDoc != 0) {
		return fmt.Errorf("chunks of one query carry different columns: %w", ErrChunk)
	}
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return fmt.Errorf("bad row count: %w", ErrChunk)
	}
	b = b[k:]
	for range n {
		p, k := binary.Uvarint(b)
		if k <= 0 {
			return fmt.Errorf("bad position: %w", ErrChunk)
		}
		b = b[k:]
		r.pos = append(r.pos, p)
		if r.hasScore {
			if len(b) < 8 {
				return fmt.Errorf("truncated score: %w", ErrChunk)
			}
			r.score = append(r.score, math.Float64frombits(binary.LittleEndian.Uint64(b)))
			b = b[8:]
		}
		if len(b) < 8 {
			return fmt.Errorf("truncated label: %w", ErrChunk)
		}
		r.label = append(r.label, math.Float64frombits(binary.LittleEndian.Uint64(b)))
		b = b[8:]
		if r.hasRank {
			v, k := binary.Varint(b)
			if k <= 0 {
				return fmt.Errorf("bad rank: %w", ErrChunk)
			}
			r.rank = append(r.rank, v)
			b = b[k:]
		}
		if r.hasDoc {
			l, k := binary.Uvarint(b)
			if k <= 0 || l > uint64(len(b)-k) {
				return fmt.Errorf("bad doc id: %w", ErrChunk)
			}
			r.doc = append(r.doc, b[k:k+int(l)])
			b = b[k+int(l):]
		}
	}
	if len(b) != 0 {
		return fmt.Errorf("%d bytes after the rows: %w", len(b), ErrChunk)
	}
	return nil
}

// sortByPos puts the rows in input order (file, then position): the
// shuffle delivers a query's chunks in any order, and the "input" tie
// policy, Kendall's and Spearman's cut and the duplicate check all mean
// the order of the input.
func (r *rows) sortByPos() {
	if sortedPos(r.pos) {
		return
	}
	idx := make([]int, r.n())
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		switch {
		case r.pos[a] < r.pos[b]:
			return -1
		case r.pos[a] > r.pos[b]:
			return 1
		}
		return 0
	})
	r.pos = permute(r.pos, idx)
	r.label = permute(r.label, idx)
	if r.hasScore {
		r.score = permute(r.score, idx)
	}
	if r.hasRank {
		r.rank = permute(r.rank, idx)
	}
	if r.hasDoc {
		r.doc = permute(r.doc, idx)
	}
}

func sortedPos(p []uint64) bool {
	for i := 1; i < len(p); i++ {
		if p[i] < p[i-1] {
			return false
		}
	}
	return true
}

func permute[T any](v []T, idx []int) []T {
	out := make([]T, len(v))
	for i, j := range idx {
		out[i] = v[j]
	}
	return out
}
