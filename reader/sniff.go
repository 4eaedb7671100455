package reader

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/csv"
	"github.com/rankeval/rankeval/reader/internal/scan"
)

// This file tells inputs of a format the readers know from anything else
// (a README.txt or notes.md beside the part files of a lake), from the
// first bytes, never from the name.

// formatsRead names the input formats in messages about other files.
const formatsRead = "inputs are JSON lines, CSV or TSV with a header row (plain, gzip or zstd), Parquet, Arrow IPC files or streams, or TREC runs with --qrels"

// ParseFormat reads a format name: auto, jsonl, csv or tsv.
func ParseFormat(s string) (batch.Format, error) {
	switch f := batch.Format(s); f {
	case "auto":
		return batch.FormatAuto, nil
	case batch.FormatJSONL, batch.FormatCSV, batch.FormatTSV:
		return f, nil
	}
	return batch.FormatAuto, fmt.Errorf("%q: want auto, jsonl, csv or tsv", s)
}

// textKind is what the start of an uncompressed text input looks like.
type textKind int

const (
	textBlank     textKind = iota // nothing but blanks (so far): no rows, or undecided
	textJSONL                     // first non-blank byte '{'
	textArray                     // first non-blank byte '[': a JSON array, not JSON lines
	textTREC                      // the first line has a TREC run's 6 fields
	textCSV                       // the first line is a CSV header
	textTSV                       // the first line is a TSV header
	textDelim                     // CSV or TSV, but the first line cannot tell which
	textSemicolon                 // the first line splits on ';', not on ',' or tabs
	textPipe                      // the first line splits on '|', not on ',', ';' or tabs
	textOther                     // none of these
)

// sniffLimit is how far past its first non-blank byte a text input's
// first line is read to name what it is.
const sniffLimit = 4096

// textStart classifies data, the first bytes of an uncompressed text input,
// and returns its first non-blank line (at most sniffLimit bytes) for
// messages; whole says whether that line ended within data (at a newline
// or the limit).
func textStart(data []byte) (k textKind, line []byte, whole bool) {
	data = bytes.TrimPrefix(data, scan.Bom)
	p := scan.SkipSpace(data, 0)
	if p == len(data) {
		return textBlank, nil, false
	}
	line = data[p:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line, whole = line[:i], true
	}
	if len(line) >= sniffLimit {
		line, whole = line[:sniffLimit], true
	}
	line = bytes.TrimRight(line, "\r")
	switch line[0] {
	case '{':
		return textJSONL, line, whole
	case '[':
		return textArray, line, whole
	}
	if f := scan.SplitFields(line, nil); len(f) == 6 {
		if _, ok := scan.ParseNumber(f[4]); ok {
			return textTREC, line, whole
		}
	}
	return delimited(line), line, whole
}

// delimited classifies a first line that is neither JSON nor a TREC run. A
// CSV or TSV header has at least three fields (a query, a label, a score or
// rank), separated by commas outside quotes or by tabs, not both; the
// unquoted names of a CSV header hold no spaces, so that a line of prose
// with commas (a README beside the parts) is not taken for one. A line
// with neither that splits so on ';' (as Excel writes CSV where the comma
// is the decimal mark) or on '|' is textSemicolon or textPipe, which
// textFormat reads only when the header has the columns asked for.
func delimited(line []byte) textKind {
	n := delimCounts(line)
	switch {
	case n.tabs >= 2 && n.commas == 0:
		return textTSV
	case n.commas >= 2 && n.tabs == 0 && !n.spaced:
		return textCSV
	case n.tabs >= 2 || n.commas >= 2:
		return textDelim
	case n.spaced || n.tabs > 0 || n.commas > 0:
		return textOther
	case n.semis >= 2 && n.pipes == 0:
		return textSemicolon
	case n.pipes >= 2 && n.semis == 0:
		return textPipe
	}
	return textOther
}

// counts is how often each candidate separator occurs outside quotes in
// a first line, and whether an unquoted space does.
type counts struct {
	commas, tabs, semis, pipes int
	spaced                     bool
}

func delimCounts(line []byte) counts {
	var n counts
	quoted := false
	for _, c := range line {
		switch {
		case c == '\t':
			n.tabs++
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == ',':
			n.commas++
		case c == ';':
			n.semis++
		case c == '|':
			n.pipes++
		case c == ' ':
			n.spaced = true
		}
	}
	return n
}

// headerFields splits a header line on sep outside quotes, each field's
// quotes removed ("" read as one quote), as the CSV reader reads it.
func headerFields(line []byte, sep byte) []string {
	var out []string
	var f []byte
	quoted := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '"' && quoted && i+1 < len(line) && line[i+1] == '"':
			f = append(f, '"')
			i++
		case c == '"':
			quoted = !quoted
		case c == sep && !quoted:
			out = append(out, string(f))
			f = f[:0]
		default:
			f = append(f, c)
		}
	}
	return append(out, string(f))
}

// sepFlags is what a message about a ';'- or '|'-separated first line
// tells the user to give.
func sepFlags(sep byte) string {
	return fmt.Sprintf("give --delimiter '%c' (and --decimal-comma if its numbers are written 0,75)", sep)
}

// sniffText reads from br only as far as it must to classify the text it
// starts with: to its first non-blank byte, and when that is not '{', to
// the end of that line. It waits for no more bytes than that, so a stream
// from a pipe is not held up.
func sniffText(br *bufio.Reader) (textKind, []byte, error) {
	for {
		data, _ := br.Peek(br.Buffered())
		k, line, whole := textStart(data)
		if k == textJSONL || k != textBlank && whole || len(data) == br.Size() {
			return k, line, nil // a full buffer of blanks: the JSONL parser will tell
		}
		if _, err := br.Peek(len(data) + 1); err != nil {
			if err == io.EOF {
				return k, line, nil
			}
			return textBlank, nil, err
		}
	}
}

// formatError says that name is no input format the readers know; how
// says how it was compressed ("" when it was not), first is its first
// non-blank line.
func formatError(name, how string, k textKind, first []byte) error {
	return fmt.Errorf("%s: %s: %w", name, formatWhy(how, k, first), batch.ErrFormat)
}

// formatWhy says what a file of no known format is, and what to do.
func formatWhy(how string, k textKind, first []byte) string {
	starts := "starts " + scan.QuoteSnippet(first)
	if how != "" {
		starts = "is " + how + "-compressed and " + starts
	}
	switch k {
	case textArray:
		return "a JSON array, not JSON lines (it " + starts + "); write one object per line, e.g. with jq -c '.[]'"
	case textTREC:
		return "looks like a TREC run (it " + starts + "); TREC runs are read with their judgments: give --qrels QRELS"
	case textDelim:
		return "not a known input format (it " + starts + "); if it is CSV or TSV, its first line cannot tell which: name it with --input-format csv or tsv; " + formatsRead
	}
	if n := delimCounts(first); n.semis >= 2 || n.pipes >= 2 {
		sep := byte(';')
		if n.pipes > n.semis {
			sep = '|'
		}
		return "not a known input format (it " + starts + "); if it is CSV separated by '" + string(sep) + "', " + sepFlags(sep) + "; " + formatsRead
	}
	return "not a known input format (it " + starts + "); " + formatsRead
}

// textFormat names the format of the text br starts with and the byte
// that separates its fields (for CSV and TSV): opt.Format, when it names
// one, else what the first line looks like. Anything but JSON lines, CSV
// or TSV (or blanks, which the JSONL parser reads as no rows, or judges
// itself when they fill br's buffer) is refused. A first line separated
// by ';' or '|' (and not by commas or tabs) is read so when the header
// holds every column cols requires under that separator, and refused
// with the flags to give when it does not; opt.Delimiter, when given, is
// the separator of any first line that is not JSON or a TREC run.
func textFormat(name, how string, br *bufio.Reader, cols batch.Columns, opt batch.Options) (batch.Format, byte, error) {
	f, sep, err := textFormatSep(name, how, br, cols, opt)
	if err == nil && f != batch.FormatJSONL && opt.DecimalComma && sep == ',' {
		err = fmt.Errorf("%s: its fields are separated by commas, so --decimal-comma cannot read it (a number written 0,75 would be two fields): give --delimiter for a file separated otherwise: %w", name, batch.ErrFormat)
	}
	return f, sep, err
}

func textFormatSep(name, how string, br *bufio.Reader, cols batch.Columns, opt batch.Options) (batch.Format, byte, error) {
	if opt.Delimiter != 0 {
		if err := csv.CheckSep(opt.Delimiter); err != nil {
			return "", 0, fmt.Errorf("%s: delimiter %w: %w", name, err, batch.ErrFormat)
		}
	}
	sepOr := func(def byte) byte {
		if opt.Delimiter != 0 {
			return opt.Delimiter
		}
		return def
	}
	switch opt.Format {
	case batch.FormatJSONL:
		return opt.Format, 0, nil
	case batch.FormatCSV:
		return opt.Format, sepOr(','), nil
	case batch.FormatTSV:
		return opt.Format, '\t', nil
	}
	k, first, err := sniffText(br)
	if err != nil {
		return "", 0, scan.ReadError(name, 1, err)
	}
	switch k {
	case textJSONL, textBlank:
		return batch.FormatJSONL, 0, nil
	case textArray, textTREC:
		return "", 0, formatError(name, how, k, first)
	}
	if opt.Delimiter != 0 {
		return batch.FormatCSV, opt.Delimiter, nil
	}
	switch k {
	case textCSV:
		return batch.FormatCSV, ',', nil
	case textTSV:
		return batch.FormatTSV, '\t', nil
	case textSemicolon, textPipe:
		sep := byte(';')
		if k == textPipe {
			sep = '|'
		}
		if missing := missingColumn(headerFields(first, sep), cols); missing != nil {
			return "", 0, fmt.Errorf("%s: its first line (%s) splits on '%c' but not on ',', and then has no column %q (%s): if it is separated by '%c', %s and name the columns with %s: %w",
				name, scan.QuoteSnippet(first), sep, missing.Name, missing.Role(), sep, sepFlags(sep), missing.FlagName(), batch.ErrFormat)
		}
		return batch.FormatCSV, sep, nil
	}
	return "", 0, formatError(name, how, k, first)
}

// missingColumn returns the first column cols requires that names lacks,
// nil when it has them all.
func missingColumn(names []string, cols batch.Columns) *batch.ColReq {
	for _, r := range cols.Requests() {
		if !r.Optional && !slices.Contains(names, r.Name) {
			return &r
		}
	}
	return nil
}

// strayFile is a file of no known input format in a directory or glob.
type strayFile struct {
	path  string
	kind  textKind
	first []byte
}

// sniffFile reads the first bytes of a local file for Expand, which lists
// every file of no known format in a directory or glob before anything is
// read. Only regular
// files are read: a named pipe must be left for its reader. Compressed
// files pass; Open judges what they hold.
func sniffFile(path string) (*strayFile, error) {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return nil, nil // Open reports it
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, sniffLimit)
	n, err := io.ReadFull(f, buf)
	if err != nil && err != io.EOF && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	head := buf[:n]
	if scan.Compression(head) != "" {
		return nil, nil
	}
	for _, m := range [][]byte{scan.MagicParquet, scan.MagicArrowFile, scan.MagicArrowIPC} {
		if bytes.HasPrefix(head, m) {
			return nil, nil
		}
	}
	switch k, first, _ := textStart(head); k {
	case textBlank, textJSONL, textTREC, textCSV, textTSV, textDelim, textSemicolon, textPipe:
		// textDelim: --input-format may name it, which Expand does not see
		return nil, nil
	default:
		return &strayFile{path: path, kind: k, first: first}, nil
	}
}

// strayError names the files of no known format that Expand found.
func strayError(stray []strayFile) error {
	var msg string
	if len(stray) == 1 {
		s := stray[0]
		msg = s.path + ": " + formatWhy("", s.kind, s.first)
	} else {
		const most = 10
		names := make([]string, 0, most)
		for _, s := range stray[:min(len(stray), most)] {
			names = append(names, s.path)
		}
		list := strings.Join(names, ", ")
		if len(stray) > most {
			list += fmt.Sprintf(" and %d more", len(stray)-most)
		}
		msg = fmt.Sprintf("%d files of no known input format: %s (the first starts %s); %s",
			len(stray), list, scan.QuoteSnippet(stray[0].first), formatsRead)
	}
	it := "them"
	if len(stray) == 1 {
		it = "it"
	}
	return fmt.Errorf("%s; leave %s out: name the data files with a glob such as *.parquet, or move the others away (names starting with '_' or '.' are skipped): %w", msg, it, batch.ErrFormat)
}
