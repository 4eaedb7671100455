package reader

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/reader/internal/readertest"
	"github.com/rankeval/rankeval/reader/trec"
)

// TestParseError: bad input at a line of every text format is a
// *ParseError naming the input, the line and (for CSV's quotes) the
// column, whose message is the one the commands print and which wraps the
// sentinel error.
func TestParseError(t *testing.T) {
	dir := t.TempDir()
	head := "query_id,doc_id,score,label\n"
	tests := []struct {
		name, file, data string
		kind             error
		line             int64
		column           int
		msg              string
	}{
		{"jsonl value", "log.jsonl", `{"query_id":"q","doc_id":"d","score":"x","label":1}` + "\n",
			ErrValue, 1, 0, `"score" (the score column) must be a number, found the string "x"`},
		{"csv quote", "log.csv", head + "q,d,1,1\na,b\"c,1,1\n",
			ErrSyntax, 3, 4, "column 4: a quote inside a field that does not start with one"},
		{"csv width", "log2.csv", head + "q,d,1\n",
			ErrSyntax, 2, 0, "3 fields, but the header has 4"},
		{"compressed", "log.jsonl.gz", string(readertest.GzipBytes([]byte(`{"query_id":"q","doc_id":"d","score":1,"label":1}` + "\n"))[:30]),
			ErrCompression, 1, 0, "input ends in the middle of a compressed stream"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := readertest.WriteFileIn(t, dir, tc.file, []byte(tc.data))
			r, err := Open(p, readertest.TestCols, Options{})
			if err == nil {
				_, err = readertest.ReadAllRows(t, r)
				r.Close()
			}
			checkParseError(t, err, p, tc.line, tc.column, tc.kind, tc.msg)
		})
	}
	t.Run("trec run", func(t *testing.T) {
		qp := readertest.WriteFileIn(t, dir, "qrels", []byte("1 0 d 1\n"))
		rp := readertest.WriteFileIn(t, dir, "run", []byte("1 Q0 d 1 0.5 sys\n1 Q0 e 2 x sys\n"))
		q, err := trec.ReadQrels(qp)
		if err != nil {
			t.Fatal(err)
		}
		r, err := trec.OpenRun(rp, q, trec.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		_, err = readertest.ReadAllRows(t, r)
		checkParseError(t, err, rp, 2, 0, ErrValue, `score "x" is not a number`)
	})
}

func checkParseError(t *testing.T, err error, input string, line int64, column int, kind error, msg string) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) || !errors.Is(err, kind) {
		t.Fatalf("err = %v (%T), want a *ParseError wrapping %v", err, err, kind)
	}
	if pe.Input != input || pe.Line != line || pe.Column != column {
		t.Fatalf("ParseError{%q, %d, %d}, want {%q, %d, %d}", pe.Input, pe.Line, pe.Column, input, line, column)
	}
	want := input + ":" + strconv.FormatInt(line, 10) + ": " + msg
	if got := err.Error(); !strings.HasPrefix(got, want) {
		t.Fatalf("err = %q, want it to start %q", got, want)
	}
}
