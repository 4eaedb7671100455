package aggregate

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// The pieces of an Analysis's encoding (encode_analysis.go): the canonical
// form of Small and SmallStat, the replicate sums of the bootstrap and the
// randomization tests, and the click weights' sums.

// enc appends an encoding; a negative count (which no Add or Merge makes)
// is noted rather than written as garbage.
type enc struct {
	b   []byte
	bad string
}

func (e *enc) count(v int64, what string) {
	if v < 0 && e.bad == "" {
		e.bad = what
	}
	e.b = binary.AppendUvarint(e.b, uint64(v))
}

// dec reads an encoding front to back. The first error sticks: it empties
// the input, so every later read fails fast and returns zero.
type dec struct {
	b   []byte
	err error
}

func (d *dec) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf(format+": %w", append(args, ErrEncoding)...)
	}
	d.b = nil
}

// wrap adds context to the error, if any.
func (d *dec) wrap(format string, args ...any) {
	if d.err != nil {
		d.err = fmt.Errorf(format+": %w", append(args, d.err)...)
	}
}

func (d *dec) u8(what string) byte {
	if len(d.b) == 0 {
		d.fail("%s: truncated", what)
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

// uvarint reads a value in [0, max].
func (d *dec) uvarint(what string, max uint64) uint64 {
	v, k := binary.Uvarint(d.b)
	if k <= 0 || v > max {
		d.fail("%s: bad or out of range", what)
		return 0
	}
	d.b = d.b[k:]
	return v
}

// count reads a count: an int64 >= 0.
func (d *dec) count(what string) int64 { return int64(d.uvarint(what, math.MaxInt64)) }

func (d *dec) varint(what string) int64 {
	v, k := binary.Varint(d.b)
	if k <= 0 {
		d.fail("%s: bad", what)
		return 0
	}
	d.b = d.b[k:]
	return v
}

// need fails unless at least n bytes are left: a length read from the input
// must be backed by bytes before it sizes an allocation or a loop.
func (d *dec) need(n uint64, what string) bool {
	if d.err != nil {
		return false
	}
	if n > uint64(len(d.b)) {
		d.fail("%s: needs %d bytes, %d left", what, n, len(d.b))
		return false
	}
	return true
}

// slab hands out the limb windows of decoded Smalls from a few large
// allocations instead of one each.
type slab struct{ free []int64 }

func (s *slab) take(n int) []int64 {
	if len(s.free) < n {
		s.free = make([]int64, max(n, 2048))
	}
	w := s.free[:n:n]
	s.free = s.free[n:]
	return w
}

// foldable: a top limb t above limb x (in [0, 2^32)) adds nothing that x,
// read as a signed top limb, would not say: t·2^32 + x fits in 32 bits.
func foldable(t, x int64) bool { return t == 0 && x < 1<<31 || t == -1 && x >= 1<<31 }

// canon writes s's value into buf in its canonical form and returns the
// form's first limb index and limbs. Every limb but the last lies in
// [0, 2^32), the last is signed and in [-2^31, 2^31) unless it is Sum's top
// limb, the first is nonzero, and the last cannot be folded into the one
// below: the shortest window that holds the value. It depends on the value
// only, not on the window or the carries that adds and merges left.
func (s *Small) canon(buf *[limbs]int64) (base int, l []int64) {
	n := copy(buf[:], s.limb)
	base = int(s.base)
	for i := 0; i+1 < n; i++ {
		c := buf[i] >> 32
		buf[i] -= c << 32
		buf[i+1] += c
	}
	for n > 0 && base+n < limbs && (buf[n-1] < -1<<31 || buf[n-1] >= 1<<31) {
		c := buf[n-1] >> 32
		buf[n-1] -= c << 32
		buf[n] = c
		n++
	}
	for n >= 2 && foldable(buf[n-1], buf[n-2]) {
		buf[n-2] += buf[n-1] << 32
		n--
	}
	lo := 0
	for lo < n && buf[lo] == 0 {
		lo++
	}
	if lo == n {
		return 0, nil
	}
	return base + lo, buf[lo:n]
}

// appendBinary writes s canonically: a head (the number of limbs, twice,
// plus 1 with a special value), the special value, then the first limb's
// index, the low limbs in 4 bytes each and the top limb as a varint.
func (s *Small) appendBinary(b []byte) []byte {
	var buf [limbs]int64
	base, l := s.canon(&buf)
	head := uint64(len(l)) << 1
	if s.hasSpec {
		head |= 1
	}
	b = binary.AppendUvarint(b, head)
	if s.hasSpec {
		b = binary.LittleEndian.AppendUint64(b, specialBits(s.special))
	}
	if len(l) == 0 {
		return b
	}
	b = binary.AppendUvarint(b, uint64(base))
	for _, v := range l[:len(l)-1] {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	return binary.AppendVarint(b, l[len(l)-1])
}

// decode reads what appendBinary wrote, refusing every non-canonical form.
// The window gets Add's headroom above the value, as if the value had been
// added.
func (s *Small) decode(d *dec, sl *slab) {
	*s = Small{}
	head := d.uvarint("small: head", 2*limbs+1)
	if head&1 != 0 {
		if !d.need(8, "small: special") {
			return
		}
		bits := binary.LittleEndian.Uint64(d.b)
		d.b = d.b[8:]
		s.special, s.hasSpec = math.Float64frombits(bits), true
		if !math.IsInf(s.special, 0) && bits != nanBits {
			d.fail("small: special value %#x", bits)
			return
		}
	}
	n := int(head >> 1)
	if n == 0 {
		return
	}
	base := int(d.uvarint("small: base", uint64(limbs-n)))
	if !d.need(uint64(4*(n-1)), "small: limbs") {
		return
	}
	w := sl.take(min(n+headroom, limbs-base))
	for i := range n - 1 {
		w[i] = int64(binary.LittleEndian.Uint32(d.b[4*i:]))
	}
	d.b = d.b[4*(n-1):]
	top := d.varint("small: top limb")
	w[n-1] = top
	switch {
	case d.err != nil:
		return
	case w[0] == 0:
		d.fail("small: zero first limb")
	case base+n < limbs && (top < -1<<31 || top >= 1<<31):
		d.fail("small: top limb %d out of range", top)
	case n >= 2 && foldable(top, w[n-2]):
		d.fail("small: top limb %d not folded", top)
	}
	s.base, s.limb = int32(base), w
}

// minSmallStatBytes: a count and two empty heads.
const minSmallStatBytes = 3

func (s *SmallStat) appendBinary(e *enc) {
	e.count(s.N, "small stat count")
	e.b = s.Sum.appendBinary(e.b)
	e.b = s.SumSq.appendBinary(e.b)
}

func (s *SmallStat) decode(d *dec, sl *slab) {
	s.N = d.count("small stat: count")
	s.Sum.decode(d, sl)
	s.SumSq.decode(d, sl)
}

// appendBinary writes the bootstrap's sums: per replicate and mean the low
// 64 bits in 8 bytes and the high ones as a varint, the weight totals, then
// whether any weight was left out for an undefined value and, if so, those
// weights. Scales follow from the layout and are not written.
func (bs *Boots) appendBinary(e *enc) {
	e.b = slices.Grow(e.b, 2*len(bs.total))
	appendSums128(e, bs.lo, bs.hi)
	for _, t := range bs.total {
		e.count(t, "bootstrap weight total")
	}
	some := false
	for _, m := range bs.miss {
		some = some || m != 0
	}
	if !some { // miss is allocated lazily: present but zero is the same as absent
		e.b = append(e.b, 0)
		return
	}
	e.b = append(e.b, 1)
	for _, m := range bs.miss {
		e.count(m, "bootstrap weight left out")
	}
}

// decode reads into bs, which NewBoots made for the layout.
func (bs *Boots) decode(d *dec) {
	if !decodeSums128(d, bs.lo, bs.hi, "bootstrap") {
		return
	}
	for i := range bs.total {
		bs.total[i] = d.count("bootstrap weight total")
	}
	switch d.u8("bootstrap: flags") {
	case 0:
		bs.miss = nil
		return
	case 1:
	default:
		d.fail("bootstrap: bad flags")
		return
	}
	if !d.need(uint64(bs.K)*uint64(bs.B), "bootstrap weights left out") {
		return
	}
	bs.miss = make([]int64, bs.K*bs.B)
	some := false
	for i := range bs.miss {
		m := d.count("bootstrap weight left out")
		if m > bs.total[i%bs.B] {
			d.fail("bootstrap: %d of weight %d left out", m, bs.total[i%bs.B])
			return
		}
		bs.miss[i] = m
		some = some || m != 0
	}
	if !some && d.err == nil {
		d.fail("bootstrap: no weight left out")
	}
}

// appendSums128 writes 128-bit sums: the low 64 bits in 8 bytes, the high
// ones as a varint.
func appendSums128(e *enc, lo []uint64, hi []int64) {
	e.b = slices.Grow(e.b, 10*len(lo))
	for i, l := range lo {
		e.b = binary.LittleEndian.AppendUint64(e.b, l)
		e.b = binary.AppendVarint(e.b, hi[i])
	}
}

// decodeSums128 reads what appendSums128 wrote into lo and hi, of the
// length expected; false on a damaged input (d's error says where).
func decodeSums128(d *dec, lo []uint64, hi []int64, what string) bool {
	if !d.need(9*uint64(len(lo)), what+" sums") {
		return false
	}
	b := d.b
	for i := range lo {
		if len(b) < 9 {
			d.fail("%s sum %d: truncated", what, i)
			return false
		}
		lo[i] = binary.LittleEndian.Uint64(b)
		v, k := binary.Varint(b[8:])
		if k <= 0 {
			d.fail("%s sum %d: bad", what, i)
			return false
		}
		hi[i] = v
		b = b[8+k:]
	}
	d.b = b
	return true
}

// appendBinary writes the randomization test's sums (per replicate, the
// observed last, and mean).
func (p *Perms) appendBinary(e *enc) { appendSums128(e, p.lo, p.hi) }

// decode reads into p, which NewPerms made for the layout.
func (p *Perms) decode(d *dec) { decodeSums128(d, p.lo, p.hi, "randomization") }

// appendBinary writes the weights' sums (encode_analysis.go: weights).
func (w *WeightSums) appendBinary(e *enc) {
	for s := range w.Sys {
		ws := &w.Sys[s]
		e.b, _ = ws.W.AppendBinary(e.b)
		e.count(ws.Clipped, "clipped clicks")
		for r := range ws.Cross {
			e.b, _ = ws.Cross[r].AppendBinary(e.b)
		}
	}
	for _, c := range w.Pair {
		for r := range c {
			e.b, _ = c[r].AppendBinary(e.b)
		}
	}
}

func (w *WeightSums) decode(d *dec) {
	sum := func(s *Sum, what string) {
		if d.err != nil {
			return
		}
		var err error
		if d.b, err = s.decode(d.b); err != nil {
			d.err, d.b = fmt.Errorf("%s: %w", what, err), nil
		}
	}
	for s := range w.Sys {
		ws := &w.Sys[s]
		if d.err == nil {
			var err error
			if d.b, err = ws.W.decode(d.b); err != nil {
				d.err, d.b = fmt.Errorf("click weights: %w", err), nil
			}
		}
		ws.Clipped = d.count("clipped clicks")
		for r := range ws.Cross {
			sum(&ws.Cross[r], "click weights")
		}
	}
	for _, c := range w.Pair {
		for r := range c {
			sum(&c[r], "click weights of a comparison")
		}
	}
}

// appendBinary writes a slice's weights (encode_analysis.go: slice-weights).
func (w *SliceWeights) appendBinary(e *enc) {
	for s := range w.W {
		w.W[s].appendBinary(e)
		for r := range w.Cross[s] {
			e.b = w.Cross[s][r].appendBinary(e.b)
		}
	}
	for _, c := range w.Pair {
		for r := range c {
			e.b = c[r].appendBinary(e.b)
		}
	}
}

func (w *SliceWeights) decode(d *dec, sl *slab) {
	for s := range w.W {
		w.W[s].decode(d, sl)
		for r := range w.Cross[s] {
			w.Cross[s][r].decode(d, sl)
		}
	}
	for _, c := range w.Pair {
		for r := range c {
			c[r].decode(d, sl)
		}
	}
}
