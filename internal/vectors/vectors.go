// Package vectors reads the shared test vectors (shared/vectors beside the
// repository: logs with expected values under several option sets), so
// the tests of every command and path run the same cases the same way.
package vectors

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Options is one option set of a vector file, as SPEC names them.
type Options struct {
	Empty        string   `json:"empty"`
	Gain         string   `json:"gain"`
	MaxGrade     float64  `json:"max_grade"`
	RelThreshold *float64 `json:"rel_threshold"`
	Ties         string   `json:"ties"`
}

// Args are the rankeval flags of o.
func (o Options) Args() []string {
	args := []string{"--ties", o.Ties, "--gain", o.Gain, "--empty", o.Empty, "--max-grade", strconv.FormatFloat(o.MaxGrade, 'g', -1, 64)}
	if o.RelThreshold != nil {
		args = append(args, "--rel-threshold", strconv.FormatFloat(*o.RelThreshold, 'g', -1, 64))
	}
	return args
}

// Name names o for a subtest.
func (o Options) Name() string {
	s := fmt.Sprintf("ties=%s,gain=%s,empty=%s,G=%g", o.Ties, o.Gain, o.Empty, o.MaxGrade)
	if o.RelThreshold != nil {
		s += fmt.Sprintf(",T=%g", *o.RelThreshold)
	}
	return s
}

// Case is an option set with the values expected under it.
type Case struct {
	Options  Options                        `json:"options"`
	PerQuery map[string]map[string]*float64 `json:"per_query"`
	Summary  map[string]struct {
		Mean    *float64 `json:"mean"`
		Queries int64    `json:"queries"`
	} `json:"summary"`
}

// File is one CASE.expected.json: its log, its metrics, its cases.
type File struct {
	Name    string   `json:"-"` // CASE
	Log     string   `json:"-"` // the log's path
	Input   string   `json:"input"`
	Metrics []string `json:"metrics"`
	Cases   []Case   `json:"cases"`
}

// Load reads every *.expected.json of dir, in name order.
func Load(dir string) ([]File, error) {
	paths, _ := filepath.Glob(filepath.Join(dir, "*.expected.json"))
	if len(paths) == 0 {
		return nil, fmt.Errorf("no *.expected.json in %s", dir)
	}
	var out []File
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var f File
		if err := json.Unmarshal(data, &f); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		f.Name = strings.TrimSuffix(filepath.Base(p), ".expected.json")
		if f.Input == "" {
			f.Input = f.Name + ".jsonl"
		}
		f.Log = filepath.Join(dir, f.Input)
		out = append(out, f)
	}
	return out, nil
}

// provenance matches a JSON summary's "rankeval" member: the version and
// the inputs, which differ between runs that read the same rows from
// different files.
var provenance = regexp.MustCompile(`,\n  "rankeval": \{[^\n]*\}\n`)

// SummaryBody is a summary without its provenance, for tests that compare
// runs over different files of the same rows.
func SummaryBody(summary string) string { return provenance.ReplaceAllString(summary, "\n") }
