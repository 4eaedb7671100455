package reader

import (
	"bytes"
	"fmt"
	"io"
)

// A CSV or TSV log is read as JSON lines are (startJSONL): a splitter
// goroutine decompresses the input and cuts it into blocks of whole
// records (csvDialect.cut), which the goroutines of an ordered decoder
// parse (csvLayout.parse), the batches coming out in input order. The
// header is read on the splitter's goroutine from the first blocks, before
// any block is handed on, so the layout every decoder shares is fixed
// before one of them starts.
//
// Ownership: as for every ordered decoder, a batch is valid until the next
// call to Next or Close; its values are copied out of the blocks.

// csvBufSize is the size of the blocks CSV and TSV are parsed in: a block
// is at most this long, unless one record is longer (up to maxLine); a
// variable for the tests.
var csvBufSize = 1 << 20

// newCSV reads a CSV or TSV log from src, which closer releases.
func newCSV(name string, d csvDialect, src io.Reader, closer io.Closer, cols Columns, opt Options) Reader {
	return startCSV(name, d, src, closer.Close, cols, opt, false)
}

// startCSV reads a CSV or TSV log from src on Options.Decoders goroutines
// (default GOMAXPROCS, at most maxLineDecoders) and one splitter; closeSrc
// and detach are as for startJSONL.
func startCSV(name string, d csvDialect, src io.Reader, closeSrc func() error, cols Columns, opt Options, detach bool) Reader {
	k := min(decoders(opt), maxLineDecoders)
	split := newLineSplitter(name, src, closeSrc, csvBufSize, maxLine, k)
	h := &csvHead{split: split, cols: cols, k: csvBlock{csvDialect: d, name: name}}
	split.cut, split.stuck = d.cut, h.stuck
	decs := make([]unitDecoder[*lineBlock, struct{}], k)
	for w := range decs {
		decs[w] = &csvDecoder{h: h, k: csvBlock{csvDialect: d, name: name}, bs: opt.batchSize()}
	}
	return startOrdered(orderedConfig[*lineBlock, struct{}]{produce: h.produce, shape: cols.shape(name),
		detach: detach}, decs)
}

// csvHead is the splitter's side of a CSV reader: it reads the header and
// looks for stray quotes in a buffer that cannot be cut.
type csvHead struct {
	split *lineSplitter
	cols  Columns
	k     csvBlock
	// l is the layout, nil until the header is read. It is set before the
	// first block is handed on and not changed after, so the decoders,
	// which read it only once they have a block, share it without a lock.
	l *csvLayout
}

// produce is the ordered decoder's producer: the splitter's blocks, those
// up to the header's end first taken for the header. With no header the
// input has no rows.
func (h *csvHead) produce(emit func(*lineBlock) bool) error {
	var err error
	first := true
	serr := h.split.produce(func(blk *lineBlock) bool {
		if h.l != nil {
			return emit(blk)
		}
		buf := blk.buf
		if first {
			buf, first = bytes.TrimPrefix(buf, bom), false
		}
		h.k.reset(buf, blk.base)
		if h.l, err = h.k.header(h.cols); err != nil || h.l == nil || h.k.p >= len(buf) {
			h.split.recycle(blk) // no rows in it: white space lines, the header
			return err == nil
		}
		blk.buf, blk.base = buf[h.k.p:], h.k.line
		return emit(blk)
	})
	if err != nil {
		return err
	}
	return serr
}

// stuck is the splitter's hook for a buffer of base lines that holds no
// whole record. One record may be longer than the buffer; or a stray quote
// makes every later newline look quoted (see csvDialect.cut): the records
// are parsed as far as they go to find such a quote before the buffer
// grows. Past maxLine it is an error.
func (h *csvHead) stuck(buf []byte, base int64) error {
	if l := h.l; l != nil && l.quote != 0 && bytes.IndexByte(buf, '\n') >= 0 {
		k := csvBlock{csvDialect: l.csvDialect, name: l.name}
		k.reset(buf, base)
		var b Batch
		shape := h.cols.shape(l.name)
		for k.p < len(k.buf) {
			b.ResetLike(shape)
			if err := l.parse(&k, &b, 1<<12); err != nil {
				if k.stray {
					return err
				}
				break // a quote open at the end: the record may be just long
			}
		}
	}
	if len(buf) < h.split.max {
		return nil
	}
	return fmt.Errorf("%s:%d: a record longer than %s (a quote never closed?): %w", h.split.name, base+1, sizeName(h.split.max), ErrSyntax)
}

// csvDecoder parses blocks of records for one decoder goroutine.
type csvDecoder struct {
	h  *csvHead
	k  csvBlock
	bs int
}

func (d *csvDecoder) close() {}

// decode parses the records of blk (lineSplitter.decode).
func (d *csvDecoder) decode(blk *lineBlock, out *batchOut[struct{}]) (struct{}, error) {
	d.k.reset(blk.buf, blk.base)
	return d.h.split.decode(blk, out, func(b *Batch) (bool, error) {
		err := d.h.l.parse(&d.k, b, d.bs)
		return d.k.p < len(d.k.buf), err
	})
}

// header reads the header at the cursor, after lines of white space, and
// makes the layout; nil, nil when the block ends before a header. The
// first block of an input starts with the header (a byte order mark
// removed); csvHead.produce reads it so on the splitter's goroutine and
// hands the rest of the block, from k.p, and the blocks after it to parse.
func (k *csvBlock) header(cols Columns) (*csvLayout, error) {
	for k.p < len(k.buf) && k.spaces() {
	}
	if k.p >= len(k.buf) {
		return nil, nil
	}
	line := k.line + 1
	var names [][]byte
	for {
		v, end, err := k.field()
		if err != nil {
			return nil, err
		}
		names = append(names, bytes.Clone(v))
		if end {
			return newCSVLayout(k.name, k.csvDialect, names, line, cols)
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
		if !isSpace(c) && c != '\v' && c != '\f' {
			return false
		}
	}
	for k.next() < k.p+e {
	}
	if k.p += e + 1; e < len(b) {
		k.newline(k.p - 1)
	} else {
		k.p = len(k.buf)
	}
	return true
}
