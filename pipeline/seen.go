package pipeline

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"math/bits"

	"github.com/rankeval/rankeval/reader"
)

// seenSet remembers every query id that has had its group, to catch an id
// that comes back. It is the one structure that grows with the number of
// queries, so it keeps a 64-bit hash of each id and nothing else, in a
// bucketed cuckoo table (two candidate buckets of 8 slots per hash) that
// runs at loads up to 97%: 8.2 to 16.5 bytes a query, and during a doubling
// the old table too. The slots live outside the Go heap (slots_mmap.go): a
// heap table this size would also raise the collector's heap goal by its
// own size, doubling its cost in resident memory.
//
// A hit is only a candidate. The grouper confirms it by reading its inputs
// again up to the current row, which also finds where the id's first group
// began (grouper.firstRow), or shows the hashes of two ids collide (about
// n²/2⁶⁵ for n queries), so that a collision costs one extra read and is
// never reported.
type seenSet struct {
	seed  maphash.Seed
	slots []uint64 // 0 = empty; bucket b is slots[b*8 : b*8+8]
	mask  uint64   // buckets - 1
	n     int
	kick  uint64 // rotates the slot a cuckoo insertion evicts
}

const (
	bucketSlots = 8
	maxKicks    = 500
)

// seenHash is a variable so that a test can make every id collide.
var seenHash = maphash.Bytes

// insert records id's hash and reports whether it was new. false means the
// hash was there already: id reappears, or collides with another id.
func (s *seenSet) insert(id []byte) bool {
	if s.slots == nil {
		s.seed = maphash.MakeSeed()
		s.alloc(1 << 9)
	}
	h := seenHash(s.seed, id)
	if h == 0 {
		h = 1
	}
	b1, b2 := s.buckets(h)
	if s.has(b1, h) || s.has(b2, h) {
		return false
	}
	if (s.n+1)*100 > len(s.slots)*97 {
		s.grow()
	}
	s.place(h)
	s.n++
	return true
}

func (s *seenSet) alloc(buckets int) {
	s.slots = allocSlots(buckets * bucketSlots)
	s.mask = uint64(buckets - 1)
}

// buckets returns h's two candidate buckets, from independent bits of h.
func (s *seenSet) buckets(h uint64) (uint64, uint64) {
	b1 := h & s.mask
	b2 := bits.RotateLeft64(h, 32) & s.mask
	if b2 == b1 {
		b2 = (b1 + 1) & s.mask
	}
	return b1, b2
}

func (s *seenSet) bucket(b uint64) []uint64 {
	return s.slots[b*bucketSlots : b*bucketSlots+bucketSlots]
}

func (s *seenSet) has(b, h uint64) bool {
	for _, v := range s.bucket(b) {
		if v == h {
			return true
		}
	}
	return false
}

// put stores h in bucket b if it has a free slot.
func (s *seenSet) put(b, h uint64) bool {
	bk := s.bucket(b)
	for i, v := range bk {
		if v == 0 {
			bk[i] = h
			return true
		}
	}
	return false
}

// place stores h, evicting entries to their other bucket as cuckoo hashing
// does, and grows the table when a chain of evictions gets too long.
func (s *seenSet) place(h uint64) {
	b1, b2 := s.buckets(h)
	if s.put(b1, h) || s.put(b2, h) {
		return
	}
	b := b1
	for range maxKicks {
		s.kick++
		bk := s.bucket(b)
		i := s.kick % bucketSlots
		h, bk[i] = bk[i], h
		x1, x2 := s.buckets(h)
		if b == x1 {
			b = x2
		} else {
			b = x1
		}
		if s.put(b, h) {
			return
		}
	}
	// the evicted h is still out: grow (a rehash may grow again) and place it
	s.grow()
	s.place(h)
}

func (s *seenSet) grow() {
	old := s.slots
	s.alloc(2 * int(s.mask+1))
	for _, h := range old {
		if h != 0 {
			s.place(h)
		}
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

// ascent spares the seen set while a log's query ids ascend, as they do in
// logs sorted by query id: ids that keep ascending in a total order are all
// different, so none can reappear and none needs remembering. Two orders
// are followed, byte order and shortlex (length, then bytes: the numeric
// order of integer ids without leading zeros); the ascent lasts while
// either holds. When it ends, grouper.indexBefore reads the inputs again
// once to put the ids so far into the seen set, which then takes every
// further id. An input that cannot be read again (standard input) has the
// seen set from the start.
type ascent struct {
	on           bool
	started      bool
	bytes, short bool // the id order so far ascends in byte order; in shortlex
	prev         []byte
}

// next reports whether id ascends from the previous group's id in an order
// that has held since the first; false ends the ascent.
func (a *ascent) next(id []byte) bool {
	if !a.started {
		a.started, a.bytes, a.short = true, true, true
	} else {
		c := bytes.Compare(a.prev, id)
		a.bytes = a.bytes && c < 0
		a.short = a.short && (len(a.prev) < len(id) || len(a.prev) == len(id) && c < 0)
	}
	a.prev = append(a.prev[:0], id...)
	a.on = a.bytes || a.short
	if !a.on {
		a.prev = nil
	}
	return a.on
}

// indexBefore ends the ascent at row i of b (input si): it reads the
// inputs again up to that row and puts the id of every group before it into
// the seen set. They all differ, so each group's first row is enough.
func (gr *grouper) indexBefore(b *reader.Batch, i, si int) error {
	gr.note(fmt.Sprintf("query ids stopped ascending at %s: reading the input again to index the ids before it", b.Where(i)))
	defer gr.note("")
	var prev []byte
	_, err := gr.reread(si, b.Pos[i], func(rb *reader.Batch, j int) bool {
		if id := rb.Query.At(j); prev == nil || !bytes.Equal(id, prev) {
			gr.seen.insert(id)
			prev = append(prev[:0], id...)
		}
		return false
	})
	if err != nil {
		return fmt.Errorf("%s: reading the input again to index the query ids before this row: %w", b.Where(i), err)
	}
	return nil
}

// firstRow reads the log's inputs again, from the first up to row pos of
// input si, and returns where the first row with query id sits, "" when
// there is none. known is false when an input cannot be read twice
// (standard input), and nothing can be said.
func (gr *grouper) firstRow(id []byte, si int, pos int64) (at string, known bool, err error) {
	known, err = gr.reread(si, pos, func(b *reader.Batch, j int) bool {
		if bytes.Equal(b.Query.At(j), id) {
			at = b.Where(j)
			return true
		}
		return false
	})
	return at, known, err
}

// reread reads the log's inputs again, from the first up to row pos of
// input si, and calls visit with each row until it returns true. ok is
// false, and nothing is read, when an input cannot be read twice; the
// ascent never ends on such inputs, so only firstRow meets one.
func (gr *grouper) reread(si int, pos int64, visit func(b *reader.Batch, j int) bool) (ok bool, err error) {
	for k, src := range gr.inputs {
		if gr.base+k > si {
			break
		}
		if !src.Reread {
			return false, nil
		}
		r, err := src.Open()
		if err != nil {
			return true, err
		}
		stop, err := scanRows(r, gr.base+k == si, pos, visit)
		if cerr := r.Close(); err == nil && cerr != nil {
			err = cerr
		}
		if err != nil || stop {
			return true, err
		}
	}
	return true, nil
}

// scanRows calls visit with r's rows until it returns true (stop), stopping
// at row pos when last is set.
func scanRows(r reader.Reader, last bool, pos int64, visit func(b *reader.Batch, j int) bool) (stop bool, err error) {
	for r.Next() {
		b := r.Batch()
		for j := range b.N {
			if last && b.Pos[j] >= pos {
				return false, nil
			}
			if visit(b, j) {
				return true, nil
			}
		}
	}
	return false, r.Err()
}
