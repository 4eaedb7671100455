// Command genclicks writes a click log shaped like real ones, deterministic
// from a seed, for scripts/clickbench.sh: one JSON object a line with 11
// fields (timestamp, query id, market, device, doc id, position, title,
// score, clicked, dwell time, label), about 230 bytes a row, 10 rows a
// query impression. rankeval reads four of the fields (query_id, doc_id,
// score, label) and skips the other seven, as it would in a real log.
//
//	go run ./scripts/genclicks -rows 5000000 -seed 1 > /tmp/clicks.jsonl
//
// It writes plain JSON lines to standard output; compress them with the
// zstd or gzip tools.
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
	flag.Parse()
	if *rows < 0 || *docs < 1 || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	gen(w, *rows, *docs, *seed)
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "genclicks:", err)
		os.Exit(1)
	}
}

// gen writes the rows: impressions of docs results each, in time order.
func gen(w *bufio.Writer, rows, docs int, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 0x636c69636b73))
	t := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	var line []byte
	for q := 0; q*docs < rows; q++ {
		t = t.Add(time.Duration(rng.IntN(40)) * time.Millisecond)
		market := markets[rng.IntN(len(markets))]
		device := devices[rng.IntN(len(devices))]
		for pos := 1; pos <= docs && q*docs+pos <= rows; pos++ {
			label := 0
			if r := rng.IntN(100); r >= 55 {
				label = 1 + (r-55)/12
			}
			score := float64(label)*0.15 + rng.Float64()*0.5
			clicked := label > 0 && rng.IntN(3) > 0 || rng.IntN(20) == 0
			dwell := 0
			if clicked {
				dwell = 500 + rng.IntN(120000)
			}
			line = append(line[:0], `{"ts":"`...)
			line = t.AppendFormat(line, "2006-01-02T15:04:05.000Z")
			line = append(line, `","query_id":"q`...)
			line = appendPadded(line, q, 8)
			line = append(line, `","market":"`...)
			line = append(line, market...)
			line = append(line, `","device":"`...)
			line = append(line, device...)
			line = append(line, `","doc_id":"d`...)
			line = appendPadded(line, rng.IntN(50000000), 9)
			line = append(line, `","position":`...)
			line = strconv.AppendInt(line, int64(pos), 10)
			line = append(line, `,"title":"`...)
			for i, n := 0, 4+rng.IntN(6); i < n; i++ {
				if i > 0 {
					line = append(line, ' ')
				}
				line = append(line, words[rng.IntN(len(words))]...)
			}
			line = append(line, `","score":`...)
			line = strconv.AppendFloat(line, float64(int64(score*1e6))/1e6, 'f', -1, 64)
			line = append(line, `,"clicked":`...)
			line = strconv.AppendBool(line, clicked)
			line = append(line, `,"dwell_ms":`...)
			line = strconv.AppendInt(line, int64(dwell), 10)
			line = append(line, `,"label":`...)
			line = strconv.AppendInt(line, int64(label), 10)
			line = append(line, "}\n"...)
			w.Write(line)
		}
	}
}

func appendPadded(b []byte, v, width int) []byte {
	s := strconv.Itoa(v)
	for range width - len(s) {
		b = append(b, '0')
	}
	return append(b, s...)
}
