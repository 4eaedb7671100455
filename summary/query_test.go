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

// TestTableNamesIRMeasures: --table-names keys may be measures in
// ir_measures' syntax, whose '=' and ',' sit inside parentheses; a key
// names the metric Index finds (ir_measures' names in their own case
// only), so ndcg@10=Ours renames rankeval's ndcg@10, not nDCG@10 beside
// it.
func TestTableNamesIRMeasures(t *testing.T) {
	names, err := ParseTableNames("P(rel=2)@2=P2, SetF(rel=2,beta=0.5)=F,ndcg@10=Ours")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"P(rel=2)@2": "P2", "SetF(rel=2,beta=0.5)": "F", "ndcg@10": "Ours"}
	if len(names) != len(want) {
		t.Fatalf("ParseTableNames = %v, want %v", names, want)
	}
	for k, v := range want {
		if names[k] != v {
			t.Errorf("ParseTableNames[%q] = %q, want %q", k, names[k], v)
		}
	}
	ms, err := metrics.ParseList("nDCG@10,ndcg@10,P(rel=2)@2,SetF(rel=2,beta=0.5)")
	if err != nil {
		t.Fatal(err)
	}
	c := &Run{Metrics: ms, TableNames: names}
	if err := c.CheckTableNames(); err != nil {
		t.Fatal(err)
	}
	for i, w := range []string{"nDCG@10", "Ours", "P2", "F"} {
		if got := c.ColumnName(i); got != w {
			t.Errorf("column %d (%s): %q, want %q", i, ms[i].Name, got, w)
		}
	}
	own, _ := metrics.ParseList("ndcg@10")
	if err := (&Run{Metrics: own, TableNames: map[string]string{"NDCG@10": "x"}}).CheckTableNames(); err == nil {
		t.Error("NDCG@10 (ir_measures') names rankeval's ndcg@10: want an error")
	}
}
