package jsonl_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/readertest"
)

// TestJSONLNotJSON holds one line per way issue 23 found a line that is
// not JSON (RFC 8259) read as a row, in a column read or a field skipped,
// and a column's key given twice: each is an error naming the line, and
// the column or the column of the line where it goes wrong.
func TestJSONLNotJSON(t *testing.T) {
	cols := batch.Columns{Query: "query_id", Score: "score", Label: "label"}
	all := batch.Columns{Query: "query_id", Doc: "doc_id", Rank: "rank", Label: "label", Extra: []string{"m"}, ExtraScore: []string{"s2"}}
	const ok = `"query_id":"q","score":1,"label":1`
	tests := []struct {
		name string
		in   string
		cols batch.Columns
		want error
		msg  string
	}{
		// numbers in a column read
		{"score 01", `{"query_id":"q","score":01,"label":1}`, cols, batch.ErrValue, `"score" (the score column) must be a number, found "01" (a JSON number has no leading zero)`},
		{"score +1", `{"query_id":"q","score":+1,"label":1}`, cols, batch.ErrValue, `found "+1" (a JSON number has no leading '+')`},
		{"score .5", `{"query_id":"q","score":.5,"label":1}`, cols, batch.ErrValue, `found ".5" (a JSON number has digits on both sides of its '.')`},
		{"score 5.", `{"query_id":"q","score":5.,"label":1}`, cols, batch.ErrValue, `found "5." (a JSON number has digits on both sides of its '.')`},
		{"score -.5", `{"query_id":"q","score":-.5,"label":1}`, cols, batch.ErrValue, `found "-.5" (a JSON number has digits`},
		{"score 1.e5", `{"query_id":"q","score":1.e5,"label":1}`, cols, batch.ErrValue, `found "1.e5" (a JSON number has digits`},
		{"score 1e", `{"query_id":"q","score":1e,"label":1}`, cols, batch.ErrValue, `must be a number, found "1e"`},
		{"score NaN", `{"query_id":"q","score":NaN,"label":1}`, cols, batch.ErrValue, `found "NaN" (JSON has no NaN or Infinity)`},
		{"score -Infinity", `{"query_id":"q","score":-Infinity,"label":1}`, cols, batch.ErrValue, `found "-Infinity" (JSON has no NaN or Infinity)`},
		{"label 00", `{"query_id":"q","score":1,"label":00}`, cols, batch.ErrValue, `"label" (the label column) must be a number or a boolean, found "00" (a JSON number has no leading zero)`},
		{"query id 01", `{"query_id":01,"score":1,"label":1}`, cols, batch.ErrValue, `"query_id" (the query column) must be a string or an integer, found "01"`},
		{"doc id -01", `{"query_id":1,"doc_id":-01,"rank":1,"label":1,"m":"a","s2":1}`, all, batch.ErrValue, `"doc_id" (the doc column) must be a string or an integer, found "-01"`},
		{"rank 01", `{"query_id":1,"doc_id":1,"rank":01,"label":1,"m":"a","s2":1}`, all, batch.ErrValue, `"rank" (the rank column) must be a whole number, found "01"`},
		{"slice column +1", `{"query_id":1,"doc_id":1,"rank":1,"label":1,"m":+1,"s2":1}`, all, batch.ErrValue, `"m" (a slice column) must be a string, number or boolean, found "+1" (a JSON number has no leading '+')`},
		{"slice column NaN", `{"query_id":1,"doc_id":1,"rank":1,"label":1,"m":NaN,"s2":1}`, all, batch.ErrValue, `"m" (a slice column) must be a string, number or boolean, found "NaN"`},
		{"score column .5", `{"query_id":1,"doc_id":1,"rank":1,"label":1,"m":"a","s2":.5}`, all, batch.ErrValue, `"s2" (a score column) must be a number, found ".5"`},
		// strings, read or skipped
		{"raw tab in a query id", "{\"query_id\":\"a\tb\",\"score\":1,\"label\":1}", cols, batch.ErrSyntax, `t.jsonl:1: raw control character "\t" in a string at column 15 (JSON writes it as \u0009)`},
		{"raw NUL in a skipped string", "{" + ok + ",\"x\":\"a\x00\"}", cols, batch.ErrSyntax, `raw control character "\x00" in a string at column 43 (JSON writes it as \u0000)`},
		{"raw newline-like byte in a key", "{" + ok + ",\"x\x1fy\":1}", cols, batch.ErrSyntax, `raw control character "\x1f" in a string at column 39`},
		{"raw control in a string of a nested value", "{" + ok + ",\"x\":[{\"y\":\"\x7f\x01\"}]}", cols, batch.ErrSyntax, `raw control character "\x01"`},
		{"bad escape in a skipped string", "{" + ok + `,"x":"\q"}`, cols, batch.ErrSyntax, `bad escape "\\q" at column 42`},
		{"short \\u escape in a skipped string", "{" + ok + `,"x":"\u12g4"}`, cols, batch.ErrSyntax, `bad \u escape at column 42 (it takes 4 hex digits)`},
		{"backslash at the end", "{" + ok + `,"x":"\`, cols, batch.ErrSyntax, `unterminated string at column 41`},
		// UTF-8
		{"invalid UTF-8 in a query id", "{\"query_id\":\"caf\xe9\",\"score\":1,\"label\":1}", cols, batch.ErrSyntax, `invalid UTF-8 (byte 0xe9) in a string at column 17`},
		{"invalid UTF-8 in a skipped string", "{" + ok + ",\"title\":\"\xff\"}", cols, batch.ErrSyntax, `invalid UTF-8 (byte 0xff) in a string at column 46`},
		{"a UTF-16 surrogate written in UTF-8", "{" + ok + ",\"t\":\"\xed\xa0\x80\"}", cols, batch.ErrSyntax, `invalid UTF-8 (byte 0xed)`},
		{"overlong UTF-8", "{" + ok + ",\"t\":\"\xc0\xaf\"}", cols, batch.ErrSyntax, `invalid UTF-8 (byte 0xc0)`},
		{"UTF-8 cut short at the end of a string", "{" + ok + ",\"t\":\"\xe2\x82\"}", cols, batch.ErrSyntax, `invalid UTF-8 (byte 0xe2)`},
		{"invalid UTF-8 in a key", "{" + ok + ",\"\xfe\":1}", cols, batch.ErrSyntax, `invalid UTF-8 (byte 0xfe) in a string at column 38`},
		{"non-ASCII byte outside strings", "{" + ok + ",\"x\":1\xc2\xa0}", cols, batch.ErrSyntax, `"1\u00a0" at column 41 is not a JSON value`},
		// the values of fields skipped
		{"skipped 01", "{" + ok + `,"x":01}`, cols, batch.ErrSyntax, `t.jsonl:1: "01" at column 41 is not a JSON value (a JSON number has no leading zero): malformed input`},
		{"skipped +1", "{" + ok + `,"x":+1}`, cols, batch.ErrSyntax, `"+1" at column 41 is not a JSON value (a JSON number has no leading '+')`},
		{"skipped NaN", "{" + ok + `,"x":NaN}`, cols, batch.ErrSyntax, `"NaN" at column 41 is not a JSON value (JSON has no NaN or Infinity)`},
		{"skipped word", "{" + ok + `,"x":tru}`, cols, batch.ErrSyntax, `"tru" at column 41 is not a JSON value: malformed input`},
		{"skipped literal with a tail", "{" + ok + `,"x":nullx}`, cols, batch.ErrSyntax, `"nullx" at column 41 is not a JSON value`},
		{"skipped [1,,2]", "{" + ok + `,"x":[1,,2]}`, cols, batch.ErrSyntax, `missing value at column 44`},
		{"skipped [1,2,]", "{" + ok + `,"x":[1,2,]}`, cols, batch.ErrSyntax, `missing value at column 46`},
		{"skipped [01]", "{" + ok + `,"x":[01]}`, cols, batch.ErrSyntax, `"01" at column 42 is not a JSON value`},
		{"skipped object without a colon", "{" + ok + `,"x":{"a" 1}}`, cols, batch.ErrSyntax, `expected ':' at column 46`},
		{"skipped object with a bare key", "{" + ok + `,"x":{a:1}}`, cols, batch.ErrSyntax, `expected a quoted key at column 42`},
		{"skipped object with a trailing comma", "{" + ok + `,"x":{"a":1,}}`, cols, batch.ErrSyntax, `expected a quoted key at column 48`},
		{"skipped array closed by a brace", "{" + ok + `,"x":[1}}`, cols, batch.ErrSyntax, `expected ',' or ']' at column 43`},
		{"skipped object closed by a bracket", "{" + ok + `,"x":{"a":1]}`, cols, batch.ErrSyntax, `expected ',' or '}' at column 47`},
		{"skipped array left open", "{" + ok + `,"x":[[1]`, cols, batch.ErrSyntax, `expected ',' or ']' at column 45`},
		{"skipped pair in an array", "{" + ok + `,"x":["a":1]}`, cols, batch.ErrSyntax, `expected ',' or ']' at column 45`},
		{"trailing comma in the line's object", "{" + ok + `,}`, cols, batch.ErrSyntax, `expected a quoted key at column 37`},
		{"form feed as white space", "{\f" + ok + "}", cols, batch.ErrSyntax, `expected a quoted key at column 2`},
		{"vertical tab before the object", "\v{" + ok + "}", cols, batch.ErrSyntax, `expected a JSON object`},
		// half a surrogate pair, read or skipped: encoding/json reads every
		// one as U+FFFD, so "\ud800" and "\udbff" would be one query id
		{"a lone high surrogate in a query id", `{"query_id":"a\ud800","score":1,"label":1}`, cols, batch.ErrSyntax, `"\\ud800" at column 15 is half of a UTF-16 surrogate pair, no character`},
		{"a lone low surrogate in a query id", `{"query_id":"a\udfff","score":1,"label":1}`, cols, batch.ErrSyntax, `"\\udfff" at column 15 is half of a UTF-16 surrogate pair`},
		{"two high surrogates", `{"query_id":"\ud800\udbff","score":1,"label":1}`, cols, batch.ErrSyntax, `"\\ud800" at column 14 is half`},
		{"a high surrogate before a character", `{"query_id":"\ud800\u0041","score":1,"label":1}`, cols, batch.ErrSyntax, `"\\ud800" at column 14 is half`},
		{"a lone surrogate skipped", "{" + ok + `,"x":["\udc00"]}`, cols, batch.ErrSyntax, `"\\udc00" at column 43 is half`},
		{"a lone surrogate in a key", "{" + ok + `,"\ud800":1}`, cols, batch.ErrSyntax, `"\\ud800" at column 38 is half`},
		// a column's key twice
		{"score twice", `{"query_id":"q","score":1,"score":2,"label":1}`, cols, batch.ErrColumn, `t.jsonl:1: "score" (the score column) appears twice in the line: missing or unusable column`},
		{"query id twice, once escaped", `{"query_id":"q","score":1,"query\u005fid":"r","label":1}`, cols, batch.ErrColumn, `"query_id" (the query column) appears twice in the line`},
		{"label twice, booleans", `{"query_id":"q","label":true,"score":1,"label":false}`, cols, batch.ErrColumn, `"label" (the label column) appears twice in the line`},
		{"doc id twice", `{"query_id":1,"doc_id":1,"rank":1,"label":1,"m":"a","s2":1,"doc_id":2}`, all, batch.ErrColumn, `"doc_id" (the doc column) appears twice`},
		{"rank twice", `{"query_id":1,"doc_id":1,"rank":1,"label":1,"m":"a","s2":1,"rank":2}`, all, batch.ErrColumn, `"rank" (the rank column) appears twice`},
		{"slice column twice", `{"query_id":1,"doc_id":1,"rank":1,"label":1,"m":"a","s2":1,"m":"b"}`, all, batch.ErrColumn, `"m" (a slice column) appears twice`},
		{"score column twice", `{"query_id":1,"doc_id":1,"rank":1,"label":1,"s2":1,"m":"a","s2":1}`, all, batch.ErrColumn, `"s2" (a score column) appears twice`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readertest.ParseString(t, tc.in+"\n", tc.cols, 8)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if !strings.HasPrefix(err.Error(), "t.jsonl:1: ") || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %q, want it to contain %q", err, tc.msg)
			}
		})
	}
}

// TestJSONLLongIntegerIDs: a query or doc id is "a JSON string or
// integer" (README), and an integer of 20 digits or more is still one:
// ids hashed to uint64 (up to 18446744073709551615) are common in click
// logs. They were refused with "must be a string or an integer, found
// "12345678901234567890"", while 19 digits, beyond int64 too, were read.
// Like every integer id, each is read as its text.
func TestJSONLLongIntegerIDs(t *testing.T) {
	for _, tc := range []struct{ name, id string }{
		{"19 digits, beyond int64", "9999999999999999999"},
		{"20 digits, uint64 max", "18446744073709551615"},
		{"20 digits", "12345678901234567890"},
		{"negative, 20 digits", "-12345678901234567890"},
		{"40 digits", "1234567890123456789012345678901234567890"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			line := `{"query_id":` + tc.id + `,"doc_id":` + tc.id + `,"score":0.5,"label":1}` + "\n"
			rows, err := readertest.ParseString(t, line, readertest.TestCols, 8)
			if err != nil {
				t.Fatalf("a JSON integer id refused: %v", err)
			}
			if len(rows) != 1 || rows[0].Q != tc.id || rows[0].D != tc.id {
				t.Fatalf("rows %+v, want one with query and doc id %s", rows, tc.id)
			}
		})
	}
}
