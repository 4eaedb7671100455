// Package printable owns how data (ids, slice values, system and column
// names; object URLs in messages) prints in every text, trec and HTML
// output and message: as itself when that is
// safe, else quoted, so that data can never forge a line or drive a
// terminal, and two values never print alike.
package printable

import (
	"strconv"
	"unicode/utf8"
)

// String is s as every text and trec output prints an id, a slice
// value, a system or column name: s itself when it is valid UTF-8 of
// printable characters (strconv.IsPrint: no control characters, tabs,
// line breaks, escape sequences or bidi overrides) and does not start
// with a double quote; otherwise s quoted as Go quotes it ("a\nb",
// "\x1b[31m", invalid bytes as \xff). Data can then never forge a line of
// a trec layout or drive a terminal, and two different values never print
// alike: a bare value never starts with a quote, and quoting is one to
// one. JSON output (summary.AppendJSONString) quotes what is not UTF-8 the
// same way, and escapes the rest by JSON's rules.
func String(s string) string {
	if Plain(s) {
		return s
	}
	return strconv.Quote(s)
}

// Append appends String(s) to b.
func Append(b []byte, s string) []byte {
	if Plain(s) {
		return append(b, s...)
	}
	return strconv.AppendQuote(b, s)
}

// Plain reports whether s prints as itself.
func Plain(s string) bool {
	if len(s) > 0 && s[0] == '"' {
		return false
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < ' ' || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || !strconv.IsPrint(r) {
			return false
		}
		i += n
	}
	return true
}
