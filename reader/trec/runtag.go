package trec

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/scan"
)

// RunTag returns the run tag (the sixth field) of the last line of a TREC
// run file (plain, gzip or zstd), which is what trec_eval prints as runid;
// "" when the file has no line. A plain file is read from its end; a
// compressed one has to be decompressed through.
func RunTag(name string) (string, error) { return runTag(name, false) }

// RunTagComments is RunTag skipping comment lines (a first field starting
// with '#'), as trec_eval 10.0 does.
func RunTagComments(name string) (string, error) { return runTag(name, true) }

func runTag(name string, comments bool) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<16)
	head, _ := br.Peek(4)
	src, closeDec, err := scan.Decompress(name, br, head)
	if err != nil {
		return "", err
	}
	defer closeDec()
	var last []byte
	if src == io.Reader(br) {
		last, err = lastLineOfFile(f, comments)
	} else {
		last, err = lastLine(src, comments)
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	fields := bytes.Fields(last)
	if len(fields) < 6 {
		if len(fields) == 0 {
			return "", nil
		}
		return "", fmt.Errorf("%s: the last line has %d fields, not 6 (qid Q0 docno rank score runid): %w", name, len(fields), batch.ErrSyntax)
	}
	return string(fields[5]), nil
}

// lastLineOfFile reads backwards from the end of f to its last line that
// is not blank (nor, with comments, a comment).
func lastLineOfFile(f *os.File, comments bool) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
		return lastLine(f, comments)
	}
	const chunk = 64 << 10
	var tail []byte
	for end := st.Size(); end > 0; {
		start := max(0, end-chunk)
		buf := make([]byte, end-start)
		if _, err := f.ReadAt(buf, start); err != nil {
			return nil, err
		}
		tail = append(buf, tail...)
		end = start
		if line, ok := lastNonBlank(tail, start == 0, comments); ok {
			return line, nil
		}
	}
	return nil, nil
}

// lastLine reads r through and keeps its last line that is not blank (nor,
// with comments, a comment).
func lastLine(r io.Reader, comments bool) ([]byte, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<30)
	var last []byte
	for sc.Scan() {
		if !skipped(sc.Bytes(), comments) {
			last = append(last[:0], sc.Bytes()...)
		}
	}
	return last, sc.Err()
}

// skipped reports whether a line is blank, or with comments a comment.
func skipped(line []byte, comments bool) bool {
	t := bytes.TrimSpace(line)
	return len(t) == 0 || comments && t[0] == '#'
}

// lastNonBlank finds the last line of tail that is not blank (nor, with
// comments, a comment); a line is only whole once a newline precedes it,
// or tail starts the file (whole).
func lastNonBlank(tail []byte, whole bool, comments bool) ([]byte, bool) {
	end := len(tail)
	for end > 0 {
		nl := bytes.LastIndexByte(tail[:end], '\n')
		line := tail[nl+1 : end]
		if nl < 0 && !whole {
			return nil, false
		}
		if !skipped(line, comments) {
			return line, true
		}
		if nl < 0 {
			return nil, true
		}
		end = nl
	}
	return nil, whole
}
