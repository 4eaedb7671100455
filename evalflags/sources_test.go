package evalflags

import (
	"errors"
	"flag"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/config"
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
		{"complete and systems", []string{"--system", "x=a", "--system", "y=b", "--qrels", "q", "--complete"}, nil, nil, nil, "--missing zero counts a query that some of the systems lack"},
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
			c := config.Default()
			f := Register(fs, &c)
			RegisterSources(fs, &c.Sources)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			if err := f.Finish(); err != nil {
				t.Fatal(err)
			}
			s, err := c.Resolve()
			if err != nil {
				t.Fatal(err)
			}
			logs, err := c.Sources.Apply(s, tc.inputs)
			if tc.err != "" {
				if !errors.Is(err, config.ErrUsage) || !strings.Contains(err.Error(), tc.err) {
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
