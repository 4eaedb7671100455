package treceval

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"slices"
	"strings"
)

// -Z ZSCORES prints each value as a z-score, (value - mean)/stddev, the
// mean and standard deviation of the measure on the query read from
// ZSCORES, lines "qid measure mean stddev" (trec_eval's get_zscores.c and
// convert_zscores.c). A value with no line, or with a stddev of 0 and
// another value than the mean, becomes -1000000; a query with no line at
// all has every value -1000000 (rankeval refuses one whose lookup makes
// trec_eval read past its arrays, see convert).

const missingZscore = -1000000 // MISSING_ZSCORE_VALUE

// zscoreLine is one line of ZSCORES.
type zscoreLine struct {
	qid, meas    string
	mean, stddev float64
}

// zscores are ZSCORES' lines sorted by query, then measure, and the
// queries' stretches of them.
type zscores struct {
	lines []zscoreLine
	qids  []zscoreQuery
}

type zscoreQuery struct {
	qid   string
	start int // its lines: lines[start:start+n]
	n     int
}

// readZscores reads a ZSCORES file as get_zscores.c does: whitespace
// separated fields, four a line (a fifth, or fewer than four, is a
// malformed line); mean and stddev read by atof.
func readZscores(name string) (*zscores, error) {
	data, err := os.ReadFile(name)
	if err != nil || len(data) == 0 {
		return nil, fmt.Errorf("trec_eval.get_zscores: Cannot read zscores file '%s'", name)
	}
	z := &zscores{}
	for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		f := strings.Fields(string(line))
		if len(f) != 4 {
			return nil, fmt.Errorf("%s:%d: trec_eval.get_zscores: Malformed line %d", name, i+1, i+1)
		}
		z.lines = append(z.lines, zscoreLine{f[0], f[1], cAtof(f[2]), cAtof(f[3])})
	}
	// qsort by qid then measure (glibc's merge sort keeps equal lines in
	// file order, as a stable sort does)
	slices.SortStableFunc(z.lines, func(a, b zscoreLine) int {
		return cmp.Or(strings.Compare(a.qid, b.qid), strings.Compare(a.meas, b.meas))
	})
	for i, l := range z.lines {
		if i == 0 || l.qid != z.lines[i-1].qid {
			z.qids = append(z.qids, zscoreQuery{qid: l.qid, start: i})
		}
		z.qids[len(z.qids)-1].n++
	}
	return z, nil
}

// convert turns the values vals of query qid, those of the selection's
// values vs, into z-scores. The lookups are trec_eval's binary searches,
// which end one past their array: for a query's measures that is the
// next query's first line, which trec_eval then uses when its measure is
// the one sought. Past the last query (a query id above all of
// ZSCORES'), and past the last query's last line, trec_eval reads beyond
// its arrays: a segmentation fault, or whatever lies there, so rankeval
// refuses.
func (z *zscores) convert(qid string, vs []value, vals []float64) error {
	past := false
	q, ok := search(len(z.qids), func(i int) int {
		if i == len(z.qids) {
			past = true
			return -1
		}
		return strings.Compare(qid, z.qids[i].qid)
	})
	if past {
		return fmt.Errorf("-Z: query %s is after every query of the z-scores file: trec_eval reads past its array of queries (a segmentation fault); rankeval refuses", qid)
	}
	slot := 0
	for _, v := range vs {
		k := v.width()
		if k != 1 {
			slot += k // runid and num_q have no value; relstring's is a string
			continue
		}
		x := &vals[slot]
		slot++
		if !ok {
			*x = missingZscore
			continue
		}
		zq := z.qids[q]
		i, found := search(zq.n, func(i int) int {
			if zq.start+i >= len(z.lines) {
				past = true
				return -1
			}
			return strings.Compare(v.name, z.lines[zq.start+i].meas)
		})
		if past {
			return fmt.Errorf("-Z: measure %s of query %s is after every line of the z-scores file: trec_eval reads past its array of lines; rankeval refuses", v.name, qid)
		}
		if !found {
			*x = missingZscore
			continue
		}
		l := z.lines[zq.start+i]
		switch {
		case l.stddev != 0:
			*x = (*x - l.mean) / l.stddev
		case *x == l.mean:
			*x = 0
		default:
			*x = missingZscore
		}
	}
	return nil
}

// search is convert_zscores.c's binary search over n entries, which
// probes entry n too (end starts at n, not n-1); cmpAt compares the key
// with entry i.
func search(n int, cmpAt func(i int) int) (int, bool) {
	start, end := 0, n
	for start <= end {
		cur := (start + end) / 2
		switch c := cmpAt(cur); {
		case c < 0:
			end = cur - 1
		case c > 0:
			start = cur + 1
		default:
			return cur, true
		}
	}
	return 0, false
}
