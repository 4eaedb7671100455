package evalflags

import (
	"flag"
	"io"
	"slices"
	"testing"

	"github.com/rankeval/rankeval/config"
)

func TestParseFlagsAnywhere(t *testing.T) {
	tests := []struct {
		name         string
		args         []string
		pos          []string
		metrics, out string
		quiet        bool
	}{
		{"flags first", []string{"-m", "map", "--quiet", "a", "b"}, []string{"a", "b"}, "map", "", true},
		{"flags after inputs", []string{"a", "-m", "ndcg@10", "b", "--quiet"}, []string{"a", "b"}, "ndcg@10", "", true},
		{"value that looks like a flag", []string{"--output", "-", "a"}, []string{"a"}, config.DefaultMetrics, "-", false},
		{"value with =", []string{"a", "--metrics=p@5", "--output=x"}, []string{"a"}, "p@5", "x", false},
		{"standard input", []string{"-", "--quiet"}, []string{"-"}, config.DefaultMetrics, "", true},
		{"-- ends flags", []string{"--quiet", "--", "-odd", "--metrics"}, []string{"-odd", "--metrics"}, config.DefaultMetrics, "", true},
		{"none", nil, nil, config.DefaultMetrics, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			v := config.Default()
			Register(fs, &v)
			out := fs.String("output", "", "")
			quiet := fs.Bool("quiet", false, "")
			pos, err := Parse(fs, tc.args)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(pos, tc.pos) || v.Metrics != tc.metrics || *out != tc.out || *quiet != tc.quiet {
				t.Fatalf("pos %q metrics %q output %q quiet %v", pos, v.Metrics, *out, *quiet)
			}
		})
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	Register(fs, new(config.Config))
	if _, err := Parse(fs, []string{"a", "--nope"}); err == nil {
		t.Fatal("an unknown flag after an input was accepted")
	}
}
