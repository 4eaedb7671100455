package evalflags

import (
	"errors"
	"flag"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/config"
)

// settingsSet is the flag set of a settings test: Register's flags,
// --system, --unsorted and --config.
func settingsSet(c *config.Config, path *string) *flag.FlagSet {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	Register(fs, c)
	RegisterSources(fs, &c.Sources)
	fs.BoolVar(&c.Run.Unsorted, "unsorted", false, "")
	RegisterConfig(fs, path)
	fs.Bool("version", false, "")
	return fs
}

func TestReadSettings(t *testing.T) {
	tests := []struct {
		name, text string
		want       []Setting
		err        string // the message's end, "" for none
	}{
		{"flags, comments, blank lines", "# nightly\n\n--query-col qid\n  --metrics=ndcg@10,map  # trailing\n--unsorted\n",
			[]Setting{{Name: "query-col", Value: "qid", HasValue: true, Line: 3}, {Name: "metrics", Value: "ndcg@10,map", HasValue: true, Line: 4}, {Name: "unsorted", Line: 5}}, ""},
		{"double-quoted value with spaces", `--query-col "query id" ` + "\n" + `-m "a\"b\\c"`,
			[]Setting{{Name: "query-col", Value: "query id", HasValue: true, Line: 1}, {Name: "m", Value: `a"b\c`, HasValue: true, Line: 2}}, ""},
		{"single-quoted value", "--label-col 'my # label'",
			[]Setting{{Name: "label-col", Value: "my # label", HasValue: true, Line: 1}}, ""},
		{"boolean with a value", "--unsorted=false", []Setting{{Name: "unsorted", Value: "false", HasValue: true, Line: 1}}, ""},
		{"CRLF", "--ties trec\r\n", []Setting{{Name: "ties", Value: "trec", HasValue: true, Line: 1}}, ""},
		{"unknown flag", "\n--bogus 1\n", nil, "s.conf:2: bad settings file: unknown flag --bogus"},
		{"not a flag", "query-col qid", nil, `s.conf:1: bad settings file: "query-col" is not a flag (write one flag a line, as --query-col qid)`},
		{"two flags a line", "--ties trec --gain linear", nil, `s.conf:1: bad settings file: "--gain" after --ties: one flag a line (quote a value with spaces)`},
		{"missing value", "--ties", nil, "s.conf:1: bad settings file: --ties needs a value"},
		{"boolean with a word", "--unsorted yes", nil, `s.conf:1: bad settings file: "yes" after --unsorted: one flag a line (quote a value with spaces)`},
		{"open quote", `--query-col "qid`, nil, "s.conf:1: bad settings file: a double quote is not closed"},
		{"--config in a file", "--config other", nil, "s.conf:1: bad settings file: --config cannot be given in a settings file"},
		{"--version in a file", "--version", nil, "s.conf:1: bad settings file: --version cannot be given in a settings file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, path := config.Default(), ""
			got, err := ReadSettings("s.conf", strings.NewReader(tc.text), settingsSet(&c, &path))
			if tc.err != "" {
				if err == nil || err.Error() != tc.err || !errors.Is(err, config.ErrUsage) || !errors.Is(err, ErrSettings) {
					t.Fatalf("error %v, want %q (a usage error)", err, tc.err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func TestParseSettings(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.conf")
	os.WriteFile(file, []byte("--query-col qid\n-m ndcg@10\n--metrics map\n--system a=x.jsonl\n--system b=y.jsonl\n--unsorted\n"), 0o644)
	bad := filepath.Join(dir, "bad.conf")
	os.WriteFile(bad, []byte("--ties nonsense-is-checked-later\n--max-grade four\n"), 0o644)
	env := func(v string) func(string) string {
		return func(name string) string {
			if name == ConfigEnv {
				return v
			}
			return ""
		}
	}
	at := func(line string) string { return "file:" + file + ":" + line }
	tests := []struct {
		name    string
		args    []string
		env     string
		metrics string
		query   string
		systems []string
		origins map[string]string
		err     string
	}{
		{"no file", []string{"-m", "map", "in"}, "", "map", "query_id", nil, map[string]string{"metrics": FromCommandLine}, ""},
		{"the file's settings", []string{"--config", file, "in"}, "", "ndcg@10,map", "qid", []string{"a=x.jsonl", "b=y.jsonl"},
			map[string]string{"config": FromCommandLine, "query-col": at("1"), "metrics": at("2"), "system": at("4"), "unsorted": at("6")}, ""},
		{"the command line overrides, -m replacing the file's lists", []string{"in", "--metrics", "mrr", "-m", "p@5", "--query-col=q", "--system", "c=z", "--config", file}, "", "mrr,p@5", "q", []string{"c=z"},
			map[string]string{"config": FromCommandLine, "query-col": FromCommandLine, "metrics": FromCommandLine, "system": FromCommandLine, "unsorted": at("6")}, ""},
		{"named by the environment", []string{"in"}, file, "ndcg@10,map", "qid", []string{"a=x.jsonl", "b=y.jsonl"},
			map[string]string{"config": FromEnvironment, "query-col": at("1"), "metrics": at("2"), "system": at("4"), "unsorted": at("6")}, ""},
		{"--config overrides the environment", []string{"--config", file, "in"}, bad, "ndcg@10,map", "qid", []string{"a=x.jsonl", "b=y.jsonl"},
			map[string]string{"config": FromCommandLine, "query-col": at("1"), "metrics": at("2"), "system": at("4"), "unsorted": at("6")}, ""},
		{"--config '' reads none", []string{"--config", "", "in"}, file, config.DefaultMetrics, "query_id", nil, map[string]string{}, ""},
		{"--version reads no file", []string{"--version", "in"}, bad, config.DefaultMetrics, "query_id", nil, map[string]string{"version": FromCommandLine, "config": FromEnvironment}, ""},
		{"a bad value names its line", []string{"in"}, bad, "", "", nil, nil, bad + `:2: bad settings file: invalid value "four" for --max-grade: parse error`},
		{"a missing file", []string{"--config", filepath.Join(dir, "none"), "in"}, "", "", "", nil, nil, "--config " + `"` + filepath.Join(dir, "none") + `": open ` + filepath.Join(dir, "none") + ": no such file or directory"},
		{"a missing file named by the environment", []string{"in"}, filepath.Join(dir, "none"), "", "", nil, nil, "RANKEVAL_CONFIG " + `"` + filepath.Join(dir, "none") + `": open ` + filepath.Join(dir, "none") + ": no such file or directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, path := config.Default(), ""
			pos, origins, err := ParseSettings(settingsSet(&c, &path), tc.args, env(tc.env))
			if tc.err != "" {
				if err == nil || err.Error() != tc.err || !errors.Is(err, config.ErrUsage) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(pos, []string{"in"}) || c.Metrics != tc.metrics || c.Columns.Query != tc.query || !slices.Equal(c.Sources.System, tc.systems) || !maps.Equal(origins, tc.origins) {
				t.Fatalf("pos %q metrics %q query-col %q systems %q origins %v;\nwant metrics %q query-col %q systems %q origins %v",
					pos, c.Metrics, c.Columns.Query, c.Sources.System, origins, tc.metrics, tc.query, tc.systems, tc.origins)
			}
		})
	}
}
