package config

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestPrepareReadTimeout: a negative read timeout is a usage error naming
// the setting, as Merge refuses it, rather than the default taken in its
// place; 0 is the default.
func TestPrepareReadTimeout(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    time.Duration
		ok   bool
	}{
		{"default", Default().ReadTimeout, true},
		{"zero is the default", 0, true},
		{"negative", -time.Second, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Default()
			c.ReadTimeout = tc.d
			_, err := c.Prepare([]string{"log.jsonl"})
			var se *SettingError
			switch {
			case tc.ok && err != nil:
				t.Fatalf("Prepare: %v", err)
			case !tc.ok && (!errors.Is(err, ErrUsage) || !errors.As(err, &se) || se.Setting != "read-timeout"):
				t.Fatalf("Prepare: %v; want a usage error about read-timeout", err)
			}
		})
	}
}

// TestResolveMissingScoreRankCol: with --rank-col, --missing-score last is
// refused with a message that does not send the user to a policy that also
// fails on a row without a rank (drop leaves a missing rank an error).
func TestResolveMissingScoreRankCol(t *testing.T) {
	c := Default()
	c.Columns.Rank = "rank"
	c.MissingScore = "last"
	_, err := c.Prepare([]string{"log.csv"})
	if !errors.Is(err, ErrUsage) {
		t.Fatalf("Prepare: %v; want a usage error", err)
	}
	if msg := err.Error(); strings.Contains(msg, "use --missing-score drop") || !strings.Contains(msg, "a row without a rank is an error") {
		t.Fatalf("Prepare: %q; want a message saying a missing rank is an error under every policy", msg)
	}
}

// TestCheckDetect: a --detect request that no comparison of the run
// answers is a usage error naming it, not a request silently left
// unanswered (or answered in other units than its table prints): any
// without two systems, under --format markdown or latex, on gm_map
// (whose comparison is of logarithms), and a rank similarity's unless
// --pairs all compares two candidates (its comparisons with the baseline
// have no difference).
func TestCheckDetect(t *testing.T) {
	for _, tc := range []struct {
		name, score, pairs, metrics, detect string
		err                                 string // "" for none
		format                              string
	}{
		{"markdown", "a,b", "baseline", "map", "map=0.01", "--format markdown prints a table of means", "markdown"},
		{"latex", "a,b", "baseline", "map", "map=0.01", "--format latex prints a table of means", "latex"},
		{"json", "a,b", "baseline", "map", "map=0.01", "", "json"},
		{"gm_map", "a,b", "baseline", "map,gm_map", "gm_map=0.01", "gm_map compares the mean logarithm of ap", ""},
		{"two systems", "a,b", "baseline", "map", "map=0.01", "", ""},
		{"one system", "a", "baseline", "map", "map=0.01", "--detect answers for a comparison of systems", ""},
		{"similarity, baseline pairs", "a,b,c", "baseline", "map,churn@3", "map=0.01,churn@3=0.05", "--detect: churn@3 is a rank similarity to the baseline", ""},
		{"similarity, all pairs of two", "a,b", "all", "churn@3", "churn@3=0.05", "--detect: churn@3 is a rank similarity to the baseline", ""},
		{"similarity, all pairs of three", "a,b,c", "all", "map,churn@3", "map=0.01,churn@3=0.05", "", ""},
		{"similarity not asked", "a,b", "baseline", "map,churn@3", "map=0.01", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Default()
			c.Columns.Score, c.Pairs, c.Metrics, c.Detect = tc.score, tc.pairs, tc.metrics, tc.detect
			if tc.format != "" {
				c.Format = tc.format
			}
			_, err := c.Prepare([]string{"log.jsonl"})
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("Prepare: %v", err)
			case tc.err != "" && (!errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("Prepare: %v; want a usage error %q", err, tc.err)
			}
		})
	}
}
