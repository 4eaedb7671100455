package rankbeam

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/pipeline"
)

// TestMergeFn drives the CombineFn as a runner might: inputs spread over
// accumulators, accumulators sent through the coder (as between workers)
// and merged in random trees. Local runners rarely call
// MergeAccumulators, so this is where it is tested. The input files'
// digests come out as the sequential ones too.
func TestMergeFn(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	const nm = 3
	results := make([]Result, 2000)
	for i := range results {
		v := []float64{r.Float64(), r.Float64() * 1e-9, math.NaN()}
		if i%5 == 0 {
			v[2] = r.Float64() * 1e12
		}
		results[i] = Result{Query: fmt.Sprint("q", i), First: pipeline.Pack(i%3, int64(i)), Rows: []int64{int64(1 + r.IntN(100))}, Vals: [][]float64{v},
			Empty: []bool{i%17 == 0}, Missing: []bool{false}}
	}
	f := &MergeFn{Layout: aggregate.Layout{Metrics: nm, Systems: 1, Core: []aggregate.Range{aggregate.RangeUnit, aggregate.RangeUnit, aggregate.RangeOpen}},
		Digests: true}
	one := f.CreateAccumulator()
	for _, res := range results {
		one = f.AddInput(one, res)
	}
	want, _ := f.ExtractOutput(one).Agg.MarshalBinary()
	wantDigests := f.ExtractOutput(one).Digests.D
	if len(wantDigests) != 3 || wantDigests[0] == wantDigests[1] {
		t.Fatalf("digests %v: want three inputs' apart", wantDigests)
	}

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
			got, _ := f.ExtractOutput(accs[0]).Agg.MarshalBinary()
			if !bytes.Equal(got, want) {
				t.Fatalf("merged aggregate differs from the sequential one")
			}
			if got := f.ExtractOutput(accs[0]).Digests.D; !slices.Equal(got, wantDigests) {
				t.Fatalf("digests %v, sequential %v", got, wantDigests)
			}
			s := f.ExtractOutput(accs[0]).Agg.Sys[0]
			if s.Queries != int64(len(results)) || s.Stats[0].N != int64(len(results)) || s.Stats[2].N != int64(len(results)/5) {
				t.Fatalf("counts: queries %d, n0 %d, n2 %d", s.Queries, s.Stats[0].N, s.Stats[2].N)
			}
		})
	}
	t.Run("empty accumulators merge", func(t *testing.T) {
		a := f.MergeAccumulators(f.CreateAccumulator(), f.CreateAccumulator())
		if a.Agg.Sys[0].Queries != 0 || len(a.Agg.Sys[0].Stats) != nm {
			t.Fatalf("got %+v", a.Agg.Sys[0])
		}
	})
	if _, err := decodePartial([]byte{7}); err == nil {
		t.Fatal("a corrupt accumulator decoded")
	}
	_ = aggregate.ErrEncoding
}
