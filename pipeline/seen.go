package pipeline

import (
	"bytes"
	"hash/maphash"

	"github.com/rankeval/rankeval/reader"
)

// seenSet remembers every query id that has had its group, to catch an id
// that comes back. It is the one structure that grows with the number of
// queries, so it keeps a 64-bit hash of each id and nothing else: 8 bytes
// a slot at a load of at most 3/4, and during a doubling the old table
// too (at most 24 bytes a query). The slots live outside the Go heap
// (slots_mmap.go): a heap table this size would also raise the collector's
// heap goal by its own size, which doubled its cost in resident memory.
//
// A hit is only a candidate. The grouper confirms it by reading its inputs
// again up to the current row, which also finds where the id's first group
// began (grouper.firstRow), or shows the hashes of two ids collide (about
// n²/2⁶⁵ for n queries), so that a collision costs one extra read and is
// never reported.
type seenSet struct {
	seed  maphash.Seed
	slots []uint64 // 0 = empty
	n     int
}

// seenHash is a variable so that a test can make every id collide.
var seenHash = maphash.Bytes

// insert records id's hash and reports whether it was new. false means the
// hash was there already: id reappears, or collides with another id.
func (s *seenSet) insert(id []byte) bool {
	if s.slots == nil {
		s.seed = maphash.MakeSeed()
		s.slots = allocSlots(1 << 12)
	}
	if (s.n+1)*4 > len(s.slots)*3 {
		s.grow()
	}
	h := seenHash(s.seed, id)
	if h == 0 {
		h = 1
	}
	mask := uint64(len(s.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case 0:
			s.slots[i] = h
			s.n++
			return true
		case h:
			return false
		}
	}
}

func (s *seenSet) grow() {
	old := s.slots
	s.slots = allocSlots(2 * len(old))
	mask := uint64(len(s.slots) - 1)
	for _, h := range old {
		if h == 0 {
			continue
		}
		i := h & mask
		for s.slots[i] != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = h
	}
	freeSlots(old)
}

// release returns the table's memory; the set is empty afterwards.
func (s *seenSet) release() {
	if s.slots != nil {
		freeSlots(s.slots)
	}
	*s = seenSet{}
}

// firstRow reads the log's inputs again, from the first up to row pos of
// input si, and returns where the first row with query id sits, "" when
// there is none. known is false when an input cannot be read twice
// (standard input), and nothing can be said.
func (gr *grouper) firstRow(id []byte, si int, pos int64) (at string, known bool, err error) {
	for k, src := range gr.inputs {
		if gr.base+k > si {
			break
		}
		if !src.Reread {
			return "", false, nil
		}
		r, err := src.Open()
		if err != nil {
			return "", false, err
		}
		at, err := scanFor(r, id, gr.base+k == si, pos)
		if cerr := r.Close(); err == nil && cerr != nil {
			err = cerr
		}
		if err != nil || at != "" {
			return at, true, err
		}
	}
	return "", true, nil
}

// scanFor returns where r's first row with query id is, stopping at row
// pos when last is set.
func scanFor(r reader.Reader, id []byte, last bool, pos int64) (string, error) {
	for r.Next() {
		b := r.Batch()
		for i := range b.N {
			if last && b.Pos[i] >= pos {
				return "", nil
			}
			if bytes.Equal(b.Query.At(i), id) {
				return b.Where(i), nil
			}
		}
	}
	return "", r.Err()
}
