package csv

import (
	"bytes"
	"io"

	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/scan"
)

// A CSV or TSV log is read as JSON lines are (jsonl.Start): a splitter
// goroutine decompresses the input and cuts it into blocks of whole
// records (Dialect.Cut), which the goroutines of an ordered decoder
// parse (csvLayout.Parse), the batches coming out in input order. The
// header is read on the splitter's goroutine from the first blocks, before
// any block is handed on, so the layout every decoder shares is fixed
// before one of them starts.
//
// Ownership: as for every ordered decoder, a batch is valid until the next
// call to Next or Close; its values are copied out of the blocks.

// BufSize is the size of the blocks CSV and TSV are parsed in: a block
// is at most this long, unless one record is longer (up to scan.MaxLine); a
// variable for the tests.
var BufSize = 1 << 20

// New reads a CSV or TSV log from src, which closer releases.
func New(name string, d Dialect, src io.Reader, closer io.Closer, cols batch.Columns, opt batch.Options) batch.Reader {
	return Start(name, d, src, closer.Close, cols, opt, false)
}

// Start reads a CSV or TSV log from src on Options.Decoders goroutines
// (default GOMAXPROCS, at most scan.MaxLineDecoders) and one splitter; closeSrc
// and detach are as for jsonl.Start.
func Start(name string, d Dialect, src io.Reader, closeSrc func() error, cols batch.Columns, opt batch.Options, detach bool) batch.Reader {
	k := min(batch.Decoders(opt), scan.MaxLineDecoders)
	split := scan.NewLineSplitter(name, src, closeSrc, BufSize, scan.MaxLine, k)
	h := &csvHead{split: split, cols: cols, k: csvBlock{Dialect: d, name: name}}
	split.Cut, split.Stuck = d.Cut, h.stuck
	decs := make([]batch.UnitDecoder[*scan.LineBlock, struct{}], k)
	for w := range decs {
		decs[w] = &csvDecoder{h: h, k: csvBlock{Dialect: d, name: name}, bs: opt.BatchRows()}
	}
	return batch.StartOrdered(batch.OrderedConfig[*scan.LineBlock, struct{}]{Produce: h.Produce, Shape: cols.Shape(name),
		Detach: detach}, decs)
}

// csvHead is the splitter's side of a CSV reader: it reads the header and
// looks for stray quotes in a buffer that cannot be cut.
type csvHead struct {
	split *scan.LineSplitter
	cols  batch.Columns
	k     csvBlock
	// l is the layout, nil until the header is read. It is set before the
	// first block is handed on and not changed after, so the decoders,
	// which read it only once they have a block, share it without a lock.
	l *csvLayout
}

// Produce is the ordered decoder's producer: the splitter's blocks, those
// up to the header's end first taken for the header. With no header the
// input has no rows.
func (h *csvHead) Produce(emit func(*scan.LineBlock) bool) error {
	var err error
	first := true
	serr := h.split.Produce(func(blk *scan.LineBlock) bool {
		if h.l != nil {
			return emit(blk)
		}
		buf := blk.Buf
		if first {
			buf, first = bytes.TrimPrefix(buf, scan.Bom), false
		}
		h.k.reset(buf, blk.Base)
		if h.l, err = h.k.header(h.cols); err != nil || h.l == nil || h.k.p >= len(buf) {
			h.split.Recycle(blk) // no rows in it: white space lines, the header
			return err == nil
		}
		blk.Buf, blk.Base = buf[h.k.p:], h.k.line
		return emit(blk)
	})
	if err != nil {
		return err
	}
	return serr
}

// stuck is the splitter's hook for a buffer of base lines that holds no
// whole record. One record may be longer than the buffer; or a stray quote
// makes every later newline look quoted (see Dialect.Cut): the records
// are parsed as far as they go to find such a quote before the buffer
// grows. Past scan.MaxLine it is an error.
func (h *csvHead) stuck(buf []byte, base int64) error {
	if l := h.l; l != nil && l.Quote != 0 && bytes.IndexByte(buf, '\n') >= 0 {
		k := csvBlock{Dialect: l.Dialect, name: l.name}
		k.reset(buf, base)
		var b batch.Batch
		shape := h.cols.Shape(l.name)
		for k.p < len(k.buf) {
			b.ResetLike(shape)
			if err := l.Parse(&k, &b, 1<<12); err != nil {
				if k.stray {
					return err
				}
				break // a quote open at the end: the record may be just long
			}
		}
	}
	if len(buf) < h.split.Max {
		return nil
	}
	return batch.ParseErrorf(h.split.Name, base+1, "a record longer than %s (a quote never closed?): %w", scan.SizeName(h.split.Max), batch.ErrSyntax)
}

// csvDecoder parses blocks of records for one decoder goroutine.
type csvDecoder struct {
	h  *csvHead
	k  csvBlock
	bs int
}

func (d *csvDecoder) Close() {}

// Decode parses the records of blk (scan.LineSplitter.decode).
func (d *csvDecoder) Decode(blk *scan.LineBlock, out *batch.BatchOut[struct{}]) (struct{}, error) {
	d.k.reset(blk.Buf, blk.Base)
	return d.h.split.Decode(blk, out, func(b *batch.Batch) (bool, error) {
		err := d.h.l.Parse(&d.k, b, d.bs)
		return d.k.p < len(d.k.buf), err
	})
}

// header reads the header at the cursor, after lines of white space, and
// makes the layout; nil, nil when the block ends before a header. The
// first block of an input starts with the header (a byte order mark
// removed); csvHead.produce reads it so on the splitter's goroutine and
// hands the rest of the block, from k.p, and the blocks after it to parse.
func (k *csvBlock) header(cols batch.Columns) (*csvLayout, error) {
	for k.p < len(k.buf) && k.spaces() {
	}
	if k.p >= len(k.buf) {
		return nil, nil
	}
	line := k.line + 1
	var names [][]byte
	for {
		v, end, err := k.Field()
		if err != nil {
			return nil, err
		}
		names = append(names, bytes.Clone(v))
		if end {
			return newCSVLayout(k.name, k.Dialect, names, line, cols)
		}
	}
}

// spaces passes a line of nothing but white space at k.p, before the
// header, as the format sniffer does, and reports whether there was one.
func (k *csvBlock) spaces() bool {
	b := k.buf[k.p:]
	e := bytes.IndexByte(b, '\n')
	if e < 0 {
		e = len(b)
	}
	for _, c := range b[:e] {
		if !scan.IsSpace(c) && c != '\v' && c != '\f' {
			return false
		}
	}
	for k.Next() < k.p+e {
	}
	if k.p += e + 1; e < len(b) {
		k.newline(k.p - 1)
	} else {
		k.p = len(k.buf)
	}
	return true
}
