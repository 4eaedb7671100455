// Command gentrec writes a random TREC qrels file and run, deterministic
// from a seed, with the awkward cases peers disagree on: tied scores,
// judged documents never retrieved, retrieved documents never judged,
// queries with no relevant document, and queries only in the qrels or only
// in the run; on demand, negative judgments (-1, -2: pooled, not judged)
// and queries judged only so, binary or finer grades (above 9, which
// relstring prints as >), and rankings of any length up to -depth.
//
//	go run ./scripts/gentrec -lines 10000000 -qrels /tmp/q.txt -run /tmp/r.txt
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
)

func main() {
	lines := flag.Int("lines", 1_000_000, "run lines to write")
	depth := flag.Int("depth", 1000, "run lines per query")
	seed := flag.Uint64("seed", 1, "random seed")
	qrelsPath := flag.String("qrels", "", "qrels output")
	runPath := flag.String("run", "", "run output")
	flag.IntVar(&opt.grades, "grades", 3, "relevant judgments are 1 to this (1: binary qrels)")
	flag.IntVar(&opt.negative, "negative", 0, "percent of judgments that are negative (-1 or -2); with it, every 25th query is judged only so")
	flag.BoolVar(&opt.vary, "vary", false, "each query retrieves from 1 to -depth documents, not -depth")
	flag.Parse()
	if *qrelsPath == "" || *runPath == "" || *depth < 1 || opt.grades < 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := write(*qrelsPath, *runPath, *lines, *depth, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "gentrec:", err)
		os.Exit(1)
	}
}

// opt are the cases beyond the default ones; their zero values (but
// grades, 3) leave the output as it was before they existed.
var opt struct {
	grades, negative int
	vary             bool
}

func write(qrelsPath, runPath string, lines, depth int, seed uint64) error {
	qf, err := os.Create(qrelsPath)
	if err != nil {
		return err
	}
	defer qf.Close()
	rf, err := os.Create(runPath)
	if err != nil {
		return err
	}
	defer rf.Close()
	qw, rw := bufio.NewWriterSize(qf, 1<<20), bufio.NewWriterSize(rf, 1<<20)
	r := rand.New(rand.NewPCG(seed, 7))
	buf := make([]byte, 0, 64)
	written, extra := 0, 0
	// queries until the run has its lines, then a few judged queries the
	// run never reaches
	for q := 0; written < lines || extra < lines/depth/20+1; q++ {
		qid := strconv.Itoa(1000 + q)
		inRun := written < lines && q%50 != 7 // every 50th query only in the qrels
		inQrels := q%40 != 3 || !inRun        // every 40th query only in the run
		noRel := q%25 == 11                   // judged, nothing relevant
		n := min(depth, lines-written)
		if opt.vary {
			n = min(1+r.IntN(depth), lines-written)
		}
		negOnly := opt.negative > 0 && q%25 == 17 // judged, every judgment negative
		if !inRun {
			n = 0
			if written >= lines {
				extra++
			}
		}
		// judge a third of the retrieved documents plus some never retrieved
		if inQrels {
			for d := 0; d < depth+depth/5; d++ {
				if d < depth && r.IntN(3) != 0 {
					continue
				}
				label := 0
				if !noRel && r.IntN(3) == 0 {
					label = 1 + r.IntN(opt.grades)
				}
				if negOnly || opt.negative > 0 && r.IntN(100) < opt.negative {
					label = -1 - r.IntN(2)
				}
				buf = append(buf[:0], qid...)
				buf = append(buf, " 0 D"...)
				buf = strconv.AppendInt(buf, int64(q*100000+d), 10)
				buf = append(buf, ' ')
				buf = strconv.AppendInt(buf, int64(label), 10)
				buf = append(buf, '\n')
				qw.Write(buf)
			}
		}
		for i := 0; i < n; i++ {
			// scores on a coarse grid so ties are common
			score := float64(r.IntN(2000)) / 100
			buf = append(buf[:0], qid...)
			buf = append(buf, " Q0 D"...)
			buf = strconv.AppendInt(buf, int64(q*100000+i), 10)
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(i+1), 10)
			buf = append(buf, ' ')
			buf = strconv.AppendFloat(buf, score, 'f', -1, 64)
			buf = append(buf, " gen\n"...)
			rw.Write(buf)
		}
		written += n
	}
	if err := qw.Flush(); err != nil {
		return err
	}
	return rw.Flush()
}
