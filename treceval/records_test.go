package treceval

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rankeval/rankeval/aggregate"
)

// TestRecords: the per-query records read back the same whichever way the
// writes cut them (one record a write, as the pipeline writes them, or
// any split), and a record cut short at the end is an error.
func TestRecords(t *testing.T) {
	for _, nv := range []int{0, 1, 130} {
		r := rand.New(rand.NewPCG(uint64(nv), 7))
		var ids []string
		var vals [][]float64
		var recs [][]byte
		for q := range 200 {
			id := fmt.Sprintf("q%d%s", q, string(make([]byte, q%150))) // ids past 127 bytes take a 2-byte length
			v := make([]float64, nv)
			for i := range v {
				v[i] = r.NormFloat64()
			}
			if nv > 0 && q == 3 {
				v[0] = math.NaN()
			}
			ids, vals = append(ids, id), append(vals, v)
			recs = append(recs, encodeQuery(nil, []byte(id), nil, &aggregate.Query{Vals: [][]float64{v}}))
		}
		all := slices.Concat(recs...)
		splits := map[string]func() [][]byte{
			"a record a write": func() [][]byte { return recs },
			"one write":        func() [][]byte { return [][]byte{all} },
			"bytes one by one": func() [][]byte {
				var w [][]byte
				for i := range all {
					w = append(w, all[i:i+1])
				}
				return w
			},
			"random cuts": func() [][]byte {
				var w [][]byte
				for b := all; len(b) > 0; {
					n := min(len(b), 1+r.IntN(3000))
					w, b = append(w, b[:n]), b[n:]
				}
				return w
			},
		}
		for name, split := range splits {
			t.Run(fmt.Sprintf("%d values/%s", nv, name), func(t *testing.T) {
				ev := &evaluated{numVals: nv}
				sink := &records{ev: ev}
				for _, w := range split() {
					if n, err := sink.Write(w); err != nil || n != len(w) {
						t.Fatalf("write: %d, %v", n, err)
					}
				}
				if len(sink.pending) != 0 {
					t.Fatalf("%d bytes left", len(sink.pending))
				}
				if !slices.Equal(ev.ids, ids) {
					t.Fatalf("ids differ")
				}
				for q := range vals {
					for i := range vals[q] {
						if math.Float64bits(ev.vals[q][i]) != math.Float64bits(vals[q][i]) {
							t.Fatalf("query %d value %d: %v, want %v", q, i, ev.vals[q][i], vals[q][i])
						}
					}
				}
			})
		}
		t.Run(fmt.Sprintf("%d values/cut short", nv), func(t *testing.T) {
			ev := &evaluated{numVals: nv}
			sink := &records{ev: ev}
			if _, err := sink.Write(all[:len(all)-1]); err != nil {
				t.Fatal(err)
			}
			if len(sink.pending) == 0 || len(ev.ids) != len(ids)-1 {
				t.Fatalf("%d bytes pending, %d queries read", len(sink.pending), len(ev.ids))
			}
		})
	}
	t.Run("length past the end", func(t *testing.T) {
		// 2^64-1: added to the values' bytes, it would wrap around
		sink := &records{ev: &evaluated{numVals: 1}}
		b := []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 'q', 1, 2, 3, 4, 5, 6, 7, 8}
		if _, err := sink.Write(b); err != nil || len(sink.pending) != len(b) {
			t.Fatalf("err %v, %d pending", err, len(sink.pending))
		}
	})
	t.Run("bad length", func(t *testing.T) {
		sink := &records{ev: &evaluated{numVals: 1}}
		_, err := sink.Write([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
		if !errors.Is(err, errCutShort) {
			t.Fatalf("err %v", err)
		}
	})
}
