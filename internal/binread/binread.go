// Package binread reads the project's little binary forms (an encoded
// query group, a state file): varints, floats and length-prefixed bytes
// from a buffer, remembering the first failure so that a caller checks
// once, after reading a record, and never reads past the end.
package binread

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Reader reads from a buffer.
type Reader struct {
	b   []byte
	bad error // wrapped by every failure: the caller's sentinel
	err error
}

// New reads b; a failure wraps bad.
func New(b []byte, bad error) *Reader { return &Reader{b: b, bad: bad} }

// Err is the first failure, or nil.
func (r *Reader) Err() error { return r.err }

// Rest is what is left to read.
func (r *Reader) Rest() []byte { return r.b }

// Fail records a failure (what ran short) unless one is recorded; reads
// return zero values from then on.
func (r *Reader) Fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%s: %w", what, r.bad)
	}
	r.b = nil
}

// Uvarint reads an unsigned varint.
func (r *Reader) Uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.Fail("truncated")
		return 0
	}
	r.b = r.b[n:]
	return v
}

// Varint reads a signed varint.
func (r *Reader) Varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.Fail("truncated")
		return 0
	}
	r.b = r.b[n:]
	return v
}

// Float64 reads a little-endian IEEE 754 double.
func (r *Reader) Float64() float64 {
	if len(r.b) < 8 {
		r.Fail("truncated")
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(r.b))
	r.b = r.b[8:]
	return v
}

// Byte reads one byte.
func (r *Reader) Byte() byte {
	if len(r.b) < 1 {
		r.Fail("truncated")
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

// Bytes reads a uvarint length and that many bytes, which alias the
// buffer.
func (r *Reader) Bytes() []byte {
	n := r.Uvarint()
	if n > uint64(len(r.b)) {
		r.Fail("truncated")
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}
