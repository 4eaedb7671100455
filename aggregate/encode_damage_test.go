package aggregate

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rankeval/rankeval/stats"
)

// smallEncodings are real encodings of small analyses, seeds for the
// damage tests and the fuzz target.
func smallEncodings(t testing.TB) [][]byte {
	var out [][]byte
	r := rand.New(rand.NewPCG(21, 22))
	for _, name := range []string{"full", "boot", "hist", "one sys", "no core", "bare", "ratio", "weights"} {
		l := *testLayouts[name]
		l.Bootstrap = min(l.Bootstrap, 4)
		if l.Test != stats.TestT {
			l.Permutations = min(l.Permutations, 8)
		}
		qs := randQueries(r, &l, 12, 3)
		number(qs, map[string]int{})
		out = append(out, encode(t, build(t, &l, qs)))
	}
	return out
}

// checkDecoded is what any input must give: an error wrapping ErrEncoding,
// or an analysis that encodes to bytes that decode to the same bytes, and
// whose merges (and, with figures, its figures) do not panic.
// Decoding checks that every metric and comparison count is at most its
// number of queries.
func checkDecoded(t testing.TB, data []byte, figures bool) {
	var a Analysis
	err := a.UnmarshalBinary(data)
	if err != nil {
		if !errors.Is(err, ErrEncoding) {
			t.Fatalf("error %v does not wrap ErrEncoding", err)
		}
		return
	}
	enc, err := a.MarshalBinary()
	if err != nil {
		t.Fatalf("decoded analysis does not encode: %v", err)
	}
	var b Analysis
	if err := b.UnmarshalBinary(enc); err != nil {
		t.Fatalf("re-encoding does not decode: %v", err)
	}
	if again, _ := b.MarshalBinary(); !bytes.Equal(again, enc) {
		t.Fatal("re-encoding is not stable")
	}
	c := NewAnalysis(a.L)
	if err := c.MergeMapped(&b, make([]int, len(b.Slices))); err != nil {
		t.Fatal(err)
	}
	c.Merge(&a)
	// the t quantile takes long for absurd counts (2^60 queries), which only
	// a damaged input has
	plausible := a.Sys[0].Queries < 1<<20
	for _, sl := range a.Slices {
		plausible = plausible && (sl == nil || sl.Queries[0] < 1<<20)
	}
	if figures && plausible {
		_ = render(c)
	}
}

func TestAnalysisBinaryDamaged(t *testing.T) {
	for _, enc := range smallEncodings(t) {
		for n := range enc {
			var a Analysis
			if err := a.UnmarshalBinary(enc[:n]); !errors.Is(err, ErrEncoding) {
				t.Fatalf("truncated to %d of %d bytes: err = %v, want ErrEncoding", n, len(enc), err)
			}
		}
		checkDecoded(t, enc, true)
		if len(enc) > 8000 {
			t.Fatalf("%d bytes for a dozen queries", len(enc))
		}
		dam := make([]byte, len(enc))
		for i := range enc {
			for j, x := range []byte{0x01, 0x40, 0x80, 0xff} {
				copy(dam, enc)
				dam[i] ^= x
				checkDecoded(t, dam, (i+j)%32 == 0) // the figures take long
			}
		}
	}
	ok := smallEncodings(t)[0]
	layout, _ := testLayouts["full"].MarshalBinary()
	set, _ := NewSet(3).MarshalBinary()
	huge := binary.AppendUvarint([]byte{1, 1}, maxDim) // a layout claiming 2^24 metrics
	huge = append(huge, 0, 1, 0, 0, 0, 0, 0, 0)
	for name, data := range map[string][]byte{
		"empty":           nil,
		"version":         append([]byte{2}, ok[1:]...),
		"layout only":     append([]byte{1}, layout...),
		"set":             set,
		"trailing":        append(append([]byte{}, ok...), 0),
		"huge layout":     huge,
		"no system":       {1, 1, 0, 0, 0, 0, 0, 0},
		"too many core":   {1, 1, 1, 2, 0, 0, 1, 0, 0},
		"absent last":     append(append([]byte{1}, (&Layout{Systems: 1}).mustEncode()...), 1, 0, 0, 0, 0, 0, 0, 1, 0),
		"bad slice flag":  append(append([]byte{1}, (&Layout{Systems: 1}).mustEncode()...), 1, 0, 0, 0, 0, 0, 0, 1, 2),
		"slices, no data": append(append([]byte{1}, (&Layout{Systems: 1}).mustEncode()...), 1, 0, 0, 0, 0, 0, 0, 0x80, 0x80, 0x04),
	} {
		var a Analysis
		if err := a.UnmarshalBinary(data); !errors.Is(err, ErrEncoding) {
			t.Errorf("%s: err = %v, want ErrEncoding", name, err)
		}
	}
	var a Analysis
	if err := a.UnmarshalBinary(append(append([]byte{1}, (&Layout{Systems: 1}).mustEncode()...), 1, 0, 0, 0, 0, 0, 0, 0)); err != nil {
		t.Fatalf("the empty analysis of one system: %v", err)
	}
}

func (l *Layout) mustEncode() []byte {
	b, err := l.MarshalBinary()
	if err != nil {
		panic(err)
	}
	return b
}

// TestSmallCanonical: a Small's bytes are a function of its value, whatever
// the window and carries adds and merges left, and decode to a Small that
// adds and merges on exactly.
func TestSmallCanonical(t *testing.T) {
	defer func(n int32) { normalizeEvery = n }(normalizeEvery)
	r := rand.New(rand.NewPCG(9, 10))
	cases := map[string][]float64{
		"zero":        {1e-300, 1, -1, -1e-300, 0},
		"negative":    {-0.5, -0.25, 0.125, -1e-9},
		"cancel high": {1e300, 0.5, -1e300},
		"extremes":    {math.MaxFloat64, math.MaxFloat64, -5e-324, 1e-310},
		"special":     {math.Inf(1), 1, math.Inf(-1), 2},
		"to -2^31":    {-math.Ldexp(1, 31-1074+32*3)},
		"to 2^31":     {math.Ldexp(1, 31-1074+32*3)},
		"min limb":    {-math.Ldexp(1, 32*2-1074), math.Ldexp(1, 32-1074)},
	}
	for range 200 {
		cases["diffs"] = append(cases["diffs"], r.Float64()-r.Float64())
		cases["wide"] = append(cases["wide"], (r.Float64()-0.6)*math.Ldexp(1, r.IntN(300)-150))
	}
	for name, vs := range cases {
		var want []byte
		var ref Sum
		for _, v := range vs {
			ref.Add(v)
		}
		for trial := range 20 {
			normalizeEvery = int32(1 + trial%5*7)
			parts := make([]Small, 1+trial%4)
			for _, j := range r.Perm(len(vs)) {
				parts[r.IntN(len(parts))].Add(vs[j])
			}
			for i := len(parts) - 1; i > 0; i-- {
				parts[i-1].Merge(&parts[i])
			}
			got := parts[0].appendBinary(nil)
			if trial == 0 {
				want = got
			} else if !bytes.Equal(got, want) {
				t.Fatalf("%s trial %d: %x, want %x", name, trial, got, want)
			}
			d := dec{b: got}
			var s Small
			s.decode(&d, &slab{})
			if d.err != nil || len(d.b) != 0 {
				t.Fatalf("%s: decode: %v, %d left", name, d.err, len(d.b))
			}
			f, rf := s.Full(), ref
			if f.Float64() != rf.Float64() && !math.IsNaN(rf.Float64()) || !f.hasSpec && f.Big().Cmp(rf.Big()) != 0 {
				t.Fatalf("%s: decoded %v, want %v", name, f.Float64(), rf.Float64())
			}
			s.Merge(&parts[0])
			s.Add(0.75)
			f.Merge(&rf)
			f.Add(0.75)
			if g := s.Full(); g.Float64() != f.Float64() && !math.IsNaN(f.Float64()) || !f.hasSpec && g.Big().Cmp(f.Big()) != 0 {
				t.Fatalf("%s: decoded then merged %v, want %v", name, g.Float64(), f.Float64())
			}
		}
	}
}

// TestAnalysisTrailingSlices: a slice index without queries at the end
// changes nothing; an absent slice inside is kept.
func TestAnalysisTrailingSlices(t *testing.T) {
	l := testLayouts["hist"]
	qs := randQueries(rand.New(rand.NewPCG(1, 1)), l, 20, 3)
	number(qs, map[string]int{})
	a := build(t, l, qs)
	want := encode(t, a)
	a.Slices = append(a.Slices, nil, nil)
	if !bytes.Equal(encode(t, a), want) {
		t.Fatal("trailing absent slices change the encoding")
	}
	b := NewAnalysis(l)
	if err := b.MergeMapped(decode(t, want), []int{1, 3, 4}); err != nil {
		t.Fatal(err)
	}
	d := decode(t, encode(t, b))
	if len(d.Slices) != 5 || d.Slices[0] != nil || d.Slices[2] != nil || d.Slices[4] == nil {
		t.Fatalf("slices %v", d.Slices)
	}
}

func FuzzAnalysisDecode(f *testing.F) {
	for _, enc := range smallEncodings(f) {
		f.Add(enc)
		f.Add(enc[:len(enc)/2])
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkDecoded(t, data, true) })
}
