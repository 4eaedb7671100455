package evalflags

import (
	"errors"
	"flag"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/summary"
)

// TestSources: the source flags as both commands check them, and what the
// summary says of them.
func TestSources(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		inputs  []string
		systems []string
		logs    [][]string
		err     string // a usage error containing this
	}{
		{"one log", nil, []string{"a"}, nil, nil, ""},
		{"two systems", []string{"--system", "x=a", "--system", "y=b"}, nil, []string{"x", "y"}, [][]string{{"a"}, {"b"}}, ""},
		{"missing zero", []string{"--system", "x=a", "--system", "y=b", "--missing", "zero"}, nil, []string{"x", "y"}, [][]string{{"a"}, {"b"}}, ""},
		{"score columns", []string{"--score-col", "s,t"}, []string{"a"}, []string{"s", "t"}, nil, ""},
		{"trec", []string{"--qrels", "q", "--complete"}, []string{"run"}, nil, nil, ""},
		{"one system", []string{"--system", "x=a"}, nil, nil, nil, "give two or more"},
		{"systems and inputs", []string{"--system", "x=a", "--system", "y=b"}, []string{"c"}, nil, nil, "not both"},
		{"no path", []string{"--system", "x", "--system", "y=b"}, nil, nil, nil, `"x": want NAME=PATH`},
		{"named twice", []string{"--system", "x=a", "--system", "x=b"}, nil, nil, nil, `system "x" is named twice`},
		{"systems and score columns", []string{"--system", "x=a", "--system", "y=b", "--score-col", "s,t"}, nil, nil, nil, "give one --score-col"},
		{"complete and systems", []string{"--system", "x=a", "--system", "y=b", "--qrels", "q", "--complete"}, nil, nil, nil, "use --missing zero"},
		{"complete without qrels", []string{"--complete"}, []string{"a"}, nil, nil, "--complete needs --qrels"},
		{"missing zero of one log", []string{"--missing", "zero"}, []string{"a"}, nil, nil, "applies to --system logs"},
		{"missing what", []string{"--system", "x=a", "--system", "y=b", "--missing", "skip"}, nil, nil, nil, `--missing "skip": want error or zero`},
		{"slices of a trec run", []string{"--qrels", "q", "--by", "market"}, []string{"run"}, nil, nil, "--by cannot slice TREC runs"},
		{"trec layout of systems", []string{"--system", "x=a", "--system", "y=b", "--format", "trec"}, nil, nil, nil, "--format trec has no place"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			v, src := Register(fs), RegisterSources(fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			s, err := v.Finish(fs)
			if err != nil {
				t.Fatal(err)
			}
			logs, err := src.Apply(s, tc.inputs)
			if tc.err != "" {
				if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want a usage error with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(s.Rules.Systems, tc.systems) || !slices.EqualFunc(logs, tc.logs, slices.Equal) {
				t.Fatalf("systems %q logs %q", s.Rules.Systems, logs)
			}
		})
	}
}

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
