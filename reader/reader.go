package reader

import "github.com/rankeval/rankeval/reader/internal/batch"

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
