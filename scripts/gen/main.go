// Command gen writes a synthetic search log, deterministic from a seed, so
// tests and benchmarks can compare formats and tools on identical data.
//
//	go run ./scripts/gen -rows 10000000 -docs 50 -seed 1 -o /tmp/log.jsonl.zst
//
// The format follows the output name: .jsonl, .jsonl.gz, .jsonl.zst.
// Each query has -docs rows (query_id "q0000001", doc_id "d17", score a noisy
// function of the label so metrics land mid-range, label 0..4 skewed toward 0).
// For slices and comparisons (rankeval --by, --score-col a,b):
//
//	go run ./scripts/gen -rows 10000000 -slices 1000 -systems 2 -o /tmp/cmp.jsonl.zst
//
// -slices N gives each query a "market" ("m0042", one of N, the same on all
// its rows); -systems 2 adds "score_b", a second model that ranks a little
// better. The other columns are the same as without them.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Row is one generated row.
type Row struct {
	Query  string
	Doc    string
	Score  float64
	Label  int
	Market string  // "" unless slices are asked for
	ScoreB float64 // the second system's score, with two systems
}

// Generator yields the rows of the log in order.
type Generator struct {
	rng        *rand.Rand
	rows, docs int
	emitted    int
	q          int
	d          int
	qid        string
	quality    float64

	slices, systems int
	extra           *rand.Rand // draws of the options, apart so the base columns do not change
	market          string
	qualityB        float64
}

// NewGenerator makes the log of rows rows with docs rows a query.
func NewGenerator(seed uint64, rows, docs int) *Generator {
	return &Generator{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), rows: rows, docs: docs}
}

// Next fills r with the next row; false at the end.
func (g *Generator) Next(r *Row) bool {
	if g.emitted >= g.rows {
		return false
	}
	if g.d == 0 {
		g.q++
		g.qid = fmt.Sprintf("q%07d", g.q)
		g.quality = g.rng.Float64() // how well the "model" ranks this query
		if g.slices > 0 {
			g.market = fmt.Sprintf("m%04d", g.extra.IntN(g.slices))
		}
		if g.systems > 1 {
			g.qualityB = min(1, g.quality+0.15*g.extra.Float64())
		}
	}
	label := 0
	if u := g.rng.Float64(); u > 0.55 {
		label = 1 + int((u-0.55)/0.45*4)
		if label > 4 {
			label = 4
		}
	}
	r.Query = g.qid
	r.Doc = "d" + strconv.Itoa(g.d)
	// scores rounded to 6 decimals, as logs usually are; some ties result.
	s := g.quality*float64(label)/4 + g.rng.NormFloat64()*0.35
	r.Score = math.Round(s*1e6) / 1e6
	r.Label = label
	r.Market = g.market
	if g.systems > 1 {
		sb := g.qualityB*float64(label)/4 + g.extra.NormFloat64()*0.35
		r.ScoreB = math.Round(sb*1e6) / 1e6
	}
	g.d++
	if g.d == g.docs {
		g.d = 0
	}
	g.emitted++
	return true
}

func main() {
	rows := flag.Int("rows", 100000, "number of rows")
	docs := flag.Int("docs", 50, "rows per query")
	seed := flag.Uint64("seed", 1, "random seed")
	slices := flag.Int("slices", 0, "add a \"market\" column with this many values (0: none)")
	systems := flag.Int("systems", 1, "2 adds a second model's \"score_b\" column")
	out := flag.String("o", "", "output file; format from the name (.jsonl, .jsonl.gz, .jsonl.zst)")
	flag.Parse()
	if *out == "" || *rows < 0 || *docs < 1 {
		flag.Usage()
		os.Exit(2)
	}
	g := NewGenerator(*seed, *rows, *docs)
	g.slices, g.systems = *slices, *systems
	g.extra = rand.New(rand.NewPCG(*seed^0x5bd1e995, 7))
	if err := write(*out, g); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func write(name string, g *Generator) (err error) {
	tmp := name + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	var w io.WriteCloser
	switch {
	case strings.HasSuffix(name, ".jsonl.gz"):
		w = gzip.NewWriter(f)
	case strings.HasSuffix(name, ".jsonl.zst"):
		if w, err = zstd.NewWriter(f, zstd.WithEncoderLevel(zstd.SpeedDefault)); err != nil {
			return err
		}
	case strings.HasSuffix(name, ".jsonl"):
		w = nopCloser{f}
	default:
		return fmt.Errorf("%s: unknown output format (want .jsonl, .jsonl.gz or .jsonl.zst)", name)
	}
	if err := writeJSONL(w, g); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, name)
}

func writeJSONL(w io.Writer, g *Generator) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	var r Row
	buf := make([]byte, 0, 128)
	for g.Next(&r) {
		buf = append(buf[:0], `{"query_id":"`...)
		buf = append(buf, r.Query...)
		buf = append(buf, `","doc_id":"`...)
		buf = append(buf, r.Doc...)
		buf = append(buf, `","score":`...)
		buf = strconv.AppendFloat(buf, r.Score, 'g', -1, 64)
		buf = append(buf, `,"label":`...)
		buf = strconv.AppendInt(buf, int64(r.Label), 10)
		if r.Market != "" {
			buf = append(buf, `,"market":"`...)
			buf = append(buf, r.Market...)
			buf = append(buf, '"')
		}
		if g.systems > 1 {
			buf = append(buf, `,"score_b":`...)
			buf = strconv.AppendFloat(buf, r.ScoreB, 'g', -1, 64)
		}
		buf = append(buf, "}\n"...)
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
