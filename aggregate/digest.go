package aggregate

import (
	"cmp"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/bits"

	"github.com/rankeval/rankeval/internal/splitmix"
)

// Digest is a 128-bit digest of evaluated queries: a state records one per
// input it was made from, so that a merge can refuse two states made from
// one input. It is the sum, modulo 2^128, of the QueryDigest of each
// query, so it does not depend on the order in which the queries were
// evaluated or merged, and the zero Digest is that of no query.
type Digest struct{ Hi, Lo uint64 }

// IsZero reports whether d is the digest of no query.
func (d Digest) IsZero() bool { return d == Digest{} }

// String is d as 32 hexadecimal digits, Hi first.
func (d Digest) String() string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], d.Hi)
	binary.BigEndian.PutUint64(b[8:], d.Lo)
	return hex.EncodeToString(b[:])
}

// ParseDigest reads a Digest as String writes it (32 lower-case
// hexadecimal digits).
func ParseDigest(s string) (Digest, error) {
	var b [16]byte
	if len(s) != 32 {
		return Digest{}, fmt.Errorf("digest %q: want 32 hexadecimal digits", s)
	}
	if _, err := hex.Decode(b[:], []byte(s)); err != nil {
		return Digest{}, fmt.Errorf("digest %q: want 32 hexadecimal digits", s)
	}
	d := Digest{binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])}
	if d.String() != s {
		return Digest{}, fmt.Errorf("digest %q: want lower-case hexadecimal digits", s)
	}
	return d, nil
}

// Compare orders digests by value.
func (d Digest) Compare(o Digest) int {
	if c := cmp.Compare(d.Hi, o.Hi); c != 0 {
		return c
	}
	return cmp.Compare(d.Lo, o.Lo)
}

// Add adds o to d modulo 2^128: the digest of a set of items is the sum
// of theirs, whatever their order.
func (d *Digest) Add(o Digest) {
	var c uint64
	d.Lo, c = bits.Add64(d.Lo, o.Lo, 0)
	d.Hi, _ = bits.Add64(d.Hi, o.Hi, c)
}

// QueryDigest is the digest of one evaluated query: of its id, and per
// system of its rows evaluated, whether it had no relevant row or was
// missing, and the values of the first core metrics (the ones asked for).
// Those are what the query brought to the sums, as the rows' parsed values
// gave them, so the same query read from another file, path or format has
// the same digest, and two queries differing in any of them (a query id
// asked again on another day) have others. NaN and -0 are hashed as one
// NaN and +0. It is no cryptographic hash: it tells apart what comes
// from different logs, not what a forger makes collide.
func QueryDigest(id []byte, q *Query, core int) Digest {
	h := newDigestState()
	h.bytes(id)
	for s := range q.Vals {
		flags := uint64(0)
		if q.Empty[s] {
			flags |= 1
		}
		if q.Missing[s] {
			flags |= 2
		}
		h.word(uint64(q.Rows[s])<<2 | flags)
		for _, v := range q.Vals[s][:core] {
			switch {
			case v != v:
				v = math.NaN()
			case v == 0:
				v = 0
			}
			h.word(math.Float64bits(v))
		}
	}
	return h.sum()
}

// FieldsDigest is the digest of one item made of byte strings and whole
// numbers, hashed as QueryDigest hashes an id (each string) and its words
// (each number): what a propensity state records of a log's rows.
func FieldsDigest(fields [][]byte, words ...uint64) Digest {
	h := newDigestState()
	for _, f := range fields {
		h.bytes(f)
	}
	for _, w := range words {
		h.word(w)
	}
	return h.sum()
}

// digestState is QueryDigest's two lanes, each absorbing every word by a
// 128-bit multiply folded to 64 bits (wyhash's mix) under its own
// constant, and the count of words.
type digestState struct{ a, b, n uint64 }

func newDigestState() digestState {
	return digestState{a: 0x243f6a8885a308d3, b: 0x13198a2e03707344}
}

// bytes absorbs a string: its length, then its bytes 8 at a time
// little-endian, the last word zero-padded (a string of a multiple of 8
// bytes ends with a zero word).
func (h *digestState) bytes(id []byte) {
	h.word(uint64(len(id)))
	for len(id) >= 8 {
		h.word(binary.LittleEndian.Uint64(id))
		id = id[8:]
	}
	var tail [8]byte
	copy(tail[:], id)
	h.word(binary.LittleEndian.Uint64(tail[:]))
}

func (h *digestState) sum() Digest {
	return Digest{Hi: splitmix.Mix64(h.a ^ h.n), Lo: splitmix.Mix64(h.b + h.n*0x9e3779b97f4a7c15)}
}

func (h *digestState) word(w uint64) {
	h.a = mum(h.a^w, 0xa0761d6478bd642f)
	h.b = mum(h.b^w^0xe7037ed1a0b428db, 0x8ebc6af09c88c6e3)
	h.n++
}

func mum(x, y uint64) uint64 {
	hi, lo := bits.Mul64(x, y)
	return hi ^ lo
}

// InputDigests is one run's digest per input, the inputs numbered as the
// run reads them: each query counts in the input that holds its first
// row. A run keeps one per worker and merges them; its state records the
// inputs' digests.
type InputDigests struct {
	core int      // QueryDigest's
	D    []Digest // by input
}

// NewInputDigests makes an empty InputDigests for a run of layout l.
func NewInputDigests(l *Layout) *InputDigests { return &InputDigests{core: len(l.Core)} }

// Add counts query id, whose figures are q, in input in.
func (d *InputDigests) Add(in int, id []byte, q *Query) {
	for len(d.D) <= in {
		d.D = append(d.D, Digest{})
	}
	d.D[in].Add(QueryDigest(id, q, d.core))
}

// Merge adds o, of the same run, into d, input by input.
func (d *InputDigests) Merge(o *InputDigests) {
	for len(d.D) < len(o.D) {
		d.D = append(d.D, Digest{})
	}
	for i := range o.D {
		d.D[i].Add(o.D[i])
	}
}

// AppendBinary appends d's encoding: the core metrics hashed, the number
// of inputs, and each input's digest (16 bytes, Hi then Lo, little-endian).
func (d *InputDigests) AppendBinary(b []byte) []byte {
	b = binary.AppendUvarint(b, uint64(d.core))
	b = binary.AppendUvarint(b, uint64(len(d.D)))
	for _, x := range d.D {
		b = binary.LittleEndian.AppendUint64(b, x.Hi)
		b = binary.LittleEndian.AppendUint64(b, x.Lo)
	}
	return b
}

// DecodeInputDigests reads an encoding AppendBinary wrote at the start of
// b and returns the bytes after it; anything else is an error wrapping
// ErrEncoding.
func DecodeInputDigests(b []byte) (*InputDigests, []byte, error) {
	d := dec{b: b}
	core := d.uvarint("input digests: core metrics", math.MaxInt32)
	n := d.uvarint("input digests: inputs", math.MaxInt32)
	if d.err == nil && n > uint64(len(d.b)/16) {
		d.fail("input digests: %d inputs, more than the %d bytes left hold", n, len(d.b))
	}
	if d.err != nil {
		return nil, nil, d.err
	}
	out := &InputDigests{core: int(core), D: make([]Digest, n)}
	for i := range out.D {
		out.D[i] = Digest{binary.LittleEndian.Uint64(d.b), binary.LittleEndian.Uint64(d.b[8:])}
		d.b = d.b[16:]
	}
	return out, d.b, nil
}
