package reader

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// OpenStream opens r as Open opens a file, choosing the format and
// decompression from its first bytes: JSONL, CSV or TSV (plain, gzip or
// zstd) and Arrow IPC streams as they arrive; Parquet and Arrow IPC
// files, which keep their index at their end, when r is an *os.File of a
// regular file or an io.ReaderAt with a Size method (a *bytes.Reader).
// name is what messages call the input. The reader does not close r.
func OpenStream(name string, r io.Reader, cols Columns, opt Options) (Reader, error) {
	if err := cols.Check(); err != nil {
		return nil, err
	}
	noClose := func() error { return nil }
	if ra, ok := r.(interface {
		io.ReaderAt
		Size() int64
	}); ok {
		head := make([]byte, 8)
		n, err := ra.ReadAt(head, 0)
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		switch head = head[:n]; {
		case bytes.HasPrefix(head, magicParquet):
			return newParquet(name, io.NewSectionReader(ra, 0, ra.Size()), noClose, cols, opt)
		case bytes.HasPrefix(head, magicArrowFile):
			return newArrowFile(name, io.NewSectionReader(ra, 0, ra.Size()), noClose, cols, opt)
		}
	}
	br := bufio.NewReaderSize(opt.source(r), 1<<16)
	head, err := br.Peek(8)
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	f, isFile := r.(*os.File)
	switch {
	case bytes.HasPrefix(head, magicParquet) && isFile:
		if err := seekable(name, "Parquet", f); err != nil {
			return nil, err
		}
		return newParquet(name, f, noClose, cols, opt)
	case bytes.HasPrefix(head, magicArrowFile) && isFile:
		if err := seekable(name, "Arrow IPC file", f); err != nil {
			return nil, err
		}
		return newArrowFile(name, f, noClose, cols, opt)
	case bytes.HasPrefix(head, magicParquet), bytes.HasPrefix(head, magicArrowFile):
		return nil, fmt.Errorf("%s: a Parquet or Arrow IPC file must be read with random access (a file, or an io.ReaderAt with a Size), not a stream (its footer is at the end): %w", name, ErrFormat)
	case bytes.HasPrefix(head, magicArrowIPC):
		return openArrowStreamFrom(name, br, noClose, cols, opt)
	}
	return openText(name, br, head, noClose, cols, opt, !isFile || !isRegular(f))
}

// OpenRecords reads the record batches of rr as an Arrow IPC stream is
// read: the columns cols names, by name, in rr's order. name is what
// messages call the input. The reader releases rr's batches as it
// decodes them, not rr itself.
func OpenRecords(name string, rr array.RecordReader, cols Columns, opt Options) (_ Reader, err error) {
	if err := cols.Check(); err != nil {
		return nil, err
	}
	if _, err := bindSchema(name, rr.Schema(), cols.requests(), nil); err != nil {
		return nil, err
	}
	units := &recordUnits{name: name, rr: rr}
	loc := &locator{name: name, unit: "record batch"}
	return startColumnar(name, loc, -1, []unitReader{units}, cols, opt, ipcWhere(name), func() error { return nil }), nil
}
