package state

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"slices"

	"github.com/rankeval/rankeval/config"
	"github.com/rankeval/rankeval/internal/binread"
	"github.com/rankeval/rankeval/propensity"
)

// PropensityVersion is the layout of a propensity state (rankeval
// propensities --state): the frame of a run's state (Magic, version,
// header, CRC-32C) around a header whose first field, "kind", says what
// it holds, and the count table. A run's state keeps Version, so a
// rankeval that reads only runs' states refuses a propensity state by its
// version.
const PropensityVersion = 3

// Kind is what a state file holds.
type Kind string

const (
	KindRun          Kind = "run"          // a run's evaluation (rankeval --state)
	KindPropensities Kind = "propensities" // a count table (rankeval propensities --state)
)

// KindOf checks a state file's frame (Magic, version, checksum) and says
// what it holds: a version-1 or -2 state is a run's; a version-3 one says
// in its header.
func KindOf(data []byte) (Kind, error) {
	v, d, err := open(data)
	if err != nil {
		return "", err
	}
	if v < PropensityVersion {
		return KindRun, nil
	}
	hb := d.Bytes()
	if d.Err() != nil {
		return "", d.Err()
	}
	var h struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(hb, &h); err != nil {
		return "", fmt.Errorf("%w: header: %v", ErrDamaged, err)
	}
	if Kind(h.Kind) != KindPropensities {
		return "", fmt.Errorf("%w: header: kind %q; this rankeval knows %q in a version-%d state", ErrDamaged, h.Kind, KindPropensities, PropensityVersion)
	}
	return KindPropensities, nil
}

// PropensityColumns are the columns a propensity state's rows were read
// from (the ranker's is Settings.RankerCol).
type PropensityColumns struct {
	Query    string `json:"query"`
	Doc      string `json:"doc"`
	Click    string `json:"click"`
	Position string `json:"position"`
}

// Propensities is a propensity state: the count table of the logs read,
// the settings it was counted and is estimated under, and the inputs it
// was made from (each with the digest of its rows, so that a merge
// refuses a log counted twice).
type Propensities struct {
	// Settings: RankerCol and MaxPosition shaped the table; Method,
	// MinClicks and Replicates are the estimate's.
	Settings config.Propensities
	Columns  PropensityColumns
	Table    *propensity.Table
	// Digests are the inputs, each with propensity.RowDigest summed over its rows,
	// in the order of compareDigests; an input without a row is not
	// among them.
	Digests []InputDigest
}

// propensityHeader is a propensity state's header, fields in this order.
type propensityHeader struct {
	Kind        Kind              `json:"kind"`
	MaxPosition int               `json:"max_position"`
	Columns     PropensityColumns `json:"columns"`
	RankerCol   string            `json:"ranker_col"`
	Method      string            `json:"method"`
	MinClicks   int64             `json:"min_clicks"`
	Replicates  int               `json:"replicates"`
	Digests     []digestHeader    `json:"digests,omitempty"`
}

func (p *Propensities) header(withDigests bool) propensityHeader {
	v := p.Settings
	h := propensityHeader{Kind: KindPropensities, MaxPosition: v.MaxPosition, Columns: p.Columns, RankerCol: v.RankerCol,
		Method: v.Method, MinClicks: v.MinClicks, Replicates: v.Replicates}
	if withDigests {
		for _, d := range p.Digests {
			h.Digests = append(h.Digests, digestHeader{Input: d.Input, Digest: d.Digest.String()})
		}
	}
	return h
}

// AppendBinary appends the propensity state's bytes (WriteTo).
func (p *Propensities) AppendBinary(b []byte) ([]byte, error) {
	buf := bytes.NewBuffer(b)
	_, err := p.WriteTo(buf)
	return buf.Bytes(), err
}

// WriteTo writes the propensity state's bytes: Magic,
// PropensityVersion, the header (JSON), the table, and a CRC-32C of all
// that. The table's cells are written in one order (Table.Each), so
// equal states are equal files, whatever order the rows or the merged
// states came in. It streams the cells: a table spilled to disk is
// written without being held.
func (p *Propensities) WriteTo(w io.Writer) (int64, error) {
	if p.Table.MaxPosition != p.Settings.MaxPosition {
		return 0, fmt.Errorf("state: a table of --max-position %d under settings of %d", p.Table.MaxPosition, p.Settings.MaxPosition)
	}
	h, err := json.Marshal(p.header(true))
	if err != nil {
		return 0, err
	}
	sum := crc32.New(castagnoli)
	cw := &countWriter{w: bufio.NewWriterSize(io.MultiWriter(w, sum), 64<<10)}
	b := append([]byte(Magic), PropensityVersion)
	b = binary.AppendUvarint(b, uint64(len(h)))
	b = append(b, h...)
	b = binary.AppendUvarint(b, uint64(p.Table.Beyond))
	n := 0
	if err := p.Table.Each(func(propensity.Cell) error { n++; return nil }); err != nil {
		return 0, err
	}
	b = binary.AppendUvarint(b, uint64(n))
	cw.Write(b)
	err = p.Table.Each(func(c propensity.Cell) error {
		b = propensity.AppendCell(b[:0], c)
		_, err := cw.Write(b)
		return err
	})
	if err == nil {
		err = cw.w.Flush()
	}
	if err != nil {
		return cw.n, err
	}
	m, err := w.Write(binary.LittleEndian.AppendUint32(nil, sum.Sum32()))
	return cw.n + int64(m), err
}

// countWriter counts the bytes written through it, and keeps the first
// failure.
type countWriter struct {
	w   *bufio.Writer
	n   int64
	err error
}

func (c *countWriter) Write(b []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(b)
	c.n += int64(n)
	c.err = err
	return n, err
}

// minCellBytes is the least bytes a cell takes: a query and a doc of one
// byte each with their lengths, an empty ranker's length, and three
// one-byte varints.
const minCellBytes = 8

// DecodePropensities reads a propensity state's bytes. As Decode, it
// checks every field before using it and every count against the bytes
// left before it sizes anything, and refuses what no rankeval writes: a
// header that is not the one rankeval writes for its settings, or
// settings rankeval propensities refuses; cells out of order or twice,
// with an empty query or doc, a position outside 1 to max_position, no
// impression, more clicks than impressions; more than
// propensity.MaxCount rows; digests out of order or of no row.
func DecodePropensities(data []byte) (*Propensities, error) {
	kind, err := KindOf(data)
	if err != nil {
		return nil, err
	}
	if kind != KindPropensities {
		return nil, fmt.Errorf("%w: a run's state (rankeval --state), not a propensity state", ErrKind)
	}
	_, d, _ := open(data)
	hb := d.Bytes()
	p, err := decodePropensityHeader(hb)
	if err != nil {
		return nil, fmt.Errorf("%w: header: %v", ErrDamaged, err)
	}
	if err := p.decodeTable(d); err != nil {
		return nil, fmt.Errorf("%w: count table: %v", ErrDamaged, err)
	}
	return p, nil
}

func decodePropensityHeader(b []byte) (*Propensities, error) {
	var h propensityHeader
	if err := json.Unmarshal(b, &h); err != nil {
		return nil, err
	}
	p := &Propensities{Columns: h.Columns, Settings: config.Propensities{RankerCol: h.RankerCol, Method: h.Method,
		MaxPosition: h.MaxPosition, MinClicks: h.MinClicks, Replicates: h.Replicates}}
	if _, err := p.Settings.Options(); err != nil {
		return nil, err
	}
	for _, c := range []struct{ name, v string }{{"query", h.Columns.Query}, {"doc", h.Columns.Doc}, {"click", h.Columns.Click}, {"position", h.Columns.Position}} {
		if c.v == "" {
			return nil, fmt.Errorf("no %s column", c.name)
		}
	}
	var err error
	if p.Digests, err = readDigests(h.Digests, "row"); err != nil {
		return nil, err
	}
	again, err := json.Marshal(p.header(true))
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(again, b) {
		return nil, notCanonical(again, b)
	}
	return p, nil
}

// decodeTable reads the count table that follows the header, to the end
// of the file.
func (p *Propensities) decodeTable(d *binread.Reader) error {
	max := p.Settings.MaxPosition
	t := propensity.NewTable(max)
	beyond := d.Uvarint()
	n := d.Uvarint()
	switch {
	case d.Err() != nil:
		return d.Err()
	case beyond > propensity.MaxCount:
		return fmt.Errorf("%d rows past --max-position: more than %d", beyond, uint64(propensity.MaxCount))
	case n > uint64(len(d.Rest())/minCellBytes):
		return fmt.Errorf("%d cells: more than the %d bytes left hold", n, len(d.Rest()))
	}
	t.Beyond = int64(beyond)
	total := beyond
	var prev [3][]byte
	prevPos := uint64(0)
	for i := range int(n) {
		var f [3][]byte
		for j := range f {
			f[j] = d.Bytes()
		}
		pos, clicks, imps := d.Uvarint(), d.Uvarint(), d.Uvarint()
		if d.Err() != nil {
			return fmt.Errorf("cell %d: %w", i, d.Err())
		}
		where := fmt.Sprintf("cell %d (query %q, doc %q, ranker %q, position %d)", i, f[0], f[1], f[2], pos)
		switch {
		case len(f[0]) == 0 || len(f[1]) == 0:
			return fmt.Errorf("%s: an empty query or doc id", where)
		case pos < 1 || pos > uint64(max):
			return fmt.Errorf("%s: the position is not from 1 to max_position %d", where, max)
		case imps < 1:
			return fmt.Errorf("%s: no impression", where)
		case clicks > imps:
			return fmt.Errorf("%s: %d clicks of %d impressions", where, clicks, imps)
		case imps > propensity.MaxCount-total:
			return fmt.Errorf("%s: more than %d rows", where, uint64(propensity.MaxCount))
		}
		if i > 0 {
			c := 0
			for j := range f {
				if c = bytes.Compare(prev[j], f[j]); c != 0 {
					break
				}
			}
			if c > 0 || c == 0 && prevPos >= pos {
				return fmt.Errorf("%s: out of order or twice (cells are sorted by query, doc, ranker, position)", where)
			}
		}
		total += imps
		prev, prevPos = f, pos
		t.AddCount(f[0], f[1], f[2], int(pos), propensity.Count{Clicks: int64(clicks), Impressions: int64(imps)})
	}
	if len(d.Rest()) != 0 {
		return fmt.Errorf("%d bytes after the last cell", len(d.Rest()))
	}
	p.Table = t
	return nil
}

// PropensityMismatch names the first setting that differs between two
// propensity states and stops them merging ("" when they merge): every
// header field but the digests.
func PropensityMismatch(a, b *Propensities) string {
	ja, _ := json.Marshal(a.header(false))
	jb, _ := json.Marshal(b.header(false))
	if k, va, vb := firstField(ja, jb); k != "" {
		return fmt.Sprintf("%s %s against %s", k, orDefault(vb), orDefault(va))
	}
	return ""
}

// Merge adds o into p; both must have been checked with
// PropensityMismatch. States made from one input (a digest in both) are
// refused (ErrSharedInput), changing nothing: its rows would count twice.
func (p *Propensities) Merge(o *Propensities) error {
	if x, y, ok := sharedDigest(p.Digests, o.Digests); ok {
		return fmt.Errorf("%q and %q have the digest %s: %w", x.Input, y.Input, x.Digest, ErrSharedInput)
	}
	if err := p.Table.Merge(o.Table); err != nil {
		return err
	}
	p.Digests = append(p.Digests, o.Digests...)
	slices.SortFunc(p.Digests, compareDigests)
	return nil
}
