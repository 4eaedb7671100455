package metrics

import "math/bits"

// sortEnts orders a ranking by key, then input index. Keys and indices make
// every entry distinct, so an unstable sort gives the stable order. It is
// typed (comparisons inline) because the per-query sort is most of the
// evaluation's CPU, and it returns at once on lists that arrive ranked,
// as many logs do. Long lists (TREC runs rank 1000 documents) are radix
// sorted, with s as scratch (grown as needed; nil allocates).
func sortEnts(a []ent, s *sortScratch) {
	sorted := true
	for i := 1; i < len(a); i++ {
		if less(a[i], a[i-1]) {
			sorted = false
			break
		}
	}
	switch {
	case sorted:
	case len(a) >= radixMin:
		if s == nil {
			s = new(sortScratch)
		}
		radixEnts(a, s)
	default:
		quickEnts(a, 2*bits.Len(uint(len(a))))
	}
}

// sortScratch is the radix sort's memory, kept from list to list.
type sortScratch struct {
	ents   []ent    // the other buffer of the entries' passes
	packed []uint64 // two buffers of packed high halves (radixHigh) or buckets
	count  []uint32 // bucketEnts' histogram
}

// radixMin is the list length from which the radix sort beats the
// introsort (its histograms cost about as much as sorting 100 entries).
var radixMin = 256

// radixEnts sorts a long list: finite scores by their buckets
// (bucketEnts), other keys (ranks, NaN or infinite scores) by a
// least-significant-byte-first radix sort on key. Entries
// arrive in index order (order fills them so) and every pass is stable, so
// equal keys keep it. A byte that is the same in every key, as the low
// bytes of a float32 score widened to float64 are, is neither counted nor
// passed over: one pass of ORs finds them first. When the high halves of
// the keys differ in two bytes or more (so that few keys share one), or
// only they differ, the high halves alone are sorted (radixHigh), and
// when the low halves differ too, as doubles read from decimals ("3.26")
// do, each run of keys that share a high half is then ordered on the whole
// key (highHalfRuns): at most 4 passes and a scan instead of 8 passes
// (BenchmarkSortKinds).
func radixEnts(a []ent, s *sortScratch) {
	n := len(a)
	k0 := a[0].key
	var diff uint64
	minK, maxK := k0, k0
	for _, e := range a {
		diff |= e.key ^ k0
		minK, maxK = min(minK, e.key), max(maxK, e.key)
	}
	if bucketEnts(a, s, minK, maxK) {
		return
	}
	var shifts [8]uint
	nb, high := 0, 0
	for b := range uint(8) {
		if byte(diff>>(8*b)) != 0 {
			shifts[nb] = 8 * b
			nb++
			if b >= 4 {
				high++
			}
		}
	}
	if high >= 2 || high == nb && high > 0 {
		radixHigh(a, s, diff)
		return
	}
	if cap(s.ents) < n {
		s.ents = make([]ent, n, n+n/4)
	}
	tmp := s.ents[:n]
	var count [8][256]uint32
	for _, e := range a {
		k := e.key
		for j, sh := range shifts[:nb] {
			count[j][byte(k>>sh)]++
		}
	}
	src, dst := a, tmp
	for j, shift := range shifts[:nb] {
		c := &count[j]
		var sum uint32
		for v := range c {
			c[v], sum = sum, sum+c[v]
		}
		for _, e := range src {
			v := byte(e.key >> shift)
			dst[c[v]] = e
			c[v]++
		}
		src, dst = dst, src
	}
	if &src[0] != &a[0] {
		copy(a, src)
	}
}

// radixHigh sorts a on the high halves of the keys (diff marks the bits
// that differ among them), each packed with its entry's place in a as
// one 64-bit word: the passes move 8 bytes an entry, not 16, and the
// histograms of the four bytes are counted in the packing's pass. The
// entries are then gathered in that order; their places keep equal high
// halves in index order, and when two neighbours share a high half but
// not the whole key, highHalfRuns orders each run sharing a high half on
// the whole key.
func radixHigh(a []ent, s *sortScratch, diff uint64) {
	n := len(a)
	if cap(s.packed) < 2*n {
		s.packed = make([]uint64, 2*n, 2*n+n/2)
	}
	if cap(s.ents) < n {
		s.ents = make([]ent, n, n+n/4)
	}
	src, dst := s.packed[:n], s.packed[n:2*n]
	var count [4][256]uint32
	for j, e := range a {
		h := e.key >> 32
		src[j] = h<<32 | uint64(j)
		count[0][byte(h)]++
		count[1][byte(h>>8)]++
		count[2][byte(h>>16)]++
		count[3][byte(h>>24)]++
	}
	for b := range 4 {
		shift := uint(32 + 8*b)
		if byte(diff>>shift) == 0 {
			continue
		}
		c := &count[b]
		var sum uint32
		for v := range c {
			c[v], sum = sum, sum+c[v]
		}
		for _, p := range src {
			v := byte(p >> shift)
			dst[c[v]] = p
			c[v]++
		}
		src, dst = dst, src
	}
	out := s.ents[:n]
	// a run that shares a high half and not the whole key needs ordering;
	// equal keys are already in index order (scores read from short
	// decimals differ in their high halves, or are equal)
	mixed := false
	out[0] = a[uint32(src[0])]
	for k := 1; k < n; k++ {
		out[k] = a[uint32(src[k])]
		if x := out[k].key ^ out[k-1].key; x != 0 && x>>32 == 0 {
			mixed = true
		}
	}
	copy(a, out)
	if mixed {
		highHalfRuns(a)
	}
}

// highHalfRuns orders each run of entries whose keys share their high 32
// bits, which a sort on the high halves left in index order, on the whole
// key: by insertion when short, by the introsort when long (keys made to
// share high halves would otherwise cost a quadratic time).
func highHalfRuns(a []ent) {
	for s := 0; s < len(a); {
		h := a[s].key >> 32
		e := s + 1
		for e < len(a) && a[e].key>>32 == h {
			e++
		}
		sortRun(a[s:e])
		s = e
	}
}

// sortRun sorts a run left in index order by a coarser sort: by insertion
// when short, by the introsort when long (keys made to share a high half
// or a bucket would otherwise cost a quadratic time).
func sortRun(r []ent) {
	if len(r) > 16 {
		quickEnts(r, 2*bits.Len(uint(len(r))))
		return
	}
	for i := 1; i < len(r); i++ {
		for j := i; j > 0 && less(r[j], r[j-1]); j-- {
			r[j], r[j-1] = r[j-1], r[j]
		}
	}
}

func less(x, y ent) bool { return x.key < y.key || x.key == y.key && x.i < y.i }

// quickEnts is an introsort: quicksort with a median-of-three pivot,
// insertion sort for short runs, heapsort when the recursion gets deep.
func quickEnts(a []ent, depth int) {
	for len(a) > 12 {
		if depth == 0 {
			heapEnts(a)
			return
		}
		depth--
		p := partitionEnts(a)
		// recurse into the smaller side, loop on the larger
		if p < len(a)-p {
			quickEnts(a[:p], depth)
			a = a[p+1:]
		} else {
			quickEnts(a[p+1:], depth)
			a = a[:p]
		}
	}
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && less(a[j], a[j-1]); j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// partitionEnts places a median-of-three pivot at its final index and
// returns it.
func partitionEnts(a []ent) int {
	n := len(a)
	m := n / 2
	if less(a[m], a[0]) {
		a[m], a[0] = a[0], a[m]
	}
	if less(a[n-1], a[0]) {
		a[n-1], a[0] = a[0], a[n-1]
	}
	if less(a[n-1], a[m]) {
		a[n-1], a[m] = a[m], a[n-1]
	}
	// the median is at m: move it to the end as the pivot
	a[m], a[n-1] = a[n-1], a[m]
	pivot := a[n-1]
	pk, pi := pivot.key, uint64(uint32(pivot.i))
	// Branchless Lomuto: on random scores the branch of a classic partition
	// is mispredicted half the time, which cost more than the comparisons.
	// Every step swaps, and i advances by the borrow of the 128-bit
	// subtraction (key, index) - (pivot key, pivot index), which is 1
	// exactly when the entry sorts before the pivot.
	i := 0
	for j := 0; j < n-1; j++ {
		x := a[j]
		_, b := bits.Sub64(uint64(uint32(x.i)), pi, 0)
		_, b = bits.Sub64(x.key, pk, b)
		a[j] = a[i]
		a[i] = x
		i += int(b)
	}
	a[i], a[n-1] = a[n-1], a[i]
	return i
}

func heapEnts(a []ent) {
	n := len(a)
	for i := n/2 - 1; i >= 0; i-- {
		siftEnts(a, i, n)
	}
	for end := n - 1; end > 0; end-- {
		a[0], a[end] = a[end], a[0]
		siftEnts(a, 0, end)
	}
}

func siftEnts(a []ent, root, n int) {
	for {
		c := 2*root + 1
		if c >= n {
			return
		}
		if c+1 < n && less(a[c], a[c+1]) {
			c++
		}
		if !less(a[root], a[c]) {
			return
		}
		a[root], a[c] = a[c], a[root]
		root = c
	}
}
