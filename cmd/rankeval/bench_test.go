package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rankeval/rankeval/internal/synth"
)

// BenchmarkEndToEnd runs the CLI on a generated zstd JSONL log (or on
// $RANKEVAL_BENCH_FILE) with the default metrics.
func BenchmarkEndToEnd(b *testing.B) {
	in := os.Getenv("RANKEVAL_BENCH_FILE")
	rows := 0
	if in == "" {
		rows = 500_000
		in = genLog(b, rows, 3)
	}
	for _, w := range []int{1, 2} {
		b.Run("workers"+strconv.Itoa(w), func(b *testing.B) {
			for range b.N {
				if err := run(context.Background(), []string{"--workers", strconv.Itoa(w), in}, io.Discard, io.Discard); err != nil {
					b.Fatal(err)
				}
			}
			if rows > 0 {
				b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
			}
		})
	}
}

// BenchmarkMerge365 is the rolling-window figure: rankeval merge of 365
// daily states of the default 6 metrics × 2 systems × 100 slices with a
// 1,000-replicate bootstrap (states made once, before the timer).
func BenchmarkMerge365(b *testing.B) {
	dir := b.TempDir()
	r := rand.New(rand.NewPCG(365, 1))
	var states []string
	for d := range 365 {
		var rows []synth.Row
		for q := range 300 {
			market := fmt.Sprintf("m%02d", r.IntN(100))
			for doc := range 10 {
				label := float64(r.IntN(3))
				rows = append(rows, synth.Row{Query: fmt.Sprintf("d%03d-q%03d", d, q), Doc: fmt.Sprintf("doc%d", doc),
					Score: r.Float64(), ScoreB: r.Float64() + label/4, HasScoreB: true, Label: label,
					Market: market})
			}
		}
		log := filepath.Join(dir, fmt.Sprintf("day%03d.jsonl", d))
		if err := synth.Write(log, &synth.Rows{R: rows}, -1, synth.Options{}); err != nil {
			b.Fatal(err)
		}
		st := filepath.Join(dir, fmt.Sprintf("day%03d.state", d))
		if err := run(context.Background(), []string{"--quiet", "--by", "market", "--score-col", "score,score_b", "--bootstrap", "1000",
			"--state", st, "--output", st + ".json", log}, io.Discard, io.Discard); err != nil {
			b.Fatal(err)
		}
		states = append(states, st)
	}
	b.ResetTimer()
	for range b.N {
		if err := run(context.Background(), append([]string{"merge", "--format", "json"}, states...), io.Discard, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/merge")
}
