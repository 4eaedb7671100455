package metrics

import "math"

// bucketEnts sorts a ranking of scores by spreading them over about 2n
// buckets of equal width between the lowest and the highest score: one
// counting pass where the radix sort makes four (BenchmarkSortKinds).
// The bucket of a score is a monotone function of it (a rounded
// subtraction, a multiplication by a positive constant, a truncation, each
// monotone), so the buckets are in key order and equal keys share one, in
// index order; only entries sharing a bucket with different keys, which
// scores of equal spacing (a TREC run's "3.26") never do and spread
// scores seldom do, are then ordered, by insertion. It returns false,
// leaving a as it was, when the keys are not all finite scores (NaN,
// infinities, a range that overflows), when they crowd a few buckets, or
// when the list is longer than 2^20 rows.
func bucketEnts(a []ent, s *sortScratch, minK, maxK uint64) bool {
	n := len(a)
	if n > 1<<20 {
		// a histogram past every cache (8 bytes a row) costs more than
		// the radix sort's passes, which need no memory beyond theirs
		return false
	}
	hi, lo := keyScore(minK), keyScore(maxK) // keys ascend as scores descend
	width := hi - lo
	nb := 512
	for nb < 2*n {
		nb *= 2
	}
	scale := float64(nb-1) / width
	if !(width > 0 && scale > 0 && scale <= math.MaxFloat64 && width <= math.MaxFloat64) {
		return false // NaN or infinite bounds (a NaN fails every comparison)
	}
	if cap(s.packed) < 2*n {
		s.packed = make([]uint64, 2*n, 2*n+n/2)
	}
	if cap(s.ents) < n {
		s.ents = make([]ent, n, n+n/4)
	}
	if cap(s.count) < nb {
		s.count = make([]uint32, nb)
	}
	count := s.count[:nb]
	clear(count)
	src, dst := s.packed[:n], s.packed[n:2*n]
	top := float64(nb - 1)
	for j, e := range a {
		// hi-x lies in [0, width]: its product with scale in [0, nb-1]
		// up to rounding, which min keeps inside
		b := uint64(min((hi-keyScore(e.key))*scale, top))
		src[j] = b<<32 | uint64(j)
		count[b]++
	}
	var sum, most uint32
	for v, c := range count {
		count[v], sum = sum, sum+c
		most = max(most, c)
	}
	if most > uint32(n/8) {
		// crowded (or mostly tied): the radix sort is cheaper than the
		// insertions would be
		return false
	}
	for _, p := range src {
		b := p >> 32
		dst[count[b]] = p
		count[b]++
	}
	// Gathered in bucket order, an entry is out of order only against
	// entries of its own bucket: insertion into the gathered prefix costs
	// a comparison an entry and a move an inversion. Buckets crowded with
	// different keys (skewed scores: most in a sliver of the range) spend
	// a budget of moves, and the radix sort, whose cost does not depend
	// on the scores' spread, takes a over (left as it was: the insertion
	// works in the scratch).
	out := s.ents[:n]
	budget := n
	for k := range n {
		x := a[uint32(dst[k])]
		j := k
		for ; j > 0 && less(x, out[j-1]); j-- {
			if budget--; budget < 0 {
				return false
			}
			out[j] = out[j-1]
		}
		out[j] = x
	}
	copy(a, out)
	return true
}

// keyScore inverts scoreKey (-0 comes back as +0).
func keyScore(k uint64) float64 {
	b := ^k
	// a positive score's bits had their sign set, a negative's were all
	// flipped
	m := uint64(int64(b) >> 63)
	return math.Float64frombits(b ^ (^m | 1<<63))
}
