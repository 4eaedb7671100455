package aggregate

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// ErrEncoding is wrapped by every decoding error: the bytes are not an
// aggregate this package wrote.
var ErrEncoding = errors.New("malformed aggregate encoding")

// encodingVersion leads every encoding so a later layout can be told apart
// from this one instead of being misread.
const encodingVersion = 1

// The binary form exists so partial aggregates can cross process
// boundaries (a distributed runner's shuffle) and merge there with no loss:
// the limbs of every Sum are written after carry propagation, which makes the
// form canonical — equal sums encode to equal bytes, whatever order of
// additions and merges produced them.

// AppendBinary appends s's encoding to b.
func (s *Sum) AppendBinary(b []byte) ([]byte, error) {
	c := *s
	c.normalize()
	var flags byte
	if c.hasSpec {
		flags = 1
	}
	b = append(b, flags)
	if c.hasSpec {
		b = binary.LittleEndian.AppendUint64(b, specialBits(c.special))
	}
	// Most limbs are zero (only those spanning the values' exponents are
	// used); a zero run is written as its length, so a typical sum takes a
	// few dozen bytes instead of 560.
	for i := 0; i < limbs; {
		if c.limb[i] == 0 {
			j := i
			for j < limbs && c.limb[j] == 0 {
				j++
			}
			b = append(b, 0)
			b = binary.AppendUvarint(b, uint64(j-i))
			i = j
			continue
		}
		b = append(b, 1)
		b = binary.AppendVarint(b, c.limb[i])
		i++
	}
	return b, nil
}

// MarshalBinary encodes s canonically.
func (s *Sum) MarshalBinary() ([]byte, error) { return s.AppendBinary(nil) }

// UnmarshalBinary decodes what MarshalBinary wrote.
func (s *Sum) UnmarshalBinary(data []byte) error {
	rest, err := s.decode(data)
	if err != nil {
		return err
	}
	if len(rest) != 0 {
		return fmt.Errorf("sum: %d bytes after the end: %w", len(rest), ErrEncoding)
	}
	return nil
}

func (s *Sum) decode(b []byte) ([]byte, error) {
	*s = Sum{}
	if len(b) < 1 || b[0] > 1 {
		return nil, fmt.Errorf("sum: bad flags: %w", ErrEncoding)
	}
	s.hasSpec = b[0] == 1
	b = b[1:]
	if s.hasSpec {
		if len(b) < 8 {
			return nil, fmt.Errorf("sum: truncated: %w", ErrEncoding)
		}
		s.special = math.Float64frombits(binary.LittleEndian.Uint64(b))
		if !math.IsInf(s.special, 0) && !math.IsNaN(s.special) {
			return nil, fmt.Errorf("sum: finite special value: %w", ErrEncoding)
		}
		b = b[8:]
	}
	for i := 0; i < limbs; {
		if len(b) == 0 {
			return nil, fmt.Errorf("sum: truncated at limb %d: %w", i, ErrEncoding)
		}
		tag := b[0]
		b = b[1:]
		switch tag {
		case 0:
			n, k := binary.Uvarint(b)
			if k <= 0 || n == 0 || n > uint64(limbs-i) {
				return nil, fmt.Errorf("sum: bad zero run at limb %d: %w", i, ErrEncoding)
			}
			b = b[k:]
			i += int(n)
		case 1:
			v, k := binary.Varint(b)
			if k <= 0 {
				return nil, fmt.Errorf("sum: bad limb %d: %w", i, ErrEncoding)
			}
			// a normalized limb below the top lies in [0, 2^32): anything
			// else could overflow later additions
			if i < limbs-1 && (v < 0 || v >= 1<<32) {
				return nil, fmt.Errorf("sum: limb %d out of range: %w", i, ErrEncoding)
			}
			b = b[k:]
			s.limb[i] = v
			i++
		default:
			return nil, fmt.Errorf("sum: bad limb tag %d: %w", tag, ErrEncoding)
		}
	}
	return b, nil
}

// nanBits is the one NaN an encoding holds: the sum of non-finite values
// is NaN once +Inf meets -Inf, and which NaN the hardware then produces
// (and propagates) depends on the platform and the order of additions.
var nanBits = math.Float64bits(math.NaN())

// specialBits is the canonical encoding of a sum of non-finite values.
func specialBits(f float64) uint64 {
	if math.IsNaN(f) {
		return nanBits
	}
	return math.Float64bits(f)
}

// AppendBinary appends st's encoding to b.
func (st *Stat) AppendBinary(b []byte) ([]byte, error) {
	b = binary.AppendVarint(b, st.N)
	b, _ = st.Sum.AppendBinary(b)
	return st.SumSq.AppendBinary(b)
}

func (st *Stat) decode(b []byte) ([]byte, error) {
	n, k := binary.Varint(b)
	if k <= 0 || n < 0 {
		return nil, fmt.Errorf("stat: bad count: %w", ErrEncoding)
	}
	st.N = n
	b, err := st.Sum.decode(b[k:])
	if err != nil {
		return nil, err
	}
	return st.SumSq.decode(b)
}

// AppendBinary appends s's encoding to b: a version, the counts, then each
// metric's Stat. Equal aggregates encode to equal bytes.
func (s *Set) AppendBinary(b []byte) ([]byte, error) {
	b = append(b, encodingVersion)
	b = binary.AppendUvarint(b, uint64(len(s.Stats)))
	b = binary.AppendVarint(b, s.Rows)
	b = binary.AppendVarint(b, s.Queries)
	b = binary.AppendVarint(b, s.Empty)
	b = binary.AppendVarint(b, s.Dropped)
	for i := range s.Stats {
		b, _ = s.Stats[i].AppendBinary(b)
	}
	return b, nil
}

// MarshalBinary encodes s canonically (see AppendBinary).
func (s *Set) MarshalBinary() ([]byte, error) { return s.AppendBinary(nil) }

// UnmarshalBinary replaces s with the aggregate data encodes.
func (s *Set) UnmarshalBinary(data []byte) error {
	var out Set
	b, err := out.decode(data, -1)
	if err != nil {
		return err
	}
	if len(b) != 0 {
		return fmt.Errorf("set: %d bytes after the end: %w", len(b), ErrEncoding)
	}
	*s = out
	return nil
}

// minStatBytes is the shortest encoding of a Stat: a count and two empty
// sums (flags, a zero run and its length).
const minStatBytes = 7

// decode reads a Set from the front of b into s, reusing s.Stats when it
// has the right length, and returns the rest. With want >= 0 the Set must
// have that many metrics.
func (s *Set) decode(b []byte, want int) ([]byte, error) {
	if len(b) < 1 || b[0] != encodingVersion {
		return nil, fmt.Errorf("set: unknown version: %w", ErrEncoding)
	}
	b = b[1:]
	var vals [5]uint64
	for i := range vals {
		var k int
		if i == 0 {
			vals[i], k = binary.Uvarint(b)
		} else {
			var v int64
			v, k = binary.Varint(b)
			if v < 0 {
				k = 0
			}
			vals[i] = uint64(v)
		}
		if k <= 0 {
			return nil, fmt.Errorf("set: bad header: %w", ErrEncoding)
		}
		b = b[k:]
	}
	// a count beyond what the bytes can hold is garbage and must not size
	// an allocation (a Stat takes 1 KiB in memory)
	if vals[0] > uint64(len(b)/minStatBytes) {
		return nil, fmt.Errorf("set: %d metrics in %d bytes: %w", vals[0], len(b), ErrEncoding)
	}
	if want >= 0 && vals[0] != uint64(want) {
		return nil, fmt.Errorf("set: %d metrics, want %d: %w", vals[0], want, ErrEncoding)
	}
	if len(s.Stats) != int(vals[0]) {
		s.Stats = make([]Stat, vals[0])
	}
	s.Rows, s.Queries, s.Empty, s.Dropped = int64(vals[1]), int64(vals[2]), int64(vals[3]), int64(vals[4])
	for i := range s.Stats {
		var err error
		if b, err = s.Stats[i].decode(b); err != nil {
			return nil, fmt.Errorf("metric %d: %w", i, err)
		}
	}
	return b, nil
}
