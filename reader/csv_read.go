package reader

import (
	"bytes"
	"fmt"
	"io"
	"math"
)

// csvReader reads a CSV or TSV log on the caller's goroutine: it reads the
// text into a buffer, cuts it into blocks of whole records
// (csvDialect.cut) and parses each block (csvLayout.parse), as a parallel
// decoder would on several goroutines.
//
// Ownership: as for every Reader, the batch is valid until the next call
// to Next or Close; its values are copied out of the read buffer.
type csvReader struct {
	name   string
	src    io.Reader
	closer io.Closer
	cols   Columns
	bs     int

	l      *csvLayout // nil until the header is read
	k      csvBlock   // the block in hand is buf[r:r+len(k.buf)]
	buf    []byte
	r, w   int // unread bytes are buf[r:w]
	srcErr error
	began  bool // the header was looked for

	target
	err error
}

// csvBufSize is the read buffer's first size: a block is at most this
// long, unless one record is longer (a variable for the tests).
var csvBufSize = 1 << 20

func newCSV(name string, d csvDialect, src io.Reader, closer io.Closer, cols Columns, opt Options) *csvReader {
	c := &csvReader{name: name, src: src, closer: closer, cols: cols, bs: opt.batchSize(), buf: make([]byte, csvBufSize)}
	c.k = csvBlock{csvDialect: d, name: name}
	c.k.reset(nil, 0)
	shapeBatch(&c.own, name, cols)
	c.b = &c.own
	return c
}

func (c *csvReader) Err() error { return c.err }

func (c *csvReader) Close() error {
	if c.closer == nil {
		return nil
	}
	cl := c.closer
	c.closer = nil
	return cl.Close()
}

func (c *csvReader) Next() bool { c.fillOwn(); return c.rows() }

func (c *csvReader) NextInto(b *Batch) bool { c.fillInto(b); return c.rows() }

func (c *csvReader) rows() bool {
	if c.err != nil {
		return false
	}
	if !c.began {
		c.began = true
		if c.err = c.header(); c.err != nil {
			return false
		}
	}
	if c.l == nil {
		return false // no header: the input has no rows
	}
	for c.b.N < c.bs {
		if c.k.p >= len(c.k.buf) && !c.nextBlock() {
			break
		}
		if err := c.l.parse(&c.k, c.b, c.bs); err != nil {
			c.err = err
			return false
		}
	}
	return c.b.N > 0
}

// header reads the header, the first record after any blank lines, and
// makes the layout; with none, the input has no rows and c.l stays nil.
func (c *csvReader) header() error {
	for c.w-c.r < len(bom) && c.srcErr == nil {
		if !c.fill() {
			return c.err
		}
	}
	if bytes.HasPrefix(c.buf[c.r:c.w], bom) {
		c.r += len(bom)
	}
	k := &c.k
	for {
		if k.p >= len(k.buf) && !c.nextBlock() {
			return c.err
		}
		l, err := k.header(c.cols)
		if l != nil || err != nil {
			c.l = l
			return err
		}
	}
}

// header reads the header at the cursor, after lines of white space, and
// makes the layout; nil, nil when the block ends before a header. The
// first block of an input starts with the header (a byte order mark
// removed); a parallel decoder reads it so on one goroutine and hands the
// rest of the block, from k.p, and the blocks after it to parse.
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

// nextBlock moves past the block in hand to the next block of whole
// records, reading more input when the buffer holds none. It returns false
// at the end of the input or on an error (c.err).
func (c *csvReader) nextBlock() bool {
	c.r += len(c.k.buf)
	for {
		data := c.buf[c.r:c.w]
		if n := c.k.cut(data); n > 0 {
			c.k.reset(data[:n], c.k.line)
			return true
		}
		if c.srcErr != nil {
			if c.srcErr != io.EOF {
				c.k.reset(nil, c.k.line)
				c.err = readError(c.name, c.k.line+1, c.srcErr)
				return false
			}
			c.k.reset(data, c.k.line) // the last record, without its newline
			return len(data) > 0
		}
		if !c.fill() {
			return false
		}
	}
}

// fill reads more input after the unread bytes, moving them to the front
// of the buffer and growing it when they fill it (one record longer than
// the buffer).
func (c *csvReader) fill() bool {
	if c.r > 0 {
		c.w = copy(c.buf, c.buf[c.r:c.w])
		c.r = 0
	}
	if c.w == len(c.buf) {
		if err := c.long(); err != nil {
			c.err = err
			return false
		}
		nb := make([]byte, 2*len(c.buf))
		copy(nb, c.buf[:c.w])
		c.buf = nb
	}
	n, err := c.src.Read(c.buf[c.w:])
	c.w += n
	if err != nil {
		c.srcErr = err
	}
	return true
}

// long is called when the buffer holds no whole record: one record is
// longer than the buffer. A stray quote makes every later newline look
// quoted (see cut), so before reading on in search of the record's end,
// the record is parsed as far as it goes to find such a quote; past
// maxLine it is an error.
func (c *csvReader) long() error {
	data := c.buf[:c.w]
	if c.l != nil && c.k.quote != 0 && bytes.IndexByte(data, '\n') >= 0 {
		k := csvBlock{csvDialect: c.k.csvDialect, name: c.name}
		k.reset(data, c.k.line)
		var b Batch
		shapeBatch(&b, c.name, c.cols)
		if err := c.l.parse(&k, &b, math.MaxInt); err != nil && k.stray {
			return err
		}
	}
	if len(c.buf) < maxLine {
		return nil
	}
	return fmt.Errorf("%s:%d: a record longer than %d MiB (a quote never closed?): %w", c.name, c.k.line+1, maxLine>>20, ErrSyntax)
}
