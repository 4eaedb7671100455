package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/internal/synth"
)

// TestReadersBitIdentical: every reader that decodes on several goroutines
// (JSONL, CSV, TSV and TREC runs in blocks of lines, Parquet by row group) gives
// byte-identical summaries and per-query output for any worker count and
// batch size, batch size 1 included.
func TestReadersBitIdentical(t *testing.T) {
	rows := 60_000 // several blocks of lines, row groups
	if testing.Short() {
		rows = 3_000
	}
	dir := t.TempDir()
	jsonl := genLog(t, rows, 7)
	data, _ := loadJSONL(t, jsonl)
	pq := filepath.Join(dir, "log.parquet")
	if err := synth.Write(pq, &synth.Rows{R: data}, -1, synth.Options{Codec: "zstd", RowGroup: 997}); err != nil {
		t.Fatal(err)
	}
	csv, tsv := filepath.Join(dir, "log.csv"), filepath.Join(dir, "log.tsv.zst")
	for _, p := range []string{csv, tsv} {
		if err := synth.Write(p, &synth.Rows{R: data}, -1, synth.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	run, qrels := filepath.Join(dir, "run.txt"), filepath.Join(dir, "qrels.txt")
	writeTrec(t, run, qrels, rows)
	inputs := []struct {
		name string
		args []string
	}{
		{"jsonl-zstd", []string{jsonl}},
		{"parquet", []string{pq}},
		{"csv", []string{csv}},
		{"tsv-zstd", []string{tsv}},
		{"trec", []string{"--qrels", qrels, "--profile", "trec_eval", run}},
	}
	for _, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			var refSum string
			var refPQ []byte
			for _, w := range []int{1, 2, 3, 8} {
				for _, bs := range []int{1, 7, 8192} {
					pqOut := filepath.Join(t.TempDir(), "pq.jsonl")
					args := append([]string{"--format", "json", "--workers", strconv.Itoa(w), "--batch-size", strconv.Itoa(bs), "--per-query", pqOut}, in.args...)
					code, out, stderr := cli(t, args...)
					if code != 0 {
						t.Fatalf("workers %d batch %d: exit %d: %s", w, bs, code, stderr)
					}
					got, err := os.ReadFile(pqOut)
					if err != nil {
						t.Fatal(err)
					}
					if refSum == "" {
						refSum, refPQ = out, got
						if !strings.Contains(out, fmt.Sprintf(`"rows":%d`, rows)) && !strings.Contains(out, fmt.Sprintf(`"rows": %d`, rows)) {
							t.Fatalf("summary does not count %d rows: %s", rows, out)
						}
						continue
					}
					if out != refSum {
						t.Fatalf("workers %d batch %d: summary differs:\n%s\nvs\n%s", w, bs, out, refSum)
					}
					if string(got) != string(refPQ) {
						t.Fatalf("workers %d batch %d: per-query output differs", w, bs)
					}
				}
			}
		})
	}
}

// writeTrec writes a run of n lines (100 a query) and qrels judging some
// of its documents and some it does not retrieve.
func writeTrec(t *testing.T, run, qrels string, n int) {
	t.Helper()
	r := rand.New(rand.NewPCG(5, 19))
	var rb, qb strings.Builder
	for i := range n {
		q, d := i/100, i%100
		fmt.Fprintf(&rb, "%d Q0 doc%d %d %g run\n", q, d*7%101, d+1, float64(r.IntN(40))/8)
		if r.IntN(3) == 0 {
			fmt.Fprintf(&qb, "%d 0 doc%d %d\n", q, d*7%101, r.IntN(3))
		}
	}
	if err := os.WriteFile(run, []byte(rb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(qrels, []byte(qb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
