package rankbeam

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rankeval/rankeval/aggregate"
)

// TestMergeFn drives the CombineFn as a runner might: inputs spread over
// accumulators, accumulators sent through the coder (as between workers)
// and merged in random trees. Local runners rarely call
// MergeAccumulators, so this is where it is tested.
func TestMergeFn(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	const nm = 3
	results := make([]Result, 2000)
	for i := range results {
		v := []float64{r.Float64(), r.Float64() * 1e-9, math.NaN()}
		if i%5 == 0 {
			v[2] = r.Float64() * 1e12
		}
		results[i] = Result{Query: "q", Rows: int64(1 + r.IntN(100)), Vals: v, Empty: i%17 == 0}
	}
	f := &MergeFn{Metrics: nm}
	one := f.CreateAccumulator()
	for _, res := range results {
		one = f.AddInput(one, res)
	}
	want, _ := f.ExtractOutput(one).Set.MarshalBinary()

	tests := []struct {
		name  string
		parts int
	}{{"one", 1}, {"two", 2}, {"seven", 7}, {"one per input", len(results)}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			accs := make([]Partial, tc.parts)
			for i := range accs {
				accs[i] = f.CreateAccumulator()
			}
			for _, i := range r.Perm(len(results)) {
				k := r.IntN(tc.parts)
				accs[k] = f.AddInput(accs[k], results[i])
			}
			// through the coder, as accumulators cross workers
			for i := range accs {
				b, err := encodePartial(accs[i])
				if err != nil {
					t.Fatal(err)
				}
				if accs[i], err = decodePartial(b); err != nil {
					t.Fatal(err)
				}
			}
			// merge pairs picked at random until one is left
			for len(accs) > 1 {
				i, j := r.IntN(len(accs)), r.IntN(len(accs)-1)
				if j >= i {
					j++
				}
				accs[i] = f.MergeAccumulators(accs[i], accs[j])
				accs = append(accs[:j], accs[j+1:]...)
			}
			got, _ := f.ExtractOutput(accs[0]).Set.MarshalBinary()
			if !bytes.Equal(got, want) {
				t.Fatalf("merged aggregate differs from the sequential one")
			}
			s := f.ExtractOutput(accs[0]).Set
			if s.Queries != int64(len(results)) || s.Stats[0].N != int64(len(results)) || s.Stats[2].N != int64(len(results)/5) {
				t.Fatalf("counts: queries %d, n0 %d, n2 %d", s.Queries, s.Stats[0].N, s.Stats[2].N)
			}
		})
	}
	t.Run("empty accumulators merge", func(t *testing.T) {
		a := f.MergeAccumulators(f.CreateAccumulator(), f.CreateAccumulator())
		if a.Set.Queries != 0 || len(a.Set.Stats) != nm {
			t.Fatalf("got %+v", a.Set)
		}
	})
	if _, err := decodePartial([]byte{7}); err == nil {
		t.Fatal("a corrupt accumulator decoded")
	}
	_ = aggregate.ErrEncoding
}

func TestChunkRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		r    rows
	}{
		{"score only", rows{pos: []uint64{packPos(2, 7), packPos(0, 1)}, score: []float64{0.5, -1}, label: []float64{1, 0}, hasScore: true}},
		{"rank and doc", rows{pos: []uint64{packPos(1, 3)}, label: []float64{2}, rank: []int64{4}, doc: [][]byte{[]byte("d\x00x")}, hasRank: true, hasDoc: true}},
		{"all", rows{pos: []uint64{5, 4, 9}, score: []float64{1, 2, 3}, label: []float64{0, 0.5, 4}, rank: []int64{1, 2, 3},
			doc: [][]byte{[]byte("a"), []byte(""), []byte("c")}, hasScore: true, hasRank: true, hasDoc: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.r.encode(nil)
			var got rows
			// two chunks of one query append
			if err := got.decodeAppend(b); err != nil {
				t.Fatal(err)
			}
			if err := got.decodeAppend(b); err != nil {
				t.Fatal(err)
			}
			if got.n() != 2*tc.r.n() {
				t.Fatalf("%d rows, want %d", got.n(), 2*tc.r.n())
			}
			for i := range got.pos {
				j := i % tc.r.n()
				if got.pos[i] != tc.r.pos[j] || got.label[i] != tc.r.label[j] ||
					tc.r.hasScore && got.score[i] != tc.r.score[j] ||
					tc.r.hasRank && got.rank[i] != tc.r.rank[j] ||
					tc.r.hasDoc && !bytes.Equal(got.doc[i], tc.r.doc[j]) {
					t.Fatalf("row %d differs", i)
				}
			}
			got.sortByPos()
			labelAt := map[uint64]float64{}
			for i, p := range tc.r.pos {
				labelAt[p] = tc.r.label[i]
			}
			for i := range got.pos {
				if i > 0 && got.pos[i] < got.pos[i-1] {
					t.Fatal("not sorted")
				}
				if got.label[i] != labelAt[got.pos[i]] {
					t.Fatalf("row %d: label %v did not move with its position", i, got.label[i])
				}
			}
			for n := 0; n < len(b); n++ {
				var x rows
				if err := x.decodeAppend(b[:n]); err == nil {
					t.Fatalf("chunk truncated to %d of %d bytes decoded", n, len(b))
				}
			}
		})
	}
}
