package main

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rankeval/rankeval/internal/objtest"
)

// TestObjectStoreFaults: a store or network fault is exit 1 with a
// message naming the object or prefix, and no summary, however it fails:
// a JSONL body cut short (2000 rows sent as 1000 without a
// Content-Length, which today's readers took for the whole log), a GET or
// a state that stalls (--read-timeout), a listing that repeats its token.
// For every scheme (a web server has no listing to fault).
func TestObjectStoreFaults(t *testing.T) {
	for _, scheme := range objtest.Schemes {
		t.Run(scheme, func(t *testing.T) { testObjectStoreFaults(t, scheme) })
	}
}

func testObjectStoreFaults(t *testing.T, scheme string) {
	var log bytes.Buffer
	for i := range 2000 {
		fmt.Fprintf(&log, "{\"query_id\":\"q%04d\",\"doc_id\":\"d%d\",\"score\":1,\"label\":%d}\n", i/10, i%10, i%2)
	}
	objs := map[string][]byte{"big.jsonl": log.Bytes(), "logs/a.jsonl": log.Bytes(), "logs/b.jsonl": log.Bytes()}
	tests := []struct {
		name  string
		fault objtest.Fault
		args  []string
		code  int
		say   string
	}{
		{"healthy", objtest.Healthy, []string{"--format", "json", "s3://lake/big.jsonl"}, 0, ""},
		{"cut short", objtest.CutChunked, []string{"s3://lake/big.jsonl"}, 1,
			"s3://lake/big.jsonl:1001: read s3://lake/big.jsonl: the object ended after 55000 of its 110000 bytes"},
		{"cut short, with Content-Length", objtest.CutLength, []string{"s3://lake/big.jsonl"}, 1,
			"s3://lake/big.jsonl:1001: read s3://lake/big.jsonl: the object ended after 55000 of its 110000 bytes"},
		{"stalled", objtest.StallBody, []string{"--read-timeout", "300ms", "s3://lake/big.jsonl"}, 1,
			"s3://lake/big.jsonl:1001: read s3://lake/big.jsonl: no bytes for 300ms (--read-timeout)"},
		{"stalled state", objtest.StallBody, []string{"merge", "--read-timeout", "300ms", "s3://lake/big.jsonl"}, 1,
			"read s3://lake/big.jsonl: no bytes for 300ms (--read-timeout)"},
		{"repeated token", objtest.RepeatToken, []string{"s3://lake/logs/"}, 1,
			"s3://lake/logs/: the listing came back to a page it had read"},
		{"zero timeout", objtest.Healthy, []string{"--read-timeout", "0s", "s3://lake/big.jsonl"}, 2,
			"--read-timeout 0s: want a duration > 0"},
		{"merge zero timeout", objtest.Healthy, []string{"merge", "--read-timeout", "-1s", "s3://lake/big.jsonl"}, 2,
			"--read-timeout -1s: want a duration > 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if scheme == "https" && tc.fault == objtest.RepeatToken {
				return
			}
			f := &objtest.Fake{Scheme: scheme, Objects: objs, PageSize: 1, Fault: tc.fault}
			objtest.StartFake(t, f)
			// the cases name s3://lake/...: each scheme's own URLs
			url := func(s string) string { return strings.ReplaceAll(s, "s3://lake/", f.Object("")) }
			args := slices.Clone(tc.args)
			for i := range args {
				args[i] = url(args[i])
			}
			start := time.Now()
			code, stdout, stderr := cli(t, args...)
			if say := url(tc.say); code != tc.code || !strings.Contains(stderr, say) {
				t.Fatalf("exit %d, stderr %q; want %d saying %q", code, stderr, tc.code, say)
			}
			if code == 0 {
				if !strings.Contains(stdout, `"rows": 2000`) {
					t.Fatalf("summary does not count 2000 rows:\n%s", stdout)
				}
				return
			}
			if stdout != "" {
				t.Fatalf("a failed run printed a summary:\n%s", stdout)
			}
			if d := time.Since(start); d > 20*time.Second {
				t.Fatalf("took %v", d)
			}
		})
	}
}
