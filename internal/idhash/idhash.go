// Package idhash hashes the ids (doc ids, docnos) that the hash tables of
// a query's rows and judgments hold: the duplicate checks of runs and
// qrels and the join of the two. It owns the one rule those tables rely
// on, that an id's hash depends on its bytes only.
package idhash

import (
	"encoding/binary"
	"hash/maphash"
	"math/rand/v2"
)

// Hasher hashes ids under random keys of its own: maphash, but an id of
// at most 8 bytes, as one word, by a keyed splitmix64 finish. Where such
// an id has room past its end to load 8 bytes (an id packed in a buffer,
// but the last), Short does it inline where it is called: maphash's call
// was a third of a query's duplicate check and join on ids that short
// (MS MARCO's, most generated ones; BenchmarkDocSet in package pipeline).
type Hasher struct {
	seed maphash.Seed
	key  uint64
}

// New returns a Hasher with random keys.
func New() Hasher { return Hasher{seed: maphash.MakeSeed(), key: rand.Uint64()} }

// Hash hashes id.
func (h *Hasher) Hash(id []byte) uint64 {
	if n := len(id); n <= 8 {
		var b [8]byte
		copy(b[:], id)
		return h.mix(binary.LittleEndian.Uint64(b[:]), uint(n))
	}
	return maphash.Bytes(h.seed, id)
}

// Short is Hash for an id of at most 8 bytes with room past its end to
// load 8, and false for any other (Hash hashes it). Callers write
//
//	x, ok := h.Short(id)
//	if !ok {
//		x = h.Hash(id)
//	}
//
// so that the common case takes no call.
func (h *Hasher) Short(id []byte) (uint64, bool) {
	n := uint(len(id))
	if n > 8 || cap(id) < 8 {
		return 0, false
	}
	return h.mix(binary.LittleEndian.Uint64(id[:8]), n), true
}

// mix hashes the n bytes at the bottom of w (the rest is ignored).
func (h *Hasher) mix(w uint64, n uint) uint64 {
	x := w<<(64-8*n)>>(64-8*n) ^ h.key ^ uint64(n)<<59
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
