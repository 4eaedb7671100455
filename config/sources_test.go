package config

import (
	"slices"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/summary"
)

func TestSourcesDescribe(t *testing.T) {
	src := &Sources{Missing: "zero", Qrels: "q", Complete: true}
	run := summary.Run{Systems: []string{"new", "base"}, SkipUnjudged: true}
	src.Describe(&run, nil, [][]string{{"n2", "n1"}, {"b1"}})
	if want := []string{"base=b1", "new=n1", "new=n2"}; !slices.Equal(run.Inputs, want) || run.Missing != "zero" || run.Qrels != "q" || !run.Complete || !run.SkipUnjudged {
		t.Fatalf("%+v", run)
	}
	run = summary.Run{SkipUnjudged: true}
	(&Sources{Missing: "error"}).Describe(&run, []string{"b", "a"}, nil)
	if !slices.Equal(run.Inputs, []string{"a", "b"}) || run.Missing != "" || run.SkipUnjudged {
		t.Fatalf("%+v", run)
	}
}

// TestReportLeft: the notes on what a TREC join left out, in the order
// rankeval prints them, none for a count of 0.
func TestReportLeft(t *testing.T) {
	for _, tc := range []struct {
		name     string
		complete bool
		left     Left
		want     string
	}{
		{"nothing", false, Left{}, ""},
		{"both", false, Left{UnjudgedQueries: 8, UnjudgedRows: 207, Unseen: 1},
			"cmd: 8 run queries (207 rows) have no judgments in q.txt and were ignored, as trec_eval does\n" +
				"cmd: 1 judged queries are missing from the run: ignored (--complete counts them as 0)\n"},
		{"complete", true, Left{Unseen: 2}, "cmd: 2 judged queries are missing from the run: counted as 0 (--complete)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			src := Sources{Qrels: "q.txt", Complete: tc.complete}
			src.ReportLeft(&b, "cmd", "trec_eval", tc.left)
			if b.String() != tc.want {
				t.Fatalf("got %q, want %q", b.String(), tc.want)
			}
		})
	}
}
