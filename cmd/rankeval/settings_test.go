package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSettingsFile: a settings file holds flags as the command line does,
// the command line overrides it, RANKEVAL_CONFIG names it, and the JSON
// summary says where each setting given came from.
func TestSettingsFile(t *testing.T) {
	t.Setenv("RANKEVAL_CONFIG", "")
	dir := t.TempDir()
	log := filepath.Join(dir, "log.jsonl")
	os.WriteFile(log, []byte(strings.ReplaceAll(twoQueries, `"query_id"`, `"qid"`)), 0o644)
	conf := filepath.Join(dir, "nightly.conf")
	os.WriteFile(conf, []byte("# nightly evaluation\n--query-col qid\n\n--metrics ndcg@10,map\n--format json   # for jq\n--quiet\n"), 0o644)
	type summary struct {
		Metrics  map[string]json.RawMessage `json:"metrics"`
		Settings map[string]string          `json:"settings"`
	}
	parse := func(t *testing.T, out string) summary {
		var s summary
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return s
	}
	t.Run("--config", func(t *testing.T) {
		code, out, stderr := cli(t, "--config", conf, log)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		s := parse(t, out)
		want := map[string]string{"config": "command line", "query-col": "file:" + conf + ":2", "metrics": "file:" + conf + ":4", "format": "file:" + conf + ":5", "quiet": "file:" + conf + ":6"}
		if len(s.Metrics) != 2 || s.Metrics["map"] == nil || len(s.Settings) != len(want) {
			t.Fatalf("metrics %v settings %v", s.Metrics, s.Settings)
		}
		for k, v := range want {
			if s.Settings[k] != v {
				t.Errorf("settings[%s] = %q, want %q", k, s.Settings[k], v)
			}
		}
	})
	t.Run("the command line overrides; -m replaces the file's list", func(t *testing.T) {
		t.Setenv("RANKEVAL_CONFIG", conf)
		code, out, stderr := cli(t, log, "-m", "mrr")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		s := parse(t, out)
		if len(s.Metrics) != 1 || s.Metrics["mrr"] == nil || s.Settings["metrics"] != "command line" || s.Settings["config"] != "environment RANKEVAL_CONFIG" {
			t.Fatalf("metrics %v settings %v", s.Metrics, s.Settings)
		}
	})
	t.Run("no settings object without a file", func(t *testing.T) {
		code, out, _ := cli(t, "--quiet", "--query-col", "qid", "--format", "json", log)
		if code != 0 || strings.Contains(out, `"settings"`) {
			t.Fatalf("exit %d\n%s", code, out)
		}
	})
	bad := filepath.Join(dir, "bad.conf")
	os.WriteFile(bad, []byte("--query-col qid\n--bogus 1\n"), 0o644)
	for _, tc := range []struct{ name, env, arg, want string }{
		{"an unknown flag names FILE:LINE", "", bad, bad + ":2: bad settings file: unknown flag --bogus"},
		{"an unknown flag in the environment's file", bad, "", bad + ":2: bad settings file: unknown flag --bogus"},
		{"a missing file", "", filepath.Join(dir, "none"), "--config \"" + filepath.Join(dir, "none") + "\": open"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("RANKEVAL_CONFIG", tc.env)
			args := []string{log}
			if tc.arg != "" {
				args = append(args, "--config", tc.arg)
			}
			code, _, stderr := cli(t, args...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d stderr %q, want 2 and %q", code, stderr, tc.want)
			}
		})
	}
}
