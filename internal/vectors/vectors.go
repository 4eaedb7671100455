// Package vectors finds the repository's test data and reads its metric
// vectors (testdata/vectors: logs with expected values under several
// option sets), so the tests of every command, path and module run the
// same cases the same way. testdata/vectors and testdata/reference (the
// peer tools' outputs) are copies of the project's shared folder, kept in
// the repository so that the tests never depend on it.
package vectors

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Module is the root module's path, whose folder holds testdata.
const Module = "github.com/rankeval/rankeval"

// Root is the root module's folder, found from the working directory by
// walking up to the go.mod that declares Module: go test runs a package's
// tests in the package's folder, in either module (dist/beam's go.mod
// declares another module and is passed over).
func Root() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; {
		if declares(filepath.Join(d, "go.mod"), Module) {
			return d, nil
		}
		up := filepath.Dir(d)
		if up == d {
			return "", fmt.Errorf("no go.mod of module %s in %s or above", Module, wd)
		}
		d = up
	}
}

// declares reports whether the go.mod at path declares module mod.
func declares(path, mod string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fs := strings.Fields(sc.Text()); len(fs) == 2 && fs[0] == "module" {
			return strings.Trim(fs[1], `"`) == mod
		}
	}
	return false
}

// Testdata is the repository's testdata folder: testdata/vectors holds
// the metric vectors (Load reads them), testdata/reference the peer
// tools' TREC runs, qrels and outputs. It is an error, never a reason to
// skip, when they are missing.
func Testdata() (string, error) {
	root, err := Root()
	if err != nil {
		return "", err
	}
	d := filepath.Join(root, "testdata")
	for _, sub := range []string{"vectors", "reference"} {
		if _, err := os.Stat(filepath.Join(d, sub)); err != nil {
			return "", errors.Join(fmt.Errorf("test data missing from the repository (%s)", sub), err)
		}
	}
	return d, nil
}

// Options is one option set of a vector file, named as
// testdata/vectors/README.md names them.
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
