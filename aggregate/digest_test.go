package aggregate

import (
	"errors"
	"math"
	"slices"
	"testing"
)

func digestQuery(rows int, vals ...float64) *Query {
	return &Query{Rows: []int{rows}, Vals: [][]float64{vals}, Empty: []bool{false}, Missing: []bool{false}}
}

// TestQueryDigest: a query's digest follows its id and what it brought to
// the sums (rows, empty, missing, the core metrics' values, per system),
// and nothing else: not the values past the core ones (the report's
// curves), not a NaN's payload or sign, not the sign of a zero.
func TestQueryDigest(t *testing.T) {
	base := QueryDigest([]byte("q1"), digestQuery(10, 0.5, 0.25, 7), 2)
	if base.IsZero() {
		t.Fatal("a query's digest is zero")
	}
	for _, tc := range []struct {
		name string
		id   string
		q    *Query
		same bool
	}{
		{"the same", "q1", digestQuery(10, 0.5, 0.25, 7), true},
		{"a value past the core ones", "q1", digestQuery(10, 0.5, 0.25, 8), true},
		{"another id", "q2", digestQuery(10, 0.5, 0.25, 7), false},
		{"an id one byte longer", "q1\x00", digestQuery(10, 0.5, 0.25, 7), false},
		{"another row count", "q1", digestQuery(11, 0.5, 0.25, 7), false},
		{"another value", "q1", digestQuery(10, 0.5, math.Nextafter(0.25, 1), 7), false},
		{"values swapped", "q1", digestQuery(10, 0.25, 0.5, 7), false},
		{"empty", "q1", &Query{Rows: []int{10}, Vals: [][]float64{{0.5, 0.25}}, Empty: []bool{true}, Missing: []bool{false}}, false},
		{"missing", "q1", &Query{Rows: []int{10}, Vals: [][]float64{{0.5, 0.25}}, Empty: []bool{false}, Missing: []bool{true}}, false},
		{"a second system", "q1", &Query{Rows: []int{10, 10}, Vals: [][]float64{{0.5, 0.25}, {0.5, 0.25}}, Empty: []bool{false, false},
			Missing: []bool{false, false}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := QueryDigest([]byte(tc.id), tc.q, 2); (got == base) != tc.same {
				t.Errorf("digest %s against %s: same %v, want %v", got, base, got == base, tc.same)
			}
		})
	}
	nan := QueryDigest([]byte("a long query id, past 16 bytes"), digestQuery(3, math.NaN(), 0), 2)
	for _, v := range [][2]float64{{-math.NaN(), math.Copysign(0, -1)}, {math.Float64frombits(0x7ff8000000000001), 0}} {
		if got := QueryDigest([]byte("a long query id, past 16 bytes"), digestQuery(3, v[0], v[1]), 2); got != nan {
			t.Errorf("values %x, %x: digest %s, want %s", math.Float64bits(v[0]), math.Float64bits(v[1]), got, nan)
		}
	}
}

// TestQueryDigestFixed holds the digest to its value: states written on
// any machine and by any release of this version record it, so a change
// would let the same input through twice.
func TestQueryDigestFixed(t *testing.T) {
	q := &Query{Rows: []int{12, 9}, Vals: [][]float64{{0.75, math.NaN(), 1}, {0.5, 0.125, 0}}, Empty: []bool{false, true}, Missing: []bool{false, true}}
	if got, want := QueryDigest([]byte("query 17, issued on 2026-11-16"), q, 2).String(), "d3373ef64ee29197939a1928e727531a"; got != want {
		t.Errorf("digest %s, want %s", got, want)
	}
}

// TestInputDigests: an input's digest is the same whatever the order its
// queries are added in and however they are split between workers and
// merged; each query counts in its own input.
func TestInputDigests(t *testing.T) {
	l := &Layout{Metrics: 2, Core: []Range{RangeUnit}, Systems: 1}
	type add struct {
		in int
		id string
		v  float64
	}
	adds := []add{{0, "a", 0.5}, {0, "b", 0.25}, {1, "c", 1}, {0, "d", 0}, {2, "e", 0.75}}
	one := NewInputDigests(l)
	for _, a := range adds {
		one.Add(a.in, []byte(a.id), digestQuery(5, a.v, 0))
	}
	if len(one.D) != 3 || one.D[0].IsZero() || one.D[1] == one.D[0] {
		t.Fatalf("digests %v", one.D)
	}
	split := []*InputDigests{NewInputDigests(l), NewInputDigests(l)}
	for i, a := range slices.Backward(adds) {
		split[i%2].Add(a.in, []byte(a.id), digestQuery(5, a.v, 0))
	}
	split[1].Merge(split[0])
	if !slices.Equal(split[1].D, one.D) {
		t.Fatalf("split and merged: %v, want %v", split[1].D, one.D)
	}
	b := one.AppendBinary([]byte("x"))
	got, rest, err := DecodeInputDigests(b[1:])
	if err != nil || len(rest) != 0 || !slices.Equal(got.D, one.D) || got.core != 1 {
		t.Fatalf("decoded %v, %d bytes left, %v", got, len(rest), err)
	}
	for n := range len(b) - 1 {
		if _, _, err := DecodeInputDigests(b[1 : 1+n]); !errors.Is(err, ErrEncoding) {
			t.Fatalf("cut to %d bytes: err = %v, want ErrEncoding", n, err)
		}
	}
}

// TestDigestString: a digest reads back from its 32 hexadecimal digits,
// and nothing else reads as one.
func TestDigestString(t *testing.T) {
	d := Digest{Hi: 0x0123456789abcdef, Lo: 0xfedcba9876543210}
	if s := d.String(); s != "0123456789abcdeffedcba9876543210" {
		t.Fatalf("String = %s", s)
	}
	if got, err := ParseDigest(d.String()); err != nil || got != d {
		t.Fatalf("ParseDigest = %v, %v", got, err)
	}
	for _, s := range []string{"", "0123456789abcdeffedcba987654321", "0123456789ABCDEFfedcba9876543210", "0123456789abcdeffedcba987654321g"} {
		if _, err := ParseDigest(s); err == nil {
			t.Errorf("ParseDigest(%q) read", s)
		}
	}
}

// BenchmarkQueryDigest: a query of a usual id and six metrics, as a
// state's run hashes each query.
func BenchmarkQueryDigest(b *testing.B) {
	q := digestQuery(100, 0.5, 0.25, 0.125, 1, 0, 0.75)
	id := []byte("q-0001234567")
	for b.Loop() {
		QueryDigest(id, q, 6)
	}
}
