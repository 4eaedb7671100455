package reader

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
)

// fieldScanner reads a whitespace-separated text file (TREC runs and
// qrels) a buffer at a time and finds each line's fields in place, in one
// pass: the end of a field is the first separator of an 8-byte word
// (sepMask), so a short field costs one load, and the newline is just one
// more separator. Reading lines first and splitting them after went over
// every byte twice and was most of a run's read time.
//
// Blank lines are skipped but counted. The fields of the current line
// alias the buffer until the next call to next.
type fieldScanner struct {
	name string
	r    io.Reader
	buf  []byte // size bytes of data, then scanSlack for the loads past the last newline
	size int
	p    int   // start of the next line
	end  int   // just past the last newline in buf[:fill]
	fill int   // bytes of data in buf
	rerr error // a read error, reported once the lines before it are used
	eof  bool
	n    int64 // number of the current line
	err  error
	k    int // fields of the current line; maxFields+1 means more than maxFields
	ls   int // the current line: buf[ls:le], le at its newline
	le   int
	edge [2 * maxFields]int32 // field i is buf[edge[2i]:edge[2i+1]]
}

const (
	scanBuf   = 1 << 20 // also the longest line
	scanSlack = 16
	maxFields = 8
)

func newFieldScanner(name string, r io.Reader) *fieldScanner {
	return newFieldScannerSize(name, r, scanBuf)
}

// newFieldScannerSize lets tests use a small buffer, to cross its edges often.
func newFieldScannerSize(name string, r io.Reader, size int) *fieldScanner {
	return &fieldScanner{name: name, r: r, buf: make([]byte, size+scanSlack), size: size}
}

// scanLines makes the scanner read lines, whole lines that end in a
// newline with scanSlack bytes of capacity past them, and nothing more;
// the first is line base+1.
func (s *fieldScanner) scanLines(lines []byte, base int64) {
	s.buf, s.size = lines[:cap(lines)], cap(lines)
	s.p, s.end, s.fill, s.n = 0, len(lines), len(lines), base
	s.eof, s.rerr, s.err = true, nil, nil
}

// field returns field i (i < k) of the current line.
func (s *fieldScanner) field(i int) []byte { return s.buf[s.edge[2*i]:s.edge[2*i+1]] }

// fields counts the current line's fields exactly, for error messages.
func (s *fieldScanner) fields() int {
	if s.k <= maxFields {
		return s.k
	}
	return len(splitFields(s.buf[s.ls:s.le], nil))
}

// refill moves the unread tail to the front of the buffer and reads until
// the buffer is full or the input ends. It returns false when there is no
// further complete line, with s.err set if that is an error.
func (s *fieldScanner) refill() bool {
	if s.eof || s.rerr != nil {
		if s.p < s.fill && s.rerr == nil {
			// a last line without a newline: give it one in the slack
			s.buf[s.fill] = '\n'
			s.fill++
			s.end = s.fill
			return true
		}
		if s.rerr != nil {
			s.err = readError(s.name, s.n+1, s.rerr)
		}
		return false
	}
	s.fill = copy(s.buf, s.buf[s.p:s.fill])
	s.p = 0
	for s.fill < s.size {
		k, err := s.r.Read(s.buf[s.fill:s.size])
		s.fill += k
		if err == io.EOF {
			s.eof = true
			break
		}
		if err != nil {
			s.rerr = err
			break
		}
	}
	s.end = bytes.LastIndexByte(s.buf[:s.fill], '\n') + 1
	if s.end == 0 {
		if s.fill == s.size {
			s.err = fmt.Errorf("%s:%d: line longer than %s: %w", s.name, s.n+1, sizeName(s.size), ErrSyntax)
			return false
		}
		return s.refill() // no newline before the end or a read error
	}
	return true
}

// next finds the fields of the next line that has any. Finding all the
// field edges of a word at once, as splitFields does, or the next field's
// start in the word that ends a field, measured slower here (360 and 410
// against 560 MB/s on a generated run): short fields make the simple loop
// the better bet.
func (s *fieldScanner) next() bool {
	if s.err != nil {
		return false
	}
	for {
		if s.p >= s.end {
			if !s.refill() {
				return false
			}
			continue
		}
		// buf[end-1] is a newline and every word load stops at the first
		// separator, so no load reads past buf[:end+7] (the slack).
		b := s.buf
		p := s.p
		s.n++
		k := 0
		for {
			c := b[p]
			for c != '\n' && fieldSep[c] {
				p++
				c = b[p]
			}
			if c == '\n' {
				break
			}
			if k == maxFields {
				k++
				p += bytes.IndexByte(b[p:s.end], '\n')
				break
			}
			s.edge[2*k] = int32(p)
			for {
				m := sepMask(binary.LittleEndian.Uint64(b[p : p+8]))
				if m != 0 {
					p += bits.TrailingZeros64(m) >> 3
					break
				}
				p += 8
			}
			s.edge[2*k+1] = int32(p)
			k++
		}
		s.ls, s.le = s.p, p
		s.p = p + 1
		if k > 0 {
			s.k = k
			return true
		}
	}
}
