package summary

import (
	"math"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/reader"
)

func TestFormats(t *testing.T) {
	ms, err := metrics.ParseList("map,ndcg@10")
	if err != nil {
		t.Fatal(err)
	}
	run := &Run{Metrics: ms, Options: metrics.DefaultOptions(),
		Columns: reader.Columns{Query: "q", Score: "s", Label: "l"}}
	set := aggregate.NewSet(2)
	set.AddQuery(3, []float64{0.5, 1}, false)
	set.AddQuery(2, []float64{1, math.NaN()}, false)
	set.AddQuery(4, []float64{math.NaN(), math.NaN()}, true)
	tests := []struct{ format, want string }{
		{"json", `{
  "metrics": {
    "map": {"mean": 0.75, "queries": 2, "ci95": [0.2600090038649865, 1.2399909961350135]},
    "ndcg@10": {"mean": 1, "queries": 1, "ci95": null}
  },
  "rows": 9,
  "queries": {"total": 3, "empty": 1},
  "options": {"ties": "input", "gain": "exp", "max_grade": 4, "rel_threshold": null, "empty": "skip", "dedup": "error", "profile": null, "score_precision": "float64", "query_col": "q", "doc_col": null, "score_col": "s", "label_col": "l", "rank_col": null},
  "rankeval": {"version": "", "inputs": []}
}
`},
		{"text", `metric       mean  95% CI                 queries
map        0.7500  [0.2600, 1.2400]             2
ndcg@10    1.0000  -                            1

9 rows, 3 queries, 1 with no relevant row (left out).
ties input, gain exp, max grade 4, relevant: label > 0.
`},
		{"trec", "num_q                 \tall\t3\nmap                   \tall\t0.7500\nndcg_cut_10           \tall\t1.0000\n"},
	}
	for _, tc := range tests {
		t.Run(tc.format, func(t *testing.T) {
			if got := string(FromSet(run, set).Format(tc.format)); got != tc.want {
				t.Fatalf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestGatesAndDedup(t *testing.T) {
	ms, _ := metrics.ParseList("map")
	set := aggregate.NewSet(1)
	set.AddQuery(3, []float64{0.25}, false)
	set.Dropped = 2
	run := &Run{Metrics: ms, Options: metrics.DefaultOptions(), Columns: reader.Columns{Query: "q", Score: "s", Label: "l"},
		DedupFirst: true, Gates: &Gates{Checks: []GateCheck{{Name: "map", Min: 0.5, Mean: 0.25}}, FailOnEmpty: true}}
	j := string(FromSet(run, set).JSON())
	for _, want := range []string{
		`"duplicates_dropped": 2`, `"dedup": "first"`,
		`"gates": {"passed": false, "checks": [{"metric": "map", "min": 0.5, "mean": 0.25, "passed": false}], "fail_on_empty": true, "empty": false}`,
	} {
		if !strings.Contains(j, want) {
			t.Errorf("JSON lacks %s:\n%s", want, j)
		}
	}
	txt := string(FromSet(run, set).Text())
	for _, want := range []string{"2 rows dropped as repeats", "gate map >= 0.5: FAILED (mean 0.2500)"} {
		if !strings.Contains(txt, want) {
			t.Errorf("text lacks %q:\n%s", want, txt)
		}
	}
}
