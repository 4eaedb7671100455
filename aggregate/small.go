package aggregate

import "math"

// headroom is how many limbs a Small keeps above the highest limb a value
// has reached: room for the carries of 2^63 additions, as in Sum.
const headroom = 2

// Small is an exact sum like Sum that stores only the window of limbs its
// values have reached. Metric values of one kind span a few binary orders
// of magnitude, so a Small holds some 6 limbs instead of Sum's 70: the
// difference between tens of megabytes and gigabytes when every slice of a
// run keeps its own sums in every worker. The zero value is an empty sum.
type Small struct {
	base    int32   // limb index (as in Sum) of limb[0]
	pending int32   // additions since the last carry propagation
	limb    []int64 // the window; empty until the first nonzero value
	special float64 // as Sum.special
	hasSpec bool
}

// Add adds v exactly.
func (s *Small) Add(v float64) {
	if v == 0 {
		return
	}
	if math.IsInf(v, 0) || math.IsNaN(v) {
		s.special += v
		s.hasSpec = true
		return
	}
	idx, c0, c1, c2 := split(v)
	i := idx - int(s.base)
	if i < 0 || int(s.base)+len(s.limb) < min(idx+3+headroom, limbs) {
		s.cover(idx, idx+3+headroom)
		i = idx - int(s.base)
	}
	l := s.limb[i : i+3]
	l[0] += c0
	l[1] += c1
	l[2] += c2
	s.pending++
	if s.pending >= normalizeEvery {
		s.normalize()
	}
}

// cover widens the window to hold limbs [lo, hi), clipped to Sum's.
func (s *Small) cover(lo, hi int) {
	hi = min(hi, limbs)
	if len(s.limb) > 0 {
		lo = min(lo, int(s.base))
		hi = max(hi, int(s.base)+len(s.limb))
		if lo == int(s.base) && hi == lo+len(s.limb) {
			return
		}
	}
	nl := make([]int64, hi-lo)
	if len(s.limb) > 0 {
		copy(nl[int(s.base)-lo:], s.limb)
	}
	s.limb, s.base = nl, int32(lo)
}

func (s *Small) normalize() {
	for i := 0; i+1 < len(s.limb); i++ {
		c := s.limb[i] >> 32
		s.limb[i] -= c << 32
		s.limb[i+1] += c
	}
	s.pending = 0
}

// Merge adds o into s.
func (s *Small) Merge(o *Small) {
	if len(o.limb) > 0 {
		s.cover(int(o.base), int(o.base)+len(o.limb))
		s.normalize()
		off := int(o.base - s.base)
		for i, v := range o.limb {
			s.limb[off+i] += v
		}
		// o's limbs may be unnormalized: count them as that many pending
		// additions' worth of growth, then settle.
		s.normalize()
	}
	if o.hasSpec {
		s.special += o.special
		s.hasSpec = true
	}
}

// Full returns the same sum as a Sum, to read it.
func (s *Small) Full() Sum {
	var f Sum
	copy(f.limb[s.base:], s.limb)
	f.special, f.hasSpec = s.special, s.hasSpec
	f.normalize()
	return f
}

// SmallStat is Stat with Small sums: one metric over the queries of one
// slice.
type SmallStat struct {
	N     int64
	Sum   Small
	SumSq Small
}

// Add records one query's value; NaN (undefined) is not counted.
func (s *SmallStat) Add(v float64) {
	if math.IsNaN(v) {
		return
	}
	s.N++
	s.Sum.Add(v)
	hi, lo := square(v)
	s.SumSq.Add(hi)
	s.SumSq.Add(lo)
}

// Merge adds o into s.
func (s *SmallStat) Merge(o *SmallStat) {
	s.N += o.N
	s.Sum.Merge(&o.Sum)
	s.SumSq.Merge(&o.SumSq)
}

// Stat returns the same figures as a Stat, whose Summary reads them.
func (s *SmallStat) Stat() Stat { return Stat{N: s.N, Sum: s.Sum.Full(), SumSq: s.SumSq.Full()} }
