// Command gen writes a synthetic search log, deterministic from a seed, so
// tests and benchmarks can compare formats and tools on identical data; or
// converts an existing log to another format.
//
//	go run ./scripts/gen -rows 10000000 -docs 50 -seed 1 -o /tmp/log.jsonl.zst
//	go run ./scripts/gen -rows 10000000 -docs 100 -codec zstd -row-group 1048576 -o /tmp/log.parquet
//	go run ./scripts/gen -rows 1000000 -split 8 -hive -ext .zstd.parquet -o /tmp/lake
//	go run ./scripts/gen -from ../shared/vectors/graded_ties.jsonl -o /tmp/graded_ties.arrows
//
// The format follows the output name: .jsonl, .jsonl.gz, .jsonl.zst,
// .parquet (-codec zstd|snappy|none, -row-group N rows), .arrow or .feather
// (Arrow IPC file), .arrows (Arrow IPC stream), with -ipc-codec
// none|zstd|lz4. With -split N, -o names a directory that receives N part
// files named part-0000i<ext> (Hive-style dt=YYYY-MM-DD/ directories with
// -hive); part boundaries fall inside queries when the row count is not a
// multiple of -docs, so a query continues from one part into the next.
//
// Each generated query has -docs rows (query_id "q0000001", doc_id "d17",
// score a noisy function of the label so metrics land mid-range, label 0..4
// skewed toward 0). For slices and comparisons (rankeval --by, --score-col
// a,b):
//
//	go run ./scripts/gen -rows 10000000 -slices 1000 -systems 2 -o /tmp/cmp.jsonl.zst
//
// -slices N gives each query a "market" ("m0042", one of N, the same on all
// its rows); -systems 2 adds "score_b", a second model that ranks a little
// better. The other columns are the same as without them. With -from, the input (any format rankeval reads, with
// columns query_id, doc_id, score, label) is converted; labels are written as
// int32 when they are all integers, else as float64.
package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"

	"github.com/rankeval/rankeval/internal/synth"
	"github.com/rankeval/rankeval/reader"
)

func main() {
	rows := flag.Int("rows", 100000, "number of rows")
	docs := flag.Int("docs", 50, "rows per query")
	seed := flag.Uint64("seed", 1, "random seed")
	slices := flag.Int("slices", 0, "add a \"market\" column with this many values (0: none)")
	systems := flag.Int("systems", 1, "2 adds a second model's \"score_b\" column")
	out := flag.String("o", "", "output file (format from the name: .jsonl, .jsonl.gz, .jsonl.zst, .parquet, .arrow, .feather, .arrows), or directory with -split")
	from := flag.String("from", "", "convert this log instead of generating one")
	var opt synth.Options
	flag.StringVar(&opt.Codec, "codec", "zstd", "Parquet compression: zstd, snappy or none")
	flag.IntVar(&opt.RowGroup, "row-group", 1<<20, "Parquet rows per row group")
	flag.StringVar(&opt.IPCCodec, "ipc-codec", "none", "Arrow IPC buffer compression: none, zstd or lz4")
	flag.IntVar(&opt.Batch, "batch", 65536, "rows per Arrow record batch")
	split := flag.Int("split", 0, "write this many part files into the directory -o")
	ext := flag.String("ext", ".parquet", "part file ending with -split (decides the format)")
	hive := flag.Bool("hive", false, "with -split, put parts in Hive partition directories dt=YYYY-MM-DD, two parts a day")
	flag.Parse()
	if *out == "" || *rows < 0 || *docs < 1 || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	g := synth.NewGenerator(*seed, *rows, *docs).WithSlices(*slices, *systems)
	if err := run(*out, *from, g, *rows, *split, *ext, *hive, opt); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(out, from string, g *synth.Generator, rows, split int, ext string, hive bool, opt synth.Options) error {
	var src synth.Source = g
	if from != "" {
		all, err := load(from)
		if err != nil {
			return err
		}
		rows = len(all)
		opt.FloatLabels = false
		for _, r := range all {
			if r.Label != math.Trunc(r.Label) || math.Abs(r.Label) > math.MaxInt32 {
				opt.FloatLabels = true
			}
		}
		src = &synth.Rows{R: all}
	}
	if split > 0 {
		return synth.WriteSplit(out, ext, split, hive, src, rows, opt)
	}
	return synth.Write(out, src, -1, opt)
}

// load reads a whole log with rankeval's own reader; conversions are for
// test vectors, which are small.
func load(name string) ([]synth.Row, error) {
	r, err := reader.Open(name, reader.Columns{Query: "query_id", Doc: "doc_id", Score: "score", Label: "label"}, reader.Options{})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var rows []synth.Row
	for r.Next() {
		b := r.Batch()
		for i := range b.N {
			rows = append(rows, synth.Row{
				Query: string(b.Query.At(i)), Doc: string(b.Doc.At(i)),
				Score: b.Score[i], Label: b.Label[i],
			})
		}
	}
	return rows, errors.Join(r.Err(), r.Close())
}
