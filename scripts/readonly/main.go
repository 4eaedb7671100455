// Command readonly decompresses and parses inputs with rankeval's readers
// and nothing else (no grouping, no metrics): the floor an end-to-end run is
// measured against.
//
//	go run ./scripts/readonly FILE...
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/rankeval/rankeval/reader"
)

func main() {
	// the columns an end-to-end run with the default metrics reads: the doc
	// id too, when present, for the duplicate check
	cols := reader.Columns{Query: "query_id", Doc: "doc_id", DocOptional: true, Score: "score", Label: "label"}
	start := time.Now()
	var rows int64
	var sum float64
	for _, name := range os.Args[1:] {
		r, err := reader.Open(name, cols, reader.Options{})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for r.Next() {
			b := r.Batch()
			rows += int64(b.N)
			for i := 0; i < b.N; i++ {
				sum += b.Score[i] + b.Label[i] + float64(len(b.Query.At(i)))
				if len(b.Doc.Off) > 1 {
					sum += float64(len(b.Doc.At(i)))
				}
			}
		}
		if err := r.Err(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		r.Close()
	}
	el := time.Since(start).Seconds()
	fmt.Printf("rows %d  seconds %.3f  rows/s %.0f  (checksum %g)\n", rows, el, float64(rows)/el, sum)
}
