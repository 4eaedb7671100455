package trec

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rankeval/rankeval/internal/vectors"
)

// TestQrelsQuery: every query of the reference qrels, encoded and set
// alone, judges and joins as the whole qrels do; other queries are not
// judged.
func TestQrelsQuery(t *testing.T) {
	td, err := vectors.Testdata()
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"trec_a", "trec_b"} {
		t.Run(dir, func(t *testing.T) {
			all, err := ReadQrels(filepath.Join(td, "reference", dir, "qrels.txt"))
			if err != nil {
				t.Fatal(err)
			}
			var one Qrels
			var b []byte
			for qn := range all.Queries() {
				id := []byte(all.QueryID(qn))
				b = all.AppendQuery(b[:0], qn)
				if err := one.SetQuery(b); err != nil {
					t.Fatal(err)
				}
				if got, want := one.Judged(id), all.Judged(id); !slices.Equal(got, want) || len(want) == 0 {
					t.Fatalf("query %s: judged %v, want %v", id, got, want)
				}
				// a doc of every judgment, and one never judged
				docs := [][]byte{[]byte("never-judged")}
				lo, hi := all.start[qn], all.start[qn+1]
				for k := lo; k < hi; k++ {
					docs = append(docs, all.doc(k))
				}
				find := func(d []byte) int {
					return slices.IndexFunc(docs, func(x []byte) bool { return string(x) == string(d) })
				}
				got, want := make([]float64, len(docs)), make([]float64, len(docs))
				for i := range got {
					got[i], want[i] = -1, -1
				}
				one.Join(id, got, nil, find)
				all.Join(id, want, nil, find)
				if !slices.Equal(got, want) || want[0] != -1 {
					t.Fatalf("query %s: joined %v, want %v", id, got, want)
				}
				if other := []byte(all.QueryID((qn + 1) % all.Queries())); string(other) != string(id) && one.Judged(other) != nil {
					t.Fatalf("query %s's judgments judge query %s", id, other)
				}
			}
			if err := one.SetQuery(nil); err != nil || one.Judged([]byte(all.QueryID(0))) != nil {
				t.Fatalf("SetQuery(nil): %v, still judges", err)
			}
		})
	}
}

// FuzzSetQuery: any bytes decode or fail with ErrEncoding, never panic;
// what decodes encodes to a form that decodes to the same judgments.
func FuzzSetQuery(f *testing.F) {
	q := &Qrels{index: map[string]int32{"7": 0}, order: []string{"7"}, start: []int{0, 2},
		docs: []byte("d1d22"), off: []int64{0, 2, 5}, labels: []float64{1, 0}}
	f.Add(q.AppendQuery(nil, 0))
	f.Add([]byte{1, '1', 200, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		var one Qrels
		if err := one.SetQuery(b); err != nil {
			if !errors.Is(err, ErrEncoding) {
				t.Fatalf("error %v does not wrap ErrEncoding", err)
			}
			return
		}
		enc := one.AppendQuery(nil, 0)
		var two Qrels
		if err := two.SetQuery(enc); err != nil {
			t.Fatal(err)
		}
		if again := two.AppendQuery(nil, 0); string(again) != string(enc) {
			t.Fatalf("%x decodes and encodes to %x", enc, again)
		}
	})
}
