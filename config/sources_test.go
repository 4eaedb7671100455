package config

import (
	"os"
	"path/filepath"
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
		{"ir_measures", false, Left{Unseen: 2, IRMeasures: true},
			"cmd: 2 judged queries are missing from the run: ignored (--complete counts them as 0, as ir_measures does in its measures: add it to match ir_measures' means)\n"},
		// several runs refuse --complete: the note does not send the user to it
		{"several runs", false, Left{Unseen: 1},
			"cmd: 1 judged queries are missing from every run: ignored (--complete, which counts them as 0, takes a single run)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			src := Sources{Qrels: "q.txt", Complete: tc.complete}
			if tc.name == "several runs" {
				src.System = []string{"bm25=a.run", "dense=b.run"}
			}
			src.ReportLeft(&b, "cmd", "trec_eval", tc.left)
			if b.String() != tc.want {
				t.Fatalf("got %q, want %q", b.String(), tc.want)
			}
		})
	}
}

// TestRunSystems: several TREC runs become --system TAG=PATH, the tag of
// each run's last line, its path where tags repeat, are empty or hold '=',
// or where the tag cannot be read without consuming the input; one run,
// no --qrels, or --system given leave the inputs as they are.
func TestRunSystems(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bm25 := write("bm25.run", "1 Q0 a 1 2 first\n1 Q0 b 2 1 bm25\n\n")
	dense := write("dense.run", "1 Q0 a 1 2 dense\n")
	dense2 := write("dense2.run", "1 Q0 a 1 2 dense\n")
	eq := write("eq.run", "1 Q0 a 1 2 a=b\n")
	empty := write("empty.run", "")
	commented := write("c.run", "1 Q0 a 1 2 tagged\n# note x\n")
	eqPath := write("x=y.run", "1 Q0 a 1 2 r\n1 Q0 b 2 1 r\n")
	r2 := write("r2.run", "1 Q0 a 1 2 r\n")
	for _, tc := range []struct {
		name     string
		src      Sources
		inputs   []string
		want     []string // src.System
		left     []string
		errorHas string
	}{
		{"tags", Sources{Qrels: "q"}, []string{bm25, dense}, []string{"bm25=" + bm25, "dense=" + dense}, nil, ""},
		{"repeated tags", Sources{Qrels: "q"}, []string{bm25, dense, dense2}, []string{"bm25=" + bm25, dense + "=" + dense, dense2 + "=" + dense2}, nil, ""},
		{"tag with =, empty run, standard input, a directory", Sources{Qrels: "q"}, []string{eq, empty, "-", dir},
			[]string{eq + "=" + eq, empty + "=" + empty, "-=-", dir + "=" + dir}, nil, ""},
		{"comments", Sources{Qrels: "q", Comments: true}, []string{commented, dense}, []string{"tagged=" + commented, "dense=" + dense}, nil, ""},
		{"a path with = named by path", Sources{Qrels: "q"}, []string{eqPath, r2}, nil, nil, "holds '='"},
		{"one run", Sources{Qrels: "q"}, []string{bm25}, nil, []string{bm25}, ""},
		{"no qrels", Sources{}, []string{bm25, dense}, nil, []string{bm25, dense}, ""},
		{"--system given", Sources{Qrels: "q", System: []string{"a=x", "b=y"}}, []string{bm25, dense}, []string{"a=x", "b=y"}, []string{bm25, dense}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := tc.src
			left, err := src.RunSystems(tc.inputs)
			if tc.errorHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errorHas) {
					t.Fatalf("err = %v, want %q", err, tc.errorHas)
				}
				return
			}
			if err != nil || !slices.Equal(src.System, tc.want) || !slices.Equal(left, tc.left) {
				t.Fatalf("systems %q, inputs %q, %v; want %q, %q", src.System, left, err, tc.want, tc.left)
			}
		})
	}
}
