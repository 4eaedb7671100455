// Package csv reads CSV and TSV with a header row (RFC 4180 quoting for
// CSV; TSV without quoting), the columns bound by header name, decoded in
// blocks of whole records on the ordered decoder of package batch.
package csv

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"strconv"

	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/scan"
)

// CSV and TSV logs: a header row names the columns, each later record is
// a row. Parsing is cut in two so that blocks of records can be parsed on
// several goroutines, in the shape of the other text readers:
//
//   - a splitter cuts the decompressed text into blocks of whole records;
//     Dialect.Cut says where a block may end (after a newline outside
//     quotes);
//   - csvLayout.Parse turns one block, given the number of lines before it,
//     into rows of a Batch. The layout, fixed by the header, is read-only
//     and shared; each goroutine has its own csvBlock cursor.
//
// csv_read.go puts the two on the machinery of the other text readers:
// the line splitter (lines.go) and the ordered decoder (ordered.go).
//
// Values are typed as the JSONL reader types them, so a log gives the same
// rows in either format: ids and slice values are the field's text; scores
// and labels are numbers (parseNumber), a label also true or false (in any
// case: pandas writes True). Quotes only frame a field, they do not type
// it: "0.5" is the number 0.5, as a warehouse that quotes every field
// means it.

// Dialect is what tells CSV from TSV.
type Dialect struct {
	Name string
	Sep  byte
	// Quote is '"' for CSV (RFC 4180: a field that starts with a quote
	// runs to the next lone quote, separators and newlines included, and
	// "" inside it is one quote). TSV has no quoting (IANA
	// text/tab-separated-values, as BigQuery, Redshift UNLOAD and Hive
	// write it): quote is 0, a quote is an ordinary byte, and a value
	// cannot hold a tab or a newline.
	Quote byte
	// DecimalComma reads numbers as written with a decimal comma (0,75,
	// as Excel writes them where the comma is the decimal mark); a point
	// in a number is refused rather than guessed a thousands separator.
	DecimalComma bool
}

var (
	DialectCSV = Dialect{Name: "CSV", Sep: ',', Quote: '"'}
	DialectTSV = Dialect{Name: "TSV", Sep: '\t'}
)

// CheckSep reports a byte that cannot separate fields: a quote, a
// newline or a carriage return (they frame records and fields).
func CheckSep(c byte) error {
	switch c {
	case '"', '\n', '\r', 0:
		return fmt.Errorf("%q cannot separate fields: want one character such as ';', '|' or \\t (tab)", string(c))
	}
	return nil
}

// Cut returns the length of the longest prefix of data, which starts at a
// record, that holds only whole records: through the last newline outside
// quotes; 0 when there is none. A block splitter calls it on what it has
// read and carries the rest into the next block.
//
// In valid CSV a quote opens or closes a quoted field or stands doubled
// inside one, so a newline is outside quotes exactly when an even number
// of quotes come before it (from a record's start): one bytes.Count over
// data gives the parity at the last newline, and a walk back a line at a
// time, rarely more than a step, finds the last newline of even parity.
// In invalid CSV (a stray quote) parities are wrong from the stray quote
// on, but the parser stops at that quote, in the block that holds it,
// before any later cut matters.
func (d Dialect) Cut(data []byte) int {
	nl := bytes.LastIndexByte(data, '\n')
	if nl < 0 || d.Quote == 0 {
		return nl + 1
	}
	q := []byte{d.Quote}
	odd := bytes.Count(data[:nl], q)&1 == 1
	for odd {
		prev := bytes.LastIndexByte(data[:nl], '\n')
		if prev < 0 {
			return 0
		}
		if bytes.Count(data[prev+1:nl], q)&1 == 1 {
			odd = false
		}
		nl = prev
	}
	return nl + 1
}

// csvLayout is what a header fixes: the dialect, the number of fields of a
// record and what each field is read as. It is not changed once made.
type csvLayout struct {
	Dialect
	name    string         // the input, for messages
	col     []batch.ColReq // per field; kind csvSkip for a field not read
	doc     bool           // a doc column is read
	docFill bool           // the doc column is absent (Columns.DocOptional): doc ids are empty
	cols    batch.Columns  // what was asked for: MissingOK reads empty scores and labels as NaN
}

const csvSkip = -1

// newCSVLayout maps the header's fields (names, read on line line) to the
// columns cols asks for. Every column asked for must be in the header,
// once; other fields are not read.
func newCSVLayout(name string, d Dialect, names [][]byte, line int64, cols batch.Columns) (*csvLayout, error) {
	l := &csvLayout{Dialect: d, name: name, col: make([]batch.ColReq, len(names)), doc: cols.Doc != "", cols: cols}
	at := make(map[string]int, len(names))
	for i, n := range names {
		l.col[i].Kind = csvSkip
		if _, dup := at[string(n)]; !dup {
			at[string(n)] = i
		}
	}
	for _, r := range cols.Requests() {
		i, ok := at[r.Name]
		if !ok {
			if r.Optional {
				l.docFill = true
				continue
			}
			return nil, batch.ParseErrorf(name, line, "no column %q (%s); the header has %s; name %s with %s: %w", r.Name, r.Role(), headerNames(names), r.Role(), r.FlagName(), batch.ErrColumn)
		}
		for j := i + 1; j < len(names); j++ {
			if string(names[j]) == r.Name {
				return nil, batch.ParseErrorf(name, line, "the header names column %q twice (fields %d and %d): %w", r.Name, i+1, j+1, batch.ErrColumn)
			}
		}
		l.col[i] = r
	}
	return l, nil
}

// headerNames lists a header's names for a message.
func headerNames(names [][]byte) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(string(n))
	}
	return batch.ListNames(q)
}

// csvBlock is one goroutine's cursor over a block of whole records (the
// last may lack its newline at the end of the input). It finds the bytes
// that matter (separators, newlines, quotes) 64 at a time as a bit mask,
// so the bytes between them are never looked at one by one.
type csvBlock struct {
	Dialect
	name string
	buf  []byte
	p    int   // start of the next field
	line int64 // newlines passed, in this block and before it
	ls   int   // start of the current line, for column numbers
	base int   // x holds the marks of buf[base:base+64]
	x    uint64
	// open is the line of a quote found unclosed at the end of the block,
	// 0 when there is none.
	open int64
	// stray is set by an error at a quote out of place.
	stray   bool
	scratch []byte // unquoted text of a field with "" or \r\n in it
	num     []byte // a number with its decimal comma made a point
	tail    [64]byte
}

// reset points the cursor at a block; lines is the number of lines
// before it.
func (k *csvBlock) reset(buf []byte, lines int64) {
	k.buf, k.p, k.line, k.ls, k.base, k.x, k.open, k.stray = buf, 0, lines, 0, -64, 0, 0, false
}

// Next returns the position of the next mark not yet passed, or len(buf).
func (k *csvBlock) Next() int {
	x := k.x
	if x == 0 {
		return k.load()
	}
	k.x = x & (x - 1)
	return k.base + bits.TrailingZeros64(x)
}

// load finds the next 64 bytes with a mark, for next.
func (k *csvBlock) load() int {
	for k.x == 0 {
		k.base += 64
		if k.base >= len(k.buf) {
			k.base -= 64
			return len(k.buf)
		}
		k.x = k.marks(k.base)
	}
	return k.Next()
}

// marks sets bit i when buf[at+i] is a separator, a newline or a quote.
// The eight words are written out, as in scan.FieldScanner.mask.
func (k *csvBlock) marks(at int) uint64 {
	c := k.buf[at:]
	if len(c) < 64 {
		k.tail = [64]byte{} // zero bytes are never marks
		copy(k.tail[:], c)
		c = k.tail[:]
	}
	q := k.Quote
	if q == 0 {
		q = k.Sep
	}
	s, qq := uint64(k.Sep)*scan.Ones, uint64(q)*scan.Ones
	return scan.Gather(csvMask(binary.LittleEndian.Uint64(c[0:]), s, qq)) |
		scan.Gather(csvMask(binary.LittleEndian.Uint64(c[8:]), s, qq))<<8 |
		scan.Gather(csvMask(binary.LittleEndian.Uint64(c[16:]), s, qq))<<16 |
		scan.Gather(csvMask(binary.LittleEndian.Uint64(c[24:]), s, qq))<<24 |
		scan.Gather(csvMask(binary.LittleEndian.Uint64(c[32:]), s, qq))<<32 |
		scan.Gather(csvMask(binary.LittleEndian.Uint64(c[40:]), s, qq))<<40 |
		scan.Gather(csvMask(binary.LittleEndian.Uint64(c[48:]), s, qq))<<48 |
		scan.Gather(csvMask(binary.LittleEndian.Uint64(c[56:]), s, qq))<<56
}

// csvMask sets the high bit of each byte of x that is a newline or equals
// a byte of s or q (each a byte repeated eight times).
func csvMask(x, s, q uint64) uint64 {
	return scan.EqMask(x, '\n'*scan.Ones) | scan.EqMask(x, s) | scan.EqMask(x, q)
}

// newline passes the newline at e.
func (k *csvBlock) newline(e int) {
	k.line++
	k.ls = e + 1
}

// blank passes an empty line ("\n" or "\r\n") at p, as encoding/csv skips
// them, and reports whether there was one.
func (k *csvBlock) blank() bool {
	b, p := k.buf, k.p
	if b[p] == '\r' && p+1 < len(b) && b[p+1] == '\n' {
		p++
	} else if b[p] == '\r' && p+1 == len(b) {
		k.p = len(b)
		return true
	}
	if b[p] != '\n' {
		return false
	}
	k.Next() // the newline's mark
	k.newline(p)
	k.p = p + 1
	return true
}

// Field reads the field at k.p and says whether it ends its record; k.p
// moves past it and its separator or newline. The value aliases the block,
// or k.scratch for a quoted field with "" or \r\n in it, until the next
// call.
func (k *csvBlock) Field() ([]byte, bool, error) {
	b, p := k.buf, k.p
	if k.Quote != 0 && p < len(b) && b[p] == k.Quote {
		return k.quoted()
	}
	e := k.Next()
	if k.Quote != 0 && e < len(b) && b[e] == k.Quote {
		return nil, false, k.syntax(e, "a quote inside a field that does not start with one; quote the whole field and double the quotes in it (\"a \"\"b\"\"\")")
	}
	v := b[p:e]
	k.p = e + 1
	if e < len(b) && b[e] == k.Sep {
		return v, false, nil
	}
	if n := len(v); n > 0 && v[n-1] == '\r' {
		v = v[:n-1] // \r\n ends the line
	}
	if e < len(b) {
		k.newline(e)
	} else {
		k.p = len(b)
	}
	return v, true, nil
}

// quoted reads a field that starts with a quote at k.p.
func (k *csvBlock) quoted() ([]byte, bool, error) {
	b, open := k.buf, k.p
	openLine, openCol := k.line+1, open-k.ls+1
	k.Next() // the opening quote
	unquote := false
	var e int
	for {
		if e = k.Next(); e == len(b) {
			k.open = openLine
			return nil, false, batch.ParseErrorf(k.name, openLine, "the quote that opens a field at column %d is never closed: %w", openCol, batch.ErrSyntax)
		}
		switch c := b[e]; {
		case c == '\n':
			unquote = unquote || b[e-1] == '\r' // encoding/csv reads \r\n in a field as \n
			k.newline(e)
			continue
		case c != k.Quote:
			continue // a separator inside the quotes
		case e+1 < len(b) && b[e+1] == k.Quote:
			k.Next()
			unquote = true
			continue
		}
		break
	}
	v := b[open+1 : e]
	if unquote {
		v = k.unquote(v)
	}
	a := e + 1 // after the closing quote: a separator, the end of the line, or of the input
	switch {
	case a == len(b):
		k.p = a
		return v, true, nil
	case b[a] == k.Sep:
		k.Next()
		k.p = a + 1
		return v, false, nil
	case b[a] == '\r' && a+1 == len(b):
		k.p = len(b)
		return v, true, nil
	case b[a] == '\r' && b[a+1] == '\n':
		a++
		fallthrough
	case b[a] == '\n':
		k.Next()
		k.newline(a)
		k.p = a + 1
		return v, true, nil
	}
	return nil, false, k.syntax(a, "%s after the closing quote of a field; a quoted field ends at a separator or the end of the line", scan.QuoteSnippet(b[a:min(a+1, len(b))]))
}

// unquote writes the body of a quoted field with each "" as one quote and
// each \r\n as \n.
func (k *csvBlock) unquote(v []byte) []byte {
	out := k.scratch[:0]
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == k.Quote:
			i++ // the first of a pair
		case c == '\r' && i+1 < len(v) && v[i+1] == '\n':
			continue
		}
		out = append(out, c)
	}
	k.scratch = out
	return out
}

// syntax is the error for a quote out of place at buf[at], on the
// current line.
func (k *csvBlock) syntax(at int, format string, a ...any) error {
	k.stray = true
	return &batch.ParseError{Input: k.name, Line: k.line + 1, Column: at - k.ls + 1, Err: fmt.Errorf("%s: %w", fmt.Sprintf(format, a...), batch.ErrSyntax)}
}

// Parse reads the whole records of k's block into b until b holds bs
// rows or the block ends. This is the function a parallel decoder runs on
// each block: k is the goroutine's own, l is shared.
func (l *csvLayout) Parse(k *csvBlock, b *batch.Batch, bs int) error {
	for b.N < bs && k.p < len(k.buf) {
		if k.blank() {
			continue
		}
		line := k.line + 1
		f := 0
		for {
			v, end, err := k.Field()
			if err != nil {
				return err
			}
			if f < len(l.col) && l.col[f].Kind != csvSkip {
				if err := l.value(k, b, &l.col[f], v, line); err != nil {
					return err
				}
			}
			f++
			if end {
				break
			}
		}
		if f != len(l.col) {
			return l.ragged(line, f)
		}
		if l.docFill {
			b.Doc.Append(nil)
		}
		b.Pos = append(b.Pos, line)
		b.N++
	}
	return nil
}

// ragged is the error for a record of f fields.
func (l *csvLayout) ragged(line int64, f int) error {
	why := ""
	if l.Quote == 0 && f > len(l.col) {
		why = " (a tab inside a value? TSV has no quoting: write such values as CSV)"
	}
	return batch.ParseErrorf(l.name, line, "%d fields, but the header has %d%s: %w", f, len(l.col), why, batch.ErrSyntax)
}

// value stores field value v of a record on line into b, as column c;
// k is the goroutine's cursor, whose num buffer holds a number written
// with a decimal comma rewritten with a point.
func (l *csvLayout) value(k *csvBlock, b *batch.Batch, c *batch.ColReq, v []byte, line int64) error {
	switch c.Kind {
	case batch.FQuery:
		b.Query.Append(v)
	case batch.FDoc:
		b.Doc.Append(v)
	case batch.KExtra:
		b.Extra[c.X].Append(v)
	case batch.KText:
		b.Texts[c.X].Append(v)
	case batch.FRank:
		r, bad := scan.ParseRank(v)
		switch bad {
		case scan.RankNotNumber:
			return l.notNumber(c, v, line, "a whole number")
		case scan.RankNotWhole:
			return batch.ParseErrorf(l.name, line, "%q (the rank column) must be a whole number, found %s: %w", c.Name, scan.QuoteSnippet(v), batch.ErrValue)
		case scan.RankRange:
			return batch.ParseErrorf(l.name, line, "rank %s out of range: %w", v, batch.ErrValue)
		}
		b.Rank = append(b.Rank, r)
	default:
		text := v // the number as ParseNumber reads it
		if l.DecimalComma {
			if i := bytes.IndexByte(v, '.'); i >= 0 {
				return batch.ParseErrorf(l.name, line, "%q (%s) is %s: with --decimal-comma a number is written with a comma (0,75), a point is not read: %w", c.Name, c.Role(), scan.QuoteSnippet(v), batch.ErrValue)
			}
			if i := bytes.IndexByte(v, ','); i >= 0 {
				k.num = append(append(append(k.num[:0], v[:i]...), '.'), v[i+1:]...)
				text = k.num
			}
		}
		x, ok := scan.ParseNumber(text)
		if len(v) == 0 && c.Kind != batch.KNumber {
			// an empty score or label is missing (pandas writes NaN so)
			if !l.cols.MissingOK(c.Kind) {
				what := "a number"
				if c.Kind == batch.FLabel {
					what = "a number or a boolean"
				}
				return batch.ParseErrorf(l.name, line, "%q (%s) must be %s, found an empty field%s: %w", c.Name, c.Role(), what, batch.MissingHint(c.Kind), batch.ErrValue)
			}
			x, ok = math.NaN(), true
		}
		if !ok && c.Kind == batch.FLabel {
			switch {
			case bytes.EqualFold(v, []byte("true")):
				x, ok = 1, true
			case bytes.EqualFold(v, []byte("false")):
				x, ok = 0, true
			default:
				return l.notNumber(c, v, line, "a number or a boolean")
			}
		}
		if !ok {
			return l.notNumber(c, v, line, "a number")
		}
		if c.Kind == batch.FScore || c.Kind == batch.KExtraScore {
			if msg := scan.InexactScore(text, x); msg != "" {
				return batch.ParseErrorf(l.name, line, "%q (%s): %s: %w", c.Name, c.Role(), msg, batch.ErrValue)
			}
		}
		switch c.Kind {
		case batch.FScore:
			b.Score = append(b.Score, x)
		case batch.FLabel:
			b.Label = append(b.Label, x)
		case batch.KNumber:
			b.Numbers[c.X] = append(b.Numbers[c.X], x)
		default:
			b.ExtraScore[c.X] = append(b.ExtraScore[c.X], x)
		}
	}
	return nil
}

// notNumber is the error for value v of column c, which must be what.
func (l *csvLayout) notNumber(c *batch.ColReq, v []byte, line int64, what string) error {
	found := "an empty field"
	if len(v) > 0 {
		found = scan.QuoteSnippet(v)
	}
	hint := ""
	if i := bytes.IndexByte(v, ','); i >= 0 && !l.DecimalComma && c.Kind != batch.FRank {
		if _, ok := scan.ParseNumber(append(append(append([]byte(nil), v[:i]...), '.'), v[i+1:]...)); ok {
			hint = " (a decimal comma? give --decimal-comma)"
		}
	}
	return batch.ParseErrorf(l.name, line, "%q (%s) must be %s, found %s%s: %w", c.Name, c.Role(), what, found, hint, batch.ErrValue)
}
