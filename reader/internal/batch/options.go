package batch

import (
	"fmt"
	"io"
	"runtime"
	"sync/atomic"
	"time"
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
	// Delimiter separates the fields of CSV inputs (0: a comma, or under
	// FormatAuto what the header is separated by; '\t' reads TSV). Any
	// single byte but a quote, a newline or a carriage return.
	Delimiter byte
	// DecimalComma reads the numbers of CSV and TSV inputs as written
	// with a decimal comma (0,75); a point in a number is then refused.
	// The delimiter must not be a comma.
	DecimalComma bool
	// ReadTimeout bounds how long a request to object storage may receive
	// nothing (0: objstore.DefaultReadTimeout).
	ReadTimeout time.Duration
}

// UnitRange checks the part of a file of n units that opt asks for.
func (o Options) UnitRange(name string, n int) (first, end int, err error) {
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

// Source wraps f for counting when asked.
func (o Options) Source(f io.Reader) io.Reader {
	if o.BytesRead == nil {
		return f
	}
	return countingReader{f, o.BytesRead}
}

func (o Options) BatchRows() int {
	if o.BatchSize <= 0 {
		return 8192
	}
	return o.BatchSize
}

// Stdin is the input name that reads standard input.
const Stdin = "-"

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
	if c.Score == "" && c.Rank == "" && !c.Unordered {
		return fmt.Errorf("need a score column or a rank column: %w", ErrColumn)
	}
	// A name given two roles would be read for one and reported missing for
	// the other; say what is wrong instead.
	role := map[string]string{} // column name -> the role it was first named for
	for _, r := range c.Requests() {
		first, ok := role[r.Name]
		if !ok {
			role[r.Name] = r.Role()
			continue
		}
		if first == r.Role() {
			return fmt.Errorf("column %q is named twice, for %s: %w", r.Name, first, ErrColumn)
		}
		return fmt.Errorf("column %q is named for two roles: %s and %s: %w", r.Name, first, r.Role(), ErrColumn)
	}
	if n := len(c.Extra) + len(c.ExtraScore) + len(c.Numbers) + len(c.Texts); n > MaxExtra {
		return fmt.Errorf("%d extra columns: at most %d: %w", n, MaxExtra, ErrColumn)
	}
	return nil
}

func Decoders(opt Options) int {
	if opt.Decoders > 0 {
		return opt.Decoders
	}
	return runtime.GOMAXPROCS(0)
}

// Format names the format of text inputs (Options.Format). The zero value,
// FormatAuto, tells it from the first line; naming it serves where the
// first line cannot tell. Parquet and Arrow IPC are always known by their
// first bytes.
type Format string

const (
	FormatAuto  Format = ""
	FormatJSONL Format = "jsonl"
	FormatCSV   Format = "csv"
	FormatTSV   Format = "tsv"
)
