package jsonl_test

import (
	"bytes"
	"errors"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/jsonl"
	"github.com/rankeval/rankeval/reader/internal/readertest"
)

func TestJSONLValues(t *testing.T) {
	tests := []struct {
		name string
		in   string
		cols batch.Columns
		want []readertest.RowOut
	}{
		{"basic", `{"query_id":"q1","doc_id":"d1","score":0.5,"label":2}` + "\n",
			readertest.TestCols, []readertest.RowOut{{Q: "q1", D: "d1", Score: 0.5, Label: 2, Rank: 0, Pos: 1}}},
		{"integer ids, bool labels, spaces, CRLF, blank lines, extra fields",
			"\n { \"label\" : true , \"x\": {\"a\":[1,\"}\"]}, \"query_id\": 17, \"doc_id\": -3, \"score\": -1e-3 }\r\n\n" +
				`{"query_id":17,"doc_id":4,"score":3,"label":false,"y":null}`,
			readertest.TestCols, []readertest.RowOut{{Q: "17", D: "-3", Score: -0.001, Label: 1, Rank: 0, Pos: 2}, {Q: "17", D: "4", Score: 3, Label: 0, Rank: 0, Pos: 4}}},
		{"escapes", `{"query_id":"a\"b\\c\u00e9\ud83d\ude00","doc_id":"\n","score":1,"label":0.25}`,
			readertest.TestCols, []readertest.RowOut{{Q: "a\"b\\cé😀", D: "\n", Score: 1, Label: 0.25, Rank: 0, Pos: 1}}},
		{"escaped key matches", `{"query\u005fid":"q","doc_id":"d","score":1,"label":1}`,
			readertest.TestCols, []readertest.RowOut{{Q: "q", D: "d", Score: 1, Label: 1, Rank: 0, Pos: 1}}},
		{"rank instead of score", `{"qid":"q","rank":3,"rel":1}`,
			batch.Columns{Query: "qid", Rank: "rank", Label: "rel"}, []readertest.RowOut{{Q: "q", D: "", Score: 0, Label: 1, Rank: 3, Pos: 1}}},
		{"a key not read may repeat", `{"query_id":"q","x":1,"score":2,"x":[],"label":1}`,
			batch.Columns{Query: "query_id", Score: "score", Label: "label"}, []readertest.RowOut{{Q: "q", D: "", Score: 2, Label: 1, Rank: 0, Pos: 1}}},
		{"out of range reaches validation as Inf", `{"query_id":"q","score":-1e999,"label":1}`,
			batch.Columns{Query: "query_id", Score: "score", Label: "label"}, []readertest.RowOut{{Q: "q", D: "", Score: math.Inf(-1), Label: 1, Rank: 0, Pos: 1}}},
		{"every JSON number form, literal and escape", "{\"query_id\":-0,\"score\":-0.5E+2,\"label\":1e0,\"a\":[0,-0.0,1E-2,2e+0,true,false,null,{}]," +
			"\"t\":\"\\ud800\\udc00 \\ud83d\\ude00\\/\\b\\f\\n\\r\\t caf\u00e9 \U0001F600\",\"e\":{ \"k\" :\t[ ] }}",
			batch.Columns{Query: "query_id", Score: "score", Label: "label"}, []readertest.RowOut{{Q: "-0", D: "", Score: -50, Label: 1, Rank: 0, Pos: 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, bs := range []int{1, 2, 100} {
				got, err := readertest.ParseString(t, tc.in, tc.cols, bs)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(tc.want) {
					t.Fatalf("batch %d: got %d rows %+v, want %+v", bs, len(got), got, tc.want)
				}
				for i := range got {
					g, w := got[i], tc.want[i]
					sameScore := g.Score == w.Score || math.IsNaN(g.Score) && math.IsNaN(w.Score)
					if g.Q != w.Q || g.D != w.D || !sameScore || g.Label != w.Label || g.Rank != w.Rank || g.Pos != w.Pos {
						t.Fatalf("batch %d row %d: got %+v, want %+v", bs, i, g, w)
					}
				}
			}
		})
	}
}

func TestJSONLErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want error
		msg  string
	}{
		{"not an object", "[1,2]\n", batch.ErrSyntax, "t.jsonl:1: expected a JSON object"},
		{"truncated object", `{"query_id":"q","score":1,"label":1` + "\n", batch.ErrSyntax, "t.jsonl:1:"},
		{"unterminated string", `{"query_id":"q` + "\n", batch.ErrSyntax, "t.jsonl:1: unterminated string"},
		{"missing score", `{"query_id":"q","label":1}`, batch.ErrColumn, `t.jsonl:1: no "score" field`},
		{"missing label on line 3", "{\"query_id\":\"q\",\"score\":1,\"label\":1}\n\n{\"query_id\":\"q\",\"score\":1}\n", batch.ErrColumn, `t.jsonl:3: no "label" field`},
		{"string score", `{"query_id":"q","score":"0.5","label":1}`, batch.ErrValue, `t.jsonl:1: "score" (the score column) is the string "0.5"; write numbers without quotes, or convert the column: bad value`},
		{"null label", `{"query_id":"q","score":1,"label":null}`, batch.ErrValue, `must be a number or a boolean, found "null`},
		{"float query id", `{"query_id":1.5,"score":1,"label":1}`, batch.ErrValue, "must be a string or an integer"},
		{"object query id", `{"query_id":{},"score":1,"label":1}`, batch.ErrValue, "must be a string or an integer"},
		{"trailing garbage", `{"query_id":"q","score":1,"label":1} x`, batch.ErrSyntax, "after the object"},
		{"bad escape", `{"query_id":"\x","score":1,"label":1}`, batch.ErrSyntax, "bad escape"},
		{"hex float", `{"query_id":"q","score":0x10,"label":1}`, batch.ErrValue, "must be a number"},
	}
	cols := batch.Columns{Query: "query_id", Score: "score", Label: "label"}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readertest.ParseString(t, tc.in, cols, 8)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %q, want it to contain %q", err, tc.msg)
			}
		})
	}
}

func TestJSONLLongLine(t *testing.T) {
	long := `{"query_id":"q","pad":"` + strings.Repeat("x", 3<<20) + `","score":1,"label":1}` + "\n"
	got, err := readertest.ParseString(t, long+long, batch.Columns{Query: "query_id", Score: "score", Label: "label"}, 10)
	if err != nil || len(got) != 2 {
		t.Fatalf("rows %d err %v", len(got), err)
	}
}

// FuzzJSONL feeds arbitrary bytes through the reader: it must never panic,
// and every row it accepts must carry the configured fields.
func FuzzJSONL(f *testing.F) {
	f.Add([]byte(`{"query_id":"q1","doc_id":"d1","score":0.5,"label":2}` + "\n"))
	f.Add([]byte(`{"query_id":17,"doc_id":"\u00e9","score":-1e300,"label":true,"x":[{"y":"}"}]}`))
	f.Add([]byte("{}\n\n{\"query_id\":\"\\ud800\",\"score\":NaN,\"label\":1}"))
	// a byte order mark; numbers and booleans as strings; ranks as floats,
	// 0-based, fractional, huge; lines lacking fields, whose keys a message
	// lists
	f.Add([]byte("\xef\xbb\xbf{\"query_id\":\"q\",\"doc_id\":\"d\",\"score\":1,\"label\":1,\"rank\":0,\"m\":\"x\",\"s2\":1}\n"))
	f.Add([]byte(`{"query_id":"q","score":" 0.5 ","label":"true","rank":"3","s2":"\u0031"}`))
	f.Add([]byte(`{"query_id":"q","label":1,"rank":1.0,"m":1,"s2":2}` + "\n" + `{"query_id":"q","label":1,"rank":2e0,"m":true,"s2":2}` + "\n" + `{"query_id":"q","label":1,"rank":1.5}`))
	f.Add([]byte(`{"query_id":"q","label":1,"rank":1e300,"m":"x","s2":0}` + "\n" + `{"query_id":"q","label":1,"rank":-0.0,"m":"x","s2":0}`))
	f.Add([]byte(`{"a\u00e9":{"in":[1,{"x":"}"}]},"b":[],"a\u00e9":3,"c":"x"}`))
	f.Add([]byte(`{"query_id":"q","score":"","label":"relevant"}`))
	rankCols := batch.Columns{Query: "query_id", Rank: "rank", Label: "label", Extra: []string{"m"}, ExtraScore: []string{"s2"}}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, cols := range []batch.Columns{readertest.TestCols, rankCols} {
			for _, bs := range []int{1, 3} {
				j := jsonl.New("fuzz", bytes.NewReader(data), io.NopCloser(nil), cols, batch.Options{BatchSize: bs})
				for j.Next() {
					b := j.Batch()
					if len(b.Label) != b.N || len(b.Pos) != b.N || len(b.Query.Off) != b.N+1 || len(b.Doc.Off) != b.N+1 && cols.Doc != "" {
						t.Fatalf("inconsistent batch: %+v", b)
					}
					if cols.Score != "" && len(b.Score) != b.N || cols.Rank != "" && len(b.Rank) != b.N {
						t.Fatalf("inconsistent batch: %+v", b)
					}
					if len(b.Extra) != len(cols.Extra) || len(b.ExtraScore) != len(cols.ExtraScore) {
						t.Fatalf("inconsistent batch: %+v", b)
					}
				}
				if err := j.Err(); err != nil && !strings.HasPrefix(err.Error(), "fuzz:") {
					t.Fatalf("error without position: %v", err)
				}
			}
		}
	})
}

// TestJSONLAbsentUnderMissingPolicy: under --missing-score or
// --missing-label a field left out of a line (as writers that omit nulls
// do) is still an error, and its message says the policy reads a null,
// not a field left out, instead of only suggesting to rename the column.
func TestJSONLAbsentUnderMissingPolicy(t *testing.T) {
	tests := []struct {
		name, in, msg string
		cols          batch.Columns
	}{
		{"score", "{\"query_id\":\"q\",\"score\":1,\"label\":1}\n{\"query_id\":\"q\",\"label\":1}\n",
			`t.jsonl:2: no "score" field (the score column); the line has fields "query_id", "label"; --missing-score reads a null value, not a field left out`,
			batch.Columns{Query: "query_id", Score: "score", Label: "label", MissingScore: true}},
		{"label", `{"query_id":"q","score":1}`,
			`--missing-label reads a null value, not a field left out: write the field as null, or name the label column with --label-col`,
			batch.Columns{Query: "query_id", Score: "score", Label: "label", MissingLabel: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readertest.ParseString(t, tc.in, tc.cols, 8)
			if !errors.Is(err, batch.ErrColumn) {
				t.Fatalf("err = %v, want %v", err, batch.ErrColumn)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %q, want it to contain %q", err, tc.msg)
			}
		})
	}
}
