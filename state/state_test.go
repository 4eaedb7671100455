package state

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/reader"
	"github.com/rankeval/rankeval/summary"
)

// testState is a small state with two systems, slices and a bootstrap.
func testState(t testing.TB) *State {
	ms, err := metrics.ParseList("map,ndcg@10,kendall")
	if err != nil {
		t.Fatal(err)
	}
	run := &summary.Run{Metrics: ms, Options: metrics.DefaultOptions(), Columns: reader.Columns{Query: "q", Score: "s", Label: "l"},
		Slices: []string{"market"}, MaxSlices: 100, Systems: []string{"a", "b"}, Bootstrap: 20, Inputs: []string{"day1.jsonl"}}
	l := &aggregate.Layout{Metrics: 3, Systems: 2, Bootstrap: 20,
		Core: []aggregate.Range{aggregate.RangeUnit, aggregate.RangeUnit, aggregate.RangeSigned}}
	a := aggregate.NewAnalysis(l)
	for i := range 30 {
		v := float64(i%7) / 7
		q := aggregate.Query{Slice: i % 3, Hash: aggregate.QueryHash([]byte{byte(i)}), Rows: []int{10, 10},
			Vals: [][]float64{{v, v / 2, math.NaN()}, {1 - v, v, 0.5}}, Empty: []bool{false, false}, Missing: []bool{false, false}}
		if err := a.Add(&q); err != nil {
			t.Fatal(err)
		}
	}
	return &State{Run: run, Agg: a, SliceKeys: [][]string{{"de"}, {"fr"}, {"us"}}}
}

func TestRoundTrip(t *testing.T) {
	s := testState(t)
	b, err := s.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	again, err := d.AppendBinary(nil)
	if err != nil || !bytes.Equal(again, b) {
		t.Fatalf("decoded state encodes to other bytes (%v)", err)
	}
	if Mismatch(s, d) != "" {
		t.Fatalf("a state mismatches its own copy: %s", Mismatch(s, d))
	}
	o := testState(t)
	o.Run.Options.Ties = metrics.TiesTrec
	if got := Mismatch(s, o); got != `ties "trec" against "input"` {
		t.Fatalf("Mismatch = %q", got)
	}
}

func TestDecodeRefuses(t *testing.T) {
	b, _ := testState(t).AppendBinary(nil)
	if _, err := Decode([]byte("{\"query_id\":1}\n")); !errors.Is(err, ErrNotState) {
		t.Fatalf("a log: %v", err)
	}
	for n := len(Magic); n < len(b); n++ {
		if _, err := Decode(b[:n]); !errors.Is(err, ErrDamaged) {
			t.Fatalf("cut to %d bytes: %v", n, err)
		}
	}
	for i := len(Magic); i < len(b); i++ {
		bad := bytes.Clone(b)
		bad[i] ^= 1
		if _, err := Decode(bad); !errors.Is(err, ErrDamaged) {
			t.Fatalf("byte %d flipped: %v", i, err)
		}
	}
}

// FuzzDecode: Decode never panics; what it accepts encodes back to the
// same bytes.
func FuzzDecode(f *testing.F) {
	b, _ := testState(f).AppendBinary(nil)
	f.Add(b)
	f.Add([]byte(Magic))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Decode(data)
		if err != nil {
			return
		}
		if _, err := s.AppendBinary(nil); err != nil {
			t.Fatalf("a decoded state does not encode: %v", err)
		}
	})
}
