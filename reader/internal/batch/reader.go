// Package batch holds what every input format shares: the columnar Batch
// of rows a reader hands on, the Columns it is asked for, the Options that
// tune it, the Reader interface, the sentinel errors every message wraps,
// and the ordered parallel decoder (ordered.go) on which every format
// decodes its units (blocks of lines, row groups, record batches) and
// hands the batches on in input order. Package reader names these types
// for the rest of the module.
package batch

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// Sentinel errors, matched with errors.Is. Every error a reader returns wraps
// one of them and names the file and the line or row.
var (
	ErrSyntax      = errors.New("malformed input")
	ErrColumn      = errors.New("missing or unusable column")
	ErrValue       = errors.New("bad value")
	ErrCompression = errors.New("corrupt or truncated compressed stream")
	ErrFormat      = errors.New("unrecognised input format")
)

// Columns names the fields a reader extracts. Empty Doc or Rank means the
// column is not read; Score may be empty only when Rank is set.
type Columns struct {
	Query, Doc, Score, Label, Rank string
	// Extra columns are read as text, for slicing: a JSON string unescaped,
	// a number or boolean as its literal text. A null or missing value is an
	// error naming the column, so a slice never silently collects strays.
	Extra []string
	// ExtraScore columns are further numeric scores (other models' ranking
	// of the same rows), read like Score.
	ExtraScore []string
	// Numbers are further numeric columns read like Score for a run's
	// rules about rows (the click metrics' propensity or logged position),
	// each named in messages by its role and the flag that names it.
	Numbers []Named
	// Texts are further columns read as text, like Extra, for a run's
	// rules about rows (the team of an interleaved list), each row its
	// own value; named in messages as Numbers are.
	Texts []Named
	// Unordered reads neither a score nor a rank column: the rows are
	// not ranked (rankeval propensities reads their logged position as
	// one of Numbers). Otherwise one of the two is required.
	Unordered bool
	// DocOptional lets rows lack the doc column (their doc id is empty);
	// otherwise a row without it is an error.
	DocOptional bool
	// LabelUnread: no metric of the run reads a label, so the label
	// column is not read (rows may lack it) and Batch.Label is not filled;
	// the pipeline's rules give every row label 0.
	LabelUnread bool
	// MissingScore and MissingLabel read a missing value of a score
	// column (Score, ExtraScore) or of the label column (a JSON null, an
	// empty CSV/TSV field, a Parquet or Arrow null) as NaN, which the
	// pipeline's --missing-score and --missing-label policies recognise
	// and never hand to a metric. Otherwise such a value is an error
	// whose message names the flag (MissingHint).
	MissingScore, MissingLabel bool
}

// MissingHint is what an error about a missing value of a column of kind
// (FScore, KExtraScore, FLabel) adds to say how to go on; "" for the
// other kinds.
func MissingHint(kind int) string {
	switch kind {
	case FScore, KExtraScore:
		return "; to rank such rows last or leave them out, use --missing-score last or drop"
	case FLabel:
		return "; to count such rows as not relevant or leave them out, use --missing-label zero or drop"
	}
	return ""
}

// MissingFlag is the flag that sets the policy for a missing value of a
// column of kind ("" for a kind without one).
func MissingFlag(kind int) string {
	switch kind {
	case FScore, KExtraScore:
		return "--missing-score"
	case FLabel:
		return "--missing-label"
	}
	return ""
}

// MissingOK says whether cols reads a missing value of a column of kind
// as NaN (Columns.MissingScore, MissingLabel).
func (c Columns) MissingOK(kind int) bool {
	switch kind {
	case FScore, KExtraScore:
		return c.MissingScore
	case FLabel:
		return c.MissingLabel
	}
	return false
}

// Named is a column of Columns.Numbers or Texts: its name, its role in
// messages ("the propensity column") and its flag ("--propensity-col").
type Named struct{ Name, Role, Flag string }

// Strings is a column of byte strings packed into one buffer, so a batch of
// any size costs two allocations that are reused from batch to batch.
// String i is Buf[Off[i]:Off[i+1]]; Off has one entry more than there are
// strings.
type Strings struct {
	Buf []byte
	Off []int32
}

// At returns string i. It aliases Buf: copy it to keep it past the batch.
func (s *Strings) At(i int) []byte { return s.Buf[s.Off[i]:s.Off[i+1]] }

// Reset empties the column, keeping its capacity.
func (s *Strings) Reset() {
	s.Buf = s.Buf[:0]
	s.Off = append(s.Off[:0], 0)
}

// Append adds one string.
func (s *Strings) Append(b []byte) {
	s.Buf = AppendShort(s.Buf, b)
	s.Off = append(s.Off, int32(len(s.Buf)))
}

// Equal reports whether string i is b: the grouper asks it of every row.
func (s *Strings) Equal(i int, b []byte) bool { return EqualShort(s.At(i), b) }

// EqualShort is bytes.Equal, comparing strings of up to 8 bytes as one
// word when both have the room past their ends (as a batch's strings and
// a block's fields do), inline, without the call bytes.Equal makes: the
// query id of every line of a run is compared twice, with the line before
// it as it is parsed and with its query's as the rows are grouped.
func EqualShort(a, b []byte) bool {
	n := uint(len(a))
	if n == uint(len(b)) && n <= 8 && cap(a) >= 8 && cap(b) >= 8 {
		return (binary.LittleEndian.Uint64(a[:8])^binary.LittleEndian.Uint64(b[:8]))<<(64-8*n) == 0 // n = 0 shifts all out
	}
	return bytes.Equal(a, b)
}

// AppendShort is append(dst, b...) for the short strings of ids, which
// it copies as one 16-byte move when both sides have the room (b's
// capacity past its end, in its caller's buffer, is read, not kept): the
// call of memmove that append makes for any length cost more than the
// copy (query and doc ids of a TREC run: 590 -> 470 ms in a CPU profile
// of 5 evaluations of 10M lines).
func AppendShort(dst, b []byte) []byte {
	n := len(dst)
	if len(b) <= 16 && cap(b) >= 16 && cap(dst)-n >= 16 {
		*(*[16]byte)(dst[n : n+16]) = *(*[16]byte)(b[:16])
		return dst[:n+len(b)]
	}
	return append(dst, b...)
}

// Batch is a run of consecutive rows of one input, stored by column.
//
// Ownership: the reader owns a Batch and every slice in it; they are valid
// until the next call to Next or Close. A consumer that keeps anything
// copies it.
type Batch struct {
	Source string // the input's name as the user gave it
	N      int    // number of rows
	Query  Strings
	Doc    Strings // empty (no Off entries beyond the first) when no doc column is read
	Score  []float64
	Label  []float64
	Rank   []int64 // nil unless a rank column is read
	// Extra[c] holds the text of Columns.Extra[c]; ExtraScore[c] the values
	// of Columns.ExtraScore[c]. Both are nil when none are asked for.
	Extra      []Strings
	ExtraScore [][]float64
	// Numbers[c] holds the values of Columns.Numbers[c], Texts[c] those
	// of Columns.Texts[c]; nil when none are asked for.
	Numbers [][]float64
	Texts   []Strings
	// Pos is the 1-based line (text formats) or row within the file
	// (columnar formats) of each row, for error messages.
	Pos []int64
	// Locate, when set, names a position in words (columnar readers give the
	// row group too). When nil, positions print as "source:line".
	Locate func(pos int64) string
}

// Where names row i of the batch for an error message.
func (b *Batch) Where(i int) string { return b.WherePos(b.Pos[i]) }

// WherePos names a position of this batch's source.
func (b *Batch) WherePos(pos int64) string {
	if b.Locate != nil {
		return b.Locate(pos)
	}
	return fmt.Sprintf("%s:%d", b.Source, pos)
}

// Reset empties the batch, keeping capacity.
func (b *Batch) Reset() {
	b.N = 0
	b.Query.Reset()
	b.Doc.Reset()
	b.Score = b.Score[:0]
	b.Label = b.Label[:0]
	if b.Rank != nil {
		b.Rank = b.Rank[:0]
	}
	b.Pos = b.Pos[:0]
	for c := range b.Extra {
		b.Extra[c].Reset()
	}
	for c := range b.ExtraScore {
		b.ExtraScore[c] = b.ExtraScore[c][:0]
	}
	for c := range b.Numbers {
		b.Numbers[c] = b.Numbers[c][:0]
	}
	for c := range b.Texts {
		b.Texts[c].Reset()
	}
}

// ResetLike empties b and gives it the columns of t: the same source and
// locator, a rank column if t has one, as many extra columns.
func (b *Batch) ResetLike(t *Batch) {
	b.Source, b.Locate = t.Source, t.Locate
	switch {
	case t.Rank == nil:
		b.Rank = nil
	case b.Rank == nil:
		b.Rank = []int64{}
	}
	b.Extra = resizeNil(b.Extra, t.Extra)
	b.ExtraScore = resizeNil(b.ExtraScore, t.ExtraScore)
	b.Numbers = resizeNil(b.Numbers, t.Numbers)
	b.Texts = resizeNil(b.Texts, t.Texts)
	b.Reset()
}

// Target is the batch a text reader fills: its own, for Next, or the
// caller's, for NextInto (Filler). own holds the reader's column shape.
type Target struct {
	B   *Batch
	Own Batch
}

func (t *Target) Batch() *Batch { return t.B }

// FillOwn makes the reader's own batch the target, emptied.
func (t *Target) FillOwn() {
	t.B = &t.Own
	t.B.Reset()
}

// FillInto makes b the target, emptied and shaped like the reader's own.
func (t *Target) FillInto(b *Batch) {
	b.ResetLike(&t.Own)
	t.B = b
}

// Shape is an empty batch of source with the columns cols reads, for
// ResetLike.
func (c Columns) Shape(source string) *Batch {
	b := &Batch{Source: source}
	if c.Rank != "" {
		b.Rank = []int64{}
	}
	if len(c.Extra) > 0 {
		b.Extra = make([]Strings, len(c.Extra))
	}
	if len(c.ExtraScore) > 0 {
		b.ExtraScore = make([][]float64, len(c.ExtraScore))
	}
	if len(c.Numbers) > 0 {
		b.Numbers = make([][]float64, len(c.Numbers))
	}
	if len(c.Texts) > 0 {
		b.Texts = make([]Strings, len(c.Texts))
	}
	return b
}

// resizeNil gives s the length of t, nil when t is nil.
func resizeNil[T any](s, t []T) []T {
	if t == nil {
		return nil
	}
	if cap(s) < len(t) {
		return append(s[:cap(s)], make([]T, len(t)-cap(s))...)
	}
	return s[:len(t)]
}

// Reader is the shape every format follows:
//
//	for r.Next() { b := r.Batch(); ... }
//	if err := r.Err(); err != nil { ... }
//	r.Close()
//
// Next returns false at the end of input or on the first error; Err then
// tells which. Close releases files and decoders and may be called at any
// time, more than once.
type Reader interface {
	Next() bool
	Batch() *Batch
	Err() error
	Close() error
}

// Ahead is a Reader that decodes ahead on goroutines of its own (the
// ordered parallel decoder of regular files: TREC runs, JSONL, Parquet,
// Arrow IPC), so its caller needs no read-ahead of its own: Next hands on
// a batch already decoded, and the batch stays valid until the next call.
type Ahead interface {
	Reader
	decodesAhead()
}

// Filler is a Reader that can decode its next batch straight into a batch
// the caller owns. A caller that keeps batches past the next call (the
// pipeline's read-ahead does) so spares copying each one. The reader keeps
// no reference to b once NextInto returns; Batch then returns b.
type Filler interface {
	Reader
	NextInto(b *Batch) bool
}
