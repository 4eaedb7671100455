package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/internal/synth"
)

// TestCSVWorkersBitIdentical: a log as CSV and TSV (plain and compressed)
// gives the JSONL's summary and per-query output, byte for byte, for any
// worker count and batch size, with slices and two score columns.
func TestCSVWorkersBitIdentical(t *testing.T) {
	n := 30_000
	if testing.Short() {
		n = 5_000
	}
	dir := t.TempDir()
	var names []string
	for _, name := range []string{"log.jsonl", "log.csv", "log.tsv", "log.csv.gz", "log.tsv.zst"} {
		p := filepath.Join(dir, name)
		if err := synth.Write(p, synth.NewGenerator(11, n, 37).WithSlices(5, 2), -1, synth.Options{}); err != nil {
			t.Fatal(err)
		}
		names = append(names, p)
	}
	args := []string{"--quiet", "--format", "json", "-m", "map,mrr,ndcg@10,err@10,p@10,kendall", "--ties", "average",
		"--by", "market", "--score-col", "score,score_b", "--bootstrap", "50"}
	var want string
	var wantPQ []byte
	for _, in := range names {
		for _, w := range []int{1, 2, 3, 8} {
			for _, bs := range []int{1, 7, 8192} {
				if bs == 1 && w > 1 && !strings.HasSuffix(in, ".csv") && !strings.HasSuffix(in, ".tsv") {
					continue // batches of one row are slow; the plain files have them
				}
				pq := filepath.Join(dir, "pq.jsonl")
				code, out, stderr := cli(t, append(args, "--workers", strconv.Itoa(w), "--batch-size", strconv.Itoa(bs), "--per-query", pq, in)...)
				if code != 0 {
					t.Fatalf("%s workers %d batch %d: exit %d: %s", in, w, bs, code, stderr)
				}
				got, err := os.ReadFile(pq)
				if err != nil {
					t.Fatal(err)
				}
				if want == "" {
					want, wantPQ = body(out), got
					continue
				}
				if body(out) != want {
					t.Fatalf("%s workers %d batch %d: summary differs from the JSONL's:\n%s\nvs\n%s", filepath.Base(in), w, bs, out, want)
				}
				if !bytes.Equal(got, wantPQ) {
					t.Fatalf("%s workers %d batch %d: per-query output differs from the JSONL's", filepath.Base(in), w, bs)
				}
			}
		}
	}
}

// TestCSVBadInput: bad CSV and TSV exit 1 naming the file and line; a bad
// --input-format exits 2.
func TestCSVBadInput(t *testing.T) {
	head := "query_id,doc_id,score,label\n"
	tests := []struct {
		name, data string
		extra      []string
		msg        string // after "FILE:"
	}{
		{"missing column", "query_id,doc,score,label\na,1,0.5,1\n", []string{"--ties", "trec"}, `1: no column "doc_id" (the doc column); the header has "query_id", "doc", "score", "label"; name the doc column with --doc-col`},
		{"bad number", head + "a,1,0.5,1\na,2,high,0\n", nil, `3: "score" (the score column) must be a number, found "high"`},
		{"ragged row", head + "a,1,0.5,1\na,2,0.5\n", nil, `3: 3 fields, but the header has 4`},
		{"unterminated quote", head + "a,1,0.5,1\n\"a,2,0.5,0\n", nil, `3: the quote that opens a field at column 1 is never closed`},
		{"stray quote", head + "a,1\",0.5,1\n", nil, `2: column 4: a quote inside a field that does not start with one`},
		{"label out of range", head + "a,1,0.5,-1\n", nil, `2: label is -1`},
		{"TSV tab in a value", "query_id\tdoc_id\tscore\tlabel\na\t1\t0.5\t1\tx\n", nil, `2: 5 fields, but the header has 4 (a tab inside a value?`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, "log.csv")
			if err := os.WriteFile(in, []byte(tc.data), 0o644); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := cli(t, append(append([]string{"--quiet"}, tc.extra...), in)...)
			if code != 1 || stdout != "" {
				t.Fatalf("exit %d, stdout %q; stderr %s", code, stdout, stderr)
			}
			if want := regexp.QuoteMeta(in + ":" + tc.msg); !regexp.MustCompile(want).MatchString(stderr) {
				t.Fatalf("stderr %q does not match %q", stderr, want)
			}
		})
	}
	for _, args := range [][]string{
		{"--input-format", "xml", "x.csv"},
		{"--input-format", "csv", "--qrels", "q.txt", "run.txt"},
	} {
		t.Run(fmt.Sprint(args), func(t *testing.T) {
			if code, _, stderr := cli(t, args...); code != 2 || !strings.Contains(stderr, "--input-format") {
				t.Fatalf("exit %d: %s", code, stderr)
			}
		})
	}
}

// TestInputFormatFlag: --input-format reads a CSV file whose header the
// first line cannot tell (names with spaces) and a JSONL file as JSONL.
func TestInputFormatFlag(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "log.txt")
	if err := os.WriteFile(in, []byte("query id,doc id,score,label\nq,a,0.5,1\nq,b,0.7,0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := cli(t, "--quiet", "--query-col", "query id", "--doc-col", "doc id", in); code != 1 || !strings.Contains(stderr, "--input-format csv or tsv") {
		t.Fatalf("without the flag: exit %d: %s", code, stderr)
	}
	code, out, stderr := cli(t, "--quiet", "--input-format", "csv", "--query-col", "query id", "--doc-col", "doc id", "--format", "json", "-m", "mrr", in)
	if code != 0 || !strings.Contains(out, `"mean": 0.5`) {
		t.Fatalf("exit %d: %s%s", code, out, stderr)
	}
}

// excelLog is one log written as a plain CSV and as Excel writes it where
// the comma is the decimal mark: a byte order mark, CRLF line ends, ';'
// between fields, decimal commas, and quoted fields holding a doubled
// quote, the delimiter and a line end.
func excelLog() (plain, excel string) {
	rows := [][4]string{
		{"q1", `a "quoted" doc`, "0.75", "1"},
		{"q1", "b;c", "0.5", "0"},
		{"q1", "line\nbreak", "0.25", "2"},
		{"q2", "d", "1.5", "0"},
		{"q2", "e", "-0.125", "1"},
		{"q2", "f", "3", "1"},
	}
	quote := func(s, sep string) string {
		if strings.ContainsAny(s, "\"\n"+sep) {
			return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
		}
		return s
	}
	var p, e strings.Builder
	p.WriteString("query_id,doc_id,score,label\n")
	e.WriteString("\ufeffquery_id;doc_id;score;label\r\n")
	for _, r := range rows {
		p.WriteString(strings.Join([]string{r[0], quote(r[1], ","), r[2], r[3]}, ",") + "\n")
		e.WriteString(strings.Join([]string{r[0], quote(r[1], ";"), strings.ReplaceAll(r[2], ".", ","), r[3]}, ";") + "\r\n")
	}
	return p.String(), e.String()
}

// TestExcelCSV: a log as Excel writes it (';', decimal commas, a BOM,
// CRLF, quoted fields) gives the plain CSV's summary, told from its header
// or named with --delimiter, from a file or standard input; a '|' file
// and a tab named with --delimiter '\t' too. Without --decimal-comma the
// message names it; a header that does not hold the columns under ';' is
// refused naming --delimiter.
func TestExcelCSV(t *testing.T) {
	dir := t.TempDir()
	plain, excel := excelLog()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pl := write("plain.csv", plain)
	ex := write("excel.csv", excel)
	pipe := write("pipe.csv", strings.ReplaceAll(strings.ReplaceAll(plain, ",", "|"), `"b|c"`, "b,c"))
	tab := write("tab.txt", "query_id\tdoc_id\tscore\tlabel\nq1\ta\t0.75\t1\nq1\tb\t0.5\t0\nq1\tc\t0.25\t2\nq2\td\t1.5\t0\nq2\te\t-0.125\t1\nq2\tf\t3\t1\n")
	args := []string{"--quiet", "--format", "json", "-m", "map,mrr,ndcg@10,p@2", "--ties", "trec"}
	code, out, stderr := cli(t, append(args, pl)...)
	if code != 0 {
		t.Fatalf("plain: exit %d: %s", code, stderr)
	}
	want := body(out)
	if !strings.Contains(want, `"queries": 2`) {
		t.Fatalf("plain summary: %s", out)
	}
	for _, tc := range []struct {
		name  string
		args  []string
		stdin string // a file read as standard input
	}{
		{"told from the header", []string{"--decimal-comma", ex}, ""},
		{"--delimiter", []string{"--delimiter", ";", "--decimal-comma", ex}, ""},
		{"--input-format csv", []string{"--input-format", "csv", "--delimiter", ";", "--decimal-comma", ex}, ""},
		{"stdin", []string{"--decimal-comma", "-"}, ex},
		{"pipe separated", []string{pipe}, ""},
		{"tab named", []string{"--delimiter", `\t`, tab}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var code int
			var out, stderr string
			if tc.stdin != "" {
				code, out, stderr = cliStdin(t, tc.stdin, append(args, tc.args...)...)
			} else {
				code, out, stderr = cli(t, append(args, tc.args...)...)
			}
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if got := body(out); got != want && tc.name != "tab named" {
				t.Fatalf("summary differs from the plain CSV's:\n%s\nvs\n%s", got, want)
			}
		})
	}
	t.Run("without --decimal-comma", func(t *testing.T) {
		code, _, stderr := cli(t, "--quiet", ex)
		if code != 1 || !strings.Contains(stderr, ex+`:2: "score" (the score column) must be a number, found "0,75" (a decimal comma? give --decimal-comma)`) {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	})
	t.Run("point with --decimal-comma", func(t *testing.T) {
		in := write("point.csv", "query_id;doc_id;score;label\nq;a;0.5;1\n")
		code, _, stderr := cli(t, "--quiet", "--decimal-comma", in)
		if code != 1 || !strings.Contains(stderr, in+`:2: "score" (the score column) is "0.5": with --decimal-comma a number is written with a comma (0,75)`) {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	})
	t.Run("header without the columns", func(t *testing.T) {
		in := write("qid.csv", "qid;doc_id;score;label\nq;a;0,5;1\n")
		code, _, stderr := cli(t, "--quiet", "--decimal-comma", in)
		if code != 1 || !strings.Contains(stderr, `splits on ';' but not on ',', and then has no column "query_id" (the query column): if it is separated by ';', give --delimiter ';' (and --decimal-comma if its numbers are written 0,75) and name the columns with --query-col`) {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		code, out, stderr := cli(t, "--quiet", "--decimal-comma", "--query-col", "qid", "--format", "json", "-m", "mrr", in)
		if code != 0 || !strings.Contains(out, `"mean": 1`) {
			t.Fatalf("with --query-col: exit %d: %s%s", code, out, stderr)
		}
	})
	t.Run("prose with semicolons", func(t *testing.T) {
		in := write("notes.txt", "see the log; it is; Excel's\n")
		code, _, stderr := cli(t, "--quiet", in)
		if code != 1 || !strings.Contains(stderr, "if it is CSV separated by ';', give --delimiter ';'") {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	})
	t.Run("--decimal-comma on a comma CSV", func(t *testing.T) {
		code, _, stderr := cli(t, "--quiet", "--decimal-comma", pl)
		if code != 1 || !strings.Contains(stderr, pl+": its fields are separated by commas, so --decimal-comma cannot read it") {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	})
	for _, a := range [][]string{
		{"--delimiter", ";;"},
		{"--delimiter", `"`},
		{"--delimiter", "\n"},
		{"--delimiter", ",", "--decimal-comma"},
		{"--input-format", "csv", "--decimal-comma"},
		{"--input-format", "jsonl", "--delimiter", ";"},
		{"--input-format", "tsv", "--delimiter", ";"},
	} {
		t.Run(fmt.Sprintf("usage %q", a), func(t *testing.T) {
			code, _, stderr := cli(t, append(append([]string{"--quiet"}, a...), ex)...)
			if code != 2 || !strings.Contains(stderr, "--d") {
				t.Fatalf("exit %d: %s", code, stderr)
			}
		})
	}
}
