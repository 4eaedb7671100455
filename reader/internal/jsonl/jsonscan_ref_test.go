package jsonl_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/jsonl"
	"github.com/rankeval/rankeval/reader/internal/readertest"
)

// The JSON scanner against encoding/json, the reference: a line it accepts
// is valid JSON (json.Valid) and valid UTF-8, and a line that is both it
// accepts; strings decode to what json.Unmarshal makes of them.

// validJSONL says whether line is a JSON object and valid UTF-8, by
// encoding/json, with no \u escape of half a surrogate pair: what the
// scanner must accept, and all it may.
func validJSONL(line []byte) bool {
	t := bytes.TrimLeft(line, " \t\r\n")
	return len(t) > 0 && t[0] == '{' && json.Valid(line) && utf8.Valid(line) && !loneSurrogate(line)
}

// loneSurrogate says whether the escapes of b (JSON text, or a string's
// body) hold a \u escape of half a UTF-16 surrogate pair without its other
// half next, which rankeval refuses: encoding/json reads every one as
// U+FFFD.
func loneSurrogate(b []byte) bool {
	u4 := func(i int) uint64 {
		if i+6 > len(b) || b[i] != '\\' || b[i+1] != 'u' {
			return 0
		}
		v, err := strconv.ParseUint(string(b[i+2:i+6]), 16, 16)
		if err != nil {
			return 0
		}
		return v
	}
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		switch r := u4(i); {
		case r >= 0xdc00 && r <= 0xdfff:
			return true
		case r >= 0xd800 && r <= 0xdbff:
			if r2 := u4(i + 6); r2 < 0xdc00 || r2 > 0xdfff {
				return true
			}
			i += 11
		default:
			i++ // past the escaped byte
		}
	}
	return false
}

// blank says whether a line has only JSON's white space: no row, no error.
func blank(line []byte) bool { return len(bytes.TrimLeft(line, " \t\r")) == 0 }

// jsonlSeeds are lines for the fuzz targets: valid ones of every shape and
// the ways issue 23 found to be invalid JSON yet read.
var jsonlSeeds = []string{
	`{"query_id":"q1","doc_id":"d1","score":0.5,"label":2}`,
	`{"query_id":17,"doc_id":"\u00e9","score":-1e300,"label":true,"x":[{"y":"}"}],"z":{"a":[1,-0.5e+3,true,false,null,"s",{},[]]}}`,
	" { \"label\" : true , \"x\": {\"a\":[1,\"}\"]}, \"query_id\": 17, \"doc_id\": -3, \"score\": -1e-3 }\r",
	`{"query_id":"a\"b\\c\u00e9\ud83d\ude00\ud800\udc00x\udbff\udfffy","score":1,"label":0.25,"t":"\/\b\f\n\r\t"}`,
	`{"query_id":"x\udc00\ud800y","score":1,"label":1}`,
	`{"query_id":"q","score":1,"label":1,"t":"\ud800"}`,
	`{"query_id":"q","score":1,"label":1,"t":"\\ud800\ud800\u0041"}`,
	`{"query_id":"q","score":01,"label":1}`,
	`{"query_id":"q","score":+1,"label":1}`,
	`{"query_id":"q","score":.5,"label":1}`,
	`{"query_id":"q","score":5.,"label":1}`,
	`{"query_id":"q","score":NaN,"label":1,"x":-Infinity}`,
	"{\"query_id\":\"q\tr\",\"score\":1,\"label\":1}",
	`{"query_id":"q","score":1,"label":1,"x":01}`,
	`{"query_id":"q","score":1,"label":1,"x":[1,,2]}`,
	`{"query_id":"q","score":1,"label":1,"x":[1,2,]}`,
	`{"query_id":"q","score":1,"score":2,"label":1}`,
	"{\"query_id\":\"caf\xe9\",\"score\":1,\"label\":1}",
	"{\"query_id\":\"q\",\"score\":1,\"label\":1,\"t\":\"\xed\xa0\x80\xc0\xaf\"}",
	`{"query_id":"q","score":1,"label":1,"x":tru,"y":nul}`,
	`{"query_id":"q","score":1,"label":1,"x":{"a" 1},"y":{1:2}}`,
	`{"query_id":"q","score":1,"label":1,"x":"\u12g4\x"}`,
	"{\"query_id\":\"q\",\"score\":1,\"label\":1}\f",
	`{"query_id":"q","score":1e5,"label":1,"m":1.0,"s2":-0,"rank":2E+1}`,
	`{"query_id":"q","score":1,"label":1,"x":[[[[[[{"a":[{"b":{}}]}]]]]]]}`,
	`{"query_id":"q","score":1,"label":1,"x":[[[[[[{"a":[{"b":{}]}]]]]]]}`,
}

func FuzzJSONScan(f *testing.F) {
	f.Add([]byte(`"plain", "with \"escaped\" quotes", "\\", "\u00e9\ud83d\ude00 x"`))
	f.Add([]byte(`{"a":[1,{"b":"}]"},"\\"],"c":{}} ["x\\\"]"] tail`))
	f.Add([]byte(`"unterminated \"`))
	f.Add([]byte(`"bad \q escape" "\u12" {"open": [`))
	f.Add([]byte("\"0123456789abcdef\\\\\"0123456789\"  12345678901234567890 true,false}"))
	f.Add([]byte("\"caf\xc3\xa9 \xe2\x82\xac\xe2\x82\" \"\x01\" \"\\ud83d\\u0041\\udc00\" 01 -0.5e+7 1. .5 +1 nul"))
	for _, s := range jsonlSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, s []byte) {
		j := &jsonl.Jsonl{Name: "fuzz", Line: 7}
		var scratch []byte
		for p := range len(s) + 1 {
			checkString(t, j, s, p, &scratch)
			e, err := j.SkipValue(s, p)
			if err != nil {
				if !errors.Is(err, batch.ErrSyntax) || !strings.HasPrefix(err.Error(), "fuzz:7: ") {
					t.Fatalf("skipValue(%q, %d): %v", s, p, err)
				}
				continue
			}
			// a value that is valid JSON, whose end a bare one's delimiter
			// (or the line's end) marks
			v := s[p:e]
			if !json.Valid(v) || !utf8.Valid(v) || v[0] != '"' && v[0] != '{' && v[0] != '[' && e < len(s) && !jsonl.IsDelim(s[e]) {
				t.Fatalf("skipValue(%q, %d) accepts %q", s, p, v)
			}
		}
	})
}

// checkString holds scanString, from s[p], to encoding/json: the string
// ends at the first quote no backslash escapes; it is accepted exactly when
// json.Valid and utf8.Valid say so, and decodes as json.Unmarshal does.
func checkString(t *testing.T, j *jsonl.Jsonl, s []byte, p int, scratch *[]byte) {
	t.Helper()
	q := p
	for q < len(s) && s[q] != '"' {
		if s[q] == '\\' {
			q++
		}
		q++
	}
	v, e, err := j.ScanString(s, p, scratch)
	if q >= len(s) {
		if err == nil {
			t.Fatalf("scanString(%q, %d) = %q, want an unterminated string", s, p, v)
		}
		return
	}
	lit := append([]byte{'"'}, s[p:q+1]...) // the string with its quotes
	var want string
	if json.Unmarshal(lit, &want) != nil || !utf8.Valid(lit) || loneSurrogate(lit) {
		if err == nil {
			t.Fatalf("scanString(%q, %d) = %q, but %s is not a JSON string in UTF-8", s, p, v, lit)
		}
		if !errors.Is(err, batch.ErrSyntax) || !strings.HasPrefix(err.Error(), "fuzz:7: ") {
			t.Fatalf("scanString(%q, %d): %v", s, p, err)
		}
		return
	}
	if err != nil || string(v) != want || e != q+1 {
		t.Fatalf("scanString(%q, %d) = %q, %d, %v; want %q, %d", s, p, v, e, err, want, q+1)
	}
}

// FuzzJSONLValid is the differential test of the whole line: parsed with
// no column read, a line is accepted exactly when encoding/json finds it a
// valid object (and it is valid UTF-8) or it is blank; with columns read, a
// line accepted is valid, and a valid line fails for its values only
// (ErrValue, ErrColumn), never as malformed.
func FuzzJSONLValid(f *testing.F) {
	for _, s := range jsonlSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(strings.Repeat(`{"a":`, 40) + "1" + strings.Repeat("}", 40)))
	colsets := []batch.Columns{{}, readertest.TestCols,
		{Query: "query_id", Rank: "rank", Label: "label", Extra: []string{"m"}, ExtraScore: []string{"s2"}}}
	parsers := make([]*jsonl.Jsonl, len(colsets))
	for i, c := range colsets {
		parsers[i] = jsonl.NewParser("fuzz", c, batch.Options{})
		parsers[i].B = c.Shape("fuzz")
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line = line[:i] // the splitter cuts lines there
		}
		valid := validJSONL(line)
		for i, j := range parsers {
			j.Line = 2 // past the first line, whose byte order mark is dropped
			err := j.Parse(line)
			if err != nil && !strings.HasPrefix(err.Error(), "fuzz:2: ") {
				t.Fatalf("error without its line: %v", err)
			}
			switch {
			case i == 0 && (err == nil) != (valid || blank(line)):
				t.Fatalf("%q: error %v, but json.Valid and utf8.Valid say %v", line, err, valid)
			case err == nil && !valid && !blank(line):
				t.Fatalf("%q accepted with columns %+v, but it is not valid JSON in UTF-8", line, colsets[i])
			case valid && errors.Is(err, batch.ErrSyntax):
				t.Fatalf("%q is valid JSON, yet %v", line, err)
			}
			j.B.Reset()
		}
	})
}

// TestJSONLDeepNesting: objects and arrays nest as deep as encoding/json
// lets them, and no deeper.
func TestJSONLDeepNesting(t *testing.T) {
	for _, depth := range []int{jsonl.MaxNesting - 1, jsonl.MaxNesting, jsonl.MaxNesting + 1} {
		// the line's object, then depth-1 arrays in its field "x"
		line := []byte(`{"query_id":"q","score":1,"label":1,"x":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + "}")
		_, err := readertest.ParseString(t, string(line), batch.Columns{Query: "query_id", Score: "score", Label: "label"}, 8)
		if valid := json.Valid(line); (err == nil) != valid {
			t.Fatalf("depth %d: json.Valid %v, error %v", depth, valid, err)
		}
		if err != nil && !strings.Contains(err.Error(), "nested deeper than 10000") {
			t.Fatalf("depth %d: %v", depth, err)
		}
	}
}

// TestWordSearches checks the word-at-a-time search against its definition
// on every byte value at every offset of a word.
func TestWordSearches(t *testing.T) {
	for c := range 256 {
		for at := range 20 {
			s := bytes.Repeat([]byte{'a'}, 20)
			s[at] = byte(c)
			for p := range 21 {
				want := p
				for want < len(s) && !jsonl.Special(s[want]) {
					want++
				}
				got, ok := jsonl.PlainInWords(s, p)
				if !ok {
					for got < len(s) && !jsonl.Special(s[got]) {
						got++
					}
				} else if got >= len(s) || !jsonl.Special(s[got]) || got < p {
					t.Fatalf("plainInWords(%q, %d) = %d, true: not a special byte", s, p, got)
				}
				if got != want {
					t.Fatalf("plainInWords(%q, %d) = %d, want %d", s, p, got, want)
				}
			}
		}
	}
}
