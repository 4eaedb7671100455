package reader

import (
	"bytes"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// The JSON scanner's word-at-a-time searches against the byte-by-byte
// scanner they replaced (kept here, as it was, as the reference): the same
// values, the same ends and the same errors, from every position of any
// input.

// refScanString is scanString as it was before the word-at-a-time
// searches, byte by byte and with bytes.IndexByte; it reads a string whose opening quote is just before s[p] and
// returns its decoded text: a slice of s when it has no escapes (the common
// case, no copy), else decoded into *scratch.
func refScanString(j *jsonl, s []byte, p int, scratch *[]byte) ([]byte, int, error) {
	start := p
	q := bytes.IndexByte(s[p:], '"')
	if q < 0 {
		return nil, len(s), j.fail(ErrSyntax, "unterminated string at column %d", start)
	}
	if bytes.IndexByte(s[p:p+q], '\\') < 0 {
		return s[p : p+q], p + q + 1, nil
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

// refSkipValue is skipValue as it was; it passes over one value of any type without decoding it.
func refSkipValue(j *jsonl, s []byte, p int) (int, error) {
	if p >= len(s) {
		return p, j.fail(ErrSyntax, "missing value at column %d", p+1)
	}
	switch s[p] {
	case '"':
		_, np, err := refScanRaw(j, s, p+1)
		return np, err
	case '{', '[':
		depth := 0
		for p < len(s) {
			switch s[p] {
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return p + 1, nil
				}
			case '"':
				_, np, err := refScanRaw(j, s, p+1)
				if err != nil {
					return np, err
				}
				p = np
				continue
			}
			p++
		}
		return p, j.fail(ErrSyntax, "unterminated object or array")
	}
	tok, e := j.token(s, p)
	if len(tok) == 0 {
		return e, j.fail(ErrSyntax, "missing value at column %d", p+1)
	}
	return e, nil
}

// refScanRaw is scanRaw as it was; it passes over a string body honouring backslash escapes: it jumps
// from quote to quote and counts the backslashes before each.
func refScanRaw(j *jsonl, s []byte, p int) ([]byte, int, error) {
	start := p
	for {
		q := bytes.IndexByte(s[p:], '"')
		if q < 0 {
			return nil, len(s), j.fail(ErrSyntax, "unterminated string at column %d", start)
		}
		e := p + q
		bs := 0
		for k := e - 1; k >= start && s[k] == '\\'; k-- {
			bs++
		}
		if bs%2 == 0 {
			return s[start:e], e + 1, nil
		}
		p = e + 1
	}
}

type scanResult struct {
	v   string
	end int
	err string
}

func result(v []byte, end int, err error) scanResult {
	r := scanResult{v: string(v), end: end}
	if err != nil {
		r.err, r.v = err.Error(), ""
	}
	return r
}

func FuzzJSONScan(f *testing.F) {
	f.Add([]byte(`"plain", "with \"escaped\" quotes", "\\", "\u00e9\ud83d\ude00 x"`))
	f.Add([]byte(`{"a":[1,{"b":"}]"},"\\"],"c":{}} ["x\\\"]"] tail`))
	f.Add([]byte(`"unterminated \"`))
	f.Add([]byte(`"bad \q escape" "\u12" {"open": [`))
	f.Add([]byte("\"0123456789abcdef\\\\\"0123456789\"  12345678901234567890 true,false}"))
	f.Fuzz(func(t *testing.T, s []byte) {
		j := &jsonl{name: "fuzz", line: 7}
		var a, b []byte
		for p := range len(s) + 1 {
			if got, want := result(j.scanString(s, p, &a)), result(refScanString(j, s, p, &b)); got != want {
				t.Fatalf("scanString(%q, %d) = %+v, want %+v", s, p, got, want)
			}
			if got, want := result(j.scanRaw(s, p)), result(refScanRaw(j, s, p)); got != want {
				t.Fatalf("scanRaw(%q, %d) = %+v, want %+v", s, p, got, want)
			}
			e1, err1 := j.skipValue(s, p)
			e2, err2 := refSkipValue(j, s, p)
			if got, want := result(nil, e1, err1), result(nil, e2, err2); got != want {
				t.Fatalf("skipValue(%q, %d) = %+v, want %+v", s, p, got, want)
			}
		}
	})
}

// TestWordSearches checks the word-at-a-time searches against their
// definitions on every byte value at every offset of a word.
func TestWordSearches(t *testing.T) {
	for c := range 256 {
		for at := range 20 {
			s := bytes.Repeat([]byte{'a'}, 20)
			s[at] = byte(c)
			for p := range 21 {
				want := len(s)
				if i := bytes.IndexAny(s[min(p, len(s)):], "\"\\"); i >= 0 {
					want = p + i
				}
				if got := quoteOrBackslash(s, p); got != want && !(p == len(s) && got == p) {
					t.Fatalf("quoteOrBackslash(%q, %d) = %d, want %d", s, p, got, want)
				}
				want = len(s)
				if i := bytes.IndexAny(s[min(p, len(s)):], "\"{}[]"); i >= 0 {
					want = p + i
				}
				if got := nesting(s, p); got != want {
					t.Fatalf("nesting(%q, %d) = %d, want %d", s, p, got, want)
				}
			}
		}
	}
}
