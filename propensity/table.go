// Package propensity estimates a position-based model of examination from
// a click log, without intervention: the count table (clicks and
// impressions per query, document, position and ranker: whole numbers
// that add, so tables of parts of a log merge into the table of the
// whole), and two estimators over it, intervention harvesting (Agarwal
// et al., WSDM 2019: Harvest) and the position-based model's EM (Wang et
// al., WSDM 2018: EM). Both give each position's propensity relative to
// position 1, with a 95% percentile interval from a Poisson bootstrap
// over queries whose weights come from a hash of the query (package
// stats), so every path that builds the same table gets the same bits.
// docs/metrics.md ("Estimating the propensities") states the model and
// its assumptions.
package propensity

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/rankeval/rankeval/aggregate"
)

// Sentinel errors, matched with errors.Is.
var (
	// ErrRow is wrapped by the errors of a row the table cannot count.
	ErrRow = errors.New("row the propensities cannot count")
	// ErrMaxPosition is wrapped when tables of different --max-position
	// are merged.
	ErrMaxPosition = errors.New("count tables of different --max-position")
	// ErrOverflow is wrapped when a merge would count more than MaxCount
	// in a cell.
	ErrOverflow = errors.New("counts past what the table holds")
)

// DefaultMaxPosition is --max-position when it is not given.
const DefaultMaxPosition = 20

// MaxMaxPosition bounds --max-position: the estimators hold a few
// numbers per pair of positions and replicate.
const MaxMaxPosition = 1000

// Count is what one cell of the table holds.
type Count struct{ Clicks, Impressions int64 }

// Cell is one cell of the table: a document of a query shown at a
// position by a ranker, and how often it was shown and clicked there.
type Cell struct {
	Query, Doc, Ranker string
	Position           int
	Count
}

// Table counts clicks and impressions per query, document, position (1
// to MaxPosition) and ranker. Rows at positions past MaxPosition are
// counted apart (Beyond): they inform no position the table estimates.
// Its content does not depend on the order rows are added in.
type Table struct {
	MaxPosition int
	// Beyond counts the rows past MaxPosition.
	Beyond int64
	// OnRun, when not nil, is told of each run file the table makes
	// (made) and removes (SpillTo), as it makes or removes it.
	OnRun       func(name string, made bool)
	impressions int64 // summed over the cells
	cells       map[string]Count
	key         []byte
	// the cells held cost held bytes; past limit (> 0) they go to a new
	// run file in dir (spill.go)
	dir         string
	limit, held int64
	runs        []string
	tiers       []int // each run's tier of merges (spill.go)
	spilled     int
	err         error
}

// NewTable makes an empty table of positions 1 to maxPosition.
func NewTable(maxPosition int) *Table {
	return &Table{MaxPosition: maxPosition, cells: map[string]Count{}}
}

// CheckRow refuses a row the table cannot count: an empty query or doc
// id (the estimators match a document's rows across positions and
// rankers by the two, so rows without them would pool into one document
// shown everywhere), a logged position that is not a whole number from 1
// to 2147483647, a click other than 0 or 1 (a boolean reads as one). The
// error names neither file nor row; the caller adds them.
func CheckRow(query, doc []byte, position, click float64) error {
	if len(query) == 0 {
		return fmt.Errorf("empty query id: the propensities match a document's rows across positions by query and doc id: %w", ErrRow)
	}
	if len(doc) == 0 {
		return fmt.Errorf("empty doc id: the propensities match a document's rows across positions by query and doc id: %w", ErrRow)
	}
	if !(position >= 1 && position <= 1<<31-1) || position != float64(int64(position)) {
		return fmt.Errorf("logged position %v: want a whole number from 1 to %d: %w", position, 1<<31-1, ErrRow)
	}
	if click != 0 && click != 1 {
		return fmt.Errorf("click %v: want 0 or 1 (the --label-col of a click log): %w", click, ErrRow)
	}
	return nil
}

// Add counts one row: doc of query shown at position by ranker, clicked
// or not. The values must have passed CheckRow.
func (t *Table) Add(query, doc, ranker []byte, position int, click bool) {
	if position > t.MaxPosition {
		t.Beyond++
		return
	}
	c := Count{Impressions: 1}
	if click {
		c.Clicks = 1
	}
	t.add(query, doc, ranker, position, c)
}

// AddCount adds a count to the cell of doc of query shown at position
// (1 to MaxPosition) by ranker: a cell of a saved table read back.
func (t *Table) AddCount(query, doc, ranker []byte, position int, c Count) {
	t.add(query, doc, ranker, position, c)
}

func (t *Table) add(query, doc, ranker []byte, position int, c Count) {
	k := t.key[:0]
	for _, s := range [][]byte{query, doc, ranker} {
		k = binary.AppendUvarint(k, uint64(len(s)))
		k = append(k, s...)
	}
	k = binary.AppendUvarint(k, uint64(position))
	t.key = k
	t.impressions += c.Impressions
	old, ok := t.cells[string(k)]
	t.cells[string(k)] = Count{Clicks: old.Clicks + c.Clicks, Impressions: old.Impressions + c.Impressions}
	if !ok {
		t.held += int64(len(k)) + cellCost
		t.spillIfFull()
	}
}

// Merge adds the counts of u to t.
func (t *Table) Merge(u *Table) error {
	if t.MaxPosition != u.MaxPosition {
		return fmt.Errorf("--max-position %d and %d: %w", t.MaxPosition, u.MaxPosition, ErrMaxPosition)
	}
	if a, b := t.Rows(), u.Rows(); a > MaxCount-b {
		return fmt.Errorf("%d and %d rows: %w", a, b, ErrOverflow)
	}
	t.Beyond += u.Beyond
	if err := u.Each(func(c Cell) error {
		t.add([]byte(c.Query), []byte(c.Doc), []byte(c.Ranker), c.Position, c.Count)
		return t.err
	}); err != nil {
		return err
	}
	return t.err
}

// Rows is the number of rows counted, past MaxPosition or not.
func (t *Table) Rows() int64 { return t.impressions + t.Beyond }

// MaxCount bounds the rows of a table: more rows than any log holds, far
// from where int64 sums overflow.
const MaxCount = 1 << 62

// Cells lists the cells in order of query, document, ranker (their bytes)
// and position: one order whatever order the rows came in (Each).
func (t *Table) Cells() ([]Cell, error) {
	var cs []Cell
	err := t.Each(func(c Cell) error { cs = append(cs, c); return nil })
	return cs, err
}

func decodeKey(k string, c Count) Cell {
	r := bytes.NewReader([]byte(k))
	var f [3]string
	for i := range f {
		n, _ := binary.ReadUvarint(r)
		b := make([]byte, n)
		r.Read(b)
		f[i] = string(b)
	}
	pos, _ := binary.ReadUvarint(r)
	return Cell{Query: f[0], Doc: f[1], Ranker: f[2], Position: int(pos), Count: c}
}

// Totals are a table's sums: rows counted, clicks, and the distinct
// queries and rankers.
type Totals struct {
	Impressions, Clicks, Beyond int64
	Queries                     int
	Rankers                     []string
}

// Totals sums t.
func (t *Table) Totals() (Totals, error) {
	var s totaler
	err := t.Each(func(c Cell) error { s.add(c); return nil })
	return s.totals(t.Beyond), err
}

// totaler sums cells met in the order of Each.
type totaler struct {
	s       Totals
	query   string
	rankers map[string]bool
}

func (a *totaler) add(c Cell) {
	a.s.Impressions += c.Impressions
	a.s.Clicks += c.Clicks
	if a.s.Queries == 0 || c.Query != a.query {
		a.s.Queries++
		a.query = c.Query
	}
	if a.rankers == nil {
		a.rankers = map[string]bool{}
	}
	a.rankers[c.Ranker] = true
}

func (a *totaler) totals(beyond int64) Totals {
	s := a.s
	s.Beyond = beyond
	for r := range a.rankers {
		s.Rankers = append(s.Rankers, r)
	}
	slices.Sort(s.Rankers)
	return s
}

// RowDigest is what a propensity state records of one row of a log: an
// input's digest is the sum of its rows', so it depends on neither the
// rows' order nor the input's path or format, and a row past
// --max-position counts as any other.
func RowDigest(query, doc, ranker []byte, position int, click bool) aggregate.Digest {
	c := uint64(0)
	if click {
		c = 1
	}
	return aggregate.FieldsDigest([][]byte{query, doc, ranker}, uint64(position), c)
}
