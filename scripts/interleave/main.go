// Command interleave rewrites a JSONL log grouped by query so that its
// queries are no longer contiguous: it keeps -window queries open and deals
// their rows out round-robin, one row at a time, keeping each query's rows
// in their original order. The result is the same log, out of query order,
// for testing --unsorted on inputs of any size in bounded memory.
//
//	go run ./scripts/interleave -window 64 -o shuffled.jsonl.zst sorted.jsonl.zst
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/klauspost/compress/zstd"
)

func main() {
	window := flag.Int("window", 64, "queries dealt out together")
	out := flag.String("o", "", "output (.jsonl or .jsonl.zst)")
	queryKey := flag.String("query-col", "query_id", "query id field")
	flag.Parse()
	if *out == "" || flag.NArg() != 1 || *window < 2 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *out, *queryKey, *window); err != nil {
		fmt.Fprintln(os.Stderr, "interleave:", err)
		os.Exit(1)
	}
}

func run(in, out, key string, window int) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	var src io.Reader = f
	if strings.HasSuffix(in, ".zst") {
		d, err := zstd.NewReader(f)
		if err != nil {
			return err
		}
		defer d.Close()
		src = d
	}
	o, err := os.Create(out + ".tmp")
	if err != nil {
		return err
	}
	defer o.Close()
	var dst io.WriteCloser = nopCloser{o}
	if strings.HasSuffix(out, ".zst") {
		if dst, err = zstd.NewWriter(o, zstd.WithEncoderLevel(zstd.SpeedFastest)); err != nil {
			return err
		}
	}
	w := bufio.NewWriterSize(dst, 1<<20)
	sc := bufio.NewScanner(src)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	needle := []byte(`"` + key + `":`)
	var (
		open    [][][]byte // rows of the open queries
		cur     [][]byte
		lastKey []byte
	)
	deal := func() {
		for left := true; left; {
			left = false
			for i := range open {
				if len(open[i]) > 0 {
					w.Write(open[i][0])
					w.WriteByte('\n')
					open[i] = open[i][1:]
					left = true
				}
			}
		}
		open = open[:0]
	}
	for sc.Scan() {
		line := append([]byte(nil), sc.Bytes()...)
		k := line
		if i := bytes.Index(line, needle); i >= 0 {
			k = line[i:]
			if j := bytes.IndexAny(k[len(needle):], ",}"); j >= 0 {
				k = k[:len(needle)+j]
			}
		}
		if lastKey != nil && !bytes.Equal(k, lastKey) {
			open = append(open, cur)
			cur = nil
			if len(open) == window {
				deal()
			}
		}
		lastKey = append(lastKey[:0], k...)
		cur = append(cur, line)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if cur != nil {
		open = append(open, cur)
	}
	deal()
	if err := w.Flush(); err != nil {
		return err
	}
	if err := dst.Close(); err != nil {
		return err
	}
	if err := o.Close(); err != nil {
		return err
	}
	return os.Rename(out+".tmp", out)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
