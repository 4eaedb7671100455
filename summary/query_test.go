package summary

import (
	"math"
	"testing"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/metrics"
)

// TestQueryJSONPeerMetrics: a query that is empty under the run's
// conventions (no row relevant by --rel-threshold) is not empty for a
// measure named in ir_measures' syntax, which has its provider's: its
// record holds the value the summary counts, not null. A peer metric that
// is undefined (NaN) is still null.
func TestQueryJSONPeerMetrics(t *testing.T) {
	ms, err := metrics.ParseList("ndcg@10,nDCG@10,ERR@20")
	if err != nil {
		t.Fatal(err)
	}
	c := &Run{Metrics: ms}
	q := &aggregate.Query{Slice: -1, Rows: []int{3}, Vals: [][]float64{{0, 0.4415, math.NaN()}},
		Empty: []bool{true}, Missing: []bool{false}}
	got := string(c.appendQueryJSON(nil, []byte("122"), nil, q))
	want := `{"query_id":"122","ndcg@10":null,"nDCG@10":0.4415,"ERR@20":null}` + "\n"
	if got != want {
		t.Errorf("record\n got %s\nwant %s", got, want)
	}
}

// TestNoteConventionsIRMeasures: the note that the run's conventions
// differ from trec_eval's concerns the metrics that follow them; a run
// whose every metric is named in ir_measures' syntax (each under its
// provider's conventions) gets none, one with a rankeval name beside
// them does.
func TestNoteConventionsIRMeasures(t *testing.T) {
	for _, c := range []struct {
		list string
		note bool
	}{
		{"nDCG@10,P(rel=2)@5,ERR@20", false},
		{"nDCG@10,ndcg@10", true},
		{"ndcg@10", true},
	} {
		ms, err := metrics.ParseList(c.list)
		if err != nil {
			t.Fatal(err)
		}
		r := &Run{Metrics: ms, Qrels: "q.txt", Options: metrics.DefaultOptions()}
		if got := r.NoteConventions(); (got != "") != c.note {
			t.Errorf("%s: note %q, want one: %v", c.list, got, c.note)
		}
	}
}
