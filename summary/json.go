package summary

import (
	"math"
	"strconv"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// AppendJSONString appends s as a JSON string. A JSON string holds only
// UTF-8, so s that is not (an id read from a binary column) is written as
// its Go-quoted form, as Printable writes it (JSON "\"a\\xff\"" for the
// bytes a, 0xff), never with its
// bad bytes made U+FFFD (which would print two ids alike); and so that the
// quoted form cannot be taken for an id, s that starts with a double quote
// is quoted too. Every other s is written as itself, escaped as JSON
// requires.
func AppendJSONString(b []byte, s []byte) []byte {
	if len(s) > 0 && s[0] == '"' || !utf8.Valid(s) {
		s = strconv.AppendQuote(nil, string(s))
	}
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		_, size := utf8.DecodeRune(s[i:])
		b = append(b, s[i:i+size]...)
		i += size
	}
	return append(b, '"')
}

// AppendJSONFloat appends v in the shortest form that reads back exactly;
// NaN (undefined) becomes null.
func AppendJSONFloat(b []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}
