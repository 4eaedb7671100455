package reader

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// maxLine bounds one JSONL line so a file without newlines fails clearly
// instead of exhausting memory.
const maxLine = 64 << 20

// field roles of the configured columns.
const (
	fQuery = iota
	fDoc
	fScore
	fLabel
	fRank
	nFields
)

var fieldRole = [nFields]string{"query", "doc", "score", "label", "rank"}

// roleFlag is the command-line flag that names each role's column, for
// messages about a column that is missing.
var roleFlag = [nFields]string{"--query-col", "--doc-col", "--score-col", "--label-col", "--rank-col"}

// kindFlag is the flag that names a column of kind (a role, kExtra or
// kExtraScore).
func kindFlag(kind int) string {
	switch kind {
	case kExtra:
		return "--by"
	case kExtraScore:
		return "--score-col"
	}
	return roleFlag[kind]
}

// maxExtra bounds Columns.Extra, Texts, ExtraScore and Numbers together,
// so one word can record which of them a line has.
const maxExtra = 64

// jsonl parses JSON lines, one object a line, into batches: each decoder
// goroutine of the reader (newJSONL) has its own, and parses whole blocks of
// lines with it. It is hand-rolled because encoding/json is an order of
// magnitude too slow for click logs: it scans only the configured keys'
// values and skips the rest without building anything.
type jsonl struct {
	name   string
	keys   [nFields]string // "" when the column is not read
	docOpt bool
	bs     int

	line int64  // number of the line being parsed
	b    *Batch // the batch rows are appended to

	// unescaped strings live here until appended to the batch
	qScratch, dScratch, kScratch []byte

	// Extra and ExtraScore columns: their keys, and the current line's
	// values (one scratch buffer per text column, as several may need
	// unescaping on one line).
	xkeys []string // Extra, Texts, ExtraScore, then Numbers
	// texts and numbers are Texts, whose values follow Extra's in xtext,
	// and Numbers, whose values follow ExtraScore's in xnum
	texts, numbers []Named
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

// jsonlBlock is the default size of the blocks of lines JSONL is parsed in.
// Lines may be longer (up to maxLine): a block grows to hold one.
var jsonlBlock = 1 << 20

// newJSONL reads JSON lines from src, which closer releases.
func newJSONL(name string, src io.Reader, closer io.Closer, cols Columns, opt Options) Reader {
	return startJSONL(name, src, closer.Close, cols, opt, false)
}

// startJSONL reads JSON lines from src: a splitter goroutine reads src (and
// so decompresses it) in blocks of whole lines, which Options.Decoders
// goroutines (default GOMAXPROCS, at most maxLineDecoders) parse, the
// batches coming out in input order. closeSrc releases src; detach says a
// read of src may never return (a pipe), so Close does not wait for it.
func startJSONL(name string, src io.Reader, closeSrc func() error, cols Columns, opt Options, detach bool) Reader {
	shape := cols.shape(name)
	k := min(decoders(opt), maxLineDecoders)
	split := newLineSplitter(name, src, closeSrc, jsonlBlock, maxLine, k)
	decs := make([]unitDecoder[*lineBlock, struct{}], k)
	for w := range decs {
		decs[w] = &jsonlDecoder{j: newJSONLParser(name, cols, opt), split: split}
	}
	return startOrdered(orderedConfig[*lineBlock, struct{}]{produce: split.produce, shape: shape,
		detach: detach}, decs)
}

func newJSONLParser(name string, cols Columns, opt Options) *jsonl {
	j := &jsonl{
		name: name, bs: opt.batchSize(), docOpt: cols.DocOptional,
		keys: [nFields]string{cols.Query, cols.Doc, cols.Score, cols.Label, cols.Rank},
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
	j     *jsonl
	split *lineSplitter
}

func (d *jsonlDecoder) close() {}

// decode parses the lines of blk (lineSplitter.decode).
func (d *jsonlDecoder) decode(blk *lineBlock, out *batchOut[struct{}]) (struct{}, error) {
	j, rest := d.j, blk.buf
	j.line = blk.base
	return d.split.decode(blk, out, func(b *Batch) (bool, error) {
		j.b = b
		s := rest // a local: the loop does not go through the closure's variable
		for b.N < j.bs && len(s) > 0 {
			i := bytes.IndexByte(s, '\n') // every line of a block ends in one
			j.line++
			if err := j.parse(s[:i]); err != nil {
				return false, err
			}
			s = s[i+1:]
		}
		rest = s
		return len(s) > 0, nil
	})
}

// readError names the file and line where reading failed; a truncated
// compressed stream gets a message that says so.
func readError(name string, line int64, err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%s:%d: input ends in the middle of a compressed stream (truncated file?): %w", name, line, ErrCompression)
	}
	var pathErr *os.PathError
	if errors.As(err, &pathErr) {
		return fmt.Errorf("%s:%d: %w", name, line, err)
	}
	// gzip and zstd report corruption with their own error values.
	return fmt.Errorf("%s:%d: %v: %w", name, line, err, ErrCompression)
}
