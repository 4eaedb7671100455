package reader

// The JSON scanning primitives of the JSONL reader: tokens, numbers,
// strings and skipped values, read in place from a line.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// quoteValue quotes a decoded string value for a message, shortened as
// quoteSnippet shortens.
func quoteValue(b []byte) string {
	if len(b) == 0 {
		return `""`
	}
	return quoteSnippet(b)
}

// token returns the bare (unquoted) scalar at s[p:] and where it ends.
func (j *jsonl) token(s []byte, p int) ([]byte, int) {
	e := p
	for e < len(s) {
		c := s[e]
		if c == ',' || c == '}' || c == ']' || isSpace(c) {
			break
		}
		e++
	}
	return s[p:e], e
}

func isInteger(t []byte) bool {
	if len(t) > 0 && t[0] == '-' {
		t = t[1:]
	}
	if len(t) == 0 || len(t) > 19 {
		return false
	}
	for _, c := range t {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// parseNumber parses a JSON number, and the NaN/Infinity tokens some
// writers emit so that they reach validation as NaN/Inf and are reported
// as such rather than as syntax errors.
func parseNumber(t []byte) (float64, bool) {
	if len(t) == 0 {
		return 0, false
	}
	if v, ok := parseShortDecimal(t); ok {
		return v, true
	}
	switch string(t) {
	case "NaN":
		return math.NaN(), true
	case "Infinity", "+Infinity":
		return math.Inf(1), true
	case "-Infinity":
		return math.Inf(-1), true
	}
	for _, c := range t {
		if !(c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E') {
			return 0, false
		}
	}
	v, err := strconv.ParseFloat(unsafeString(t), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return v, true // out of range gives ±Inf, which validation reports
}

// parseShortDecimal parses [-]digits[.digits] with at most 15 significant
// digits: the mantissa and the power of ten are then both exact in float64,
// so one division gives the correctly rounded value (Clinger's fast path),
// the same bits strconv.ParseFloat returns, in a fraction of its time.
func parseShortDecimal(t []byte) (float64, bool) {
	neg := false
	if len(t) > 0 && t[0] == '-' {
		neg, t = true, t[1:]
	}
	if len(t) == 0 || len(t) > 16 {
		return 0, false
	}
	var m uint64
	digits, frac := 0, -1
	for i, c := range t {
		switch {
		case c >= '0' && c <= '9':
			m = m*10 + uint64(c-'0')
			digits++
		case c == '.' && frac < 0 && i > 0 && i < len(t)-1:
			frac = i
		default:
			return 0, false
		}
	}
	if digits > 15 {
		return 0, false
	}
	v := float64(m)
	if frac >= 0 {
		v /= pow10[len(t)-1-frac]
	}
	if neg {
		v = -v
	}
	return v, true
}

// scanString reads a string whose opening quote is just before s[p] and
// returns its decoded text: a slice of s when it has no escapes (the common
// case, no copy), else decoded into *scratch.
func (j *jsonl) scanString(s []byte, p int, scratch *[]byte) ([]byte, int, error) {
	start := p
	e := quoteOrBackslash(s, p)
	if e == len(s) || s[e] == '\\' && bytes.IndexByte(s[e:], '"') < 0 {
		return nil, len(s), j.fail(ErrSyntax, "unterminated string at column %d", start)
	}
	if s[e] == '"' {
		return s[p:e], e + 1, nil
	}
	out := (*scratch)[:0]
	for p < len(s) {
		c := s[p]
		switch {
		case c == '"':
			*scratch = out
			return out, p + 1, nil
		case c != '\\':
			out = append(out, c)
			p++
			continue
		}
		if p+1 >= len(s) {
			break
		}
		e := s[p+1]
		p += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, np, ok := readU4(s, p)
			if !ok {
				return nil, p, j.fail(ErrSyntax, "bad \\u escape at column %d", p-1)
			}
			p = np
			if utf16.IsSurrogate(r) {
				if r2, np2, ok := readU4(s, p+2); ok && p+1 < len(s) && s[p] == '\\' && s[p+1] == 'u' {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						r, p = d, np2
					}
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			return nil, p, j.fail(ErrSyntax, "bad escape \\%c at column %d", e, p-1)
		}
	}
	return nil, len(s), j.fail(ErrSyntax, "unterminated string at column %d", start)
}

func readU4(s []byte, p int) (rune, int, bool) {
	if p+4 > len(s) {
		return 0, p, false
	}
	v, err := strconv.ParseUint(unsafeString(s[p:p+4]), 16, 32)
	if err != nil {
		return 0, p, false
	}
	return rune(v), p + 4, true
}

// skipValue passes over one value of any type without decoding it.
func (j *jsonl) skipValue(s []byte, p int) (int, error) {
	if p >= len(s) {
		return p, j.fail(ErrSyntax, "missing value at column %d", p+1)
	}
	switch s[p] {
	case '"':
		_, np, err := j.scanRaw(s, p+1)
		return np, err
	case '{', '[':
		depth := 0
		for p = nesting(s, p); p < len(s); p = nesting(s, p+1) {
			switch s[p] {
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return p + 1, nil
				}
			default: // '"'
				_, np, err := j.scanRaw(s, p+1)
				if err != nil {
					return np, err
				}
				p = np - 1
			}
		}
		return p, j.fail(ErrSyntax, "unterminated object or array")
	}
	tok, e := j.token(s, p)
	if len(tok) == 0 {
		return e, j.fail(ErrSyntax, "missing value at column %d", p+1)
	}
	return e, nil
}

// scanRaw passes over a string body honouring backslash escapes: it jumps
// from quote or backslash to the next, a backslash passing over the byte
// after it.
func (j *jsonl) scanRaw(s []byte, p int) ([]byte, int, error) {
	start := p
	for {
		e := quoteOrBackslash(s, p)
		if e >= len(s) {
			return nil, len(s), j.fail(ErrSyntax, "unterminated string at column %d", start)
		}
		if s[e] == '"' {
			return s[start:e], e + 1, nil
		}
		p = e + 2
	}
}

// Skipping the fields rankeval does not read is most of the work on a wide
// line, and its strings are short: finding their ends with bytes.IndexByte
// cost more in calls than in scanning. The searches below read a line a
// word (8 bytes) at a time, testing all eight bytes at once with the
// carry-free byte comparison of zeroBytes, as the TREC field scanner does.

// zeroBytes sets the high bit of each byte of y that is 0, and no other:
// (b&0x7f)+0x7f never carries out of its byte.
func zeroBytes(y uint64) uint64 {
	const lo7 = 0x7f * ones
	return ^((y&lo7 + lo7) | y) & high
}

// quoteOrBackslash returns the index of the first '"' or '\\' in s at or
// after p, or len(s) (or p, when p is past it).
func quoteOrBackslash(s []byte, p int) int {
	p, ok := quoteInWords(s, p)
	if ok {
		return p
	}
	for ; p < len(s); p++ {
		if c := s[p]; c == '"' || c == '\\' {
			return p
		}
	}
	return p
}

// quoteInWords is quoteOrBackslash on the whole words of s from p: ok is
// false when the last len(s)-p < 8 bytes are left to search. Small enough to
// be inlined, it serves the usual keys and skipped strings of members.
func quoteInWords(s []byte, p int) (_ int, ok bool) {
	for ; p+8 <= len(s); p += 8 {
		if m := quoteMask(binary.LittleEndian.Uint64(s[p:])); m != 0 {
			return p + bits.TrailingZeros64(m)>>3, true
		}
	}
	return p, false
}

// quoteMask sets the high bit of each byte of x that is '"' or '\\'.
func quoteMask(x uint64) uint64 { return zeroBytes(x^'"'*ones) | zeroBytes(x^'\\'*ones) }

// nesting returns the index of the first '"', '{', '}', '[' or ']' in s
// at or after p, or len(s). '[' and ']' differ from '{' and '}' by the
// 0x20 bit alone, which no other byte shares with them.
func nesting(s []byte, p int) int {
	for ; p+8 <= len(s); p += 8 {
		x := binary.LittleEndian.Uint64(s[p:])
		y := x | 0x20*ones
		if m := zeroBytes(x^'"'*ones) | zeroBytes(y^'{'*ones) | zeroBytes(y^'}'*ones); m != 0 {
			return p + bits.TrailingZeros64(m)>>3
		}
	}
	for ; p < len(s); p++ {
		switch s[p] {
		case '"', '{', '}', '[', ']':
			return p
		}
	}
	return len(s)
}

// valueText is what to quote of a bad value: the bare token, or for a
// string, object or array (which the token scan stops inside) the rest of
// the line.
func valueText(s []byte, p int, tok []byte) []byte {
	if len(tok) > 0 && s[p] != '"' && s[p] != '{' && s[p] != '[' {
		return tok
	}
	return s[p:]
}

func quoteSnippet(b []byte) string {
	if len(b) > 24 {
		return strconv.Quote(string(b[:24])) + "..."
	}
	if len(b) == 0 {
		return "end of line"
	}
	return strconv.Quote(string(b))
}

func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
