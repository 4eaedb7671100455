package reader

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
)

// RunTag returns the run tag (the sixth field) of the last line of a TREC
// run file (plain, gzip or zstd), which is what trec_eval prints as runid;
// "" when the file has no line. A plain file is read from its end; a
// compressed one has to be decompressed through.
func RunTag(name string) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<16)
	head, _ := br.Peek(4)
	src, closeDec, err := decompress(name, br, head)
	if err != nil {
		return "", err
	}
	defer closeDec()
	var last []byte
	if src == io.Reader(br) {
		last, err = lastLineOfFile(f)
	} else {
		last, err = lastLine(src)
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	fields := bytes.Fields(last)
	if len(fields) < 6 {
		if len(fields) == 0 {
			return "", nil
		}
		return "", fmt.Errorf("%s: the last line has %d fields, not 6 (qid Q0 docno rank score runid): %w", name, len(fields), ErrSyntax)
	}
	return string(fields[5]), nil
}

// lastLineOfFile reads backwards from the end of f to its last line that
// is not blank.
func lastLineOfFile(f *os.File) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
		return lastLine(f)
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
		if line, ok := lastNonBlank(tail, start == 0); ok {
			return line, nil
		}
	}
	return nil, nil
}

// lastLine reads r through and keeps its last line that is not blank.
func lastLine(r io.Reader) ([]byte, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<30)
	var last []byte
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) > 0 {
			last = append(last[:0], sc.Bytes()...)
		}
	}
	return last, sc.Err()
}

// lastNonBlank finds the last line of tail that is not blank; a line is
// only whole once a newline precedes it, or tail starts the file (whole).
func lastNonBlank(tail []byte, whole bool) ([]byte, bool) {
	end := len(tail)
	for end > 0 {
		nl := bytes.LastIndexByte(tail[:end], '\n')
		line := tail[nl+1 : end]
		if nl < 0 && !whole {
			return nil, false
		}
		if len(bytes.TrimSpace(line)) > 0 {
			return line, true
		}
		if nl < 0 {
			return nil, true
		}
		end = nl
	}
	return nil, whole
}
