package pipeline

import (
	"bytes"
	"hash/maphash"
)

// docSet finds a document id repeated within one query. Each worker owns
// one; its table is reused from query to query, so checking allocates only
// when a larger query than any before arrives.
type docSet struct {
	seed  maphash.Seed
	slots []int32 // row index + 1; 0 = empty
}

func newDocSet() *docSet { return &docSet{seed: maphash.MakeSeed()} }

// firstDuplicate returns the row that repeats an earlier row's doc id and
// that earlier row, or -1, -1.
func (s *docSet) firstDuplicate(docs [][]byte) (dup, first int) {
	size := 16
	for size < 2*len(docs) {
		size <<= 1
	}
	if len(s.slots) < size {
		s.slots = make([]int32, size)
	} else {
		s.slots = s.slots[:size]
		clear(s.slots)
	}
	mask := uint64(size - 1)
	for i, d := range docs {
		for h := maphash.Bytes(s.seed, d) & mask; ; h = (h + 1) & mask {
			j := s.slots[h]
			if j == 0 {
				s.slots[h] = int32(i + 1)
				break
			}
			if bytes.Equal(docs[j-1], d) {
				return i, int(j - 1)
			}
		}
	}
	return -1, -1
}
