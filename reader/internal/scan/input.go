package scan

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/rankeval/rankeval/reader/internal/batch"
)

var (
	MagicGzip      = []byte{0x1f, 0x8b}
	MagicZstd      = []byte{0x28, 0xb5, 0x2f, 0xfd}
	magicSkippable = []byte{0x2a, 0x4d, 0x18} // after a first byte 0x50-0x5f: see isSkippable
	MagicParquet   = []byte("PAR1")
	MagicArrowFile = []byte("ARROW1")
	MagicArrowIPC  = []byte{0xff, 0xff, 0xff, 0xff} // IPC stream continuation marker
)

// Decompress wraps r by its magic bytes (compression).
func Decompress(name string, r io.Reader, head []byte) (io.Reader, func(), error) {
	switch Compression(head) {
	case "gzip":
		z, err := gzip.NewReader(r)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: gzip header: %v: %w", name, err, batch.ErrCompression)
		}
		return z, func() { z.Close() }, nil
	case "zstd":
		// One decoder goroutine keeps decompression overlapped with parsing
		// without taking a core the metric workers need.
		z, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(2), zstd.WithDecoderMaxWindow(1<<30))
		if err != nil {
			return nil, nil, fmt.Errorf("%s: zstd: %v: %w", name, err, batch.ErrCompression)
		}
		return z, z.Close, nil
	}
	return r, func() {}, nil
}

// OpenLocal opens a local input, or standard input for "-", and gives the
// name messages use for it.
func OpenLocal(name string) (*os.File, string, error) {
	if name == batch.Stdin {
		return os.Stdin, "<stdin>", nil
	}
	f, err := os.Open(name)
	return f, name, err // *PathError already names the file
}

// Bom is the UTF-8 byte order mark some Windows tools write first.
var Bom = []byte{0xef, 0xbb, 0xbf}

// Compression names the compression head starts with, "" for none. It is
// the one rule every reader decompresses by (decompress).
func Compression(head []byte) string {
	switch {
	case bytes.HasPrefix(head, MagicGzip):
		return "gzip"
	case bytes.HasPrefix(head, MagicZstd), isSkippable(head):
		return "zstd"
	}
	return ""
}

// isSkippable reports whether head starts with a zstd skippable frame
// (magic 0x184D2A50 to 0x184D2A5F, little-endian), which seekable-zstd and
// pzstd writers put before the first real frame. The zstd tool, and the
// decoder decompress uses, pass over any number of them, so such a file is
// zstd; what follows them is the decoder's to judge.
func isSkippable(head []byte) bool {
	return len(head) >= 4 && head[0]&0xf0 == 0x50 && bytes.Equal(head[1:4], magicSkippable)
}

// InputCloser is what closes f: nothing when f is standard input, which
// the process keeps. It is decided when the input is opened, not when a
// reader's goroutine closes it: os.Stdin is a variable (tests set it).
func InputCloser(f *os.File) func() error {
	if f == os.Stdin {
		return func() error { return nil }
	}
	return f.Close
}

// IsRegular reports whether f is a regular file. Close waits for the
// splitter's read to return, which a pipe or a terminal may hold up
// indefinitely, so those are parsed as they are read.
func IsRegular(f *os.File) bool {
	st, err := f.Stat()
	return f != os.Stdin && err == nil && st.Mode().IsRegular()
}

// MaxLineDecoders bounds the goroutines parsing one text input, and the
// 2 MiB of blocks each holds: eight parse faster than one goroutine can
// group the rows they return.
const MaxLineDecoders = 8

// MaxLine bounds one JSONL line so a file without newlines fails clearly
// instead of exhausting memory.
const MaxLine = 64 << 20

// SourceError is an error of a caller's stream (reader.OpenStream), as
// its Read returned it: it says nothing of compression.
type SourceError struct{ Err error }

func (e *SourceError) Error() string { return e.Err.Error() }
func (e *SourceError) Unwrap() error { return e.Err }

// Source marks the errors of r, a caller's stream, as SourceErrors.
func Source(r io.Reader) io.Reader { return sourceReader{r} }

type sourceReader struct{ r io.Reader }

func (s sourceReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF {
		err = &SourceError{err}
	}
	return n, err
}

// ReadError names the file and line where reading failed; a truncated
// compressed stream gets a message that says so.
func ReadError(name string, line int64, err error) error {
	var se *SourceError
	if errors.As(err, &se) {
		return batch.ParseErrorf(name, line, "%w", se.Err)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return batch.ParseErrorf(name, line, "input ends in the middle of a compressed stream (truncated file?): %w", batch.ErrCompression)
	}
	var pathErr *os.PathError
	if errors.As(err, &pathErr) {
		return batch.ParseErrorf(name, line, "%w", err)
	}
	// gzip and zstd report corruption with their own error values.
	return batch.ParseErrorf(name, line, "%v: %w", err, batch.ErrCompression)
}
