// Package idhash hashes the ids (doc ids, docnos) that the hash tables of
// a query's rows and judgments hold: the duplicate checks of runs and
// qrels and the join of the two. It owns the one rule those tables rely
// on, that an id's hash depends on its bytes only.
package idhash

import (
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"math/rand/v2"
)

// Hasher hashes ids under random keys of its own: maphash, but an id of
// at most 16 bytes, as two words, by a keyed 128-bit multiply folded to 64
// bits (wyhash's mix). Where such an id has room past its end to load 16
// bytes (an id packed in a buffer, but the last ones), Short does it
// inline where it is called: maphash's call is a large share of a query's
// duplicate check and join on ids that short (MS MARCO's, TREC's usual
// docnos, most generated ones; BenchmarkDocSet in package pipeline, and
// docs/performance.md, "Measured choices").
type Hasher struct {
	seed   maphash.Seed
	k0, k1 uint64
}

// New returns a Hasher with random keys.
func New() Hasher {
	return Hasher{seed: maphash.MakeSeed(), k0: rand.Uint64(), k1: rand.Uint64()}
}

// Hash hashes id.
func (h *Hasher) Hash(id []byte) uint64 {
	if len(id) <= 16 {
		var b [16]byte
		copy(b[:], id)
		x, _ := h.Short(b[:len(id)]) // the array is the room
		return x
	}
	return maphash.Bytes(h.seed, id)
}

// Short is Hash for an id of at most 16 bytes with room past its end to
// load 16, and false for any other (Hash hashes it). Callers write
//
//	x, ok := h.Short(id)
//	if !ok {
//		x = h.Hash(id)
//	}
//
// so that the common case takes no call. The bytes past the id are
// masked off (masks), and its length is mixed in.
func (h *Hasher) Short(id []byte) (uint64, bool) {
	if len(id) > 16 || cap(id) < 16 {
		return 0, false
	}
	w, m := (*[16]byte)(id[:16]), &masks[len(id)]
	x, y := bits.Mul64(binary.LittleEndian.Uint64(w[:8])&m[0]^h.k0, binary.LittleEndian.Uint64(w[8:])&m[1]^h.k1^uint64(len(id)))
	return x ^ y, true
}

// masks[n] keeps the first n bytes of two words.
var masks = func() (m [17][2]uint64) {
	for n := range m {
		for i := range n {
			m[n][i/8] |= 0xff << (8 * (i % 8))
		}
	}
	return m
}()
