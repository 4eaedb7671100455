// Package config holds every setting of a rankeval run as plain data
// (Config), its defaults (Default), the peer tools' profiles, and the one
// function that checks the settings and resolves them into the rules the
// pipeline applies (Resolve, Prepare). The command line's flags
// (package evalflags), rankeval-beam's launcher and workers, a saved
// state's header and the trec_eval drop-in all make a Config and resolve
// it here, so each setting's default, checks and messages exist once.
//
// A setting is named as its flag is (ties, max-grade, score-col): an
// error about one is a *SettingError naming it, which errors.Is matches
// with ErrUsage.
package config

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/objstore"
	"github.com/rankeval/rankeval/pipeline"
	"github.com/rankeval/rankeval/reader"
)

// ErrUsage is wrapped by every error that corrected settings fix.
var ErrUsage = errors.New("usage error")

// SettingError is a setting that cannot be used as given. Setting is the
// setting's name (its flag's, without dashes: "ties"), "" when the error
// is about several together; the message names them as a user typed them.
type SettingError struct {
	Setting string
	Err     error
}

func (e *SettingError) Error() string        { return e.Err.Error() }
func (e *SettingError) Unwrap() error        { return e.Err }
func (e *SettingError) Is(target error) bool { return target == ErrUsage }

// Usagef makes a usage error (ErrUsage) with the message as given: a
// *SettingError naming the setting the message starts with ("--ties ..."),
// or none.
func Usagef(format string, a ...any) error {
	err := fmt.Errorf(format, a...)
	name := ""
	if msg, ok := strings.CutPrefix(err.Error(), "--"); ok {
		name = msg
		if i := strings.IndexAny(msg, " :=,"); i >= 0 {
			name = msg[:i]
		}
	}
	return &SettingError{Setting: name, Err: err}
}

// usage marks err, which names what it is about, as a usage error.
func usage(err error) error { return &SettingError{Err: err} }

// DefaultMetrics are the metrics computed when none are named.
const DefaultMetrics = "map,mrr,ndcg@10,err@10,p@10,r@10"

// Config is every setting of a run, as a user gives them: strings as typed
// on the command line (a size as "256MiB", a list comma-separated), so
// that a distributed runner ships a Config to its workers as data and
// each resolves it exactly as the launcher did. Default gives the
// command line's defaults; the zero value of a field documented so means
// its default too.
type Config struct {
	// Metrics is the comma-separated list of metrics (DefaultMetrics).
	Metrics      string
	Ties         string
	Gain         string
	MaxGrade     float64
	RelThreshold string
	Empty        string
	// Profile names a peer tool's conventions (trec_eval, trec_eval:9.0.8,
	// gdeval); ApplyProfile sets them, and records it in ProfileApplied:
	// Resolve refuses a Profile whose conventions were not set, which
	// would compute rankeval's conventions under a peer's name.
	Profile        string
	ProfileApplied string
	Dedup          string
	// MissingScore and MissingLabel say what a row without a score
	// (error, drop, last) or a label (error, drop, zero) means.
	MissingScore, MissingLabel string
	Format                     string
	// TableNames names metrics' columns and systems' rows in LaTeX and
	// Markdown tables: NAME=SHOWN, comma-separated (--table-names).
	TableNames  string
	InputFormat string
	// Delimiter separates the fields of CSV inputs: one character, "\t"
	// for a tab; "" is a comma, or under InputFormat auto what the header
	// is separated by. DecimalComma reads CSV and TSV numbers written
	// 0,75. Neither changes a figure, so a state does not record them.
	Delimiter    string
	DecimalComma bool
	// ReadTimeout bounds how long a read from object storage may receive
	// nothing (0: objstore.DefaultReadTimeout; below 0 refused).
	ReadTimeout  time.Duration
	Columns      reader.Columns
	MaxGroupRows int
	// MaxGroupBytes and MaxSliceBytes are sizes as typed (256MiB); ""
	// is the default (a state's header records neither: they bound
	// memory, not the figures).
	MaxGroupBytes string
	By            string
	MaxSlices     int
	MaxSliceBytes string
	Bootstrap     int
	// Pairs, Test, Permutations, Seed and Correction are how systems are
	// compared, as typed; Permutations 0 is the test's default.
	Pairs        string
	Test         string
	Permutations int
	Seed         uint64
	Correction   string
	// Detect asks, per metric, how many queries the comparisons need to
	// detect a difference: "ndcg@10=0.005,map=0.01" (summary.ParseDetect).
	// It changes no figure, so a state does not record it.
	Detect string
	// MaxGradeSet says that MaxGrade was chosen (by hand or by a
	// profile), so a run on 0/1 labels with ERR is not warned about it.
	MaxGradeSet bool
	// Clicks are the IPS estimates' settings (clicks.go).
	Clicks Clicks
	// Teams are the interleaving outcome's settings (teams.go).
	Teams Teams
	// Propensities are rankeval propensities' own settings
	// (propensities.go).
	Propensities Propensities
	// Sources say what is read besides the inputs: --system logs, TREC
	// qrels (sources.go).
	Sources Sources
	// Gates are the quality gates checked on the summary (gates.go).
	Gates Gates
	// Run is how the run goes: workers, batches, unsorted input,
	// progress; none of it changes a figure (run.go).
	Run Run
	// Outputs are the files a command writes (outputs.go).
	Outputs Outputs
	// Origins says where each setting given came from, by flag name
	// ("ties"): "command line", "file:PATH:LINE" for a settings file's
	// line, or, for the settings file itself ("config"), the environment
	// variable that named it. It is set when a settings file is read, for
	// the JSON summary; no figure depends on it.
	Origins map[string]string
}

// Default is the command line's defaults: what a run with no flag uses.
func Default() Config {
	return Config{
		Metrics:      DefaultMetrics,
		Ties:         "input",
		Gain:         "exp",
		MaxGrade:     4,
		Empty:        "skip",
		Dedup:        "error",
		MissingScore: "error",
		MissingLabel: "error",
		Format:       "text",
		InputFormat:  "auto",
		ReadTimeout:  objstore.DefaultReadTimeout,
		Columns:      reader.Columns{Query: "query_id", Doc: "doc_id", Score: "score", Label: "label"},
		MaxGroupRows: pipeline.DefaultMaxGroupRows,
		MaxSlices:    pipeline.DefaultMaxSlices,
		Pairs:        "baseline",
		Correction:   "holm",
		Clicks:       Clicks{PropensityClip: DefaultPropensityClip},
		Propensities: DefaultPropensities(),
		Sources:      Sources{Missing: "error"},
		Run:          DefaultRun(),
	}
}

// Run is how a run goes, apart from what it computes: every figure is the
// same bits whatever these are.
type Run struct {
	// Workers evaluate queries and decode each Parquet, Arrow or TREC run
	// file (0: one per CPU).
	Workers int
	// BatchSize is the rows of a read batch.
	BatchSize int
	// Unsorted accepts logs whose query ids are not contiguous: rows are
	// partitioned by query into spill files under TmpDir, within
	// MemLimit bytes.
	Unsorted bool
	TmpDir   string
	MemLimit int64
	// Quiet shows no progress; ProgressInterval is how often a progress
	// line is logged when the log is not a terminal.
	Quiet            bool
	ProgressInterval time.Duration
}

// MinMemLimit is the least Run.MemLimit.
const MinMemLimit = 16 << 20

// DefaultRun is the command line's defaults of Run.
func DefaultRun() Run {
	return Run{BatchSize: 8192, TmpDir: os.TempDir(), MemLimit: pipeline.DefaultMemLimit, ProgressInterval: 30 * time.Second}
}

// Check refuses what a run cannot go by.
func (r Run) Check() error {
	switch {
	case r.Workers < 0:
		return Usagef("--workers must be >= 0, --batch-size >= 1")
	case r.BatchSize < 1:
		return &SettingError{Setting: "batch-size", Err: errors.New("--workers must be >= 0, --batch-size >= 1")}
	case r.MemLimit < MinMemLimit:
		return &SettingError{Setting: "mem-limit", Err: fmt.Errorf("--mem-limit %d: want a size of at least 16MiB, as 256MiB or 2GiB", r.MemLimit)}
	case r.ProgressInterval <= 0:
		return Usagef("--progress-interval must be positive")
	}
	return nil
}

// Keep says what a run keeps besides the summary's figures: the report's
// (curves and histograms) and a state's (each input's digest).
type Keep struct{ Report, State bool }

// Keep is what c's outputs need kept.
func (c *Config) Keep() Keep {
	return Keep{Report: c.Outputs.Report != "", State: c.Outputs.State != ""}
}

// Outputs are the files a command writes besides standard output; ""
// writes none (and the summary to standard output). The library's
// Results write to any io.Writer instead.
type Outputs struct {
	Summary  string
	PerQuery string
	Report   string
	State    string
}

// Flags maps each output's flag to its path, for CheckOutputs.
func (o Outputs) Flags() map[string]string {
	return map[string]string{"--output": o.Summary, "--per-query": o.PerQuery, "--report": o.Report, "--state": o.State}
}

// profile sets every convention a peer tool uses at once; a setting given
// explicitly overrides its profile's value.
type profile struct {
	settings     map[string]string
	scoreFloat32 bool // trec_eval 9.0.8 stores scores as 32-bit floats (10.0 as doubles)
	iprecRound   bool // trec_eval 10.0 rounds x·R for iprec@x
	atolLabels   bool // trec_eval reads a qrels label with atol ("2.5" is 2)
}

var trecEvalSettings = metrics.PeerTrecEval.Settings()

// profiles: trec_eval is its newest release, 10.0; trec_eval:RELEASE names
// one (TrecReleases).
var profiles = map[string]profile{
	"trec_eval":       {settings: trecEvalSettings, iprecRound: true, atolLabels: true},
	"trec_eval:10.0":  {settings: trecEvalSettings, iprecRound: true, atolLabels: true},
	"trec_eval:9.0.8": {settings: trecEvalSettings, scoreFloat32: true, atolLabels: true},
	"gdeval":          {settings: metrics.PeerGdeval.Settings()},
}

// TrecReleases are the releases of trec_eval rankeval reproduces, the
// default (newest) first; they differ in iprec@x's rounding and in how
// they store scores (docs/trec_eval.md).
var TrecReleases = []string{"10.0", "9.0.8"}

func profileOf(name string) (profile, error) {
	p, ok := profiles[name]
	if !ok {
		return profile{}, Usagef("--profile %q: want trec_eval, trec_eval:10.0, trec_eval:9.0.8 or gdeval", name)
	}
	return p, nil
}

// ApplyProfile sets the conventions of c.Profile (none when it is "")
// that given does not report as given explicitly; given nil sets them
// all. It sets MaxGradeSet when the max grade is chosen.
func (c *Config) ApplyProfile(given func(setting string) bool) error {
	if given == nil {
		given = func(string) bool { return false }
	}
	c.MaxGradeSet = c.MaxGradeSet || given("max-grade")
	if c.Profile == "" {
		return nil
	}
	p, err := profileOf(c.Profile)
	if err != nil {
		return err
	}
	c.ProfileApplied = c.Profile
	for name, val := range p.settings {
		if given(name) {
			continue
		}
		switch name {
		case "ties":
			c.Ties = val
		case "gain":
			c.Gain = val
		case "empty":
			c.Empty = val
		case "rel-threshold":
			c.RelThreshold = val
		case "max-grade":
			fmt.Sscan(val, &c.MaxGrade)
			c.MaxGradeSet = true
		}
	}
	return nil
}

// SkipUnjudged says whether a TREC run's queries without judgments are
// left out, as the peer tools of the profiles do.
func (s *Settings) SkipUnjudged() bool { return s.Profile != "" }

// LogWriter is w, or io.Discard when w is nil.
func LogWriter(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}
