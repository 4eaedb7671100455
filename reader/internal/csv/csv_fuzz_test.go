package csv

import (
	"bytes"
	stdcsv "encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/scan"
)

// csvSeeds are inputs that reach every branch of the field scanner.
var csvSeeds = []string{
	"a,b,c\n1,2,3\n",
	"a,\"b\nc\",d\r\n\"x\"\"y\",,\"\"\r\n",
	"\"a\"b,c\n",
	"a\"b,c\n",
	"\"open,\nmore\n",
	"\n\r\n\ra,b\r\r\n\"c\"\r",
	"a,b\n1,2,3\n",
	"x\ty\tz\n\"q\"\t\\t\t\n",
	strings.Repeat("aaaaaaa,", 20) + "\n" + strings.Repeat("\"b\nb\",", 19) + "c\n",
}

// fieldRecords reads data with the CSV reader after a header of n names,
// every field a slice column, and returns the records read before the
// error, if any, and their lines.
func fieldRecords(t *testing.T, d Dialect, data []byte, n, buf, bs int) ([][]string, []int64, error) {
	t.Helper()
	defer func(n int) { BufSize = n }(BufSize)
	BufSize = buf
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprint("c", i)
	}
	head := strings.Join(names, string(d.Sep)) + "\n"
	r := New("fuzz", d, io.MultiReader(strings.NewReader(head), bytes.NewReader(data)), io.NopCloser(nil), batch.Columns{Extra: names}, batch.Options{BatchSize: bs})
	var recs [][]string
	var lines []int64
	for r.Next() {
		b := r.Batch()
		if len(b.Pos) != b.N || len(b.Extra) != n {
			t.Fatalf("inconsistent batch: %+v", b)
		}
		for i := range b.N {
			rec := make([]string, n)
			for c := range rec {
				rec[c] = string(b.Extra[c].At(i))
			}
			recs = append(recs, rec)
			lines = append(lines, b.Pos[i]-1)
		}
	}
	err := r.Err()
	if err != nil && (!strings.HasPrefix(err.Error(), "fuzz:") || !errors.Is(err, batch.ErrSyntax)) {
		t.Fatalf("error without position or sentinel: %v", err)
	}
	return recs, lines, err
}

// compareRecords checks the reader against a reference's records, their
// lines (nil: not compared) and whether it failed. A failing reader
// returns the rows before the error only with batches of one row (a batch
// with the error in it is not returned).
func compareRecords(t *testing.T, what string, bs int, got [][]string, gotLines []int64, gotErr error, want [][]string, wantLines []int64, wantErr error) {
	t.Helper()
	if (gotErr != nil) != (wantErr != nil) {
		t.Fatalf("%s: error %v, reference %v", what, gotErr, wantErr)
	}
	if gotErr != nil && bs > 1 {
		return
	}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("%s: records\n%q\nreference\n%q", what, got, want)
	}
	if wantLines != nil && !slices.Equal(gotLines, wantLines) {
		t.Fatalf("%s: lines %v, reference %v", what, gotLines, wantLines)
	}
}

// FuzzCSV: the CSV reader never panics, and splits fields and records as
// encoding/csv does (quotes, "" escapes, newlines in quotes, \r\n, blank
// lines), failing where it fails, whatever the read buffer and batch size.
func FuzzCSV(f *testing.F) {
	for _, s := range csvSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, lines, wantErr := csvRef(data, ',')
		if len(want) == 0 || len(want[0]) > batch.MaxExtra {
			// no first record to take the width from: the reader must
			// still not panic
			fieldRecords(t, DialectCSV, data, 3, 16, 2)
			return
		}
		first := want[0]
		for _, buf := range []int{1 << 20, 16} {
			for _, bs := range []int{1, 1000} {
				got, gotLines, err := fieldRecords(t, DialectCSV, data, len(first), buf, bs)
				compareRecords(t, fmt.Sprintf("buffer %d, batch %d", buf, bs), bs, got, gotLines, err, want, lines, wantErr)
			}
		}
	})
}

// csvRef reads data with encoding/csv, every record as wide as the
// first, and returns the records before an error, if any, and the lines
// they start on.
func csvRef(data []byte, comma rune) (recs [][]string, lines []int64, err error) {
	cr := stdcsv.NewReader(bytes.NewReader(data))
	cr.Comma = comma
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return recs, lines, nil
		}
		if err != nil {
			return recs, lines, err
		}
		recs = append(recs, rec)
		line, _ := cr.FieldPos(0)
		lines = append(lines, int64(line))
	}
}

// tsvRef splits TSV as its definition says: a record a line (a \r before
// the newline dropped, empty lines skipped), fields at tabs, no quoting.
func tsvRef(data []byte) (recs [][]string, lines []int64) {
	for i, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSuffix(l, "\r")
		if l != "" {
			recs = append(recs, strings.Split(l, "\t"))
			lines = append(lines, int64(i+1))
		}
	}
	return recs, lines
}

// FuzzTSV: the TSV reader never panics, splits as tsvRef does, fails at
// the first record whose width differs from the first's, and agrees with
// encoding/csv where the input has no quotes (which TSV does not treat).
func FuzzTSV(f *testing.F) {
	for _, s := range csvSeeds {
		f.Add([]byte(strings.ReplaceAll(s, ",", "\t")))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		all, lines := tsvRef(data)
		if len(all) == 0 || len(all[0]) > batch.MaxExtra {
			fieldRecords(t, DialectTSV, data, 2, 16, 2)
			return
		}
		n := len(all[0])
		want, wantLines := all, lines
		var wantErr error
		for i, r := range all {
			if len(r) != n {
				want, wantLines, wantErr = all[:i], lines[:i], errors.New("width")
				break
			}
		}
		for _, buf := range []int{1 << 20, 16} {
			for _, bs := range []int{1, 1000} {
				got, gotLines, err := fieldRecords(t, DialectTSV, data, n, buf, bs)
				compareRecords(t, fmt.Sprintf("buffer %d, batch %d", buf, bs), bs, got, gotLines, err, want, wantLines, wantErr)
				if bytes.IndexByte(data, '"') >= 0 {
					continue
				}
				ref, _, refErr := csvRef(data, '\t')
				compareRecords(t, "encoding/csv", bs, got, nil, err, ref, nil, refErr)
			}
		}
	})
}

// FuzzCSVDelimiter: with any ASCII byte that may separate fields as the
// delimiter (';' and '|' as Excel and others write them), the CSV reader
// splits fields and records as encoding/csv does with that Comma.
func FuzzCSVDelimiter(f *testing.F) {
	for _, s := range csvSeeds {
		f.Add([]byte(strings.ReplaceAll(s, ",", ";")), byte(';'))
		f.Add([]byte(strings.ReplaceAll(s, ",", "|")), byte('|'))
	}
	f.Add([]byte("\ufeffa;b\r\n\"x;\"\"y\"\"\r\nz\";1,5\r\n"), byte(';'))
	f.Fuzz(func(t *testing.T, data []byte, sep byte) {
		if CheckSep(sep) != nil || sep >= 0x80 || sep == 'c' || '0' <= sep && sep <= '9' {
			return // encoding/csv reads runes; the header's names are c0, c1, …
		}
		d := DialectCSV
		d.Sep = sep
		want, lines, wantErr := csvRef(data, rune(sep))
		if len(want) == 0 || len(want[0]) > batch.MaxExtra {
			fieldRecords(t, d, data, 3, 16, 2)
			return
		}
		for _, buf := range []int{1 << 20, 16} {
			for _, bs := range []int{1, 1000} {
				got, gotLines, err := fieldRecords(t, d, data, len(want[0]), buf, bs)
				compareRecords(t, fmt.Sprintf("sep %q, buffer %d, batch %d", sep, buf, bs), bs, got, gotLines, err, want, lines, wantErr)
			}
		}
	})
}

// FuzzDecimalComma: with DecimalComma a score is the number its text
// reads as with its comma made a point; a point in it is refused, and
// whatever is read or refused, the reader does not panic.
func FuzzDecimalComma(f *testing.F) {
	for _, s := range []string{"0,75", "1", "-1,5e3", "0.75", "1,2,3", ",5", "NaN", "", "1e400", "9007199254740993"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if strings.ContainsAny(v, ";\"\r\n") {
			return
		}
		d := DialectCSV
		d.Sep, d.DecimalComma = ';', true
		in := "query_id;label;score\nq;1;" + v + "\n"
		r := New("fuzz", d, strings.NewReader(in), io.NopCloser(nil), batch.Columns{Query: "query_id", Label: "label", Score: "score"}, batch.Options{})
		var got []float64
		for r.Next() {
			got = append(got, r.Batch().Score...)
		}
		err := r.Err()
		text := []byte(strings.Replace(v, ",", ".", 1))
		x, ok := scan.ParseNumber(text)
		switch {
		case strings.Contains(v, "."):
			if err == nil || !errors.Is(err, batch.ErrValue) {
				t.Fatalf("%q read as %v, %v; want a point refused", v, got, err)
			}
		case err == nil:
			if !ok || len(got) != 1 || !(got[0] == x || x != x && got[0] != got[0]) {
				t.Fatalf("%q read as %v; ParseNumber(%q) is %v, %v", v, got, text, x, ok)
			}
		case ok && scan.InexactScore(text, x) == "":
			t.Fatalf("%q refused (%v), but %q is the number %v", v, err, text, x)
		}
	})
}
