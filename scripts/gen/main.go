// Command gen writes a synthetic search log, deterministic from a seed, so
// tests and benchmarks can compare formats and tools on identical data; or
// converts an existing log to another format.
//
//	go run ./scripts/gen -rows 10000000 -docs 50 -seed 1 -o /tmp/log.jsonl.zst
//	go run ./scripts/gen -rows 10000000 -docs 100 -codec zstd -row-group 1048576 -o /tmp/log.parquet
//	go run ./scripts/gen -rows 1000000 -split 8 -hive -ext .zstd.parquet -o /tmp/lake
//	go run ./scripts/gen -from testdata/vectors/graded_ties.jsonl -o /tmp/graded_ties.arrows
//	go run ./scripts/gen -from clicks.jsonl --query-col qid --doc-col docno --score-col pred --label-col clicked -o /tmp/clicks.parquet
//
// The format follows the output name: .jsonl, .csv or .tsv (each plain,
// .gz or .zst), .parquet (-codec zstd|snappy|none, -row-group N rows), .arrow or .feather
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
// better. The other columns are the same as without them.
//
// With -from, the input (any format rankeval reads) is converted. Its
// columns are named by rankeval's own flags, with rankeval's defaults:
// --query-col (query_id), --doc-col (doc_id), --score-col (score; two
// names, comma-separated, for a second model), --label-col (label) and
// --rank-col (none). The output names them query_id, doc_id, score,
// label, score_b for the second score and rank for the rank (without
// --score-col, a log ordered by rank gets no score column), so rankeval
// reads it with its defaults (and --rank-col rank). Labels are written as
// int32 when they are all integers, else as float64.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/rankeval/rankeval/config"
	"github.com/rankeval/rankeval/evalflags"
	"github.com/rankeval/rankeval/internal/synth"
	"github.com/rankeval/rankeval/reader"
)

func main() {
	switch err := gen(os.Args[1:], os.Stderr); {
	case err == nil:
	case errors.Is(err, flag.ErrHelp):
	case errors.Is(err, errUsage): // gen has said what is wrong
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// errUsage is returned, once the message and usage are written, for a
// command line to correct.
var errUsage = errors.New("usage error")

// gen runs the command with args (without the program name), writing
// usage messages to stderr.
func gen(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rows := fs.Int("rows", 100000, "number of rows")
	docs := fs.Int("docs", 50, "rows per query")
	seed := fs.Uint64("seed", 1, "random seed")
	nSlices := fs.Int("slices", 0, "add a \"market\" column with this many values (0: none)")
	systems := fs.Int("systems", 1, "2 adds a second model's \"score_b\" column, 3 \"score_c\", 4 \"score_d\"")
	out := fs.String("o", "", "output file (format from the name: "+strings.Join(synth.Formats, ", ")+"), or directory with -split")
	from := fs.String("from", "", "convert this log instead of generating one (its fields: the --*-col flags)")
	// the log's field names: rankeval's flags, defaults and help
	var cols reader.Columns
	evalflags.RegisterColumns(fs, &cols)
	var opt synth.Options
	fs.StringVar(&opt.Codec, "codec", "zstd", "Parquet compression: zstd, snappy or none")
	fs.IntVar(&opt.RowGroup, "row-group", 1<<20, "Parquet rows per row group")
	fs.StringVar(&opt.IPCCodec, "ipc-codec", "none", "Arrow IPC buffer compression: none, zstd or lz4")
	fs.IntVar(&opt.Batch, "batch", 65536, "rows per Arrow record batch")
	split := fs.Int("split", 0, "write this many part files into the directory -o")
	ext := fs.String("ext", ".parquet", "part file ending with -split (decides the format)")
	hive := fs.Bool("hive", false, "with -split, put parts in Hive partition directories dt=YYYY-MM-DD, two parts a day")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage // fs has written the error and the usage
	}
	usage := func(msg string) error {
		fmt.Fprintln(stderr, "gen:", msg)
		fs.Usage()
		return errUsage
	}
	if *out == "" || *rows < 0 || *docs < 1 || fs.NArg() > 0 {
		return usage("want -o, -rows >= 0, -docs >= 1 and no arguments")
	}
	colSet := false
	fs.Visit(func(f *flag.Flag) { colSet = colSet || slices.Contains(evalflags.ColumnNames, f.Name) })
	if colSet && *from == "" {
		return usage("the --*-col flags name the fields of the -from log: give -from")
	}
	evalflags.FinishColumns(fs, &cols)
	if scores := config.SplitList(cols.Score); len(scores) > 1 {
		if len(scores) > 2 {
			return usage(fmt.Sprintf("--score-col %q: gen writes at most two score columns (score, score_b)", cols.Score))
		}
		cols.Score, cols.ExtraScore = scores[0], scores[1:]
	}
	g := synth.NewGenerator(*seed, *rows, *docs).WithSlices(*nSlices, *systems)
	return run(*out, *from, cols, g, *rows, *split, *ext, *hive, opt)
}

func run(out, from string, cols reader.Columns, g *synth.Generator, rows, split int, ext string, hive bool, opt synth.Options) error {
	var src synth.Source = g
	if from != "" {
		all, err := load(from, cols)
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

// load reads a whole log with rankeval's own reader, its columns named by
// cols (as rankeval's column flags give them); conversions are for test
// vectors and small logs.
func load(name string, cols reader.Columns) ([]synth.Row, error) {
	r, err := reader.Open(name, cols, reader.Options{})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var rows []synth.Row
	for r.Next() {
		b := r.Batch()
		for i := range b.N {
			row := synth.Row{Query: string(b.Query.At(i)), Doc: string(b.Doc.At(i)), Label: b.Label[i]}
			if cols.Score != "" {
				row.Score = b.Score[i]
			} else {
				row.NoScore = true
			}
			if len(b.ExtraScore) > 0 {
				row.ScoreB, row.HasScoreB = b.ExtraScore[0][i], true
			}
			if b.Rank != nil {
				row.Rank, row.HasRank = b.Rank[i], true
			}
			rows = append(rows, row)
		}
	}
	return rows, errors.Join(r.Err(), r.Close())
}
