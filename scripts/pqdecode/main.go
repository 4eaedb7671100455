// Command pqdecode decodes the query_id, doc_id, score and label columns of
// Parquet files with pqarrow and touches every value, and does nothing else:
// the floor rankeval's end-to-end time on Parquet is measured against.
//
//	go run ./scripts/pqdecode [-cols query_id,doc_id,score,label] [-batch 65536] [-parallel=true] [-buffered=true] [-rg-workers 1] FILE...
//
// The defaults are the recommended plain pqarrow read (one RecordReader over
// every row group, columns decoded in parallel, buffered column streams);
// -rg-workers N instead gives each of N goroutines every N-th row group, as
// rankeval's reader does.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

var (
	batch     = flag.Int("batch", 65536, "rows per record batch")
	parallel  = flag.Bool("parallel", true, "decode the columns of a batch in parallel (pqarrow's Parallel)")
	buffered  = flag.Bool("buffered", true, "buffered column streams (BufferedStreamEnabled)")
	rgWorkers = flag.Int("rg-workers", 1, "goroutines, each reading every N-th row group (1: one reader for the file)")
	colList   = flag.String("cols", "query_id,doc_id,score,label", "columns to decode (rankeval reads doc_id only with --ties trec)")
	columns   []string
)

type sums struct {
	rows  int64
	bytes int64
	total float64
}

func main() {
	flag.Parse()
	columns = strings.Split(*colList, ",")
	start := time.Now()
	var all sums
	for _, name := range flag.Args() {
		s, err := decodeFile(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, "pqdecode:", err)
			os.Exit(1)
		}
		all.rows += s.rows
		all.bytes += s.bytes
		all.total += s.total
	}
	el := time.Since(start).Seconds()
	fmt.Printf("rows %d  seconds %.3f  rows/s %.0f  (checksum %d %g)\n", all.rows, el, float64(all.rows)/el, all.bytes, all.total)
}

func decodeFile(name string) (sums, error) {
	f, err := os.Open(name)
	if err != nil {
		return sums{}, err
	}
	defer f.Close()
	props := parquet.NewReaderProperties(memory.DefaultAllocator)
	props.BufferedStreamEnabled = *buffered
	props.BufferSize = 1 << 20
	pf, err := file.NewParquetReader(f, file.WithReadProps(props))
	if err != nil {
		return sums{}, err
	}
	meta := pf.MetaData()
	var cols []int
	for _, c := range columns {
		i := meta.Schema.ColumnIndexByName(c)
		if i < 0 {
			return sums{}, fmt.Errorf("%s: no column %q", name, c)
		}
		cols = append(cols, i)
	}
	n := pf.NumRowGroups()
	p := max(1, min(*rgWorkers, n))
	parts := make([]sums, p)
	errs := make([]error, p)
	var wg sync.WaitGroup
	for w := range p {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wpf := pf
			if w > 0 {
				if wpf, err = file.NewParquetReader(f, file.WithReadProps(props), file.WithMetadata(meta)); err != nil {
					errs[w] = err
					return
				}
			}
			fr, err := pqarrow.NewFileReader(wpf, pqarrow.ArrowReadProperties{BatchSize: int64(*batch), Parallel: *parallel}, memory.DefaultAllocator)
			if err != nil {
				errs[w] = err
				return
			}
			var rgs []int // nil: every row group, one reader
			if *rgWorkers > 1 {
				for rg := w; rg < n; rg += p {
					rgs = append(rgs, rg)
				}
				// one reader per row group, as rankeval reads them
				for _, rg := range rgs {
					if errs[w] = readGroups(fr, cols, []int{rg}, &parts[w]); errs[w] != nil {
						return
					}
				}
				return
			}
			errs[w] = readGroups(fr, cols, nil, &parts[w])
		}()
	}
	wg.Wait()
	var s sums
	for w := range p {
		if errs[w] != nil {
			return s, errs[w]
		}
		s.rows += parts[w].rows
		s.bytes += parts[w].bytes
		s.total += parts[w].total
	}
	return s, nil
}

func readGroups(fr *pqarrow.FileReader, cols, rgs []int, s *sums) error {
	rr, err := fr.GetRecordReader(context.Background(), cols, rgs)
	if err != nil {
		return err
	}
	defer rr.Release()
	for rr.Next() {
		touch(rr.RecordBatch(), s)
	}
	return rr.Err()
}

// touch reads every value so nothing is decoded for nothing.
func touch(rec arrow.RecordBatch, s *sums) {
	s.rows += rec.NumRows()
	for _, col := range rec.Columns() {
		switch a := col.(type) {
		case *array.String:
			for i := range a.Len() {
				s.bytes += int64(len(a.Value(i)))
			}
		case *array.Float64:
			for _, v := range a.Float64Values() {
				s.total += v
			}
		case *array.Int32:
			for _, v := range a.Int32Values() {
				s.total += float64(v)
			}
		}
	}
}
