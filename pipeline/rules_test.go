package pipeline

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/reader"
)

func TestKeepFirst(t *testing.T) {
	tests := []struct {
		docs, want string // one letter a row; '.' = no doc id
	}{
		{"xxaba", "xab"},
		{"abc", "abc"},
		{"aaaa", "a"},
		{"..a.a", "..a."},
		{"abcabcd", "abcd"},
	}
	for _, tc := range tests {
		t.Run(tc.docs, func(t *testing.T) {
			q := &Group{}
			var docs [][]byte
			q.XScore = make([][]float64, 1)
			for i, c := range tc.docs {
				d := []byte{byte(c)}
				if c == '.' {
					d = nil
				}
				docs = append(docs, d)
				q.Label = append(q.Label, float64(i))
				q.Score = append(q.Score, float64(10*i))
				q.Where = append(q.Where, uint64(i))
				q.XScore[0] = append(q.XScore[0], float64(20*i)) // a second system's score column
			}
			dropped := newDocSet().keepFirst(q, &docs)
			var got []byte
			for _, d := range docs {
				if len(d) == 0 {
					got = append(got, '.')
				} else {
					got = append(got, d[0])
				}
			}
			if string(got) != tc.want || dropped != len(tc.docs)-len(tc.want) || len(q.XScore[0]) != len(docs) {
				t.Fatalf("kept %s (dropped %d), want %s", got, dropped, tc.want)
			}
			for k := range docs {
				if q.Score[k] != 10*q.Label[k] || q.XScore[0][k] != 20*q.Label[k] || q.Where[k] != uint64(q.Label[k]) {
					t.Fatalf("row %d columns out of step: label %v score %v where %v", k, q.Label[k], q.Score[k], q.Where[k])
				}
			}
		})
	}
}

// TestValidateRows: the quick pass over a run of rows lets no bad value
// through, wherever it sits, and the error names the first bad row.
func TestValidateRows(t *testing.T) {
	ms, err := metrics.ParseList("ndcg@10,err@10")
	if err != nil {
		t.Fatal(err)
	}
	v := (&Rules{Metrics: ms, Options: metrics.DefaultOptions(), Systems: []string{"a", "b"}}).NewTaker(nil)
	bad := []struct {
		name string
		set  func(b *reader.Batch, k int)
		want string
	}{
		{"NaN score", func(b *reader.Batch, k int) { b.Score[k] = math.NaN() }, "score is NaN"},
		{"infinite score", func(b *reader.Batch, k int) { b.Score[k] = math.Inf(-1) }, "score is -Inf"},
		{"infinite second score", func(b *reader.Batch, k int) { b.ExtraScore[0][k] = math.Inf(1) }, "score of b is +Inf"},
		{"NaN label", func(b *reader.Batch, k int) { b.Label[k] = math.NaN() }, "label is NaN"},
		{"infinite label", func(b *reader.Batch, k int) { b.Label[k] = math.Inf(1) }, "label is +Inf"},
		{"negative label", func(b *reader.Batch, k int) { b.Label[k] = -0.5 }, "label is -0.5"},
		{"label above the maximum grade", func(b *reader.Batch, k int) { b.Label[k] = 4.5 }, "label 4.5 is above the maximum grade 4"},
	}
	const n = 9
	fresh := func() *reader.Batch {
		b := &reader.Batch{Source: "in", N: n}
		for k := range n {
			b.Score = append(b.Score, float64(k)/3)
			b.Label = append(b.Label, float64(k%5))
			b.Rank = append(b.Rank, int64(k+1))
			b.Pos = append(b.Pos, int64(k+1))
		}
		b.ExtraScore = [][]float64{slices.Clone(b.Score)}
		return b
	}
	if err := v.Validate(fresh(), 0, n); err != nil {
		t.Fatalf("valid rows: %v", err)
	}
	b := fresh()
	b.Rank[0], b.Rank[4] = 0, -3 // ranks only order rows: 0-based positions are fine
	if err := v.Validate(b, 0, n); err != nil {
		t.Fatalf("ranks 0 and -3: %v", err)
	}
	b.Label[3] = -0.0 // -0 is a valid label
	if err := v.Validate(b, 0, n); err != nil {
		t.Fatalf("label -0: %v", err)
	}
	for _, c := range bad {
		for k := range n { // every row: the quick pass sums in four lanes and a tail
			t.Run(fmt.Sprintf("%s/row %d", c.name, k+1), func(t *testing.T) {
				b := fresh()
				c.set(b, k)
				err := v.Validate(b, 0, n)
				if want := fmt.Sprintf("in:%d: %s", k+1, c.want); err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("err = %v, want %q", err, want)
				}
				if !errors.Is(err, reader.ErrValue) {
					t.Errorf("err = %v, want reader.ErrValue", err)
				}
				// rows before the bad one pass
				if err := v.Validate(b, 0, k); err != nil {
					t.Errorf("rows before the bad one: %v", err)
				}
			})
		}
	}
}

// BenchmarkValidate checks a batch of 64Ki valid rows (two score columns).
func BenchmarkValidate(b *testing.B) {
	ms, err := metrics.ParseList("ndcg@10,err@10")
	if err != nil {
		b.Fatal(err)
	}
	v := (&Rules{Metrics: ms, Options: metrics.DefaultOptions()}).NewTaker(nil)
	const n = 1 << 16
	bt := &reader.Batch{Source: "in", N: n}
	for k := range n {
		bt.Score = append(bt.Score, float64(k)/3)
		bt.Label = append(bt.Label, float64(k%5))
		bt.Pos = append(bt.Pos, int64(k+1))
	}
	for b.Loop() {
		// runs of 100 rows, as the grouper validates a query at a time
		for i := 0; i < n; i += 100 {
			if err := v.Validate(bt, i, min(i+100, n)); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "rows/s")
}

// TestJudgmentOf: a row the qrels do not judge is Unjudged whatever its
// label; a judged row is Judged, or JudgedOut for a negative judgment
// (-0.0), which +0 is not. JudgmentOf computes the class as a sum of 0/1
// terms, relying on the constants' values: this holds it to their names.
func TestJudgmentOf(t *testing.T) {
	negZero := math.Copysign(0, -1)
	tests := []struct {
		found bool
		label float64
		want  metrics.Judgment
	}{
		{false, 0, metrics.Unjudged},
		{false, negZero, metrics.Unjudged},
		{false, 3, metrics.Unjudged},
		{true, 0, metrics.Judged},
		{true, 2, metrics.Judged},
		{true, negZero, metrics.JudgedOut},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%v/%v", tc.found, tc.label), func(t *testing.T) {
			if got := JudgmentOf(tc.found, tc.label); got != tc.want {
				t.Fatalf("JudgmentOf(%v, %v) = %v, want %v", tc.found, tc.label, got, tc.want)
			}
		})
	}
}

// TestAboveMaxGradeHint: a label above the maximum grade says what sets
// it: --max-grade for rankeval's err@k, gdeval's 4 for ir_measures'
// ERR@k, which --max-grade does not move.
func TestAboveMaxGradeHint(t *testing.T) {
	for _, c := range []struct {
		metrics  string
		maxGrade float64
		label    float64
		want     string
		not      string
	}{
		{"ERR@20", 10, 5, "label 5 is above the maximum grade 4 of gdeval, whose ERR@k and nDCG(dcg='exp-log2')@k ir_measures computes (gdeval refuses such a label", "set --max-grade"},
		{"err@20,ERR@20", 10, 5, "maximum grade 4 of gdeval", "set --max-grade"},
		{"nDCG(dcg='exp-log2')@10", 4, 5, "maximum grade 4 of gdeval", "set --max-grade"},
		{"err@20", 3, 3.5, "label 3.5 is above the maximum grade 3 that ERR uses (set --max-grade)", "gdeval"},
		{"err@20,ERR@20", 1, 2, "label 2 is above the maximum grade 1 that ERR uses (set --max-grade)", "gdeval"},
	} {
		t.Run(c.metrics, func(t *testing.T) {
			ms, err := metrics.ParseList(c.metrics)
			if err != nil {
				t.Fatal(err)
			}
			o := metrics.DefaultOptions()
			o.MaxGrade = c.maxGrade
			v := (&Rules{Metrics: ms, Options: o}).NewTaker(nil)
			b := &reader.Batch{Source: "in", N: 1, Score: []float64{1}, Label: []float64{c.label}, Rank: []int64{1}, Pos: []int64{1}}
			err = v.Validate(b, 0, 1)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), c.not) {
				t.Errorf("err = %v, want %q and not %q", err, c.want, c.not)
			}
		})
	}
}
