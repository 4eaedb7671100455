package reader

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/jsonl"
	"github.com/rankeval/rankeval/reader/internal/readertest"
	"github.com/rankeval/rankeval/reader/internal/scan"
)

// withJSONLBlock sets the size of JSONL's blocks of lines for one test.
func withJSONLBlock(t testing.TB, n int) { readertest.SetForTest(t, &jsonl.BlockSize, n) }

// genJSONL writes n lines in the shapes JSONL files take: a byte order
// mark, blank lines, CRLF, escapes, unread fields with nesting, lines
// longer than the small test blocks, and a last line without a newline.
func genJSONL(seed uint64, n int) string {
	rng := rand.New(rand.NewPCG(seed, 2))
	var b strings.Builder
	b.WriteString("\xef\xbb\xbf")
	for i := range n {
		switch rng.IntN(12) {
		case 0:
			b.WriteString("\n")
		case 1:
			b.WriteString("  \r\n")
		}
		pad := strings.Repeat("x", rng.IntN(3)*rng.IntN(120))
		fmt.Fprintf(&b, `{"t":"%s","query_id":"q%d","x":{"a":[1,"}\""],"b":"\\u00e9"},"doc_id":"d\"%d","score":%g,"label":%d}`,
			pad, i/9, i, float64(rng.IntN(1000))/7, rng.IntN(4))
		if i < n-1 {
			b.WriteString([]string{"\n", "\r\n"}[rng.IntN(2)])
		}
	}
	return b.String()
}

type jsonlRead struct {
	rows []readertest.RowOut
	err  string
}

func readJSONL(t testing.TB, name string, opt batch.Options) jsonlRead {
	t.Helper()
	r, err := Open(name, readertest.TestCols, opt)
	if err != nil {
		return jsonlRead{err: err.Error()}
	}
	defer r.Close()
	rows, err := readertest.ReadAllRows(t, r)
	res := jsonlRead{rows: rows}
	if err != nil {
		res.err = err.Error()
	}
	return res
}

// sameJSONL compares two reads of one input. Before an error, the rows of
// the batches that end before it are handed on, which depends on where
// batches and blocks end: there one read's rows need only be a prefix of
// the other's.
func sameJSONL(a, b jsonlRead) string {
	if a.err != b.err {
		return fmt.Sprintf("error %q, want %q", a.err, b.err)
	}
	if len(a.rows) != len(b.rows) && a.err == "" {
		return fmt.Sprintf("%d rows, want %d", len(a.rows), len(b.rows))
	}
	for i := range min(len(a.rows), len(b.rows)) {
		x, y := a.rows[i], b.rows[i]
		if math.Float64bits(x.Score) != math.Float64bits(y.Score) {
			return fmt.Sprintf("row %d: score %v, want %v", i, x.Score, y.Score)
		}
		if x != y {
			return fmt.Sprintf("row %d: %+v, want %+v", i, x, y)
		}
	}
	return ""
}

// sameInBlocks reads the input at p in blocks of each size (which setBlock
// sets), on each number of decoders, in batches of each size, and compares
// every read with want (sameJSONL), each in a subtest under name.
func sameInBlocks(t *testing.T, name, p string, want jsonlRead, setBlock func(testing.TB, int), blocks, decoders, batches []int) {
	t.Helper()
	for _, block := range blocks {
		for _, dec := range decoders {
			for _, bs := range batches {
				t.Run(fmt.Sprintf("%s/block=%d/decoders=%d/batch=%d", name, block, dec, bs), func(t *testing.T) {
					setBlock(t, block)
					if d := sameJSONL(readJSONL(t, p, batch.Options{Decoders: dec, BatchSize: bs}), want); d != "" {
						t.Fatal(d)
					}
				})
			}
		}
	}
}

// TestJSONLBlocks: JSONL parsed in blocks of any size on any number of
// goroutines, in batches of any size, gives the rows, values and line
// numbers of one goroutine reading blocks of the default size, plain and
// compressed.
func TestJSONLBlocks(t *testing.T) {
	data := genJSONL(1, 3000)
	inputs := map[string][]byte{"plain": []byte(data), "gzip": readertest.GzipBytes([]byte(data)), "zstd": readertest.ZstdBytes([]byte(data))}
	for name, in := range inputs {
		p := readertest.WriteFile(t, "log."+name, in)
		want := readJSONL(t, p, batch.Options{Decoders: 1})
		if want.err != "" || len(want.rows) != 3000 || want.rows[2999].Pos < 3000 {
			t.Fatalf("one decoder: %d rows, error %q", len(want.rows), want.err)
		}
		sameInBlocks(t, name, p, want, withJSONLBlock, []int{64, 100, 1000, 4096}, []int{1, 2, 3, 8}, []int{1, 7, 8192})
	}
}

// TestJSONLBlocksErrors: a bad line stops the reader at the same line, with
// the same message, wherever the block edges fall and however many
// goroutines parse; a read error (a truncated stream) comes after the rows
// before it.
func TestJSONLBlocksErrors(t *testing.T) {
	lines := strings.Split(genJSONL(2, 400), "\n")
	bad := map[string]string{
		"not an object": `["q", 1]`,
		"bad score":     `{"query_id":"q","doc_id":"d","score":"high","label":1}`,
		"no label":      `{"query_id":"q","doc_id":"d","score":1}`,
		"unterminated":  `{"query_id":"q`,
	}
	for what, line := range bad {
		for _, at := range []int{0, 1, len(lines) / 2, len(lines) - 1} {
			data := strings.Join(append(append(append([]string{}, lines[:at]...), line), lines[at:]...), "\n")
			p := readertest.WriteFile(t, "bad.jsonl", []byte(data))
			want := readJSONL(t, p, batch.Options{Decoders: 1})
			if want.err == "" || at > 0 && !strings.Contains(want.err, fmt.Sprintf(":%d: ", at+1)) {
				t.Fatalf("%s at line %d: no error", what, at+1)
			}
			sameInBlocks(t, fmt.Sprintf("%s/line=%d", what, at+1), p, want, withJSONLBlock, []int{64, 1000}, []int{2, 3}, []int{5})
		}
	}
	t.Run("truncated zstd", func(t *testing.T) { sameTruncated(t, "cut.jsonl.zst", genJSONL(4, 20000), withJSONLBlock) })
}

// sameTruncated: text cut short in the middle of a zstd stream (written to
// a file called name) is an error naming the file after the rows before
// it, the same on three decoders in small blocks (setBlock) as on one.
func sameTruncated(t *testing.T, name, text string, setBlock func(testing.TB, int)) {
	z := readertest.ZstdBytes([]byte(text))
	p := readertest.WriteFile(t, name, z[:len(z)*2/3])
	want := readJSONL(t, p, batch.Options{Decoders: 1})
	if !strings.HasPrefix(want.err, p+":") || !strings.Contains(want.err, "truncated") || len(want.rows) == 0 {
		t.Fatalf("one decoder: %d rows, error %q", len(want.rows), want.err)
	}
	setBlock(t, 1000)
	if d := sameJSONL(readJSONL(t, p, batch.Options{Decoders: 3}), want); d != "" {
		t.Fatal(d)
	}
}

// FuzzJSONLBlocks: any input reads the same in small blocks on several
// goroutines as in default blocks on one.
func FuzzJSONLBlocks(f *testing.F) {
	f.Add([]byte(genJSONL(3, 5)), uint8(20))
	f.Add([]byte("{\"query_id\":\"q\",\"doc_id\":\"d\",\"score\":1,\"label\":1}\n\n\r\n{}\n"), uint8(3))
	f.Add([]byte("\xef\xbb\xbf{\"query_id\":\"q\\n\",\"doc_id\":7,\"score\":1e3,\"label\":true}"), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, block uint8) {
		if bytes.HasPrefix(data, scan.MagicGzip) || bytes.HasPrefix(data, scan.MagicZstd[:1]) || bytes.HasPrefix(data, scan.MagicParquet[:1]) ||
			bytes.HasPrefix(data, scan.MagicArrowFile[:1]) || bytes.HasPrefix(data, scan.MagicArrowIPC[:1]) {
			t.Skip("not text: FuzzDetect covers it")
		}
		p := readertest.WriteFile(t, "in.jsonl", data)
		want := readJSONL(t, p, batch.Options{Decoders: 1, BatchSize: 3})
		withJSONLBlock(t, 1+int(block))
		if d := sameJSONL(readJSONL(t, p, batch.Options{Decoders: 3, BatchSize: 2}), want); d != "" {
			t.Fatal(d)
		}
	})
}
