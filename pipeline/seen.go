package pipeline

import "hash/maphash"

// seenSet remembers every query id that has had its group, as a 64-bit hash
// with the position of its first row, to catch an id that comes back. It is
// the one structure that grows with the number of queries: 16 bytes a
// query at a load of at most 3/4 (about 21 bytes a query on average),
// which is why it keeps hashes, not ids. Two distinct ids sharing a 64-bit
// hash would be reported as a reappearance; with a random per-run seed the
// chance is about n²/2^65 (3e-6 for ten million queries).
type seenSet struct {
	seed    maphash.Seed
	slots   []seenSlot
	n       int
	started bool
}

type seenSlot struct {
	h   uint64 // 0 = empty
	pos uint64
}

// insert records id at pos. If id was already there it returns the
// recorded position and false.
func (s *seenSet) insert(id []byte, pos uint64) (uint64, bool) {
	if !s.started {
		s.seed = maphash.MakeSeed()
		s.slots = make([]seenSlot, 1024)
		s.started = true
	}
	if (s.n+1)*4 > len(s.slots)*3 {
		s.grow()
	}
	h := maphash.Bytes(s.seed, id)
	if h == 0 {
		h = 1
	}
	mask := uint64(len(s.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch s.slots[i].h {
		case 0:
			s.slots[i] = seenSlot{h, pos}
			s.n++
			return 0, true
		case h:
			return s.slots[i].pos, false
		}
	}
}

func (s *seenSet) grow() {
	old := s.slots
	s.slots = make([]seenSlot, 2*len(old))
	mask := uint64(len(s.slots) - 1)
	for _, e := range old {
		if e.h == 0 {
			continue
		}
		i := e.h & mask
		for s.slots[i].h != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = e
	}
}
