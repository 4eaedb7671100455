package main

import (
	"context"
	"io"
	"os"
	"strconv"
	"testing"
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
