package trec

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/readertest"
	"github.com/rankeval/rankeval/reader/internal/scan"
)

// TestTextLines: the lines and their numbers, blank and comment lines
// skipped but counted, a last line without a newline, the same through
// gzip and zstd; a truncated stream is an error naming its line.
func TestTextLines(t *testing.T) {
	text := "q u s A 2\n\n# judged by hand\nq u  s\tB 1\n   \nq u s C 0"
	want := "1:[q u s A 2] 4:[q u s B 1] 6:[q u s C 0]"
	for name, data := range map[string][]byte{"plain": []byte(text), "gz": readertest.GzipBytes([]byte(text)), "zst": readertest.ZstdBytes([]byte(text))} {
		t.Run(name, func(t *testing.T) {
			got, err := textLines(readertest.WriteFile(t, "prefs."+name, data), true)
			if err != nil || got != want {
				t.Fatalf("got %q, %v; want %q", got, err, want)
			}
			got, err = textLines(readertest.WriteFile(t, "prefs."+name, data), false)
			if err != nil || !strings.HasPrefix(got, "1:[q u s A 2] 3:[# judged by hand]") {
				t.Fatalf("without comments: got %q, %v", got, err)
			}
		})
	}
	trunc := readertest.ZstdBytes([]byte(strings.Repeat(text+"\n", 1000)))
	if _, err := textLines(readertest.WriteFile(t, "trunc.zst", trunc[:len(trunc)/2]), true); err == nil || !strings.Contains(err.Error(), "trunc.zst:") {
		t.Fatalf("a truncated stream: %v", err)
	}
	if _, err := OpenTextLines(readertest.WriteFile(t, "x", nil)+".missing", true, false); err == nil {
		t.Fatal("a missing file opens")
	}
}

func textLines(path string, comments bool) (string, error) {
	l, err := OpenTextLines(path, comments, false)
	if err != nil {
		return "", err
	}
	defer l.Close()
	var out []string
	for l.Next() {
		var f []string
		for i := range min(l.Fields(), scan.MaxFields) {
			f = append(f, string(l.Field(i)))
		}
		out = append(out, fmt.Sprintf("%d:%v", l.Line(), f))
	}
	return strings.Join(out, " "), l.Err()
}

// TestParseLabel: a qrels judgment: finite numbers, negative ones -0; a
// label written -0 is 0, not a negative judgment (trec_eval's atol reads
// 0: judged non-relevant).
func TestParseLabel(t *testing.T) {
	for in, want := range map[string]float64{"1": 1, "2.5": 2.5, "0": 0, "-0": 0, "-0.0": 0, "-1": math.Copysign(0, -1), "-2": math.Copysign(0, -1)} {
		got, ok := ParseLabel([]byte(in))
		if !ok || got != want || math.Signbit(got) != math.Signbit(want) {
			t.Errorf("%q: %v %v, want %v", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "x", "NaN", "Infinity", "1e999", "1,5"} {
		if _, ok := ParseLabel([]byte(in)); ok {
			t.Errorf("%q read as a label", in)
		}
	}
}

// TestAtol: C's atol, as trec_eval reads a qrels label (values from
// glibc's).
func TestAtol(t *testing.T) {
	tests := []struct {
		in   string
		want int64
	}{
		{"3", 3}, {"0", 0}, {"9", 9}, {"/", 0}, {":", 0}, {" ", 0}, {"+1", 1}, {"-2", -2}, {"-0", 0}, {"0.5", 0}, {"1.9", 1}, {"-1.5", -1},
		{"1e2", 1}, {"0x1", 0}, {"abc", 0}, {"", 0}, {"-", 0}, {" 7", 7}, {"5abc", 5},
		{"99999999999", 99999999999}, {"9223372036854775807", math.MaxInt64},
		{"9223372036854775808", math.MaxInt64}, {"123456789012345678901234567890", math.MaxInt64},
		{"-9223372036854775808", math.MinInt64}, {"-99999999999999999999999", math.MinInt64},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := Atol([]byte(tc.in)); got != tc.want {
				t.Fatalf("Atol(%q) = %d, want %d", tc.in, got, tc.want)
			}
			label := AtolLabel([]byte(tc.in))
			if want := float64(max(tc.want, 0)); label != want || math.Signbit(label) != (tc.want < 0) {
				t.Fatalf("AtolLabel(%q) = %v, want %v (negative %v)", tc.in, label, want, tc.want < 0)
			}
		})
	}
}

// TestRunWithoutQrels: OpenRun with nil qrels gives every row, label 0.
func TestRunWithoutQrels(t *testing.T) {
	p := readertest.WriteFile(t, "run", []byte("1 Q0 a 1 2.5 r\n2 Q0 b 1 1 r\n"))
	r, err := OpenRun(p, nil, RunOptions{Options: batch.Options{Decoders: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var rows []string
	for r.Next() {
		b := r.Batch()
		for i := range b.N {
			rows = append(rows, fmt.Sprintf("%s/%s/%v/%v", b.Query.At(i), b.Doc.At(i), b.Score[i], b.Label[i]))
		}
	}
	if r.Err() != nil || strings.Join(rows, " ") != "1/a/2.5/0 2/b/1/0" {
		t.Fatalf("rows %v, err %v", rows, r.Err())
	}
}

// TestStrictLines: judgments files read as trec_eval's readers read them
// (QrelsFormat.Strict, and TextLines for prefs and qrels_jg): a blank
// line stops them; under 10.0's comments a line starting with '#' is
// skipped, a '#' after blanks is a query id, a comment right after
// another is a judgment (trec_eval 10.0 skips one line, then reads one),
// and a comment at the end (where it crashes) or a NUL byte is refused.
// Checked against trec_eval 9.0.8 and 10.0 by TestTrecEvalJudgmentLines
// in cmd/rankeval.
func TestStrictLines(t *testing.T) {
	cases := []struct {
		name, data string
		comments   bool
		want, err  string // the lines read, or the error's text
	}{
		{"plain", "1 0 a 1\n2 0 b 0\n", true, "1:[1 0 a 1] 2:[2 0 b 0]", ""},
		{"a comment", "# header\n1 0 a 1\n2 0 b 0\n", true, "2:[1 0 a 1] 3:[2 0 b 0]", ""},
		{"comments apart", "# h\n1 0 a 1\n# mid\n2 0 b 0\n", true, "2:[1 0 a 1] 4:[2 0 b 0]", ""},
		{"a '#' after blanks", "1 0 a 1\n  # x y 1\n", true, "1:[1 0 a 1] 2:[# x y 1]", ""},
		// trec_eval 10.0 skips one comment, then reads the next line as a
		// judgment whatever its first byte (its values, exit 0)
		{"two comments", "# h\n# x y 1\n1 0 a 1\n", true, "2:[# x y 1] 3:[1 0 a 1]", ""},
		{"two comments mid-file", "1 0 a 1\n#a\n#b 0 c 1\n2 0 b 0\n", true, "1:[1 0 a 1] 3:[#b 0 c 1] 4:[2 0 b 0]", ""},
		{"three comments", "1 0 a 1\n#a\n#b 0 c 1\n#c\n2 0 b 0\n", true, "1:[1 0 a 1] 3:[#b 0 c 1] 5:[2 0 b 0]", ""},
		{"two comments last", "1 0 a 1\n#a\n#b 0 c 1\n", true, "1:[1 0 a 1] 3:[#b 0 c 1]", ""},
		{"a comment after two", "1 0 a 1\n#a\n#b 0 c 1\n#c\n", true, "", ":4: the file ends with a comment line"},
		// trec_eval's loops stop at a NUL byte (ignoring the rest) or run
		// past their arrays
		{"a NUL starting a line", "1 0 a 1\n\x002 0 b 1\n", true, "", ":2: a NUL byte"},
		{"a NUL in a field", "1 0 a 1\n2 0 b\x00x 1\n", false, "", ":2: a NUL byte"},
		{"a NUL in a comment", "1 0 a 1\n# a\x00b\n2 0 b 1\n", true, "", ":2: a NUL byte"},
		{"a NUL last", "1 0 a 1\n\x00", true, "", ":2: a NUL byte"},
		{"a comment last", "1 0 a 1\n# end\n", true, "", ":2: the file ends with a comment line"},
		{"a comment last, no newline", "1 0 a 1\n# end", true, "", ":2: the file ends with a comment line"},
		{"a blank line", "1 0 a 1\n\n2 0 b 0\n", true, "", ":2: a blank line"},
		{"blanks only", "1 0 a 1\n \t \n", true, "", ":2: a blank line"},
		{"a blank line first", "\n1 0 a 1\n", false, "", ":1: a blank line"},
		{"9.0.8: '#' lines are judgments", "# x y 1\n# x z 1\n", false, "1:[# x y 1] 2:[# x z 1]", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, err := OpenTextLines(readertest.WriteFile(t, "j", []byte(c.data)), c.comments, true)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			var got []string
			for l.Next() {
				var f []string
				for i := range min(l.Fields(), 8) {
					f = append(f, string(l.Field(i)))
				}
				got = append(got, fmt.Sprintf("%d:%v", l.Line(), f))
			}
			if c.err != "" {
				if l.Err() == nil || !errors.Is(l.Err(), batch.ErrSyntax) || !strings.Contains(l.Err().Error(), c.err) {
					t.Fatalf("err %v, want %q", l.Err(), c.err)
				}
				return
			}
			if l.Err() != nil || strings.Join(got, " ") != c.want {
				t.Fatalf("got %q, %v; want %q", strings.Join(got, " "), l.Err(), c.want)
			}
			// the qrels reader reads the same lines
			_, qerr := ReadQrelsAs(readertest.WriteFile(t, "q", []byte(c.data)), QrelsFormat{Comments: c.comments, Strict: true})
			if qerr != nil {
				t.Fatalf("ReadQrelsAs: %v", qerr)
			}
		})
	}
}
