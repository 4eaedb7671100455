// Package scan reads text inputs: it opens a local file or standard input
// and decompresses gzip or zstd (input.go), cuts the stream into blocks of
// whole lines on a goroutine of its own (lines.go), splits TREC lines into
// whitespace-separated fields with word-at-a-time or SSE2 separator masks
// (fields.go, sepmask_*), and parses numbers by JSON's grammar, which every
// text format shares (number.go).
package scan

import (
	"bytes"
	"fmt"
	"io"

	"github.com/rankeval/rankeval/reader/internal/batch"
)

// The first stage of every line-oriented reader (JSONL, CSV, TSV): the
// input, decompressed on the splitter's goroutine, cut into blocks of whole
// lines numbered from the input's start, which an ordered decoder's
// goroutines then parse, each block on its own. The splitter knows nothing
// of the format but where a block may end (LineSplitter.Cut).

// LineBlock is a stretch of whole lines of a text input: buf holds them,
// each ending in '\n', with scanSlack bytes of capacity past the last (for
// word-at-a-time loads); base is the number of lines before them.
type LineBlock struct {
	Buf  []byte
	Base int64
}

// LineSplitter cuts src into lineBlocks. Blocks go back to it (recycle) once
// parsed; an ordered decoder holds at most two a decoder and the splitter
// one more, so that many are ever made.
type LineSplitter struct {
	Name    string
	src     io.Reader
	closeFn func() error // releases src when the splitter stops
	size    int          // bytes a block reads
	Max     int          // the longest line (>= size): a block grows to hold one
	// Cut returns the length of the longest prefix of buf that ends a
	// record, 0 if none does: by default after the last newline. A format
	// whose records may hold newlines (quoted CSV fields) gives its own.
	Cut func(buf []byte) int
	// Stuck, when set, is called on a buffer that has filled up without a
	// cut, base lines into the input, before it grows (and when it can grow
	// no more): its error stops the splitter. A format whose cut a syntax
	// error can defeat (a stray quote) finds the error there, rather than
	// reading on to the size limit in search of a record's end.
	Stuck func(buf []byte, base int64) error
	free  chan *LineBlock
}

func NewLineSplitter(name string, src io.Reader, closeSrc func() error, size, maxLine, decoders int) *LineSplitter {
	return &LineSplitter{Name: name, src: src, closeFn: closeSrc, size: size, Max: max(size, maxLine),
		Cut: afterLastNewline, free: make(chan *LineBlock, 2*decoders+1)}
}

func afterLastNewline(buf []byte) int { return bytes.LastIndexByte(buf, '\n') + 1 }

// Recycle gives back a block a decoder has parsed.
func (s *LineSplitter) Recycle(b *LineBlock) {
	select {
	case s.free <- b:
	default: // cannot happen (see lineSplitter); the collector takes it
	}
}

// Produce is the ordered decoder's producer: it reads a block at a time,
// each block ending where cut says, the rest carried into the next. A read
// error is returned after the lines before it are emitted; so is a line
// longer than max, named by its number.
func (s *LineSplitter) Produce(emit func(*LineBlock) bool) error {
	defer s.closeFn()
	var carry []byte
	var base int64
	for {
		var blk *LineBlock
		select {
		case blk = <-s.free:
			if cap(blk.Buf) > s.size+scanSlack {
				blk.Buf = nil // it held a long line: give the memory back
			}
		default:
			blk = &LineBlock{}
		}
		if blk.Buf == nil {
			blk.Buf = make([]byte, 0, s.size+scanSlack)
		}
		buf := append(blk.Buf[:0], carry...)
		var rerr error
		eof := false
		end := 0
		for limit := s.size; ; limit = min(2*limit, s.Max) {
			if cap(buf) < limit+scanSlack {
				buf = append(make([]byte, 0, limit+scanSlack), buf...)
			}
			for len(buf) < limit {
				n, err := s.src.Read(buf[len(buf):limit])
				buf = buf[:len(buf)+n]
				if err == io.EOF {
					eof = true
					break
				}
				if err != nil {
					rerr = err
					break
				}
			}
			if end = s.Cut(buf); end > 0 || eof || rerr != nil {
				break
			}
			if s.Stuck != nil {
				if err := s.Stuck(buf, base); err != nil {
					return err
				}
			}
			if limit == s.Max {
				break
			}
		}
		switch {
		case rerr != nil:
			buf = buf[:end]
		case eof:
			if end < len(buf) {
				buf = append(buf, '\n') // a last line without a newline: the slack has room
			}
		case end == 0:
			return batch.ParseErrorf(s.Name, base+1, "line longer than %s: %w", SizeName(s.Max), batch.ErrSyntax)
		default:
			carry = append(carry[:0], buf[end:]...)
			buf = buf[:end]
		}
		blk.Buf, blk.Base = buf, base
		base += int64(bytes.Count(buf, []byte{'\n'}))
		if len(buf) > 0 && !emit(blk) {
			return nil
		}
		switch {
		case rerr != nil:
			return ReadError(s.Name, base+1, rerr)
		case eof:
			return nil
		}
	}
}

// Decode hands on the rows of blk in batches taken from out, which fill
// adds rows to until it holds the batch size or the block ends (more: rows
// remain). So batches never span blocks, and a batch in which a line fails
// is not handed on. Every line decoder's decode is this with its own fill;
// blk goes back to the splitter after.
func (s *LineSplitter) Decode(blk *LineBlock, out *batch.BatchOut[struct{}], fill func(b *batch.Batch) (more bool, err error)) (struct{}, error) {
	defer s.Recycle(blk)
	for more := true; more; {
		b := out.Get()
		if b == nil {
			return struct{}{}, batch.ErrStopped
		}
		var err error
		if more, err = fill(b); err != nil {
			out.Drop(b)
			return struct{}{}, err
		}
		if b.N == 0 { // blank lines only
			out.Drop(b)
			continue
		}
		if !out.Put(b) {
			return struct{}{}, batch.ErrStopped
		}
	}
	return struct{}{}, nil
}

// SizeName writes a buffer size for a message: "1 MiB", or bytes.
func SizeName(n int) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
