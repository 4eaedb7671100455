package reader

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/rankeval/rankeval/objstore"
	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/columnar"
	"github.com/rankeval/rankeval/reader/internal/csv"
	"github.com/rankeval/rankeval/reader/internal/jsonl"
	"github.com/rankeval/rankeval/reader/internal/scan"
)

// objectContext is the context of an input's requests to object storage.
func objectContext(o Options) context.Context {
	return objstore.WithReadTimeout(context.Background(), o.ReadTimeout)
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

// Open opens one input, choosing the format and decompression from its
// first bytes, never from its name: Parquet, Arrow IPC file or stream, or
// JSONL, CSV or TSV that is plain, gzip or zstd (opt.Format may name the
// text format). An input with no rows (0 bytes, blank lines, a compressed
// stream of nothing, a columnar file of no rows) gives a reader that has
// none. Text that starts like none of them (JSON lines: the first non-blank
// byte '{'; CSV and TSV: a header line, see delimited) is ErrFormat naming
// the input.
func Open(name string, cols batch.Columns, opt batch.Options) (batch.Reader, error) {
	if err := cols.Check(); err != nil {
		return nil, err
	}
	if objstore.IsURL(name) {
		o, err := objstore.Open(objectContext(opt), name)
		if err != nil {
			return nil, err
		}
		return OpenObject(name, o, cols, opt)
	}
	if opt.FirstUnit != 0 || opt.Units != 0 {
		// only Parquet can be read in parts; the check comes after the magic
		return openLocalPart(name, cols, opt)
	}
	f, display, err := scan.OpenLocal(name)
	if err != nil {
		return nil, err
	}
	if name != batch.Stdin {
		if st, err := f.Stat(); err == nil && st.IsDir() {
			f.Close()
			return nil, fmt.Errorf("%s: is a directory: %w", name, batch.ErrFormat)
		}
	}
	br := bufio.NewReaderSize(opt.Source(f), 1<<16)
	head, err := br.Peek(8)
	if err != nil && err != io.EOF {
		f.Close()
		return nil, fmt.Errorf("%s: %w", display, err)
	}
	// An empty input (0 bytes, an empty standard input) is read as JSON
	// lines, of which it has none: no rows, not an error (SPEC §8).
	switch {
	case bytes.HasPrefix(head, scan.MagicParquet):
		return columnar.OpenParquet(display, f, cols, opt)
	case bytes.HasPrefix(head, scan.MagicArrowFile):
		return columnar.OpenArrowFile(display, f, cols, opt)
	case bytes.HasPrefix(head, scan.MagicArrowIPC):
		return columnar.OpenArrowStream(display, br, f, cols, opt)
	}
	return openText(display, br, head, scan.InputCloser(f), cols, opt, !scan.IsRegular(f))
}

// openText opens JSON lines, CSV or TSV, plain, gzip or zstd, from br,
// whose first bytes are head, after checking that the (decompressed) text
// starts like one of them (textFormat): anything else is ErrFormat naming
// the input. closeSrc releases br's source; pipe says a read of it may
// never return (see jsonl.Start).
func openText(name string, br *bufio.Reader, head []byte, closeSrc func() error, cols batch.Columns, opt batch.Options, pipe bool) (batch.Reader, error) {
	// head is br's buffer, which a zstd decoder's goroutine starts reading
	// into as soon as decompress returns: read it first
	how := scan.Compression(head)
	src, closeDec, err := scan.Decompress(name, br, head)
	if err != nil {
		closeSrc()
		return nil, err
	}
	closeAll := func() error {
		closeDec()
		return closeSrc()
	}
	text := br
	if how != "" {
		text = bufio.NewReaderSize(src, 1<<16)
	}
	f, sep, err := textFormat(name, how, text, cols, opt)
	if err != nil {
		closeAll()
		return nil, err
	}
	if f == batch.FormatCSV || f == batch.FormatTSV {
		d := csv.DialectCSV
		if sep == '\t' {
			d = csv.DialectTSV // a tab-separated file is TSV, unquoted
		}
		d.Sep, d.DecimalComma = sep, opt.DecimalComma
		return csv.Start(name, d, text, closeAll, cols, opt, pipe), nil
	}
	return jsonl.Start(name, text, closeAll, cols, opt, pipe), nil
}

// OpenObject opens an object of a store as Open opens a file, choosing the
// format from its first bytes (one small ranged read). Parquet is then read
// with ranged reads of its footer and of the configured columns' chunks
// only; JSONL (plain, gzip, zstd) and Arrow IPC streams with one streaming
// read, decoded as the bytes arrive.
func OpenObject(name string, o Object, cols batch.Columns, opt batch.Options) (batch.Reader, error) {
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
	var r batch.Reader
	err = nil // io.EOF: an object shorter than head, or empty
	switch {
	case bytes.HasPrefix(head, scan.MagicParquet):
		r, err = columnar.NewParquet(name, io.NewSectionReader(o, 0, o.Size()), o.Close, cols, opt)
	case bytes.HasPrefix(head, scan.MagicArrowFile) && opt.FirstUnit == 0 && opt.Units == 0:
		r, err = columnar.NewArrowFile(name, io.NewSectionReader(o, 0, o.Size()), o.Close, cols, opt)
	}
	if r != nil || err != nil {
		if err != nil {
			o.Close()
		}
		return r, err
	}
	if opt.FirstUnit != 0 || opt.Units != 0 {
		o.Close()
		return nil, fmt.Errorf("%s: only Parquet files can be read in parts (row groups): %w", name, batch.ErrFormat)
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
	br := bufio.NewReaderSize(opt.Source(s), 1<<16)
	switch {
	case bytes.HasPrefix(head, scan.MagicArrowIPC):
		return columnar.OpenArrowStreamFrom(name, br, closeAll, cols, opt)
	}
	return openText(name, br, head, closeAll, cols, opt, false)
}

// openLocalPart opens row groups of a local Parquet file.
func openLocalPart(name string, cols batch.Columns, opt batch.Options) (batch.Reader, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	head := make([]byte, 4)
	if _, err := io.ReadFull(f, head); err != nil || !bytes.Equal(head, scan.MagicParquet) {
		f.Close()
		return nil, fmt.Errorf("%s: only Parquet files can be read in parts (row groups): %w", name, batch.ErrFormat)
	}
	return columnar.OpenParquet(name, f, cols, opt)
}

// Units reports how many parts a distributed runner may read name in
// independently (Options.FirstUnit, Options.Units): the row groups of a
// Parquet file, 1 for any other input, which is read whole. Of opt, only
// the read timeout applies.
func Units(name string, opt Options) (int, error) {
	var ra io.ReaderAt
	var size int64
	if objstore.IsURL(name) {
		o, err := objstore.Open(objectContext(opt), name)
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
	if n, _ := ra.ReadAt(head, 0); n < 4 || !bytes.Equal(head, scan.MagicParquet) {
		return 1, nil
	}
	return columnar.ParquetRowGroups(name, io.NewSectionReader(ra, 0, size))
}

// Rereadable reports whether the input can be opened again and read from
// its start: a regular file or an object in object storage. It is decided
// from what the file is, never from its name: /dev/stdin, /dev/fd/N (a
// shell's <(zcat log.gz)) and named FIFOs are pipes, and opening one again
// would take rows from the stream a first open is still reading, or wait
// for ever for a writer. Such an input is read once, as "-" is.
func Rereadable(name string) bool {
	if name == batch.Stdin {
		return false
	}
	if objstore.IsURL(name) {
		return true
	}
	st, err := os.Stat(name)
	return err == nil && st.Mode().IsRegular()
}
