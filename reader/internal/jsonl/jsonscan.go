package jsonl

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/scan"
)

// The JSON scanning primitives of the JSONL reader: tokens, numbers,
// strings and skipped values, read in place from a line.

// quoteValue quotes a decoded string value for a message, shortened as
// scan.QuoteSnippet shortens.
func quoteValue(b []byte) string {
	if len(b) == 0 {
		return `""`
	}
	return scan.QuoteSnippet(b)
}

// token returns the bare (unquoted) scalar at s[p:] and where it ends.
func (j *Jsonl) token(s []byte, p int) ([]byte, int) {
	e := p
	for e < len(s) {
		c := s[e]
		if c == ',' || c == '}' || c == ']' || scan.IsSpace(c) {
			break
		}
		e++
	}
	return s[p:e], e
}

// The scanner checks every byte of a line against RFC 8259's grammar, the
// values rankeval skips as well as those it reads: a line that is not JSON
// is an error, never a row (issue 23). Strings must also be valid UTF-8,
// which RFC 8259 requires of a JSON text and encoding/json does not check.
// FuzzJSONLValid holds the scanner to encoding/json's json.Valid.

// MaxNesting bounds how deep objects and arrays nest in a line, as
// encoding/json bounds them (its maxNestingDepth): deeper is an error.
const MaxNesting = 10000

// ScanString reads a string whose opening quote is just before s[p] and
// returns its decoded text: a slice of s when it has no escapes (the common
// case, no copy), else decoded into *scratch.
func (j *Jsonl) ScanString(s []byte, p int, scratch *[]byte) ([]byte, int, error) {
	e, escaped, err := j.stringEnd(s, p)
	if err != nil {
		return nil, e, err
	}
	if !escaped {
		return s[p:e], e + 1, nil
	}
	*scratch = unescape((*scratch)[:0], s[p:e])
	return *scratch, e + 1, nil
}

// stringEnd checks the body of a string whose opening quote is just before
// s[p]: escapes, no raw control byte, valid UTF-8. It returns the index of
// the closing quote and whether the body has escapes.
func (j *Jsonl) stringEnd(s []byte, p int) (end int, escaped bool, err error) {
	start := p
	for {
		e, ok := PlainInWords(s, p)
		if !ok {
			for e < len(s) && !Special(s[e]) {
				e++
			}
		}
		if e >= len(s) {
			return len(s), escaped, j.fail(batch.ErrSyntax, "unterminated string at column %d", start)
		}
		switch c := s[e]; {
		case c == '"':
			return e, escaped, nil
		case c == '\\':
			n := escapeLen(s, e)
			if n < 0 {
				return e, escaped, j.fail(batch.ErrSyntax, "%s at column %d is half of a UTF-16 surrogate pair, no character (encoding/json would read it as U+FFFD, making two ids one)", scan.QuoteSnippet(s[e:e+6]), e+1)
			}
			if n == 0 {
				if e+1 >= len(s) {
					return len(s), escaped, j.fail(batch.ErrSyntax, "unterminated string at column %d", start)
				}
				if s[e+1] == 'u' {
					return e, escaped, j.fail(batch.ErrSyntax, "bad \\u escape at column %d (it takes 4 hex digits)", e+1)
				}
				return e, escaped, j.fail(batch.ErrSyntax, "bad escape %s at column %d", scan.QuoteSnippet(s[e:e+2]), e+1)
			}
			escaped, p = true, e+n
		case c < 0x20:
			return e, escaped, j.fail(batch.ErrSyntax, "raw control character %s in a string at column %d (JSON writes it as \\u%04x)", scan.QuoteSnippet(s[e:e+1]), e+1, c)
		default: // a multi-byte UTF-8 sequence, up to the next ASCII byte
			for e < len(s) && s[e] >= utf8.RuneSelf {
				r, n := utf8.DecodeRune(s[e:])
				if r == utf8.RuneError && n == 1 {
					return e, escaped, j.fail(batch.ErrSyntax, "invalid UTF-8 (byte 0x%02x) in a string at column %d", s[e], e+1)
				}
				e += n
			}
			p = e
		}
	}
}

// escapeLen is the length of the escape at s[e] (a backslash), 0 when it
// is not one of JSON's (\" \\ \/ \b \f \n \r \t \uXXXX), and -1 for a \u
// escape of half a UTF-16 surrogate pair without its other half: RFC 8259
// lets it through, but it is no character, and decoders read every one as
// U+FFFD, so "\ud800" and "\udbff" would be one id.
func escapeLen(s []byte, e int) int {
	if e+1 >= len(s) {
		return 0
	}
	switch s[e+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		r, ok := hex4(s[e+2:])
		switch {
		case !ok:
			return 0
		case !utf16.IsSurrogate(r):
			return 6
		case r < 0xdc00 && len(s) >= e+12 && s[e+6] == '\\' && s[e+7] == 'u':
			if r2, ok := hex4(s[e+8:]); ok && 0xdc00 <= r2 && r2 <= 0xdfff {
				return 12
			}
		}
		return -1
	}
	return 0
}

// hex4 reads the 4 hex digits of a \u escape at the start of b.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// unescape appends to out the text of the string body b, which stringEnd
// has checked: its escapes are JSON's, and a \u escape of a UTF-16
// surrogate is half of a pair, the other half next.
func unescape(out, b []byte) []byte {
	for {
		i := bytes.IndexByte(b, '\\')
		if i < 0 {
			return append(out, b...)
		}
		out = append(out, b[:i]...)
		c := b[i+1]
		b = b[i+2:]
		switch c {
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
			r, _ := hex4(b)
			b = b[4:]
			if utf16.IsSurrogate(r) {
				r2, _ := hex4(b[2:])
				r, b = utf16.DecodeRune(r, r2), b[6:]
			}
			out = utf8.AppendRune(out, r)
		default: // '"', '\\', '/'
			out = append(out, c)
		}
	}
}

// SkipValue passes over one value of any type without decoding it,
// checking it as strictly as a value that is read.
func (j *Jsonl) SkipValue(s []byte, p int) (int, error) {
	if p >= len(s) {
		return p, j.fail(batch.ErrSyntax, "missing value at column %d", p+1)
	}
	switch s[p] {
	case '"':
		e, _, err := j.stringEnd(s, p+1)
		return e + 1, err
	case '{', '[':
		return j.skipNested(s, p)
	}
	return j.skipScalar(s, p)
}

// skipScalar passes over the number, true, false or null at s[p].
func (j *Jsonl) skipScalar(s []byte, p int) (int, error) {
	var e int
	switch s[p] {
	case 't':
		e = literalEnd(s, p, "true")
	case 'f':
		e = literalEnd(s, p, "false")
	case 'n':
		e = literalEnd(s, p, "null")
	default:
		e = numberEnd(s, p)
	}
	if e < 0 || e < len(s) && !IsDelim(s[e]) {
		return j.badToken(s, p)
	}
	return e, nil
}

// badToken is the error for the bare value at s[p], which is not JSON.
func (j *Jsonl) badToken(s []byte, p int) (int, error) {
	tok, e := j.token(s, p)
	if len(tok) == 0 {
		return e, j.fail(batch.ErrSyntax, "missing value at column %d", p+1)
	}
	return e, j.fail(batch.ErrSyntax, "%s at column %d is not a JSON value%s", scan.QuoteSnippet(tok), p+1, numberHint(tok))
}

// skipNested passes over the object or array that opens at s[p] (inside
// the line's object), with a stack of the open ones in j.nest.
func (j *Jsonl) skipNested(s []byte, p int) (int, error) {
	stack := j.nest[:0]
	defer func() { j.nest = stack }()
	var err error
	for {
		// s[p:] starts a value
		if p >= len(s) {
			return p, j.fail(batch.ErrSyntax, "missing value at column %d", p+1)
		}
		switch c := s[p]; c {
		case '{', '[':
			if len(stack)+2 > MaxNesting {
				return p, j.fail(batch.ErrSyntax, "objects and arrays nested deeper than %d at column %d", MaxNesting, p+1)
			}
			stack = append(stack, c)
			p = scan.SkipSpace(s, p+1)
			if p < len(s) && s[p] == c+2 { // '}' is '{'+2, ']' is '['+2
				stack, p = stack[:len(stack)-1], p+1
				break
			}
			if c == '{' {
				if p, err = j.memberKey(s, p); err != nil {
					return p, err
				}
			}
			continue
		case '"':
			e, _, err := j.stringEnd(s, p+1)
			if err != nil {
				return e, err
			}
			p = e + 1
		default:
			if p, err = j.skipScalar(s, p); err != nil {
				return p, err
			}
		}
		// after a value: close what it ends, then a ',' and the next
		for {
			if len(stack) == 0 {
				return p, nil
			}
			p = scan.SkipSpace(s, p)
			top := stack[len(stack)-1]
			if p < len(s) && s[p] == top+2 {
				stack, p = stack[:len(stack)-1], p+1
				continue
			}
			if p >= len(s) || s[p] != ',' {
				return p, j.fail(batch.ErrSyntax, "expected ',' or '%c' at column %d", top+2, p+1)
			}
			p = scan.SkipSpace(s, p+1)
			if top == '{' {
				if p, err = j.memberKey(s, p); err != nil {
					return p, err
				}
			}
			break
		}
	}
}

// memberKey passes over the key at s[p] of a skipped object's member and
// its ':', to where the value starts.
func (j *Jsonl) memberKey(s []byte, p int) (int, error) {
	if p >= len(s) || s[p] != '"' {
		return p, j.fail(batch.ErrSyntax, "expected a quoted key at column %d", p+1)
	}
	e, _, err := j.stringEnd(s, p+1)
	if err != nil {
		return e, err
	}
	p = scan.SkipSpace(s, e+1)
	if p >= len(s) || s[p] != ':' {
		return p, j.fail(batch.ErrSyntax, "expected ':' at column %d", p+1)
	}
	return scan.SkipSpace(s, p+1), nil
}

// literalEnd is the end of lit (true, false or null) at s[p], or -1.
func literalEnd(s []byte, p int, lit string) int {
	if len(s)-p >= len(lit) && string(s[p:p+len(lit)]) == lit {
		return p + len(lit)
	}
	return -1
}

// numberEnd is the end of the JSON number at s[p],
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, or -1 when s[p:] does
// not start with one. What follows it is the caller's to check.
func numberEnd(s []byte, p int) int {
	if p < len(s) && s[p] == '-' {
		p++
	}
	switch {
	case p >= len(s):
		return -1
	case s[p] == '0':
		p++
	case '1' <= s[p] && s[p] <= '9':
		p = digitsEnd(s, p+1)
	default:
		return -1
	}
	if p < len(s) && s[p] == '.' {
		e := digitsEnd(s, p+1)
		if e == p+1 {
			return -1
		}
		p = e
	}
	if p < len(s) && s[p]|0x20 == 'e' {
		p++
		if p < len(s) && (s[p] == '+' || s[p] == '-') {
			p++
		}
		e := digitsEnd(s, p)
		if e == p {
			return -1
		}
		p = e
	}
	return p
}

func digitsEnd(s []byte, p int) int {
	for p < len(s) && '0' <= s[p] && s[p] <= '9' {
		p++
	}
	return p
}

// IsDelim says whether c may follow a bare value: what token stops at.
func IsDelim(c byte) bool { return c == ',' || c == '}' || c == ']' || scan.IsSpace(c) }

// jsonNumber returns the JSON number at s[p] and its end; ok is false when
// the bare value there is not one (the token then, for a message).
func (j *Jsonl) jsonNumber(s []byte, p int) (tok []byte, e int, ok bool) {
	if e = numberEnd(s, p); e >= 0 && (e == len(s) || IsDelim(s[e])) {
		return s[p:e], e, true
	}
	tok, e = j.token(s, p)
	return tok, e, false
}

// numberHint says why tok, which strconv or a lenient writer takes for a
// number, is not a JSON number ("" when it does not look like one).
func numberHint(tok []byte) string {
	t := bytes.TrimPrefix(tok, []byte("-"))
	switch {
	case len(t) == 0:
		return ""
	case string(t) == "NaN" || string(t) == "Infinity" || string(t) == "+Infinity":
		return " (JSON has no NaN or Infinity)"
	case t[0] == '+':
		return " (a JSON number has no leading '+')"
	case t[0] == '.' || bytes.Contains(t, []byte(".e")) || bytes.Contains(t, []byte(".E")) || t[len(t)-1] == '.':
		return " (a JSON number has digits on both sides of its '.')"
	case len(t) > 1 && t[0] == '0' && '0' <= t[1] && t[1] <= '9':
		return " (a JSON number has no leading zero)"
	}
	return ""
}

// Skipping the fields rankeval does not read is most of the work on a wide
// line, and its strings are short: finding their ends with bytes.IndexByte
// cost more in calls than in scanning. PlainInWords reads a line a word (8
// bytes) at a time, testing all eight bytes at once with the carry-free
// byte comparison of scan.EqMask, as the TREC field scanner does.

// Special says whether a string's scan must stop at c: its end, an
// escape, a control byte (not allowed raw) or a non-ASCII byte (UTF-8 to
// check).
func Special(c byte) bool { return c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf }

// PlainInWords returns the index of the first special byte in the whole
// words of s from p: ok is false when none is there and the last
// len(s)-p < 8 bytes are left to search. Small enough to be inlined, it
// finds the usual keys and skipped strings of members.
func PlainInWords(s []byte, p int) (_ int, ok bool) {
	for ; p+8 <= len(s); p += 8 {
		if m := specialMask(binary.LittleEndian.Uint64(s[p:])); m != 0 {
			return p + bits.TrailingZeros64(m)>>3, true
		}
	}
	return p, false
}

// specialMask sets the high bit of each byte of x that is special: b&0x7f
// plus 0x60 stays below 0x80 (no carry out of the byte) exactly when
// b&0x7f < 0x20, and x's own high bits mark the bytes >= 0x80.
func specialMask(x uint64) uint64 {
	const lo7 = 0x7f * scan.Ones
	return scan.EqMask(x, '"'*scan.Ones) | scan.EqMask(x, '\\'*scan.Ones) | (^(x&lo7+0x60*scan.Ones)|x)&scan.High
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
