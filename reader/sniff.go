package reader

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rankeval/rankeval/reader/internal/batch"
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
	textBlank textKind = iota // nothing but blanks (so far): no rows, or undecided
	textJSONL                 // first non-blank byte '{'
	textArray                 // first non-blank byte '[': a JSON array, not JSON lines
	textTREC                  // the first line has a TREC run's 6 fields
	textCSV                   // the first line is a CSV header
	textTSV                   // the first line is a TSV header
	textDelim                 // CSV or TSV, but the first line cannot tell which
	textOther                 // none of these
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
// with commas (a README beside the parts) is not taken for one.
func delimited(line []byte) textKind {
	commas, tabs, spaced, quoted := 0, 0, false, false
	for _, c := range line {
		switch {
		case c == '\t':
			tabs++
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == ',':
			commas++
		case c == ' ':
			spaced = true
		}
	}
	switch {
	case tabs >= 2 && commas == 0:
		return textTSV
	case commas >= 2 && tabs == 0 && !spaced:
		return textCSV
	case tabs >= 2 || commas >= 2:
		return textDelim
	}
	return textOther
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
	return "not a known input format (it " + starts + "); " + formatsRead
}

// textFormat names the format of the text br starts with: forced, when it
// names one, else what the first line looks like. Anything but JSON lines,
// CSV or TSV (or blanks, which the JSONL parser reads as no rows, or
// judges itself when they fill br's buffer) is refused.
func textFormat(name, how string, br *bufio.Reader, forced batch.Format) (batch.Format, error) {
	if forced != batch.FormatAuto {
		return forced, nil
	}
	k, first, err := sniffText(br)
	if err != nil {
		return "", scan.ReadError(name, 1, err)
	}
	switch k {
	case textJSONL, textBlank:
		return batch.FormatJSONL, nil
	case textCSV:
		return batch.FormatCSV, nil
	case textTSV:
		return batch.FormatTSV, nil
	}
	return "", formatError(name, how, k, first)
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
	case textBlank, textJSONL, textTREC, textCSV, textTSV, textDelim:
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
