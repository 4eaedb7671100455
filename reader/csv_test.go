package reader

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/csv"
	"github.com/rankeval/rankeval/reader/internal/jsonl"
	"github.com/rankeval/rankeval/reader/internal/readertest"
)

// fullRow is every column of a row, for comparing readers.
type fullRow struct {
	q, d         string
	score, label uint64 // float bits
	rank         int64
	extra        string // the Extra columns' text, joined with |
	extraScore   string // the ExtraScore columns' bits
	pos          int64
}

func fullRows(r batch.Reader) ([]fullRow, error) {
	var out []fullRow
	for r.Next() {
		b := r.Batch()
		for i := range b.N {
			f := fullRow{q: string(b.Query.At(i)), label: math.Float64bits(b.Label[i]), pos: b.Pos[i]}
			if len(b.Doc.Off) > 1 {
				f.d = string(b.Doc.At(i))
			}
			if b.Score != nil && len(b.Score) > 0 {
				f.score = math.Float64bits(b.Score[i])
			}
			if b.Rank != nil {
				f.rank = b.Rank[i]
			}
			for c := range b.Extra {
				f.extra += string(b.Extra[c].At(i)) + "|"
			}
			for c := range b.ExtraScore {
				f.extraScore += strconv.FormatUint(math.Float64bits(b.ExtraScore[c][i]), 16) + "|"
			}
			out = append(out, f)
		}
	}
	return out, r.Err()
}

// logField is one field of a generated log: its JSON text and its text in
// a CSV or TSV field.
type logField struct{ name, json, text string }

// genFields makes rows of fields of every kind the readers type: ids as
// strings and integers, numbers in many spellings, booleans, a slice
// column and a second score, and columns no reader asks for, some holding
// separators and quotes.
func genFields(seed uint64, n int) [][]logField {
	rng := rand.New(rand.NewPCG(seed, 1))
	// 123456789012345680: 18 digits that a float64 holds exactly (a score it does not hold is refused: TestIntegerScores)
	nums := []string{"0", "1", "0.5", "-3.25", "1e-7", "2.5E3", "123456789012345680", "0.1000000000000000055511151231257827", "-0", "7"}
	// the columns after the first four in an order of their own
	order := rng.Perm(5)
	var rows [][]logField
	for i := range n {
		q := fmt.Sprintf("q%03d", i/7)
		qj := strconv.Quote(q)
		if i/7%3 == 1 {
			q = strconv.Itoa(1000 + i/7) // an integer query id
			qj = q
		}
		d := fmt.Sprintf("d%d", rng.IntN(50))
		label := strconv.Itoa(rng.IntN(4))
		labelJ := label
		switch rng.IntN(5) {
		case 0:
			label, labelJ = "true", "true"
		case 1:
			label, labelJ = "false", "false"
		case 2:
			label = nums[rng.IntN(4)]
			labelJ = label
		}
		score := nums[rng.IntN(len(nums))]
		market := []string{"us", "de", "x y", ""}[rng.IntN(4)]
		row := []logField{
			{"query_id", qj, q},
			{"doc_id", strconv.Quote(d), d},
			{"score", score, score},
			{"label", labelJ, label},
			{"rank", strconv.Itoa(i%7 + 1), strconv.Itoa(i%7 + 1)},
			{"market", strconv.Quote(market), market},
			{"score_b", nums[rng.IntN(len(nums))], ""},
			{"title", `"a title, \"quoted\""`, `a title, "quoted"`},
			{"ts", "1700000000", "1700000000"},
		}
		row[6].text = row[6].json
		moved := slices.Clone(row)
		for a, b := range order {
			moved[4+a] = row[4+b]
		}
		rows = append(rows, moved)
	}
	return rows
}

// jsonlOf writes rows as JSON lines after one blank line, so that row i
// is on line i+2 as in a CSV file with its header.
func jsonlOf(rows [][]logField) string {
	var s strings.Builder
	s.WriteString("\n")
	for _, r := range rows {
		s.WriteString("{")
		for i, f := range r {
			if i > 0 {
				s.WriteString(", ")
			}
			fmt.Fprintf(&s, "%q: %s", f.name, f.json)
		}
		s.WriteString("}\n")
	}
	return s.String()
}

// delimitedOf writes rows as CSV (sep ',', quoting as needed, or every
// field when quoteAll) or TSV (sep '\t', values as they are); eol ends
// each line.
func delimitedOf(rows [][]logField, sep byte, quoteAll bool, eol string) string {
	var s strings.Builder
	field := func(i int, v string) {
		if i > 0 {
			s.WriteByte(sep)
		}
		if sep == ',' && (quoteAll || strings.ContainsAny(v, ",\"\r\n")) {
			v = `"` + strings.ReplaceAll(v, `"`, `""`) + `"`
		}
		s.WriteString(v)
	}
	for i, f := range rows[0] {
		field(i, f.name)
	}
	s.WriteString(eol)
	for _, r := range rows {
		for i, f := range r {
			field(i, f.text)
		}
		s.WriteString(eol)
	}
	return s.String()
}

var allCols = batch.Columns{Query: "query_id", Doc: "doc_id", Score: "score", Label: "label", Rank: "rank",
	Extra: []string{"market"}, ExtraScore: []string{"score_b"}}

func readCSVString(t testing.TB, s string, d csv.Dialect, cols batch.Columns, bs int) ([]fullRow, error) {
	t.Helper()
	r := csv.New("t."+strings.ToLower(d.Name), d, strings.NewReader(s), io.NopCloser(nil), cols, batch.Options{BatchSize: bs})
	defer r.Close()
	return fullRows(r)
}

// TestCSVSameRowsAsJSONL: a log written as JSON lines, as CSV (quoted as
// needed, every field quoted, CRLF line ends) and as TSV gives the same
// rows, bit for bit, at the same positions, for every batch size and for
// a read buffer that cuts records everywhere.
func TestCSVSameRowsAsJSONL(t *testing.T) {
	rows := genFields(1, 500)
	for _, cols := range []batch.Columns{allCols, readertest.TestCols, {Query: "query_id", Label: "label", Rank: "rank", DocOptional: true}} {
		j := jsonl.New("t.jsonl", strings.NewReader(jsonlOf(rows)), io.NopCloser(nil), cols, batch.Options{})
		want, err := fullRows(j)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) != len(rows) {
			t.Fatalf("JSONL: %d rows", len(want))
		}
		for _, c := range []struct {
			name string
			d    csv.Dialect
			text string
		}{
			{"CSV", csv.DialectCSV, delimitedOf(rows, ',', false, "\n")},
			{"CSV quoted", csv.DialectCSV, delimitedOf(rows, ',', true, "\n")},
			{"CSV CRLF", csv.DialectCSV, "\xef\xbb\xbf" + delimitedOf(rows, ',', false, "\r\n")},
			{"TSV", csv.DialectTSV, delimitedOf(rows, '\t', false, "\n")},
			{"TSV CRLF", csv.DialectTSV, delimitedOf(rows, '\t', false, "\r\n")},
		} {
			for _, buf := range []int{1 << 20, 64, 7} {
				for _, bs := range []int{1, 7, 8192} {
					t.Run(fmt.Sprintf("%s/cols%d/buf%d/bs%d", c.name, len(cols.Extra), buf, bs), func(t *testing.T) {
						defer func(n int) { csv.BufSize = n }(csv.BufSize)
						csv.BufSize = buf
						got, err := readCSVString(t, c.text, c.d, cols, bs)
						if err != nil {
							t.Fatal(err)
						}
						if len(got) != len(want) {
							t.Fatalf("%d rows, want %d", len(got), len(want))
						}
						for i := range got {
							if got[i] != want[i] {
								t.Fatalf("row %d = %+v, want %+v", i, got[i], want[i])
							}
						}
					})
				}
			}
		}
	}
}

// TestCSVFields: quoting, blank lines, line ends and positions, read the
// way RFC 4180 (CSV) or the IANA type (TSV) says.
func TestCSVFields(t *testing.T) {
	cols := batch.Columns{Query: "q", Score: "s", Label: "l", Extra: []string{"x"}, DocOptional: true, Doc: "doc"}
	type row struct {
		q, x string
		pos  int64
	}
	tests := []struct {
		name string
		d    csv.Dialect
		in   string
		want []row
	}{
		{"quoted separators and newlines", csv.DialectCSV, "q,s,l,x\n\"a,b\",1,1,\"two\nlines\"\nc,1,1,\"\"\"x\"\"\"\n", []row{{"a,b", "two\nlines", 2}, {"c", `"x"`, 4}}},
		{"CRLF inside quotes reads as LF", csv.DialectCSV, "q,s,l,x\r\n\"a\r\nb\",1,1,x\r\n", []row{{"a\nb", "x", 2}}},
		{"blank lines skipped and counted", csv.DialectCSV, "\n\nq,s,l,x\n\n\r\na,1,1,y\n\n", []row{{"a", "y", 6}}},
		{"last record without newline", csv.DialectCSV, "q,s,l,x\na,1,1,y", []row{{"a", "y", 2}}},
		{"last record ends in CR", csv.DialectCSV, "q,s,l,x\na,1,1,\"y\"\r", []row{{"a", "y", 2}}},
		{"empty fields", csv.DialectCSV, "q,s,l,x\n,1,1,\n", []row{{"", "", 2}}},
		{"quoted header", csv.DialectCSV, "\"q\",\"s\",\"l\",\"x\"\na,1,1,b\n", []row{{"a", "b", 2}}},
		{"spaces kept", csv.DialectCSV, "q,s,l,x\n a ,1,1, b\n", []row{{" a ", " b", 2}}},
		{"bare CR kept", csv.DialectCSV, "q,s,l,x\na\rb,1,1,c\n", []row{{"a\rb", "c", 2}}},
		{"TSV quotes are text", csv.DialectTSV, "q\ts\tl\tx\n\"a\"\t1\t1\tsay \"hi\"\n", []row{{`"a"`, `say "hi"`, 2}}},
		{"TSV backslashes kept", csv.DialectTSV, "q\ts\tl\tx\na\\tb\t1\t1\tc\\nd\n", []row{{`a\tb`, `c\nd`, 2}}},
		{"TSV pandas index column", csv.DialectTSV, "\tq\ts\tl\tx\n0\ta\t1\t1\tb\n", []row{{"a", "b", 2}}},
		{"white space lines before the header", csv.DialectCSV, "  \n\t\nq,s,l,x\na,1,1,b\n", []row{{"a", "b", 4}}},
		{"header only", csv.DialectCSV, "q,s,l,x\n", nil},
		{"nothing", csv.DialectTSV, "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := csv.New("t", tc.d, strings.NewReader(tc.in), io.NopCloser(nil), cols, batch.Options{})
			var got []row
			for r.Next() {
				b := r.Batch()
				for i := range b.N {
					if len(b.Doc.At(i)) != 0 {
						t.Errorf("doc id %q, want empty (no doc column)", b.Doc.At(i))
					}
					got = append(got, row{string(b.Query.At(i)), string(b.Extra[0].At(i)), b.Pos[i]})
				}
			}
			if err := r.Err(); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestCSVTypes: the values each column accepts, as the JSONL reader's.
func TestCSVTypes(t *testing.T) {
	cols := batch.Columns{Query: "q", Score: "s", Label: "l", Rank: "r"}
	tests := []struct {
		in          string
		score, labl float64
		rank        int64
	}{
		{"a,0.5,1,1", 0.5, 1, 1},
		{`a,"0.5","2","3"`, 0.5, 2, 3}, // quotes frame, they do not type
		{"a,-1e3,true,2.0", -1000, 1, 2},
		{"a,1,False,1e2", 1, 0, 100},
		{"a,1,TRUE,-4", 1, 1, -4},
		{"a,NaN,0,0", math.NaN(), 0, 0}, // validation reports it, as for JSONL
		{"a,Infinity,0.25,9223372036854775807", math.Inf(1), 0.25, math.MaxInt64},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := readCSVString(t, "q,s,l,r\n"+tc.in+"\n", csv.DialectCSV, cols, 10)
			if err != nil {
				t.Fatal(err)
			}
			want := fullRow{q: "a", score: math.Float64bits(tc.score), label: math.Float64bits(tc.labl), rank: tc.rank, pos: 2}
			if len(got) != 1 || got[0] != want {
				t.Fatalf("got %+v, want %+v", got, want)
			}
		})
	}
}

// TestCSVErrors: every class of bad input is an error naming the file and
// line, wrapping the package's sentinel.
func TestCSVErrors(t *testing.T) {
	cols := batch.Columns{Query: "q", Doc: "d", Score: "s", Label: "l", Rank: "r", ExtraScore: []string{"s2"}, Extra: []string{"m"}}
	head := "q,d,s,l,r,s2,m\n"
	tests := []struct {
		name string
		d    csv.Dialect
		in   string
		kind error
		msg  string
	}{
		{"missing column", csv.DialectCSV, "q,d,score,l,r,s2,m\n", batch.ErrColumn,
			`t:1: no column "s" (the score column); the header has "q", "d", "score", "l", "r", "s2", "m"; name the score column with --score-col`},
		{"missing slice column after blank lines", csv.DialectCSV, "\n\nq,d,s,l,r,s2\n", batch.ErrColumn,
			`t:3: no column "m" (a slice column); the header has "q", "d", "s", "l", "r", "s2"; name a slice column with --by`},
		{"column twice", csv.DialectCSV, "q,d,s,l,r,s2,m,s\n", batch.ErrColumn, `t:1: the header names column "s" twice (fields 3 and 8)`},
		{"bad number", csv.DialectCSV, head + "a,b,1,1,1,1,x\na,b,x1,1,1,1,x\n", batch.ErrValue, `t:3: "s" (the score column) must be a number, found "x1"`},
		{"empty label", csv.DialectCSV, head + "a,b,1,,1,1,x\n", batch.ErrValue, `t:2: "l" (the label column) must be a number or a boolean, found an empty field`},
		{"bad second score", csv.DialectCSV, head + "a,b,1,1,1,yes,x\n", batch.ErrValue, `t:2: "s2" (a score column) must be a number, found "yes"`},
		{"fractional rank", csv.DialectCSV, head + "a,b,1,1,1.5,1,x\n", batch.ErrValue, `t:2: "r" (the rank column) must be a whole number, found "1.5"`},
		{"rank not a number", csv.DialectCSV, head + "a,b,1,1,first,1,x\n", batch.ErrValue, `t:2: "r" (the rank column) must be a whole number, found "first"`},
		{"rank out of range", csv.DialectCSV, head + "a,b,1,1,99999999999999999999,1,x\n", batch.ErrValue, `t:2: rank 99999999999999999999 out of range`},
		{"too few fields", csv.DialectCSV, head + "a,b,1,1,1,1\n", batch.ErrSyntax, `t:2: 6 fields, but the header has 7`},
		{"too many fields", csv.DialectCSV, head + "a,b,1,1,1,1,x,y\n", batch.ErrSyntax, `t:2: 8 fields, but the header has 7`},
		{"TSV tab in a value", csv.DialectTSV, "q\td\ts\tl\tr\ts2\tm\n" + "a\tb\t1\t1\t1\t1\tx\ty\n", batch.ErrSyntax, `t:2: 8 fields, but the header has 7 (a tab inside a value?`},
		{"unterminated quote", csv.DialectCSV, head + "a,b,1,1,1,1,x\na,b,1,1,1,1,\"x\nmore\n", batch.ErrSyntax, `t:3: the quote that opens a field at column 13 is never closed`},
		{"quote inside a field", csv.DialectCSV, head + "a,b\"c,1,1,1,1,x\n", batch.ErrSyntax, `t:2: column 4: a quote inside a field that does not start with one`},
		{"text after a closing quote", csv.DialectCSV, head + "\"a\nb\"c,b,1,1,1,1,x\n", batch.ErrSyntax, `t:3: column 3: "c" after the closing quote of a field`},
		{"quote error in a long file", csv.DialectCSV, head + "a,b\"c,1,1,1,1,x\n" + strings.Repeat("a,b,1,1,1,1,x\n", 20000), batch.ErrSyntax, `t:2: column 4: a quote inside`},
		{"quote error after a long field", csv.DialectCSV, head + "a,b,1,1,1,1,x\na,\"" + strings.Repeat("x\n", 40000) + "\"z,1,1,1,1,x\n" + strings.Repeat("a,b,1,1,1,1,x\n", 20000), batch.ErrSyntax, `t:40003: column 2: "z" after the closing quote`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defer func(n int) { csv.BufSize = n }(csv.BufSize)
			csv.BufSize = 4096
			r := csv.New("t", tc.d, strings.NewReader(tc.in), io.NopCloser(nil), cols, batch.Options{BatchSize: 1})
			_, err := fullRows(r)
			if !errors.Is(err, tc.kind) || !strings.HasPrefix(err.Error(), tc.msg) {
				t.Fatalf("err = %v\nwant %q (%v)", err, tc.msg, tc.kind)
			}
		})
	}
}

// TestCSVLongRecord: a record longer than the read buffer is read whole;
// past scan.MaxLine it is an error, not a read of the whole input.
func TestCSVLongRecord(t *testing.T) {
	defer func(n int) { csv.BufSize = n }(csv.BufSize)
	csv.BufSize = 16
	long := strings.Repeat("x", 1000)
	got, err := readCSVString(t, "query_id,doc_id,score,label\n\""+long+"\n"+long+"\",d,1,1\nq,d,1,0\n", csv.DialectCSV, readertest.TestCols, 10)
	if err != nil || len(got) != 2 || got[0].q != long+"\n"+long || got[1].pos != 4 {
		t.Fatalf("got %d rows, err %v", len(got), err)
	}
}

// TestCSVCut: cut ends a block after the last newline outside quotes.
func TestCSVCut(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"a,b\nc,d\ne", 8},
		{"a,b\nc,\"d\ne", 4},
		{"a,\"b\nc\"\nd", 8},
		{"a,\"b\"\"\nc\"\"\nd", 0},
		{"a,\"b\"\"\nc\"\nd", 10},
		{"\"x\n", 0},
		{"abc", 0},
		{"", 0},
	}
	for _, tc := range tests {
		if got := csv.DialectCSV.Cut([]byte(tc.in)); got != tc.want {
			t.Errorf("cut(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
	if got := csv.DialectTSV.Cut([]byte("a\"\tb\nc\"")); got != 5 {
		t.Errorf("TSV cut = %d, want 5 (no quoting)", got)
	}
}

// TestSniffDelimited: how a first line is classified.
func TestSniffDelimited(t *testing.T) {
	tests := []struct {
		line string
		want textKind
	}{
		{"query_id,doc_id,score,label", textCSV},
		{`"query id","doc",score`, textCSV},
		{",query_id,score,label", textCSV}, // pandas' index column
		{"query_id\tdoc_id\tscore\tlabel", textTSV},
		{"query id\tdoc id\tscore", textTSV},
		{"qid Q0 docno rank score run", textOther},
		{"q1 Q0 d1 1 0.5 run", textTREC},
		{"This export, made daily, holds clicks", textDelim},
		{"a,b\tc,d\te", textDelim},
		{"query_id,score", textOther},
		{"# README", textOther},
		{"query_id;doc_id;score;label", textSemicolon},
		{"\ufeffquery_id;\"doc;id\";score", textSemicolon},
		{"query_id|doc_id|score|label", textPipe},
		{"see the log; it is; Excel's", textOther},
		{"a;b|c;d", textOther},
		{"query_id;doc_id,score;label", textOther},
	}
	for _, tc := range tests {
		if k, _, _ := textStart([]byte(tc.line + "\n")); k != tc.want {
			t.Errorf("%q: kind %d, want %d", tc.line, k, tc.want)
		}
	}
}

// TestOpenCSV: Open tells CSV and TSV from their header, plain, gzip or
// zstd, and Options.Format names the format a first line cannot tell.
func TestOpenCSV(t *testing.T) {
	csv := []byte("query_id,doc_id,score,label\nq,d,0.5,1\n")
	tsv := []byte("query_id\tdoc_id\tscore\tlabel\nq\td\t0.5\t1\n")
	spaced := []byte("query_id, doc_id, score, label\nq, d,0.5,1\n")
	dir := t.TempDir()
	want := []readRow{{q: "q", d: "d", score: 0.5, label: 1, pos: 2}}
	for _, c := range []struct {
		name string
		data []byte
		f    batch.Format
	}{
		{"log.csv", csv, batch.FormatAuto},
		{"log.csv.gz", readertest.GzipBytes(csv), batch.FormatAuto},
		{"log.csv.zst", readertest.ZstdBytes(csv), batch.FormatAuto},
		{"log.tsv", tsv, batch.FormatAuto},
		{"log.tsv.zst", readertest.ZstdBytes(tsv), batch.FormatAuto},
		{"log.tsv.gz", readertest.GzipBytes(tsv), batch.FormatTSV},
		{"spaced.csv", spaced, batch.FormatCSV},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := readertest.WriteFileIn(t, dir, c.name, c.data)
			cols := readertest.TestCols
			if c.name == "spaced.csv" {
				cols = batch.Columns{Query: "query_id", Doc: " doc_id", Score: " score", Label: " label"}
				want := []readRow{{q: "q", d: " d", score: 0.5, label: 1, pos: 2}}
				got, err := readAll(t, p, cols, batch.Options{Format: c.f})
				if err != nil {
					t.Fatal(err)
				}
				sameRows(t, c.name, got, want)
				return
			}
			got, err := readAll(t, p, cols, batch.Options{Format: c.f})
			if err != nil {
				t.Fatal(err)
			}
			sameRows(t, c.name, got, want)
		})
	}
	t.Run("spaced header without a format", func(t *testing.T) {
		p := readertest.WriteFileIn(t, dir, "spaced2.csv", spaced)
		if _, err := Open(p, readertest.TestCols, batch.Options{}); !errors.Is(err, batch.ErrFormat) || !strings.Contains(err.Error(), "--input-format csv or tsv") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("JSON lines named as CSV", func(t *testing.T) {
		p := readertest.WriteFileIn(t, dir, "log.jsonl", []byte(`{"query_id":"q","doc_id":"d","score":1,"label":1}`+"\n"))
		_, err := readAll(t, p, readertest.TestCols, batch.Options{Format: batch.FormatCSV})
		if !errors.Is(err, batch.ErrSyntax) || !strings.HasPrefix(err.Error(), p+`:1: column 2: a quote inside a field`) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("truncated", func(t *testing.T) {
		z := readertest.GzipBytes(bytes.Repeat(csv[28:], 10000))
		p := readertest.WriteFileIn(t, dir, "cut.csv.gz", append(readertest.GzipBytes(csv[:28]), z[:len(z)/2]...))
		_, err := readAll(t, p, readertest.TestCols, batch.Options{})
		if !errors.Is(err, batch.ErrCompression) {
			t.Fatalf("err = %v", err)
		}
	})
}

// clickLog makes n rows shaped like a click log's (11 fields, about 230
// bytes as JSON), as JSON lines and as CSV, quoted only where needed or
// every field (quoteAll), or TSV.
func clickLog(n int, format string) []byte {
	var b bytes.Buffer
	sep := ","
	switch format {
	case "jsonl":
	case "tsv":
		sep = "\t"
		fallthrough
	default:
		fmt.Fprintf(&b, "ts%[1]squery_id%[1]smarket%[1]sdevice%[1]sdoc_id%[1]sposition%[1]stitle%[1]sscore%[1]sclicked%[1]sdwell_ms%[1]slabel\n", sep)
	}
	for i := range n {
		ts, q, m, dev, d := 1767225600+i/3, fmt.Sprintf("q%08d", i/20), []string{"en-US", "de-DE", "fr-FR"}[i/20%3], []string{"desktop", "mobile"}[i/40%2], fmt.Sprintf("doc-%07d", (i*7919)%1000003)
		pos, title, score := i%20+1, fmt.Sprintf("Result title number %d for a query", i%997), float64(i%977)/977-0.3
		clicked, dwell, label := i%7 == 0, (i*37)%60000, i%5
		switch format {
		case "jsonl":
			fmt.Fprintf(&b, `{"ts":%d,"query_id":"%s","market":"%s","device":"%s","doc_id":"%s","position":%d,"title":"%s","score":%.6f,"clicked":%t,"dwell_ms":%d,"label":%d}`+"\n",
				ts, q, m, dev, d, pos, title, score, clicked, dwell, label)
		case "csv-quoted":
			fmt.Fprintf(&b, `"%d","%s","%s","%s","%s","%d","%s","%.6f","%t","%d","%d"`+"\n", ts, q, m, dev, d, pos, title, score, clicked, dwell, label)
		default:
			f := []string{strconv.Itoa(ts), q, m, dev, d, strconv.Itoa(pos), title, fmt.Sprintf("%.6f", score), strconv.FormatBool(clicked), strconv.Itoa(dwell), strconv.Itoa(label)}
			b.WriteString(strings.Join(f, sep) + "\n")
		}
	}
	return b.Bytes()
}

// BenchmarkCSV reads the same click-shaped log as JSON lines, CSV (quoted
// where needed, and every field quoted) and TSV, in blocks on the default
// number of decoder goroutines (GOMAXPROCS; the block splitter is one more).
func BenchmarkCSV(b *testing.B) {
	for _, format := range []string{"jsonl", "csv", "csv-quoted", "tsv"} {
		b.Run(format, func(b *testing.B) {
			data := clickLog(200_000, format)
			b.SetBytes(int64(len(data)))
			rows := 0
			for b.Loop() {
				var r batch.Reader
				switch format {
				case "jsonl":
					r = jsonl.New("bench", bytes.NewReader(data), io.NopCloser(nil), readertest.TestCols, batch.Options{})
				case "tsv":
					r = csv.New("bench", csv.DialectTSV, bytes.NewReader(data), io.NopCloser(nil), readertest.TestCols, batch.Options{})
				default:
					r = csv.New("bench", csv.DialectCSV, bytes.NewReader(data), io.NopCloser(nil), readertest.TestCols, batch.Options{})
				}
				for r.Next() {
					rows += r.Batch().N
				}
				if r.Err() != nil {
					b.Fatal(r.Err())
				}
			}
			b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
