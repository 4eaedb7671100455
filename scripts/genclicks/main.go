// Command genclicks writes a click log shaped like real ones, deterministic
// from a seed, for scripts/clickbench.sh: one JSON object a line with 11
// fields (timestamp, query id, market, device, doc id, position, title,
// score, clicked, dwell time, label), about 230 bytes a row, 10 rows a
// query impression. rankeval reads four of the fields (query_id, doc_id,
// score, label) and skips the other seven, as it would in a real log.
// -format csv writes the same rows as CSV with a header row (the title
// quoted, as warehouse exports quote text), about 150 bytes a row.
//
//	go run ./scripts/genclicks -rows 5000000 -seed 1 > /tmp/clicks.jsonl
//	go run ./scripts/genclicks -rows 5000000 -seed 1 -format csv > /tmp/clicks.csv
//
// It writes plain text to standard output; compress it with the zstd or
// gzip tools.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"
)

var (
	markets = []string{"en-US", "en-GB", "de-DE", "fr-FR", "es-ES", "it-IT", "ja-JP", "pt-BR", "nl-NL", "sv-SE"}
	devices = []string{"desktop", "mobile", "tablet"}
	words   = strings.Fields(`best cheap review how to buy online near me price new used free guide
		top rated deals sale 2026 official store size color black white red blue men women kids home
		garden kitchen outdoor travel repair manual battery charger wireless fast shipping warranty`)
)

func main() {
	rows := flag.Int("rows", 5000000, "number of rows")
	docs := flag.Int("docs", 10, "rows per query impression")
	seed := flag.Uint64("seed", 1, "random seed")
	format := flag.String("format", "jsonl", "jsonl or csv")
	flag.Parse()
	if *rows < 0 || *docs < 1 || flag.NArg() > 0 || *format != "jsonl" && *format != "csv" {
		flag.Usage()
		os.Exit(2)
	}
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	appendRow := appendJSON
	if *format == "csv" {
		w.WriteString("ts,query_id,market,device,doc_id,position,title,score,clicked,dwell_ms,label\n")
		appendRow = appendCSV
	}
	gen(w, *rows, *docs, *seed, appendRow)
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "genclicks:", err)
		os.Exit(1)
	}
}

// click is one row of the log.
type click struct {
	t                  time.Time
	q, doc, pos, dwell int
	label              int
	market, device     string
	title              []string
	score              float64
	clicked            bool
}

// gen writes the rows: impressions of docs results each, in time order.
func gen(w *bufio.Writer, rows, docs int, seed uint64, appendRow func([]byte, *click) []byte) {
	rng := rand.New(rand.NewPCG(seed, 0x636c69636b73))
	t := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	var line []byte
	var c click
	for q := 0; q*docs < rows; q++ {
		t = t.Add(time.Duration(rng.IntN(40)) * time.Millisecond)
		c.t, c.q = t, q
		c.market = markets[rng.IntN(len(markets))]
		c.device = devices[rng.IntN(len(devices))]
		for pos := 1; pos <= docs && q*docs+pos <= rows; pos++ {
			c.pos, c.label = pos, 0
			if r := rng.IntN(100); r >= 55 {
				c.label = 1 + (r-55)/12
			}
			score := float64(float64(c.label)*0.15) + float64(rng.Float64()*0.5)
			c.clicked = c.label > 0 && rng.IntN(3) > 0 || rng.IntN(20) == 0
			c.dwell = 0
			if c.clicked {
				c.dwell = 500 + rng.IntN(120000)
			}
			c.doc = rng.IntN(50000000)
			c.title = c.title[:0]
			for i, n := 0, 4+rng.IntN(6); i < n; i++ {
				c.title = append(c.title, words[rng.IntN(len(words))])
			}
			c.score = float64(int64(score*1e6)) / 1e6
			line = appendRow(line[:0], &c)
			w.Write(line)
		}
	}
}

// appendJSON appends c as a JSON line.
func appendJSON(line []byte, c *click) []byte {
	line = append(line, `{"ts":"`...)
	line = c.t.AppendFormat(line, "2006-01-02T15:04:05.000Z")
	line = append(line, `","query_id":"q`...)
	line = appendPadded(line, c.q, 8)
	line = append(line, `","market":"`...)
	line = append(line, c.market...)
	line = append(line, `","device":"`...)
	line = append(line, c.device...)
	line = append(line, `","doc_id":"d`...)
	line = appendPadded(line, c.doc, 9)
	line = append(line, `","position":`...)
	line = strconv.AppendInt(line, int64(c.pos), 10)
	line = append(line, `,"title":"`...)
	line = append(line, strings.Join(c.title, " ")...)
	line = append(line, `","score":`...)
	line = strconv.AppendFloat(line, c.score, 'f', -1, 64)
	line = append(line, `,"clicked":`...)
	line = strconv.AppendBool(line, c.clicked)
	line = append(line, `,"dwell_ms":`...)
	line = strconv.AppendInt(line, int64(c.dwell), 10)
	line = append(line, `,"label":`...)
	line = strconv.AppendInt(line, int64(c.label), 10)
	return append(line, "}\n"...)
}

// appendCSV appends c as a CSV record, in the header's order.
func appendCSV(line []byte, c *click) []byte {
	line = c.t.AppendFormat(line, "2006-01-02T15:04:05.000Z")
	line = append(line, ",q"...)
	line = appendPadded(line, c.q, 8)
	line = append(append(append(line, ','), c.market...), ',')
	line = append(append(line, c.device...), ",d"...)
	line = appendPadded(line, c.doc, 9)
	line = append(line, ',')
	line = strconv.AppendInt(line, int64(c.pos), 10)
	line = append(append(append(line, `,"`...), strings.Join(c.title, " ")...), `",`...)
	line = strconv.AppendFloat(line, c.score, 'f', -1, 64)
	line = append(line, ',')
	line = strconv.AppendBool(line, c.clicked)
	line = append(line, ',')
	line = strconv.AppendInt(line, int64(c.dwell), 10)
	line = append(line, ',')
	line = strconv.AppendInt(line, int64(c.label), 10)
	return append(line, '\n')
}

func appendPadded(b []byte, v, width int) []byte {
	s := strconv.Itoa(v)
	for range width - len(s) {
		b = append(b, '0')
	}
	return append(b, s...)
}
