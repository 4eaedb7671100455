package trec

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/readertest"
)

// TestNextInto checks that the readers that fill a caller's batch (the
// TREC run read as it is read; the readers that decode on goroutines of
// their own hand over their batches) give, in batches that held other
// columns before, what Next gives in their own.
func TestNextInto(t *testing.T) {
	dir := t.TempDir()
	var run, qrels strings.Builder
	for i := range 50 {
		fmt.Fprintf(&run, "q%d Q0 d%d %d %d.25 run\n", i/7, i, i%7+1, 50-i)
		if i%2 == 0 {
			fmt.Fprintf(&qrels, "q%d 0 d%d %d\n", i/7, i, i%3)
		}
	}
	q, err := ReadQrels(readertest.WriteFileIn(t, dir, "qrels", []byte(qrels.String())))
	if err != nil {
		t.Fatal(err)
	}
	rpath := readertest.WriteFileIn(t, dir, "run", []byte(run.String()))
	open := map[string]func() (batch.Reader, error){
		"trec run": func() (batch.Reader, error) {
			return OpenRun(rpath, q, RunOptions{Options: batch.Options{BatchSize: 8, Decoders: 1}})
		},
	}
	for name, open := range open {
		t.Run(name, func(t *testing.T) {
			var want []batch.Batch
			r, err := open()
			if err != nil {
				t.Fatal(err)
			}
			for r.Next() {
				want = append(want, cloneBatch(r.Batch()))
			}
			if r.Err() != nil {
				t.Fatal(r.Err())
			}
			r.Close()
			if len(want) < 3 {
				t.Fatalf("%d batches: the test wants several", len(want))
			}

			r, err = open()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			f, ok := r.(batch.Filler)
			if !ok {
				t.Fatal("not a Filler")
			}
			// batches left dirty with other columns, used in turn
			spare := []*batch.Batch{{}, {Rank: []int64{9}, Extra: make([]batch.Strings, 3), ExtraScore: make([][]float64, 2), Pos: []int64{1, 2}, N: 7}}
			spare[1].Extra[0].Append([]byte("stale"))
			k := 0
			for ; ; k++ {
				b := spare[k%2]
				if !f.NextInto(b) {
					break
				}
				if r.Batch() != b {
					t.Fatal("Batch does not return the batch NextInto filled")
				}
				if k >= len(want) {
					t.Fatalf("batch %d: more batches than Next gives", k)
				}
				if got := cloneBatch(b); !reflect.DeepEqual(got, want[k]) {
					t.Fatalf("batch %d:\n got %+v\nwant %+v", k, got, want[k])
				}
			}
			if r.Err() != nil || k != len(want) {
				t.Fatalf("%d batches, error %v; want %d", k, r.Err(), len(want))
			}
		})
	}
}

// cloneBatch copies b's data, leaving out the locator (a func).
func cloneBatch(b *batch.Batch) batch.Batch {
	c := batch.Batch{Source: b.Source, N: b.N,
		Query: batch.Strings{Buf: append([]byte{}, b.Query.Buf...), Off: append([]int32{}, b.Query.Off...)},
		Doc:   batch.Strings{Buf: append([]byte{}, b.Doc.Buf...), Off: append([]int32{}, b.Doc.Off...)},
		Score: append([]float64{}, b.Score...), Label: append([]float64{}, b.Label...), Pos: append([]int64{}, b.Pos...)}
	if b.Rank != nil {
		c.Rank = append([]int64{}, b.Rank...)
	}
	for _, x := range b.Extra {
		c.Extra = append(c.Extra, batch.Strings{Buf: append([]byte{}, x.Buf...), Off: append([]int32{}, x.Off...)})
	}
	for _, x := range b.ExtraScore {
		c.ExtraScore = append(c.ExtraScore, append([]float64{}, x...))
	}
	return c
}
