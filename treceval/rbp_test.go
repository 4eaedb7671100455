package treceval

import (
	"testing"

	"github.com/rankeval/rankeval/metrics"
)

// TestRBPSharedWithOrdinaryCommand: trec_eval's rbp.p=P and rbp_resid.p=P
// (and their default p, 0.9) are the very metrics the ordinary command's
// rbp:P and rbp_resid:P name, so one computation gives both.
func TestRBPSharedWithOrdinaryCommand(t *testing.T) {
	for _, tc := range []struct{ measure, param, ordinary string }{
		{"rbp", "p=0.8", "rbp:0.8"},
		{"rbp", "", "rbp:0.9"},
		{"rbp_resid", "p=0.95", "rbp_resid:0.95"},
		{"rbp_resid", "", "rbp_resid:0.9"},
	} {
		t.Run(tc.ordinary, func(t *testing.T) {
			var tm *metrics.TrecMeasure
			for i := range metrics.TrecMeasures {
				if metrics.TrecMeasures[i].Name == tc.measure {
					tm = &metrics.TrecMeasures[i]
				}
			}
			vs, err := initOf(tm)(&initContext{release: "10.0"}, tc.param)
			if err != nil || len(vs) != 1 || len(vs[0].metrics) != 1 {
				t.Fatalf("%v %v", vs, err)
			}
			want, err := metrics.Parse(tc.ordinary)
			if err != nil {
				t.Fatal(err)
			}
			if got := vs[0].metrics[0]; !got.Same(want) {
				t.Fatalf("drop-in %+v, ordinary %+v", got, want)
			}
		})
	}
}
