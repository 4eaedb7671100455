package reader

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/columnar"
	"github.com/rankeval/rankeval/reader/internal/scan"
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
		case bytes.HasPrefix(head, scan.MagicParquet):
			return columnar.NewParquet(name, io.NewSectionReader(ra, 0, ra.Size()), noClose, cols, opt)
		case bytes.HasPrefix(head, scan.MagicArrowFile):
			return columnar.NewArrowFile(name, io.NewSectionReader(ra, 0, ra.Size()), noClose, cols, opt)
		}
	}
	br := bufio.NewReaderSize(opt.Source(scan.Source(r)), 1<<16)
	head, err := br.Peek(8)
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	f, isFile := r.(*os.File)
	switch {
	case bytes.HasPrefix(head, scan.MagicParquet) && isFile:
		if err := columnar.Seekable(name, "Parquet", f); err != nil {
			return nil, err
		}
		return columnar.NewParquet(name, f, noClose, cols, opt)
	case bytes.HasPrefix(head, scan.MagicArrowFile) && isFile:
		if err := columnar.Seekable(name, "Arrow IPC file", f); err != nil {
			return nil, err
		}
		return columnar.NewArrowFile(name, f, noClose, cols, opt)
	case bytes.HasPrefix(head, scan.MagicParquet), bytes.HasPrefix(head, scan.MagicArrowFile):
		return nil, fmt.Errorf("%s: a Parquet or Arrow IPC file must be read with random access (a file, or an io.ReaderAt with a Size), not a stream (its footer is at the end): %w", name, batch.ErrFormat)
	case bytes.HasPrefix(head, scan.MagicArrowIPC):
		return columnar.OpenArrowStreamFrom(name, br, noClose, cols, opt)
	}
	return openText(name, br, head, noClose, cols, opt, !isFile || !scan.IsRegular(f))
}

// OpenRecords reads the record batches of rr as an Arrow IPC stream is
// read: the columns cols names, by name, in rr's order. name is what
// messages call the input. The reader releases rr's batches as it
// decodes them, not rr itself.
func OpenRecords(name string, rr array.RecordReader, cols Columns, opt Options) (Reader, error) {
	if err := cols.Check(); err != nil {
		return nil, err
	}
	return columnar.OpenRecords(name, rr, cols, opt)
}
