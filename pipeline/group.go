package pipeline

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/rankeval/rankeval/internal/binread"
	"github.com/rankeval/rankeval/reader"
)

// Group is one query's rows from one log, in input order, by column.
// A Taker fills it (Append, AppendPart, Decode); a Unit evaluates it.
type Group struct {
	ID     []byte
	First  uint64 // packed position of its first row
	Score  []float64
	Label  []float64
	Rank   []int64
	Doc    reader.Strings
	Where  []uint64    // packed position of each row
	XScore [][]float64 // the extra score columns of one log (systems 2..)
	Key    reader.Strings
	// Prop holds each row's propensity of examination (Rules.Propensity);
	// empty when the run reads none.
	Prop []float64
	// Logged holds each row's logged position (a whole number >= 1) when
	// the propensity comes from a position model (PropModel), from the
	// position or the rank column; empty otherwise. Unit.Prepare refuses
	// a position given twice in one query.
	Logged []float64
	// Team holds each row's team (Rules.Teams: TeamA or TeamB); empty
	// when the run reads none.
	Team []uint8
}

// N is the number of rows.
func (g *Group) N() int { return len(g.Label) }

// Reset empties g, keeping its buffers.
func (g *Group) Reset() {
	g.ID = g.ID[:0]
	g.First = 0
	g.Score = g.Score[:0]
	g.Label = g.Label[:0]
	g.Rank = g.Rank[:0]
	g.Prop = g.Prop[:0]
	g.Logged = g.Logged[:0]
	g.Team = g.Team[:0]
	g.Where = g.Where[:0]
	g.Doc.Reset()
	g.Key.Reset()
	for c := range g.XScore {
		g.XScore[c] = g.XScore[c][:0]
	}
}

// evalRowBytes is what evaluating a row takes besides its columns: the
// unit's doc id list (a slice header) and duplicate table (two to four
// slots), the evaluator's sort entries, their scratch, and the labels in
// ranked and ideal order.
const evalRowBytes = 96

// Bytes is the memory g's rows take, as the byte limits count it
// (--max-group-bytes; --mem-limit under --unsorted): the bytes of its ids
// and slice values, its columns' values, and evalRowBytes a row.
func (g *Group) Bytes() int64 {
	vals := len(g.Label) + len(g.Where) + len(g.Score) + len(g.Rank) + len(g.Prop) + len(g.Logged)
	for _, xs := range g.XScore {
		vals += len(xs)
	}
	b := int64(len(g.ID)+len(g.Key.Buf)+4*max(0, len(g.Key.Off)-1)+len(g.Team)) + 8*int64(vals) + evalRowBytes*int64(g.N())
	if g.hasDoc() {
		b += int64(len(g.Doc.Buf)) + 4*int64(len(g.Doc.Off)-1)
	}
	return b
}

// hasDoc reports whether the doc column was read.
func (g *Group) hasDoc() bool { return len(g.Doc.Off) > 1 }

// ErrEncoding is wrapped when an encoded group cannot be decoded: a bug or
// a damaged spill file or shuffle, never bad input.
var ErrEncoding = errors.New("malformed encoded rows")

const (
	encScore = 1 << iota
	encRank
	encDoc
	encProp
	encTeam
	encLogged
)

// AppendBinary appends g in the form that crosses a spill file or a
// distributed shuffle: the query id, the first row's position, which
// columns are present, the slice key, then the rows. Scores are stored as
// the run keeps them (already rounded by Rules), so decoding applies no
// row rule twice.
func (g *Group) AppendBinary(b []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(g.ID)))
	b = append(b, g.ID...)
	b = binary.AppendUvarint(b, g.First)
	flags, nx := g.columns(), g.extraScores()
	b = append(b, flags)
	b = binary.AppendUvarint(b, uint64(nx))
	nk := max(0, len(g.Key.Off)-1)
	b = binary.AppendUvarint(b, uint64(nk))
	for c := range nk {
		b = appendBytes(b, g.Key.At(c))
	}
	b = binary.AppendUvarint(b, uint64(g.N()))
	prev := g.First
	for i := range g.Label {
		// positions as differences from the previous row's (the first's
		// from First): a byte a row where a full position takes five
		b = binary.AppendVarint(b, int64(g.Where[i]-prev))
		prev = g.Where[i]
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(g.Label[i]))
		if flags&encScore != 0 {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(g.Score[i]))
		}
		for c := range nx {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(g.XScore[c][i]))
		}
		if flags&encRank != 0 {
			b = binary.AppendVarint(b, g.Rank[i])
		}
		if flags&encDoc != 0 {
			b = appendBytes(b, g.Doc.At(i))
		}
		if flags&encProp != 0 {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(g.Prop[i]))
		}
		if flags&encTeam != 0 {
			b = append(b, g.Team[i])
		}
		if flags&encLogged != 0 {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(g.Logged[i]))
		}
	}
	return b
}

// columns says which optional columns g has.
func (g *Group) columns() byte {
	var flags byte
	if len(g.Score) > 0 {
		flags |= encScore
	}
	if len(g.Rank) > 0 {
		flags |= encRank
	}
	if g.hasDoc() {
		flags |= encDoc
	}
	if len(g.Prop) > 0 {
		flags |= encProp
	}
	if len(g.Team) > 0 {
		flags |= encTeam
	}
	if len(g.Logged) > 0 {
		flags |= encLogged
	}
	return flags
}

// extraScores is the number of extra score columns g has.
func (g *Group) extraScores() int {
	nx := 0
	for c := range g.XScore {
		if len(g.XScore[c]) > 0 {
			nx = c + 1
		}
	}
	return nx
}

func appendBytes(b, s []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// PeekGroup returns the query id and first position of an encoded group
// without decoding its rows. The id aliases data.
func PeekGroup(data []byte) (id []byte, first uint64, err error) {
	d := binread.New(data, ErrEncoding)
	id = d.Bytes()
	first = d.Uvarint()
	return id, first, d.Err()
}

// GroupRows returns the number of rows of an encoded group without
// decoding them.
func GroupRows(data []byte) (int, error) {
	d := binread.New(data, ErrEncoding)
	d.Bytes()   // id
	d.Uvarint() // first
	d.Byte()    // flags
	d.Uvarint() // extra scores
	for nk := d.Uvarint(); nk > 0 && d.Err() == nil; nk-- {
		d.Bytes() // slice key
	}
	n := d.Uvarint()
	if err := d.Err(); err != nil {
		return 0, err
	}
	return int(n), nil
}

// Decode appends the rows of the encoded group data (AppendBinary) to g,
// which holds rows of the same query or none, checking what spans the
// parts of a query: its columns, its slice values and its size. Parts must
// come in input order.
func (t *Taker) Decode(g *Group, data []byte) error {
	r, where := t.r, t.where
	d := binread.New(data, ErrEncoding)
	id := d.Bytes()
	first := d.Uvarint()
	flags := d.Byte()
	nx64 := d.Uvarint()
	nk64 := d.Uvarint()
	if d.Err() != nil {
		return d.Err()
	}
	if flags&^(encScore|encRank|encDoc|encProp|encTeam|encLogged) != 0 {
		return fmt.Errorf("unknown column flags %#x: %w", flags, ErrEncoding)
	}
	// one log's extra score columns, all or none (lockstep logs have none)
	if nx64 != 0 && nx64 != uint64(max(0, len(r.Systems)-1)) || nk64 != uint64(len(r.Slices)) {
		return fmt.Errorf("%d extra score columns and %d slice columns, for %d systems and %d slice columns: %w", nx64, nk64, len(r.Systems), len(r.Slices), ErrEncoding)
	}
	nx, nk := int(nx64), int(nk64)
	start := g.N() == 0
	if start {
		g.Reset() // a zero Group too: its string columns need their first offset
		g.ID = append(g.ID, id...)
		g.First = first
	} else if !bytes.Equal(g.ID, id) {
		return fmt.Errorf("rows of query %q decoded into query %q: %w", id, g.ID, ErrEncoding)
	} else if flags != g.columns() || nx != g.extraScores() {
		return mixedColumns(where(first), g, where)
	}
	for c := range nk {
		v := d.Bytes()
		if start {
			g.Key.Append(v)
		} else if d.Err() == nil && !bytes.Equal(v, g.Key.At(c)) {
			return r.sliceMismatch(where(first), g, c, v, where)
		}
	}
	n := d.Uvarint()
	if d.Err() != nil {
		return d.Err()
	}
	if n > uint64(len(d.Rest())) { // every row takes at least one byte
		return fmt.Errorf("%d rows in %d bytes: %w", n, len(d.Rest()), ErrEncoding)
	}
	for len(g.XScore) < nx {
		g.XScore = append(g.XScore, nil)
	}
	prev := first
	for range n {
		prev += uint64(d.Varint())
		g.Where = append(g.Where, prev)
		g.Label = append(g.Label, d.Float64())
		if flags&encScore != 0 {
			g.Score = append(g.Score, d.Float64())
		}
		for c := range nx {
			g.XScore[c] = append(g.XScore[c], d.Float64())
		}
		if flags&encRank != 0 {
			g.Rank = append(g.Rank, d.Varint())
		}
		if flags&encDoc != 0 {
			g.Doc.Append(d.Bytes())
		}
		if flags&encProp != 0 {
			g.Prop = append(g.Prop, d.Float64())
		}
		if flags&encTeam != 0 {
			tm := d.Byte()
			if tm > TeamB && d.Err() == nil {
				return fmt.Errorf("team %d: %w", tm, ErrEncoding)
			}
			g.Team = append(g.Team, tm)
		}
		if flags&encLogged != 0 {
			g.Logged = append(g.Logged, d.Float64())
		}
	}
	if d.Err() != nil {
		return d.Err()
	}
	if len(d.Rest()) != 0 {
		return fmt.Errorf("%d bytes after the rows: %w", len(d.Rest()), ErrEncoding)
	}
	return r.checkSize(g, where)
}

// moveRow copies row from's columns, other than its doc id, over row to
// (to <= from): filtering a query's rows in place keeps every column.
func (g *Group) moveRow(to, from int) {
	g.Label[to] = g.Label[from]
	g.Where[to] = g.Where[from]
	if len(g.Score) > 0 {
		g.Score[to] = g.Score[from]
	}
	if len(g.Rank) > 0 {
		g.Rank[to] = g.Rank[from]
	}
	if len(g.Prop) > 0 {
		g.Prop[to] = g.Prop[from]
	}
	if len(g.Logged) > 0 {
		g.Logged[to] = g.Logged[from]
	}
	if len(g.Team) > 0 {
		g.Team[to] = g.Team[from]
	}
	for _, xs := range g.XScore {
		xs[to] = xs[from]
	}
}
