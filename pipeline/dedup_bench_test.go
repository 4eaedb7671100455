package pipeline

import (
	"fmt"
	"testing"
)

// BenchmarkDocSet checks a TREC-like query of 1,000 short doc ids for
// duplicates and looks up 570 judged docnos, 40% of them retrieved, as
// the workers do for each query of a run joined with qrels; rows/s counts
// the query's rows.
func BenchmarkDocSet(b *testing.B) {
	const n, judged = 1000, 570
	// ids packed in one buffer each side, as a group's and the qrels' are
	pack := func(n, step int) [][]byte {
		var buf []byte
		var off []int
		for i := range n {
			off = append(off, len(buf))
			buf = fmt.Appendf(buf, "D%d", i*step)
		}
		off = append(off, len(buf))
		ids := make([][]byte, n)
		for i := range ids {
			ids[i] = buf[off[i]:off[i+1]]
		}
		return ids
	}
	docs, look := pack(n, 7), pack(judged, 5) // every 7th one retrieved
	s := newDocSet()
	found := 0
	for range b.N {
		if dup, _ := s.firstDuplicate(docs); dup >= 0 {
			b.Fatal("duplicate")
		}
		for _, d := range look {
			if s.find(d) >= 0 {
				found++
			}
		}
	}
	if found != b.N*(judged/7+1) {
		b.Fatalf("found %d", found)
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "rows/s")
}
