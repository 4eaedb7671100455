package reader

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/csv"
	"github.com/rankeval/rankeval/reader/internal/readertest"
)

// withCSVBlock sets the size of CSV's blocks of records for one test.
func withCSVBlock(t testing.TB, n int) { readertest.SetForTest(t, &csv.BufSize, n) }

// genDelimited writes a header and n records of CSV (sep ',') or TSV
// (sep '\t') in the shapes such files take: a byte order mark, blank lines
// before the header and between records, CRLF, quoted fields holding
// separators, doubled quotes and newlines (CSV), fields longer than the
// small test blocks, and a last record without a newline.
func genDelimited(seed uint64, n int, sep byte) string {
	rng := rand.New(rand.NewPCG(seed, 3))
	var b strings.Builder
	s := string(sep)
	b.WriteString("\xef\xbb\xbf\n\r\n")
	b.WriteString(strings.Join([]string{"ts", "query_id", "title", "doc_id", "score", "label"}, s) + "\n")
	for i := range n {
		if k := rng.IntN(12); k < 2 {
			b.WriteString([]string{"\n", "\r\n"}[k]) // a blank line
		}
		title := "t" + strings.Repeat("x", rng.IntN(3)*rng.IntN(150))
		doc := fmt.Sprintf("d%d", i)
		if sep == ',' {
			switch rng.IntN(4) {
			case 0:
				title = `"` + title + ",\n\"\"\r\nmore" + strings.Repeat("\n", rng.IntN(3)) + `"`
			case 1:
				doc = fmt.Sprintf(`"d""%d""`+"\n"+`x"`, i)
			case 2:
				title = `"` + title + `"`
			}
		}
		fmt.Fprintf(&b, "1700000000%[1]sq%[2]d%[1]s%[3]s%[1]s%[4]s%[1]s%[5]g%[1]s%[6]d", s, i/9, title, doc, float64(rng.IntN(1000))/7, rng.IntN(4))
		if i < n-1 {
			b.WriteString([]string{"\n", "\r\n"}[rng.IntN(2)])
		}
	}
	return b.String()
}

// TestCSVBlocks: CSV and TSV parsed in blocks of any size (records
// straddling blocks, records longer than a block) on any number of
// goroutines, in batches of any size, give the rows, values and line
// numbers of one goroutine reading blocks of the default size, plain and
// compressed.
func TestCSVBlocks(t *testing.T) {
	for _, d := range []csv.Dialect{csv.DialectCSV, csv.DialectTSV} {
		data := []byte(genDelimited(1, 2000, d.Sep))
		ext := strings.ToLower(d.Name)
		inputs := map[string][]byte{ext: data, ext + ".gz": readertest.GzipBytes(data), ext + ".zst": readertest.ZstdBytes(data)}
		for name, in := range inputs {
			p := readertest.WriteFile(t, "log."+name, in)
			want := readJSONL(t, p, batch.Options{Decoders: 1})
			if want.err != "" || len(want.rows) != 2000 || want.rows[1999].Pos < 2000 {
				t.Fatalf("%s, one decoder: %d rows, error %q", name, len(want.rows), want.err)
			}
			sameInBlocks(t, name, p, want, withCSVBlock, []int{16, 64, 100, 1000, 4096}, []int{1, 2, 3, 8}, []int{1, 7, 8192})
		}
	}
}

// TestCSVBlocksErrors: a bad record stops the reader at the same line, with
// the same message, wherever the block edges fall and however many
// goroutines parse, a stray quote (which defeats the cut) included.
func TestCSVBlocksErrors(t *testing.T) {
	for _, d := range []csv.Dialect{csv.DialectCSV, csv.DialectTSV} {
		text := genDelimited(2, 300, d.Sep)
		head := strings.Index(text, "label\n") + len("label\n")
		recs := strings.SplitAfter(text[head:], "0\n") // ends of some records, for places to put the bad one
		bad := map[string]string{
			"bad score":   "1\tq\tt\td\thigh\t1\n",
			"ragged":      "1\tq\tt\td\t1\n",
			"empty label": "1\tq\tt\td\t1\t\n",
		}
		if d.Quote != 0 {
			bad["stray quote"] = "1,q,t\"x,d,1,1\n"
			bad["after closing quote"] = "1,q,\"t\nx\"y,d,1,1\n"
			bad["never closed"] = "1,q,\"t\nx,d,1,1\n"
		}
		for what, rec := range bad {
			rec = strings.ReplaceAll(rec, "\t", string(d.Sep))
			for _, at := range []int{0, 1, len(recs) / 2, len(recs) - 1} {
				data := text[:head] + strings.Join(recs[:at], "") + rec + strings.Join(recs[at:], "")
				p := readertest.WriteFile(t, "bad."+strings.ToLower(d.Name), []byte(data))
				want := readJSONL(t, p, batch.Options{Decoders: 1})
				line := strings.Count(text[:head]+strings.Join(recs[:at], ""), "\n") + 1
				if what == "after closing quote" {
					line++ // the quote closes on the record's second line
				}
				// a quote never closed runs on to the next quote, where the
				// error may be
				if want.err == "" || what != "never closed" && !strings.Contains(want.err, fmt.Sprintf(":%d: ", line)) {
					t.Fatalf("%s %s at line %d: error %q", d.Name, what, line, want.err)
				}
				sameInBlocks(t, fmt.Sprintf("%s/%s/line=%d", d.Name, what, line), p, want, withCSVBlock, []int{16, 64, 1000}, []int{2, 3, 8}, []int{1, 5})
			}
		}
	}
	t.Run("truncated zstd", func(t *testing.T) { sameTruncated(t, "cut.csv.zst", genDelimited(4, 20000, ','), withCSVBlock) })
}
