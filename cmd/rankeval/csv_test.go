package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/internal/synth"
)

// TestCSVWorkersBitIdentical: a log as CSV and TSV (plain and compressed)
// gives the JSONL's summary and per-query output, byte for byte, for any
// worker count and batch size, with slices and two score columns.
func TestCSVWorkersBitIdentical(t *testing.T) {
	n := 30_000
	if testing.Short() {
		n = 5_000
	}
	dir := t.TempDir()
	var names []string
	for _, name := range []string{"log.jsonl", "log.csv", "log.tsv", "log.csv.gz", "log.tsv.zst"} {
		p := filepath.Join(dir, name)
		if err := synth.Write(p, synth.NewGenerator(11, n, 37).WithSlices(5, 2), -1, synth.Options{}); err != nil {
			t.Fatal(err)
		}
		names = append(names, p)
	}
	args := []string{"--quiet", "--format", "json", "-m", "map,mrr,ndcg@10,err@10,p@10,kendall", "--ties", "average",
		"--by", "market", "--score-col", "score,score_b", "--bootstrap", "50"}
	var want string
	var wantPQ []byte
	for _, in := range names {
		for _, w := range []int{1, 2, 3, 8} {
			for _, bs := range []int{1, 7, 8192} {
				if bs == 1 && w > 1 && !strings.HasSuffix(in, ".csv") && !strings.HasSuffix(in, ".tsv") {
					continue // batches of one row are slow; the plain files have them
				}
				pq := filepath.Join(dir, "pq.jsonl")
				code, out, stderr := cli(t, append(args, "--workers", strconv.Itoa(w), "--batch-size", strconv.Itoa(bs), "--per-query", pq, in)...)
				if code != 0 {
					t.Fatalf("%s workers %d batch %d: exit %d: %s", in, w, bs, code, stderr)
				}
				got, err := os.ReadFile(pq)
				if err != nil {
					t.Fatal(err)
				}
				if want == "" {
					want, wantPQ = body(out), got
					continue
				}
				if body(out) != want {
					t.Fatalf("%s workers %d batch %d: summary differs from the JSONL's:\n%s\nvs\n%s", filepath.Base(in), w, bs, out, want)
				}
				if !bytes.Equal(got, wantPQ) {
					t.Fatalf("%s workers %d batch %d: per-query output differs from the JSONL's", filepath.Base(in), w, bs)
				}
			}
		}
	}
}

// TestCSVBadInput: bad CSV and TSV exit 1 naming the file and line; a bad
// --input-format exits 2.
func TestCSVBadInput(t *testing.T) {
	head := "query_id,doc_id,score,label\n"
	tests := []struct {
		name, data string
		extra      []string
		msg        string // after "FILE:"
	}{
		{"missing column", "query_id,doc,score,label\na,1,0.5,1\n", []string{"--ties", "trec"}, `1: no column "doc_id" (the doc column); the header has "query_id", "doc", "score", "label"; name the doc column with --doc-col`},
		{"bad number", head + "a,1,0.5,1\na,2,high,0\n", nil, `3: "score" (the score column) must be a number, found "high"`},
		{"ragged row", head + "a,1,0.5,1\na,2,0.5\n", nil, `3: 3 fields, but the header has 4`},
		{"unterminated quote", head + "a,1,0.5,1\n\"a,2,0.5,0\n", nil, `3: the quote that opens a field at column 1 is never closed`},
		{"stray quote", head + "a,1\",0.5,1\n", nil, `2: column 4: a quote inside a field that does not start with one`},
		{"label out of range", head + "a,1,0.5,-1\n", nil, `2: label is -1`},
		{"TSV tab in a value", "query_id\tdoc_id\tscore\tlabel\na\t1\t0.5\t1\tx\n", nil, `2: 5 fields, but the header has 4 (a tab inside a value?`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, "log.csv")
			if err := os.WriteFile(in, []byte(tc.data), 0o644); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := cli(t, append(append([]string{"--quiet"}, tc.extra...), in)...)
			if code != 1 || stdout != "" {
				t.Fatalf("exit %d, stdout %q; stderr %s", code, stdout, stderr)
			}
			if want := regexp.QuoteMeta(in + ":" + tc.msg); !regexp.MustCompile(want).MatchString(stderr) {
				t.Fatalf("stderr %q does not match %q", stderr, want)
			}
		})
	}
	for _, args := range [][]string{
		{"--input-format", "xml", "x.csv"},
		{"--input-format", "csv", "--qrels", "q.txt", "run.txt"},
	} {
		t.Run(fmt.Sprint(args), func(t *testing.T) {
			if code, _, stderr := cli(t, args...); code != 2 || !strings.Contains(stderr, "--input-format") {
				t.Fatalf("exit %d: %s", code, stderr)
			}
		})
	}
}

// TestInputFormatFlag: --input-format reads a CSV file whose header the
// first line cannot tell (names with spaces) and a JSONL file as JSONL.
func TestInputFormatFlag(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "log.txt")
	if err := os.WriteFile(in, []byte("query id,doc id,score,label\nq,a,0.5,1\nq,b,0.7,0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := cli(t, "--quiet", "--query-col", "query id", "--doc-col", "doc id", in); code != 1 || !strings.Contains(stderr, "--input-format csv or tsv") {
		t.Fatalf("without the flag: exit %d: %s", code, stderr)
	}
	code, out, stderr := cli(t, "--quiet", "--input-format", "csv", "--query-col", "query id", "--doc-col", "doc id", "--format", "json", "-m", "mrr", in)
	if code != 0 || !strings.Contains(out, `"mean": 0.5`) {
		t.Fatalf("exit %d: %s%s", code, out, stderr)
	}
}
