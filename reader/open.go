package reader

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/rankeval/rankeval/objstore"
)

// Options tune every reader. The zero value gives defaults.
type Options struct {
	// BatchSize is the number of rows per batch (default 8192; 65536 for
	// Parquet and Arrow IPC). Results do
	// not depend on it; only memory and speed do.
	BatchSize int
	// Decoders is the number of goroutines decoding one file, each taking
	// every Decoders-th row group, record batch or block of lines (default
	// GOMAXPROCS; at most 8 for JSONL and TREC runs). Batches still come
	// out in file order.
	Decoders int
	// FirstUnit and Units restrict a Parquet file to row groups
	// [FirstUnit, FirstUnit+Units), so a distributed runner can split one
	// file between workers (Units 0: through the last). Positions in
	// batches and messages stay those of the whole file. Other formats are
	// read whole and refuse a FirstUnit above 0.
	FirstUnit, Units int
	// BytesRead, when set, is advanced by the bytes read from each input
	// (compressed bytes for compressed inputs), for progress reports.
	BytesRead *atomic.Int64
	// Format names the format of text inputs (default: told from the
	// first line).
	Format Format
	// ReadTimeout bounds how long a request to object storage may receive
	// nothing (0: objstore.DefaultReadTimeout).
	ReadTimeout time.Duration
}

// objectContext is the context of an input's requests to object storage.
func (o Options) objectContext() context.Context {
	return objstore.WithReadTimeout(context.Background(), o.ReadTimeout)
}

// unitRange checks the part of a file of n units that opt asks for.
func (o Options) unitRange(name string, n int) (first, end int, err error) {
	if o.FirstUnit == 0 && o.Units == 0 {
		return 0, n, nil
	}
	end = n
	if o.Units > 0 {
		end = o.FirstUnit + o.Units
	}
	if o.FirstUnit < 0 || o.Units < 0 || end > n {
		return 0, 0, fmt.Errorf("%s: row groups [%d, %d) asked for; the file has %d: %w", name, o.FirstUnit, end, n, ErrFormat)
	}
	return o.FirstUnit, end, nil
}

// Object is an input that is not a local file: an object in a store
// (package objstore). Formats that index their content read it with ranged
// ReadAt calls; the others stream it front to back. Its errors name it,
// as *os.File's do.
type Object interface {
	io.ReaderAt
	Size() int64
	// Stream reads the whole object from its start.
	Stream() (io.ReadCloser, error)
	Close() error
}

// countingReader advances a shared counter; one atomic add per read of
// up to 64 KiB costs nothing measurable.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// source wraps f for counting when asked.
func (o Options) source(f io.Reader) io.Reader {
	if o.BytesRead == nil {
		return f
	}
	return countingReader{f, o.BytesRead}
}

func (o Options) batchSize() int {
	if o.BatchSize <= 0 {
		return 8192
	}
	return o.BatchSize
}

// Stdin is the input name that reads standard input.
const Stdin = "-"

var (
	magicGzip      = []byte{0x1f, 0x8b}
	magicZstd      = []byte{0x28, 0xb5, 0x2f, 0xfd}
	magicSkippable = []byte{0x2a, 0x4d, 0x18} // after a first byte 0x50-0x5f: see isSkippable
	magicParquet   = []byte("PAR1")
	magicArrowFile = []byte("ARROW1")
	magicArrowIPC  = []byte{0xff, 0xff, 0xff, 0xff} // IPC stream continuation marker
)

// Open opens one input, choosing the format and decompression from its
// first bytes, never from its name: Parquet, Arrow IPC file or stream, or
// JSONL, CSV or TSV that is plain, gzip or zstd (opt.Format may name the
// text format). An input with no rows (0 bytes, blank lines, a compressed
// stream of nothing, a columnar file of no rows) gives a reader that has
// none. Text that starts like none of them (JSON lines: the first non-blank
// byte '{'; CSV and TSV: a header line, see delimited) is ErrFormat naming
// the input.
func Open(name string, cols Columns, opt Options) (Reader, error) {
	if err := cols.Check(); err != nil {
		return nil, err
	}
	if objstore.IsURL(name) {
		o, err := objstore.Open(opt.objectContext(), name)
		if err != nil {
			return nil, err
		}
		return OpenObject(name, o, cols, opt)
	}
	if opt.FirstUnit != 0 || opt.Units != 0 {
		// only Parquet can be read in parts; the check comes after the magic
		return openLocalPart(name, cols, opt)
	}
	f, display, err := openLocal(name)
	if err != nil {
		return nil, err
	}
	if name != Stdin {
		if st, err := f.Stat(); err == nil && st.IsDir() {
			f.Close()
			return nil, fmt.Errorf("%s: is a directory: %w", name, ErrFormat)
		}
	}
	br := bufio.NewReaderSize(opt.source(f), 1<<16)
	head, err := br.Peek(8)
	if err != nil && err != io.EOF {
		f.Close()
		return nil, fmt.Errorf("%s: %w", display, err)
	}
	// An empty input (0 bytes, an empty standard input) is read as JSON
	// lines, of which it has none: no rows, not an error (SPEC §8).
	switch {
	case bytes.HasPrefix(head, magicParquet):
		return openParquet(display, f, cols, opt)
	case bytes.HasPrefix(head, magicArrowFile):
		return openArrowFile(display, f, cols, opt)
	case bytes.HasPrefix(head, magicArrowIPC):
		return openArrowStream(display, br, f, cols, opt)
	}
	return openText(display, br, head, inputCloser(f), cols, opt, !isRegular(f))
}

// openText opens JSON lines, CSV or TSV, plain, gzip or zstd, from br,
// whose first bytes are head, after checking that the (decompressed) text
// starts like one of them (textFormat): anything else is ErrFormat naming
// the input. closeSrc releases br's source; pipe says a read of it may
// never return (see startJSONL).
func openText(name string, br *bufio.Reader, head []byte, closeSrc func() error, cols Columns, opt Options, pipe bool) (Reader, error) {
	// head is br's buffer, which a zstd decoder's goroutine starts reading
	// into as soon as decompress returns: read it first
	how := compression(head)
	src, closeDec, err := decompress(name, br, head)
	if err != nil {
		closeSrc()
		return nil, err
	}
	closeAll := func() error {
		closeDec()
		return closeSrc()
	}
	text := br
	var f Format
	if how != "" {
		text = bufio.NewReaderSize(src, 1<<16)
		f, err = textFormat(name, how, text, opt.Format)
	} else {
		f, err = textFormat(name, "", text, opt.Format)
	}
	switch {
	case err != nil:
		closeAll()
		return nil, err
	case f == FormatCSV:
		return startCSV(name, dialectCSV, text, closeAll, cols, opt, pipe), nil
	case f == FormatTSV:
		return startCSV(name, dialectTSV, text, closeAll, cols, opt, pipe), nil
	}
	return startJSONL(name, text, closeAll, cols, opt, pipe), nil
}

// decompress wraps r by its magic bytes (compression).
func decompress(name string, r io.Reader, head []byte) (io.Reader, func(), error) {
	switch compression(head) {
	case "gzip":
		z, err := gzip.NewReader(r)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: gzip header: %v: %w", name, err, ErrCompression)
		}
		return z, func() { z.Close() }, nil
	case "zstd":
		// One decoder goroutine keeps decompression overlapped with parsing
		// without taking a core the metric workers need.
		z, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(2), zstd.WithDecoderMaxWindow(1<<30))
		if err != nil {
			return nil, nil, fmt.Errorf("%s: zstd: %v: %w", name, err, ErrCompression)
		}
		return z, z.Close, nil
	}
	return r, func() {}, nil
}

// Check reports a set of columns no reader can read: a required name left
// empty, or one name given two roles (exit 2 in the commands: a corrected
// command line fixes it).
func (c Columns) Check() error {
	if c.Query == "" {
		return fmt.Errorf("query column name is empty: %w", ErrColumn)
	}
	if c.Label == "" {
		return fmt.Errorf("label column name is empty: %w", ErrColumn)
	}
	if c.Score == "" && c.Rank == "" {
		return fmt.Errorf("need a score column or a rank column: %w", ErrColumn)
	}
	// A name given two roles would be read for one and reported missing for
	// the other; say what is wrong instead.
	role := map[string]string{} // column name -> the role it was first named for
	for _, r := range c.requests() {
		first, ok := role[r.name]
		if !ok {
			role[r.name] = r.role()
			continue
		}
		if first == r.role() {
			return fmt.Errorf("column %q is named twice, for %s: %w", r.name, first, ErrColumn)
		}
		return fmt.Errorf("column %q is named for two roles: %s and %s: %w", r.name, first, r.role(), ErrColumn)
	}
	if n := len(c.Extra) + len(c.ExtraScore) + len(c.Numbers) + len(c.Texts); n > maxExtra {
		return fmt.Errorf("%d extra columns: at most %d: %w", n, maxExtra, ErrColumn)
	}
	return nil
}

// OpenObject opens an object of a store as Open opens a file, choosing the
// format from its first bytes (one small ranged read). Parquet is then read
// with ranged reads of its footer and of the configured columns' chunks
// only; JSONL (plain, gzip, zstd) and Arrow IPC streams with one streaming
// read, decoded as the bytes arrive.
func OpenObject(name string, o Object, cols Columns, opt Options) (Reader, error) {
	if err := cols.Check(); err != nil {
		o.Close()
		return nil, err
	}
	head := make([]byte, 8)
	n, err := o.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		o.Close()
		return nil, err
	}
	head = head[:n]
	var r Reader
	err = nil // io.EOF: an object shorter than head, or empty
	switch {
	case bytes.HasPrefix(head, magicParquet):
		r, err = newParquet(name, io.NewSectionReader(o, 0, o.Size()), o.Close, cols, opt)
	case bytes.HasPrefix(head, magicArrowFile) && opt.FirstUnit == 0 && opt.Units == 0:
		r, err = newArrowFile(name, io.NewSectionReader(o, 0, o.Size()), o.Close, cols, opt)
	}
	if r != nil || err != nil {
		if err != nil {
			o.Close()
		}
		return r, err
	}
	if opt.FirstUnit != 0 || opt.Units != 0 {
		o.Close()
		return nil, fmt.Errorf("%s: only Parquet files can be read in parts (row groups): %w", name, ErrFormat)
	}
	s, err := o.Stream()
	if err != nil {
		o.Close()
		return nil, err
	}
	closeAll := func() error {
		s.Close()
		return o.Close()
	}
	br := bufio.NewReaderSize(opt.source(s), 1<<16)
	switch {
	case bytes.HasPrefix(head, magicArrowIPC):
		return openArrowStreamFrom(name, br, closeAll, cols, opt)
	}
	return openText(name, br, head, closeAll, cols, opt, false)
}

// openLocalPart opens row groups of a local Parquet file.
func openLocalPart(name string, cols Columns, opt Options) (Reader, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	head := make([]byte, 4)
	if _, err := io.ReadFull(f, head); err != nil || !bytes.Equal(head, magicParquet) {
		f.Close()
		return nil, fmt.Errorf("%s: only Parquet files can be read in parts (row groups): %w", name, ErrFormat)
	}
	return openParquet(name, f, cols, opt)
}

// Units reports how many parts a distributed runner may read name in
// independently (Options.FirstUnit, Options.Units): the row groups of a
// Parquet file, 1 for any other input, which is read whole. Of opt, only
// the read timeout applies.
func Units(name string, opt Options) (int, error) {
	var ra io.ReaderAt
	var size int64
	if objstore.IsURL(name) {
		o, err := objstore.Open(opt.objectContext(), name)
		if err != nil {
			return 0, err
		}
		ra, size = o, o.Size()
	} else {
		f, err := os.Open(name)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return 0, err
		}
		ra, size = f, st.Size()
	}
	head := make([]byte, 4)
	if n, _ := ra.ReadAt(head, 0); n < 4 || !bytes.Equal(head, magicParquet) {
		return 1, nil
	}
	return parquetRowGroups(name, io.NewSectionReader(ra, 0, size))
}

// Rereadable reports whether the input can be opened again and read from
// its start: a regular file or an object in object storage. It is decided
// from what the file is, never from its name: /dev/stdin, /dev/fd/N (a
// shell's <(zcat log.gz)) and named FIFOs are pipes, and opening one again
// would take rows from the stream a first open is still reading, or wait
// for ever for a writer. Such an input is read once, as "-" is.
func Rereadable(name string) bool {
	if name == Stdin {
		return false
	}
	if objstore.IsURL(name) {
		return true
	}
	st, err := os.Stat(name)
	return err == nil && st.Mode().IsRegular()
}

// openLocal opens a local input, or standard input for "-", and gives the
// name messages use for it.
func openLocal(name string) (*os.File, string, error) {
	if name == Stdin {
		return os.Stdin, "<stdin>", nil
	}
	f, err := os.Open(name)
	return f, name, err // *PathError already names the file
}
