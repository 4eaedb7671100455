package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestByteLimits holds issue 23's case 5: the memory limits count bytes,
// not rows. A query of few rows with long doc ids, sorted or under
// --unsorted, and slices of long values stop the run naming the query and
// the limit, where they reached gigabytes before; within the limits the
// run gives the summary it gives with the defaults.
func TestByteLimits(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("x", 10_000)
	var oneQuery, shuffled, sliced strings.Builder
	for d := range 300 { // 300 rows of 10 KB doc ids: 3 MB in one query
		fmt.Fprintf(&oneQuery, `{"query_id":"q0","doc_id":"%s%d","score":%d,"label":%d}`+"\n", long, d, d, d%2)
	}
	for i := range 600 { // q0's rows among q1's
		q := []string{"q1", "q0"}[i%2]
		fmt.Fprintf(&shuffled, `{"query_id":"%s","doc_id":"%s%d","score":%d,"label":%d}`+"\n", q, long, i, i, i%2)
	}
	for q := range 20 { // 20 slices whose values take 100 KB each
		fmt.Fprintf(&sliced, `{"query_id":"q%02d","doc_id":"d","score":1,"label":1,"m":"%s%02d"}`+"\n", q, strings.Repeat("v", 100_000), q)
	}
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	one, shuf, sl := write("one.jsonl", oneQuery.String()), write("shuffled.jsonl", shuffled.String()), write("sliced.jsonl", sliced.String())
	tests := []struct {
		name string
		args []string
		code int
		msg  string // in stderr
	}{
		{"sorted, within the default", []string{one}, 0, ""},
		{"sorted, over --max-group-bytes", []string{"--max-group-bytes", "1MiB", one}, 1,
			`one.jsonl:1: query "q0" holds more than 1MiB (--max-group-bytes): query group too large`},
		{"sorted, over --max-group-rows still", []string{"--max-group-rows", "10", one}, 1, `one.jsonl:1: query "q0" has more than 10 rows (--max-group-rows)`},
		{"unsorted, within the default budget", []string{"--unsorted", shuf}, 0, ""},
		{"unsorted, over an eighth of --mem-limit", []string{"--unsorted", "--mem-limit", "16MiB", "--max-group-bytes", "1GiB", shuf}, 1,
			`holds more than 2MiB (an eighth of --mem-limit 16MiB under --unsorted; raise --mem-limit)`},
		{"unsorted, over --max-group-bytes below the budget's share", []string{"--unsorted", "--max-group-bytes", "1MiB", shuf}, 1,
			`holds more than 1MiB (--max-group-bytes)`},
		{"slices, within the default", []string{"--by", "m", sl}, 0, ""},
		{"slices, over --max-slice-bytes", []string{"--by", "m", "--max-slice-bytes", "1MiB", sl}, 1,
			`sliced.jsonl:11: query "q10" opens slice number 11 (m="vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"... (100002 bytes)), whose values bring those of the slices past 1MiB (--max-slice-bytes)`},
		{"slices under --unsorted, over --max-slice-bytes", []string{"--unsorted", "--by", "m", "--max-slice-bytes", "1MiB", sl}, 1,
			`whose values bring those of the slices past 1MiB (--max-slice-bytes)`},
		{"--max-group-bytes 0", []string{"--max-group-bytes", "0", one}, 2, `--max-group-bytes "0": want a size from 1KiB to 1GiB, as 256MiB`},
		{"--max-group-bytes above 1GiB", []string{"--max-group-bytes", "2GiB", one}, 2, `--max-group-bytes "2GiB": want a size from 1KiB to 1GiB`},
		{"--max-group-bytes not a size", []string{"--max-group-bytes", "lots", one}, 2, `--max-group-bytes "lots"`},
		{"--max-slice-bytes too small", []string{"--max-slice-bytes", "100B", one}, 2, `--max-slice-bytes "100B": want a size of at least 1KiB, as 64MiB`},
		{"--max-slice-bytes NaN", []string{"--max-slice-bytes", "NaNMiB", one}, 2, `--max-slice-bytes "NaNMiB"`},
		{"--mem-limit in an unknown unit", []string{"--unsorted", "--mem-limit", "8EiB", one}, 2, `--mem-limit "8EiB": want a size of at least 16MiB, as 256MiB or 2GiB (units B, KB, KiB, MB, MiB, GB, GiB; at most 4294967296GiB)`},
		{"--mem-limit past 2^62 bytes", []string{"--unsorted", "--mem-limit", "9223372036854775807", one}, 2, `at most 4294967296GiB`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := cli(t, append([]string{"--quiet", "--format", "json"}, tc.args...)...)
			if code != tc.code || !strings.Contains(stderr, tc.msg) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, stderr, tc.code, tc.msg)
			}
			if code != 0 && stdout != "" {
				t.Fatalf("a failed run printed a summary:\n%s", stdout)
			}
		})
	}
	// within the limits, the limits change nothing
	for _, args := range [][]string{{one}, {"--unsorted", shuf}, {"--by", "m", sl}} {
		_, want, _ := cli(t, append([]string{"--quiet", "--format", "json"}, args...)...)
		last := len(args) - 1
		tight := append(append([]string{"--quiet", "--format", "json", "--max-group-bytes", "8MiB", "--max-slice-bytes", "4MiB"}, args[:last]...), args[last])
		if code, got, stderr := cli(t, tight...); code != 0 || got != want {
			t.Errorf("%v within tighter limits: exit %d, %s, same summary %v", args, code, stderr, got == want)
		}
	}
}
