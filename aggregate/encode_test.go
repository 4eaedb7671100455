package aggregate

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rankeval/rankeval/stats"
)

func randomSet(r *rand.Rand, vals [][]float64) *Set {
	s := NewSet(len(vals[0]))
	for _, v := range vals {
		s.AddQuery(1+r.IntN(50), v, math.IsNaN(v[0]))
	}
	return s
}

func TestSetBinaryRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	rows := make([][]float64, 300)
	for i := range rows {
		rows[i] = []float64{r.Float64(), math.Pow(10, float64(r.IntN(40)-20)) * (r.Float64() - 0.5), math.NaN()}
		if i%7 == 0 {
			rows[i][0] = math.NaN()
		}
	}
	tests := []struct {
		name string
		set  *Set
	}{
		{"empty set", NewSet(0)},
		{"no queries", NewSet(3)},
		{"random", func() *Set { s := randomSet(r, rows); s.Dropped = 12345; return s }()},
		{"special", func() *Set {
			s := NewSet(1)
			s.AddQuery(2, []float64{math.Inf(1)}, false)
			s.AddQuery(2, []float64{1.5}, false)
			return s
		}()},
		{"extremes", func() *Set {
			s := NewSet(1)
			for _, v := range []float64{math.MaxFloat64, 5e-324, -math.MaxFloat64 / 3, -5e-324} {
				s.AddQuery(1, []float64{v}, false)
			}
			return s
		}()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			enc, err := tc.set.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			var got Set
			if err := got.UnmarshalBinary(enc); err != nil {
				t.Fatal(err)
			}
			if got.Rows != tc.set.Rows || got.Queries != tc.set.Queries || got.Empty != tc.set.Empty || got.Dropped != tc.set.Dropped || len(got.Stats) != len(tc.set.Stats) {
				t.Fatalf("counts %d/%d/%d/%d, want %d/%d/%d/%d", got.Rows, got.Queries, got.Empty, len(got.Stats),
					tc.set.Rows, tc.set.Queries, tc.set.Empty, len(tc.set.Stats))
			}
			for i := range got.Stats {
				a, b := got.Stats[i].Summary(), tc.set.Stats[i].Summary()
				if !sameSummary(a, b) {
					t.Fatalf("metric %d: %+v, want %+v", i, a, b)
				}
				if ga, gb := got.Stats[i].Sum.Float64(), tc.set.Stats[i].Sum.Float64(); math.Float64bits(ga) != math.Float64bits(gb) {
					t.Fatalf("metric %d: sum %v, want %v", i, ga, gb)
				}
			}
			again, _ := got.MarshalBinary()
			if !bytes.Equal(again, enc) {
				t.Fatalf("re-encoding differs: %x vs %x", again, enc)
			}
		})
	}
}

func sameSummary(a, b stats.Summary) bool {
	eq := func(x, y float64) bool {
		return math.Float64bits(x) == math.Float64bits(y) || math.IsNaN(x) && math.IsNaN(y)
	}
	return a.N == b.N && eq(a.Mean, b.Mean) && eq(a.Lo, b.Lo) && eq(a.Hi, b.Hi) && eq(a.Stdev, b.Stdev)
}

// TestSetBinaryCanonical: the same queries split and merged any way encode
// to the same bytes, so a distributed merge cannot tell the split apart.
func TestSetBinaryCanonical(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	rows := make([][]float64, 1000)
	for i := range rows {
		rows[i] = []float64{r.Float64() * 1e-3, r.Float64() * 1e6}
	}
	whole := NewSet(2)
	for _, v := range rows {
		whole.AddQuery(3, v, false)
	}
	want, _ := whole.MarshalBinary()
	for parts := 2; parts <= 7; parts++ {
		t.Run("parts", func(t *testing.T) {
			ps := make([]*Set, parts)
			for i := range ps {
				ps[i] = NewSet(2)
			}
			perm := r.Perm(len(rows))
			for i, j := range perm {
				ps[i%parts].AddQuery(3, rows[j], false)
			}
			// round-trip every part through bytes, then merge in reverse
			tot := NewSet(2)
			for i := parts - 1; i >= 0; i-- {
				enc, _ := ps[i].MarshalBinary()
				var d Set
				if err := d.UnmarshalBinary(enc); err != nil {
					t.Fatal(err)
				}
				tot.Merge(&d)
			}
			got, _ := tot.MarshalBinary()
			if !bytes.Equal(got, want) {
				t.Fatalf("%d parts: encoding differs from the whole's", parts)
			}
		})
	}
}

func TestSetBinaryCorrupt(t *testing.T) {
	s := NewSet(2)
	s.AddQuery(4, []float64{0.25, 3}, false)
	s.AddQuery(4, []float64{math.Inf(-1), 1}, true)
	enc, _ := s.MarshalBinary()
	for n := 0; n < len(enc); n++ {
		var d Set
		if err := d.UnmarshalBinary(enc[:n]); !errors.Is(err, ErrEncoding) {
			t.Fatalf("truncated to %d of %d bytes: err = %v, want ErrEncoding", n, len(enc), err)
		}
	}
	tests := []struct {
		name string
		data []byte
	}{
		{"trailing", append(append([]byte{}, enc...), 0)},
		{"version", append([]byte{9}, enc[1:]...)},
		{"huge count", []byte{1, 0xff, 0xff, 0xff, 0xff, 0x0f, 0, 0, 0, 0}},
		{"limb out of range", []byte{1, 1, 0, 2, 0, 0, 2, 0, 1, 0xfe, 0xff, 0xff, 0xff, 0x3f}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var d Set
			if err := d.UnmarshalBinary(tc.data); !errors.Is(err, ErrEncoding) {
				t.Fatalf("err = %v, want ErrEncoding", err)
			}
		})
	}
}
