package report

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestTicks(t *testing.T) {
	tests := []struct {
		lo, hi float64
		n      int
		want   string
	}{
		{0, 1, 5, "[0 0.2 0.4 0.6 0.8 1]"},
		{-0.013, 0.08, 7, "[0 0.02 0.04 0.06 0.08]"},
		{-0.031, 0.08, 7, "[-0.02 0 0.02 0.04 0.06 0.08]"},
		{0, 37.8, 5, "[0 10 20 30]"},
		{0.5, 0.5, 5, "[0.5]"},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.lo, tc.hi), func(t *testing.T) {
			if got := fmt.Sprint(ticks(tc.lo, tc.hi, tc.n)); got != tc.want {
				t.Fatalf("ticks = %s, want %s", got, tc.want)
			}
		})
	}
	if tickLabel(math.Copysign(0, -1)) != "0" {
		t.Fatal("negative zero tick printed with a sign")
	}
}

// TestWriteEscapes feeds names and slice values from the data (which a log
// controls) with markup in them: they must come out as text.
func TestWriteEscapes(t *testing.T) {
	nan := math.NaN()
	st := Stat{Mean: 0.5, N: 3, CI: Interval{0.4, 0.6}, Boot: Interval{nan, nan}}
	d := &Data{
		Title:     "t",
		Metrics:   []string{"ndcg@10"},
		Systems:   []System{{Name: "<b>sys</b>", Stats: []Stat{st}, Hists: [][]Bin{{{0, 0.5, 1}, {0.5, 1, 2}}}}},
		SliceCols: []string{"market"},
		Slices:    []Slice{{Key: []string{`<script>alert("x")</script>`}, Queries: 3, Stats: [][]Stat{{st}}}},
	}
	var buf bytes.Buffer
	if err := Write(&buf, d); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, `<script>alert`) || strings.Contains(out, "<b>sys</b>") {
		t.Fatal("data written as markup")
	}
	for _, want := range []string{"&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;", "&lt;b&gt;sys&lt;/b&gt;", "<td>0.5000</td>", "[0.4000, 0.6000]",
		`aria-label="histogram of per-query ndcg@10"`, "[0.5, 1): 2 queries"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
}
