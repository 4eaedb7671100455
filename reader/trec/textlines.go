package trec

import (
	"bufio"
	"math"

	"github.com/rankeval/rankeval/reader/internal/scan"
)

// TextLines reads a whitespace-separated text file (plain, gzip or zstd)
// a line at a time with the scanner of the TREC run and qrels readers:
// blank lines are skipped but counted, comment lines (first field
// starting with '#') skipped when asked, a last line without a newline
// read, and read errors reported as theirs are. It serves the text
// formats whose rows are not a run's (trec_eval's prefs and qrels_jg
// files), so that they number lines and fail as runs and qrels do.
type TextLines struct {
	sc    *scan.FieldScanner
	close func() error
}

// OpenTextLines opens name; comments skips comment lines, as trec_eval
// 10.0 does; strict reads lines as trec_eval's readers of judgments do
// (QrelsFormat.Strict).
func OpenTextLines(name string, comments, strict bool) (*TextLines, error) {
	f, display, err := scan.OpenLocal(name)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(f, 1<<16)
	head, _ := br.Peek(4)
	src, closeDec, err := scan.Decompress(display, br, head)
	closeSrc := scan.InputCloser(f)
	if err != nil {
		closeSrc()
		return nil, err
	}
	t := &TextLines{sc: scan.NewFieldScanner(display, src), close: func() error {
		closeDec()
		return closeSrc()
	}}
	t.sc.Comments, t.sc.Strict, t.sc.Nuls = comments, strict, strict
	return t, nil
}

// Next reads the next line that has fields; false at the end or on an
// error (Err).
func (t *TextLines) Next() bool { return t.sc.Next() }

// Fields is the number of fields of the current line.
func (t *TextLines) Fields() int { return t.sc.Fields() }

// Field returns field i of the current line, for i < min(Fields(), 8). It
// aliases the scanner's buffer until the next call to Next.
func (t *TextLines) Field(i int) []byte { return t.sc.Field(i) }

// Line is the number of the current line, from 1.
func (t *TextLines) Line() int64 { return t.sc.N }

// Name is the file's name as messages give it.
func (t *TextLines) Name() string { return t.sc.Name }

// Err is the error that stopped Next, if any.
func (t *TextLines) Err() error { return t.sc.Err }

// Close releases the file.
func (t *TextLines) Close() error {
	if t.close == nil {
		return nil
	}
	c := t.close
	t.close = nil
	return c()
}

// ParseLabel reads a judgment as the qrels reader does: a finite number,
// a negative one (trec_eval: in the pool but not judged) kept as -0.0,
// which equals 0 everywhere but tells bpref and -J it was not judged
// (metrics.JudgedOut). ok is false for anything else.
func ParseLabel(b []byte) (label float64, ok bool) {
	label, ok = scan.ParseNumber(b)
	if !ok || label != label || math.IsInf(label, 0) {
		return 0, false
	}
	switch {
	case label < 0:
		label = math.Copysign(0, -1)
	case label == 0:
		label = 0 // -0 written so is judged non-relevant, as trec_eval's atol reads it
	}
	return label, true
}

// AtolLabel reads a judgment as trec_eval's qrels readers do (Atol); a
// negative one -0.0, as ParseLabel keeps it.
func AtolLabel(b []byte) float64 {
	if len(b) == 1 && b[0]-'0' <= 9 {
		return float64(b[0] - '0') // most judgments: one digit, no call
	}
	n := Atol(b)
	if n < 0 {
		return math.Copysign(0, -1)
	}
	return float64(n)
}

// Atol is C's atol (strtol in base 10): leading white space, an optional
// sign and the digits that follow, up to the first other character
// ("0.5" is 0, "1e2" is 1, "abc" 0); past the range of a long, its bound.
func Atol(b []byte) int64 {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] >= '\t' && b[i] <= '\r') {
		i++
	}
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	const limit = 1 << 63 // -LONG_MIN; LONG_MAX is one less
	var n uint64
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if n > limit/10 {
			n = limit
		} else {
			n = min(n*10+uint64(b[i]-'0'), limit)
		}
	}
	switch {
	case neg:
		return int64(-n) // -limit wraps to LONG_MIN
	case n == limit:
		return math.MaxInt64
	}
	return int64(n)
}

// ParseNumber reads a number field as the TREC readers read a score: a
// decimal, or NaN and ±Infinity by name (a value past float64's range is
// ±Inf); ok is false for anything else.
func ParseNumber(b []byte) (float64, bool) { return scan.ParseNumber(b) }
