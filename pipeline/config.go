// Package pipeline turns inputs into evaluated queries. It groups the rows
// of each query (contiguous runs in input order, or, with --unsorted,
// through hash-partitioned spill files; several logs are read in lockstep
// when systems are compared), applies the run's Rules to every row and
// query (one place for each rule, also called by dist/beam), and hands
// whole queries to a pool of workers that evaluate them and keep partial
// aggregates, merged once at the end.
//
// Goroutines: Analyze starts and waits for the producer (grouping), the
// workers, the per-query writer and a progress ticker; the producer runs a
// read-ahead goroutine for the input it groups from (not for the
// --unsorted spill pass, nor when it reads an input again). Readers start
// their own decoders (package reader) and stop them on Close, which the
// producer calls.
package pipeline

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/reader"
)

// Sentinel errors, matched with errors.Is. Bad row values wrap
// reader.ErrValue wherever they are found.
var (
	ErrReappear      = errors.New("query id reappears after its group ended")
	ErrGroupTooLarge = errors.New("query group too large")
	ErrEmptyQuery    = errors.New("query has no relevant row")
	ErrDuplicateDoc  = errors.New("document id repeated within a query")
	ErrDuplicatePos  = errors.New("logged position repeated within a query")
	ErrSliceMismatch = errors.New("rows of one query disagree on a slice column")
	ErrTooManySlices = errors.New("more slices than --max-slices")
	ErrSliceBytes    = errors.New("slice values larger than --max-slice-bytes")
	ErrSpillCollide  = errors.New("query ids collide in the spill hash")
	ErrLockstep      = errors.New("logs of the compared systems do not hold the same queries")
	ErrMixedColumns  = errors.New("rows of one query differ in the columns they have")
	ErrOverflow      = errors.New("a metric's value is not a finite number")
)

// quoteShort quotes an id or value for a message: its first 64 bytes and
// its length when longer, so that a 10 KB doc id or a 100 KB slice value
// does not bury the message.
func quoteShort(b []byte) string {
	if len(b) <= 64 {
		return strconv.Quote(string(b))
	}
	return fmt.Sprintf("%s... (%d bytes)", strconv.Quote(string(b[:64])), len(b))
}

// Source is one input, opened when the pipeline reaches it so that only one
// file is open at a time.
type Source struct {
	Name string
	Open func() (reader.Reader, error)
	// Reread says Open may be called again and reads the input from its
	// start (not standard input). The grouper does so once when query ids
	// stop ascending, to index the ids before (see ascent), and for the
	// error for a reappearing query id, to name where its rows began.
	// Without it, ids are indexed from the first row.
	Reread bool
}

// Config is everything a run needs besides its inputs, one part per
// concern.
type Config struct {
	Rules Rules
	// Workers evaluating queries (0: GOMAXPROCS).
	Workers  int
	Analysis Analysis
	PerQuery PerQuery
	Unsorted Unsorted
	Progress Reporting
	// Unseen, when set, is called after the inputs are read and returns
	// the ids of more queries that count with value 0 for every metric but
	// the correlations (judged queries absent from a run, trec_eval's -c).
	Unseen func() []string
}

// Analysis is what a run aggregates besides the overall means.
type Analysis struct {
	// MissingZero lets a query be absent from some of several logs: it
	// counts as 0 there (correlations undefined). The logs must then be
	// sorted by query id. Without it an absent query is an error.
	MissingZero bool
	// MaxSlices makes more distinct slices an error (0: DefaultMaxSlices),
	// and MaxSliceBytes more bytes of their values together
	// (0: DefaultMaxSliceBytes).
	MaxSlices     int
	MaxSliceBytes int64
	// Core is how many leading metrics get slices, comparisons, bootstrap
	// intervals, histograms and per-query records (0 = all); the rest get
	// means only.
	Core int
	// Bootstrap is the number of Poisson-bootstrap replicates of every
	// overall mean and difference (0 = none).
	Bootstrap int
	// Hist collects a histogram of every core metric's per-query values.
	Hist bool
	// Compare is which pairs of systems are compared, and by which test.
	Compare aggregate.Compare
	// Digests keeps each input's digest of the queries whose first row it
	// holds (aggregate.InputDigests): what a state records it was made
	// from.
	Digests bool
}

// PerQuery asks for one record per query, in input order (in spill order
// with --unsorted), written to W as Format renders it. Format is called
// from several workers at once.
type PerQuery struct {
	W      io.Writer
	Format QueryFormat
	// Only: the records are all the caller reads (rankeval trec_eval sums
	// them itself, as trec_eval does), so the queries are not aggregated.
	Only bool
}

// QueryFormat appends one query's record to b: its id, its slice's values
// (nil without slices) and its figures, every metric of every system.
type QueryFormat func(b, id []byte, slice []string, q *aggregate.Query) []byte

// Unsorted accepts query ids that are not contiguous: rows are
// partitioned into spill files under TmpDir and grouped from there, in
// about MemLimit bytes (0: DefaultMemLimit) whatever the input size.
// OnSpillDir, when set, hears of the spill directory when it is made
// (true) and removed (false), so an interrupt can remove it too.
type Unsorted struct {
	On         bool
	TmpDir     string
	MemLimit   int64
	OnSpillDir func(dir string, made bool)
}

// Reporting asks for progress: Report is called every Every (0: 1 s) from
// a goroutine of the run, and once more when the run ends. BytesRead
// counts input bytes as the readers consume them (give the same counter
// to reader.Options) and TotalBytes is their sum when known (0
// otherwise).
type Reporting struct {
	Report     func(Progress)
	Every      time.Duration
	BytesRead  *atomic.Int64
	TotalBytes int64
}

// Progress is a snapshot of a run's advance, for people and logs.
type Progress struct {
	Rows, Queries     int64
	Bytes, TotalBytes int64 // input bytes read, and their total (0 = unknown)
	Elapsed           time.Duration
	Done              bool
	// Note says what a run that seems stalled is doing: reading its
	// inputs again to place a query id that came back. Bytes then stays
	// at what the run had read.
	Note string
}

// Result is a run's merged aggregate with the key of every slice.
type Result struct {
	*aggregate.Analysis
	// SliceKeys[i] holds slice i's values of the slice columns; slices are
	// numbered in order of first appearance.
	SliceKeys [][]string
	// BinaryLabels: under Rules.NoteBinaryLabels, the run saw labels and
	// every one was 0 or 1; GradedLabels: it saw another label.
	BinaryLabels, GradedLabels bool
	// Digests holds, with Analysis.Digests, each input's digest, the
	// inputs numbered as given (logs after logs); nil otherwise.
	Digests *aggregate.InputDigests
}

func (c *Config) systems() int { return c.Rules.systems() }

func (c *Config) core() int {
	if c.Analysis.Core > 0 {
		return c.Analysis.Core
	}
	return len(c.Rules.Metrics)
}

// DefaultMaxSlices is --max-slices when it is not given.
const DefaultMaxSlices = 10_000

func (c *Config) maxSlices() int {
	if c.Analysis.MaxSlices > 0 {
		return c.Analysis.MaxSlices
	}
	return DefaultMaxSlices
}

// DefaultMaxSliceBytes is --max-slice-bytes when it is not given: 6.7 KB
// of values a slice at DefaultMaxSlices.
const DefaultMaxSliceBytes = 64 << 20

func (c *Config) maxSliceBytes() int64 {
	if c.Analysis.MaxSliceBytes > 0 {
		return c.Analysis.MaxSliceBytes
	}
	return DefaultMaxSliceBytes
}

func (c *Config) workers() int {
	if c.Workers > 0 {
		return c.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// Layout is the aggregate layout of cfg.
func (c *Config) Layout() *aggregate.Layout {
	l := &aggregate.Layout{Metrics: len(c.Rules.Metrics), Systems: c.systems(), Bootstrap: c.Analysis.Bootstrap, Hist: c.Analysis.Hist,
		Compare: c.Analysis.Compare}
	for _, m := range c.Rules.Metrics[:c.core()] {
		l.Core = append(l.Core, RangeOf(m))
		l.Weights = l.Weights || m.Propensities()
		l.Ratio = append(l.Ratio, m.Ratio())
	}
	if !slices.Contains(l.Ratio, true) {
		l.Ratio = nil
	}
	return l
}
