package reader

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/jsonl"
	"github.com/rankeval/rankeval/reader/internal/readertest"
)

// parseNamed reads s as the JSONL input name.
func parseNamed(t *testing.T, name, s string, cols batch.Columns) ([]readertest.RowOut, error) {
	t.Helper()
	j := jsonl.New(name, strings.NewReader(s), io.NopCloser(nil), cols, batch.Options{BatchSize: 4})
	defer j.Close()
	return readertest.ReadAllRows(t, j)
}

// TestJSONLMissingFieldMessages: a line without a column names the line's
// fields and the flag that names the column.
func TestJSONLMissingFieldMessages(t *testing.T) {
	full := batch.Columns{Query: "query_id", Doc: "doc_id", Score: "score", Label: "label", Rank: "rank",
		Extra: []string{"market"}, ExtraScore: []string{"score_b"}}
	line := func(drop string) string {
		var fs []string
		for _, f := range []string{`"query_id":"q"`, `"doc_id":"d"`, `"score":1`, `"label":0`, `"rank":1`, `"market":"de"`, `"score_b":2`} {
			if !strings.HasPrefix(f, `"`+drop+`"`) {
				fs = append(fs, f)
			}
		}
		return "{" + strings.Join(fs, ",") + "}"
	}
	all := `"query_id", "doc_id", "score", "label", "rank", "market", "score_b"`
	without := func(drop string) string {
		return strings.Replace(strings.Replace(all, `"`+drop+`", `, "", 1), `, "`+drop+`"`, "", 1)
	}
	cases := []struct {
		name, in string
		cols     batch.Columns
		want     string
	}{
		{"the issue's example", `{"search_id":"s1","doc":"d9","clicked":1}`, batch.Columns{Query: "query_id", Score: "score", Label: "clicked"},
			`clicks.jsonl:1: no "query_id" field (the query column); the line has fields "search_id", "doc", "clicked"; name the query column with --query-col: missing or unusable column`},
		{"query", line("query_id"), full, `clicks.jsonl:1: no "query_id" field (the query column); the line has fields ` + without("query_id") + `; name the query column with --query-col`},
		{"doc when required", line("doc_id"), full, `clicks.jsonl:1: no "doc_id" field (the doc column); the line has fields ` + without("doc_id") + `; name the doc column with --doc-col`},
		{"score", line("score"), full, `clicks.jsonl:1: no "score" field (the score column); the line has fields ` + without("score") + `; name the score column with --score-col`},
		{"label", line("label"), full, `clicks.jsonl:1: no "label" field (the label column); the line has fields ` + without("label") + `; name the label column with --label-col`},
		{"rank", line("rank"), full, `clicks.jsonl:1: no "rank" field (the rank column); the line has fields ` + without("rank") + `; name the rank column with --rank-col`},
		{"slice column", line("market"), full, `clicks.jsonl:1: no "market" field (a slice column); the line has fields ` + without("market") + `; name a slice column with --by`},
		{"further score column", line("score_b"), full, `clicks.jsonl:1: no "score_b" field (a score column); the line has fields ` + without("score_b") + `; name a score column with --score-col`},
		{"on line 3, after a good line and a blank one", "{\"query_id\":\"q\",\"score\":1,\"label\":0}\n\n{\"query_id\":\"q\",\"score\":1,\"grade\":2}\n",
			batch.Columns{Query: "query_id", Score: "score", Label: "label"},
			`clicks.jsonl:3: no "label" field (the label column); the line has fields "query_id", "score", "grade"; name the label column with --label-col`},
		{"no fields", "{}", batch.Columns{Query: "query_id", Score: "score", Label: "label"},
			`clicks.jsonl:1: no "query_id" field (the query column); the line has no fields; name the query column with --query-col`},
		{"keys unescaped, repeated keys once, nested keys not listed", `{"a\u00e9":{"inner":1},"b":[{"deep":2}],"a\u00e9":3, "c" : "x"}`, batch.Columns{Query: "query_id", Score: "score", Label: "label"},
			`the line has fields "aé", "b", "c";`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseNamed(t, "clicks.jsonl", c.in, c.cols)
			if !errors.Is(err, batch.ErrColumn) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v\nwant it to contain %s", err, c.want)
			}
		})
	}
	t.Run("many fields", func(t *testing.T) {
		var fs []string
		for i := range 25 {
			fs = append(fs, fmt.Sprintf(`"f%d":%d`, i, i))
		}
		_, err := parseNamed(t, "clicks.jsonl", "{"+strings.Join(fs, ",")+"}", batch.Columns{Query: "query_id", Score: "score", Label: "label"})
		if err == nil || !strings.Contains(err.Error(), `"f18", "f19" and 5 more; name the query column`) {
			t.Fatalf("err = %v", err)
		}
	})
}

// TestJSONLStringNumbers: a number (or a boolean label) written as a JSON
// string says so and gives the remedy, quoting the value only.
func TestJSONLStringNumbers(t *testing.T) {
	cols := batch.Columns{Query: "query_id", Doc: "doc_id", Score: "score", Label: "label"}
	tail := `,"doc_id":"a-long-document-id-that-must-not-be-quoted"}`
	cases := []struct {
		name, in, want string
	}{
		{"label", `{"query_id":"q","score":1,"label":"1"` + tail, `t.jsonl:1: "label" (the label column) is the string "1"; write numbers without quotes, or convert the column: bad value`},
		{"score", `{"query_id":"q","score":"0.5","label":1` + tail, `t.jsonl:1: "score" (the score column) is the string "0.5"; write numbers without quotes, or convert the column: bad value`},
		{"score with spaces and an exponent", `{"query_id":"q","score":" -1e-3 ","label":1` + tail, `"score" (the score column) is the string " -1e-3 "; write numbers without quotes`},
		{"escaped digits", `{"query_id":"q","score":1,"label":"\u0032"` + tail, `"label" (the label column) is the string "2"; write numbers`},
		{"boolean label", `{"query_id":"q","score":1,"label":"true"` + tail, `t.jsonl:1: "label" (the label column) is the string "true"; write booleans without quotes, or convert the column: bad value`},
		{"boolean score", `{"query_id":"q","score":"true","label":1` + tail, `"score" (the score column) must be a number, found the string "true": bad value`},
		{"word label", `{"query_id":"q","score":1,"label":"relevant"` + tail, `t.jsonl:1: "label" (the label column) must be a number or a boolean, found the string "relevant": bad value`},
		{"empty string", `{"query_id":"q","score":"","label":1` + tail, `"score" (the score column) must be a number, found the string "": bad value`},
		{"long string", `{"query_id":"q","score":"` + strings.Repeat("x", 100) + `","label":1` + tail, `found the string "xxxxxxxxxxxxxxxxxxxxxxxx"...: bad value`},
		{"null names --missing-label", `{"query_id":"q","score":1,"label":null` + tail, `t.jsonl:1: "label" (the label column) must be a number or a boolean, found "null"; to count such rows as not relevant or leave them out, use --missing-label zero or drop: bad value`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseNamed(t, "t.jsonl", "\n"[:0]+c.in, cols)
			if !errors.Is(err, batch.ErrValue) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v\nwant it to contain %s", err, c.want)
			}
			if strings.Contains(err.Error(), "a-long-document") {
				t.Errorf("message quotes the rest of the line: %v", err)
			}
		})
	}
	t.Run("rank", func(t *testing.T) {
		_, err := parseNamed(t, "t.jsonl", `{"query_id":"q","pos":"3","label":1}`, batch.Columns{Query: "query_id", Rank: "pos", Label: "label"})
		if want := `t.jsonl:1: "pos" (the rank column) is the string "3"; write numbers without quotes, or convert the column: bad value`; err == nil || err.Error() != want {
			t.Fatalf("err = %v, want %s", err, want)
		}
	})
}

// TestRanks: a rank column takes any integers, 0-based or not, and floats
// that are whole numbers; only a fraction or a non-number is an error
// naming the line or row.
func TestRanks(t *testing.T) {
	cols := batch.Columns{Query: "q", Rank: "rank", Label: "l"}
	in := `{"q":"a","rank":0,"l":1}` + "\n" + `{"q":"a","rank":1.0,"l":0}` + "\n" + `{"q":"a","rank":2e0,"l":0}` + "\n" +
		`{"q":"b","rank":-3,"l":0}` + "\n" + `{"q":"b","rank":1E2,"l":0}` + "\n" + `{"q":"b","rank":-0.0,"l":0}` + "\n" +
		`{"q":"b","rank":9007199254740992.0,"l":0}` + "\n" + `{"q":"b","rank":9223372036854775807,"l":0}` + "\n"
	want := []int64{0, 1, 2, -3, 100, 0, 1 << 53, 1<<63 - 1}
	for _, bs := range []int{1, 3, 100} {
		j := jsonl.New("t.jsonl", strings.NewReader(in), io.NopCloser(nil), cols, batch.Options{BatchSize: bs})
		rows, err := readertest.ReadAllRows(t, j)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != len(want) {
			t.Fatalf("%d rows", len(rows))
		}
		for i, r := range rows {
			if r.Rank != want[i] {
				t.Errorf("row %d: rank %d, want %d", i, r.Rank, want[i])
			}
		}
	}
	for _, c := range []struct{ name, v, want string }{
		{"fraction", "1.5", `t.jsonl:2: "rank" (the rank column) must be a whole number, found "1.5": bad value`},
		{"word", "first", `t.jsonl:2: "rank" (the rank column) must be a whole number, found "first": bad value`},
		{"boolean", "true", `t.jsonl:2: "rank" (the rank column) must be a whole number, found "true": bad value`},
		{"null", "null", `t.jsonl:2: "rank" (the rank column) must be a whole number, found "null": bad value`},
		{"NaN", "NaN", `t.jsonl:2: "rank" (the rank column) must be a whole number, found "NaN" (JSON has no NaN or Infinity): bad value`},
		{"too large", "1e300", `t.jsonl:2: rank 1e300 out of range: bad value`},
		{"too large integer", "9223372036854775808", `t.jsonl:2: rank 9223372036854775808 out of range: bad value`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseNamed(t, "t.jsonl", `{"q":"a","rank":1,"l":1}`+"\n"+`{"q":"a","rank":`+c.v+`,"l":1}`, cols)
			if !errors.Is(err, batch.ErrValue) || err.Error() != c.want {
				t.Fatalf("err = %v, want %s", err, c.want)
			}
		})
	}
}

// TestColumnarRanks: Parquet and Arrow rank columns of floats are read when
// they hold whole numbers, 0-based ranks too; a fraction is an error naming
// the row.
func TestColumnarRanks(t *testing.T) {
	checkedMem(t)
	rec := readertest.RankRecord(memory.DefaultAllocator)
	defer rec.Release()
	dir := t.TempDir()
	for _, n := range []string{"r.parquet", "r.arrow", "r.arrows"} {
		name := filepath.Join(dir, n)
		readertest.WriteRecord(t, name, rec, 4)
		for col, want := range map[string][]int64{"r_f64": {0, 1, 2, 0, 1, 2}, "r_f32": {-1, 0, 1, -1, 0, 1}, "r_i64": {0, 1, 2, 0, 1, 2}} {
			t.Run(n+"/"+col, func(t *testing.T) {
				rows, err := readAll(t, name, batch.Columns{Query: "q", Label: "l", Rank: col}, batch.Options{BatchSize: 2})
				if err != nil {
					t.Fatal(err)
				}
				if len(rows) != len(want) {
					t.Fatalf("%d rows", len(rows))
				}
				for i, r := range rows {
					if r.rank != want[i] {
						t.Errorf("row %d: rank %d, want %d", i, r.rank, want[i])
					}
				}
			})
		}
		t.Run(n+"/fraction", func(t *testing.T) {
			_, err := readAll(t, name, batch.Columns{Query: "q", Label: "l", Rank: "r_frac"}, batch.Options{BatchSize: 2})
			where := "record batch 1, row 1"
			if strings.HasSuffix(n, ".parquet") {
				where = "row group 1, row 1 (row 5 of the file)"
			}
			if want := name + ": " + where + `: "r_frac" (the rank column) must be a whole number, found 2.5: bad value`; err == nil || err.Error() != want {
				t.Fatalf("err = %v\nwant %s", err, want)
			}
		})
	}
}

// TestColumnarMissingColumn: as for JSON lines, a missing column names the
// file's columns and the flag.
func TestColumnarMissingColumn(t *testing.T) {
	checkedMem(t)
	rec := readertest.RankRecord(memory.DefaultAllocator)
	defer rec.Release()
	dir := t.TempDir()
	for _, n := range []string{"m.parquet", "m.arrow", "m.arrows"} {
		name := filepath.Join(dir, n)
		readertest.WriteRecord(t, name, rec, 4)
		_, err := readAll(t, name, batch.Columns{Query: "query_id", Label: "l", Rank: "r_i64"}, batch.Options{})
		want := name + `: no column "query_id" (the query column); the file has "q", "l", "r_f64", "r_f32", "r_i64", "r_frac"; name the query column with --query-col: missing or unusable column`
		if err == nil || err.Error() != want {
			t.Errorf("err = %v\nwant %s", err, want)
		}
	}
}

// TestNamedForTwoRoles: a column named for two roles names both.
func TestNamedForTwoRoles(t *testing.T) {
	for _, c := range []struct {
		cols batch.Columns
		want string
	}{
		{batch.Columns{Query: "query_id", Doc: "doc_id", Score: "score", Label: "doc_id"}, `column "doc_id" is named for two roles: the doc column and the label column: missing or unusable column`},
		{batch.Columns{Query: "q", Score: "s", Label: "l", Rank: "q"}, `column "q" is named for two roles: the query column and the rank column`},
		{batch.Columns{Query: "q", Score: "s", Label: "l", Extra: []string{"l"}}, `column "l" is named for two roles: the label column and a slice column`},
		{batch.Columns{Query: "q", Score: "s", Label: "l", ExtraScore: []string{"s"}}, `column "s" is named for two roles: the score column and a score column`},
		{batch.Columns{Query: "q", Score: "s", Label: "l", Extra: []string{"m", "m"}}, `column "m" is named twice, for a slice column`},
	} {
		err := c.cols.Check()
		if !errors.Is(err, batch.ErrColumn) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err = %v, want %s", c.cols, err, c.want)
		}
		if _, err := Open("-", c.cols, batch.Options{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Open: err = %v", err)
		}
	}
}
