// Package jsonl reads JSON lines: one object a line, its members bound to
// the requested Columns by name, decoded in blocks of lines on the ordered
// decoder of package batch.
package jsonl

import (
	"bytes"
	"io"

	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/scan"
)

// Jsonl parses JSON lines, one object a line, into batches: each decoder
// goroutine of the reader (New) has its own, and parses whole blocks of
// lines with it. It is hand-rolled because encoding/json is an order of
// magnitude too slow for click logs: it scans only the configured keys'
// values and skips the rest without building anything.
type Jsonl struct {
	Name   string
	keys   [batch.NFields]string // "" when the column is not read
	docOpt bool
	bs     int
	// missScore and missLabel read a null score or label as NaN
	// (batch.Columns.MissingScore, MissingLabel)
	missScore, missLabel bool

	Line int64        // number of the line being parsed
	B    *batch.Batch // the batch rows are appended to

	// unescaped strings live here until appended to the batch
	qScratch, dScratch, kScratch []byte

	// Extra and ExtraScore columns: their keys, and the current line's
	// values (one scratch buffer per text column, as several may need
	// unescaping on one line).
	xkeys []string // Extra, Texts, ExtraScore, then Numbers
	// texts and numbers are Texts, whose values follow Extra's in xtext,
	// and Numbers, whose values follow ExtraScore's in xnum
	texts, numbers []batch.Named
	// byLen[n] has bit f set when field f is read and its name is n
	// bytes long (anyLen: every field read), xLen[n] when a name in xkeys
	// is.
	byLen    [32]uint8
	anyLen   uint8
	xLen     [32]bool
	nxText   int // how many of xkeys are text columns (Extra, then Texts)
	xseen    uint64
	xtext    [][]byte
	xnum     []float64
	xScratch [][]byte

	nest []byte // the open objects and arrays of a skipped value
}

// BlockSize is the default size of the blocks of lines JSONL is parsed in.
// Lines may be longer (up to scan.MaxLine): a block grows to hold one.
var BlockSize = 1 << 20

// New reads JSON lines from src, which closer releases.
func New(name string, src io.Reader, closer io.Closer, cols batch.Columns, opt batch.Options) batch.Reader {
	return Start(name, src, closer.Close, cols, opt, false)
}

// Start reads JSON lines from src: a splitter goroutine reads src (and
// so decompresses it) in blocks of whole lines, which Options.Decoders
// goroutines (default GOMAXPROCS, at most scan.MaxLineDecoders) parse, the
// batches coming out in input order. closeSrc releases src; detach says a
// read of src may never return (a pipe), so Close does not wait for it.
func Start(name string, src io.Reader, closeSrc func() error, cols batch.Columns, opt batch.Options, detach bool) batch.Reader {
	shape := cols.Shape(name)
	k := min(batch.Decoders(opt), scan.MaxLineDecoders)
	split := scan.NewLineSplitter(name, src, closeSrc, BlockSize, scan.MaxLine, k)
	decs := make([]batch.UnitDecoder[*scan.LineBlock, struct{}], k)
	for w := range decs {
		decs[w] = &jsonlDecoder{j: NewParser(name, cols, opt), split: split}
	}
	return batch.StartOrdered(batch.OrderedConfig[*scan.LineBlock, struct{}]{Produce: split.Produce, Shape: shape,
		Detach: detach}, decs)
}

func NewParser(name string, cols batch.Columns, opt batch.Options) *Jsonl {
	j := &Jsonl{
		Name: name, bs: opt.BatchRows(), docOpt: cols.DocOptional, missScore: cols.MissingScore, missLabel: cols.MissingLabel,
		keys: [batch.NFields]string{cols.Query, cols.Doc, cols.Score, cols.ReadLabel(), cols.Rank},
	}
	if n := len(cols.Extra) + len(cols.Texts) + len(cols.ExtraScore) + len(cols.Numbers); n > 0 {
		j.xkeys = append([]string{}, cols.Extra...)
		for _, c := range cols.Texts {
			j.xkeys = append(j.xkeys, c.Name)
		}
		j.xkeys = append(j.xkeys, cols.ExtraScore...)
		for _, c := range cols.Numbers {
			j.xkeys = append(j.xkeys, c.Name)
		}
		j.texts, j.numbers = cols.Texts, cols.Numbers
		j.nxText = len(cols.Extra) + len(cols.Texts)
		j.xtext = make([][]byte, j.nxText)
		j.xScratch = make([][]byte, j.nxText)
		j.xnum = make([]float64, len(cols.ExtraScore)+len(cols.Numbers))
	}
	for f, k := range j.keys {
		if k != "" {
			j.anyLen |= 1 << f
			if len(k) < len(j.byLen) {
				j.byLen[len(k)] |= 1 << f
			}
		}
	}
	for _, k := range j.xkeys {
		if len(k) < len(j.xLen) {
			j.xLen[len(k)] = true
		}
	}
	return j
}

// jsonlDecoder parses blocks of lines for one decoder goroutine.
type jsonlDecoder struct {
	j     *Jsonl
	split *scan.LineSplitter
}

func (d *jsonlDecoder) Close() {}

// Decode parses the lines of blk (scan.LineSplitter.decode).
func (d *jsonlDecoder) Decode(blk *scan.LineBlock, out *batch.BatchOut[struct{}]) (struct{}, error) {
	j, rest := d.j, blk.Buf
	j.Line = blk.Base
	return d.split.Decode(blk, out, func(b *batch.Batch) (bool, error) {
		j.B = b
		s := rest // a local: the loop does not go through the closure's variable
		for b.N < j.bs && len(s) > 0 {
			i := bytes.IndexByte(s, '\n') // every line of a block ends in one
			j.Line++
			if err := j.Parse(s[:i]); err != nil {
				return false, err
			}
			s = s[i+1:]
		}
		rest = s
		return len(s) > 0, nil
	})
}
