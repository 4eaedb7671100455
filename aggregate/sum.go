package aggregate

import (
	"math"
	"math/big"
)

// limbs covers every float64 (2^-1074 .. 2^1024, 2098 bits) in 32-bit
// chunks with room for 2^63 additions of carry growth.
const limbs = 70

// normalizeEvery bounds the additions between carry propagations: each adds
// less than 2^32 to a limb, so a limb stays far from int64 overflow.
var normalizeEvery int32 = 1 << 28

// Sum is an exact sum of float64 values. Rounding happens once, when the
// result is read, so the order of additions and merges cannot change it.
// The zero value is an empty sum.
type Sum struct {
	limb    [limbs]int64
	pending int32
	// special holds the IEEE sum of non-finite values (Inf, NaN), which the
	// fixed-point limbs cannot hold; it is order-independent too.
	special float64
	hasSpec bool
}

// Add adds v exactly.
func (s *Sum) Add(v float64) {
	if v == 0 {
		return
	}
	if math.IsInf(v, 0) || math.IsNaN(v) {
		s.special += v
		s.hasSpec = true
		return
	}
	idx, c0, c1, c2 := split(v)
	s.limb[idx] += c0
	s.limb[idx+1] += c1
	s.limb[idx+2] += c2
	s.pending++
	if s.pending >= normalizeEvery {
		s.normalize()
	}
}

// split cuts a finite nonzero v into three signed 32-bit chunks at limbs
// idx, idx+1 and idx+2 of the fixed-point value v·2^1074.
func split(v float64) (idx int, c0, c1, c2 int64) {
	b := math.Float64bits(v)
	exp := int((b >> 52) & 0x7ff)
	mant := b & (1<<52 - 1)
	p := 0 // bit position of the mantissa's lowest bit above 2^-1074
	if exp != 0 {
		mant |= 1 << 52
		p = exp - 1
	}
	idx, off := p>>5, uint(p&31)
	lo := mant << off
	var hi uint64
	if off != 0 {
		hi = mant >> (64 - off)
	}
	c0, c1, c2 = int64(lo&0xffffffff), int64(lo>>32), int64(hi)
	if b>>63 != 0 {
		c0, c1, c2 = -c0, -c1, -c2
	}
	return idx, c0, c1, c2
}

// normalize propagates carries so every limb but the top lies in [0, 2^32).
func (s *Sum) normalize() {
	for i := 0; i < limbs-1; i++ {
		c := s.limb[i] >> 32
		s.limb[i] -= c << 32
		s.limb[i+1] += c
	}
	s.pending = 0
}

// Merge adds o into s.
func (s *Sum) Merge(o *Sum) {
	s.normalize()
	on := *o
	on.normalize()
	for i := range s.limb {
		s.limb[i] += on.limb[i]
	}
	s.normalize()
	if o.hasSpec {
		s.special += o.special
		s.hasSpec = true
	}
}

// Big returns the exact sum (nil when a non-finite value was added).
func (s *Sum) Big() *big.Float {
	if s.hasSpec {
		return nil
	}
	c := *s
	c.normalize()
	acc := new(big.Int)
	var limb big.Int
	for i := limbs - 1; i >= 0; i-- {
		acc.Lsh(acc, 32)
		acc.Add(acc, limb.SetInt64(c.limb[i]))
	}
	f := new(big.Float).SetInt(acc)
	return f.SetMantExp(f, -1074)
}

// Float64 returns the sum rounded once to the nearest float64.
func (s *Sum) Float64() float64 {
	if s.hasSpec {
		return s.special
	}
	f, _ := s.Big().Float64()
	return f
}
