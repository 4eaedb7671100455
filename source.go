package rankeval

import (
	"io"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/rankeval/rankeval/config"
	"github.com/rankeval/rankeval/reader"
)

// Source is an input of a run or a state of a merge.
type Source struct {
	name string
	open func(cols reader.Columns, opt reader.Options) (reader.Reader, error)
	data io.Reader // a state's stream (Merge)
	// noReader says Stream or Records was given a nil reader
	noReader bool
}

// check refuses a stream that cannot be read or named: one without a
// name, which every message and the summary would call "", or of a nil
// reader.
func (s Source) check() error {
	switch {
	case s.open == nil:
		return nil
	case s.name == "":
		return config.Usagef("a stream has no name: name it (Stream, Records), for messages and the summary")
	case s.noReader:
		return config.Usagef("stream %q: the reader is nil", s.name)
	}
	return nil
}

// File is a path as the command takes it: a file, a directory (read
// recursively), a glob, an object-store object or prefix or a web URL
// (objstore), or "-" for the process's standard input. Its format and compression are told from
// its first bytes: JSONL, CSV or TSV (plain, gzip, zstd), Parquet, or
// Arrow IPC file or stream; with Config.Sources.Qrels, a TREC run.
func File(path string) Source { return Source{name: path} }

// Stream is an input read from r, once, as File reads a file (Parquet and
// Arrow IPC files only when r is an io.ReaderAt with a Size, as a
// *bytes.Reader or *os.File); name is what messages and the summary call
// it, and must be given and differ from every other source's; a nil r
// is refused (Prepare, Merge). r is not closed. As a
// state to Merge, r holds the bytes rankeval --state wrote.
func Stream(name string, r io.Reader) Source {
	return Source{name: name, data: r, noReader: r == nil, open: func(cols reader.Columns, opt reader.Options) (reader.Reader, error) {
		return reader.OpenStream(name, r, cols, opt)
	}}
}

// Records is an input of Arrow record batches, read once, the columns
// found by name in rr's schema as in an Arrow IPC stream; name is what
// messages and the summary call it, and must be given; a nil rr is
// refused (Prepare). rr is not released.
func Records(name string, rr array.RecordReader) Source {
	return Source{name: name, noReader: rr == nil, open: func(cols reader.Columns, opt reader.Options) (reader.Reader, error) {
		return reader.OpenRecords(name, rr, cols, opt)
	}}
}
