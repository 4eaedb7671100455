// Package reader opens inputs: it expands the names a user gives
// (directories, globs, Hive partitions, object-store URLs), tells each
// input's format and compression from its first bytes, never from its name,
// and hands it to the package that reads that format:
// reader/internal/jsonl (JSON lines), reader/internal/csv (CSV and TSV) and
// reader/internal/columnar (Parquet and Arrow IPC). Every format yields the
// same columnar batches of rows (Batch, defined in reader/internal/batch
// with the ordered parallel decoder every format runs on, and named here);
// text formats are cut into blocks of whole lines and decompressed by
// reader/internal/scan. TREC runs, qrels and run tags are read by
// reader/trec. It knows nothing about metrics or grouping; the pipeline
// package consumes its batches.
package reader

import (
	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/csv"
)

// Sentinel errors, matched with errors.Is. Every error a reader returns wraps
// one of them and names the file and the line or row.
var (
	ErrSyntax      = batch.ErrSyntax
	ErrColumn      = batch.ErrColumn
	ErrValue       = batch.ErrValue
	ErrCompression = batch.ErrCompression
	ErrFormat      = batch.ErrFormat
)

// The types every format shares; see package reader/internal/batch.
type (
	// ParseError is bad input at a line or row of an input (and a column
	// of it when known); it wraps one of the sentinel errors.
	ParseError = batch.ParseError
	// Batch is a run of consecutive rows of one input, stored by column.
	Batch = batch.Batch
	// Strings is a column of byte strings packed into one buffer.
	Strings = batch.Strings
	// Columns names the fields a reader extracts.
	Columns = batch.Columns
	// Named is a column of Columns.Numbers or Texts.
	Named = batch.Named
	// Reader is the shape every format follows.
	Reader = batch.Reader
	// Ahead is a Reader that decodes ahead on goroutines of its own.
	Ahead = batch.Ahead
	// Filler is a Reader that can decode into a batch the caller owns.
	Filler = batch.Filler
	// Options tune every reader; the zero value gives defaults.
	Options = batch.Options
	// Format names a text format (Options.Format).
	Format = batch.Format
)

// Stdin is the input name that reads standard input.
const Stdin = batch.Stdin

// Text formats (Options.Format).
const (
	FormatAuto  = batch.FormatAuto
	FormatJSONL = batch.FormatJSONL
	FormatCSV   = batch.FormatCSV
	FormatTSV   = batch.FormatTSV
)

// CheckDelimiter reports a byte that cannot separate the fields of a CSV
// input (Options.Delimiter): a quote, a newline or a carriage return.
func CheckDelimiter(c byte) error { return csv.CheckSep(c) }

// MissingScoreHint and MissingLabelHint end a message about a missing or
// NaN score or label: they name the flag that goes on past such rows, so
// that a reader's message and the pipeline's say it alike.
var (
	MissingScoreHint = batch.MissingHint(batch.FScore)
	MissingLabelHint = batch.MissingHint(batch.FLabel)
)
