package propensity

import "github.com/rankeval/rankeval/stats"

// overlap is the part of a table that informs the propensities: the
// (query, document) pairs shown at two positions or more, their counts
// pooled over rankers per position (the paper's weighting: a ranker
// that shows d at k in n_i(q) impressions adds n_i(q) to d's
// impressions at k). Queries are in byte order, documents in byte order
// within their query.
type overlap struct {
	m          int
	pos        []int32 // per cell, 0-based position
	clicks     []int64
	imps       []int64
	docStart   []int // cells of doc i: docStart[i]:docStart[i+1]
	queryStart []int // docs of query j: queryStart[j]:queryStart[j+1]
	hash       []uint64
	// contrib lists each query's contributions to the pair sums,
	// queryContrib[j]:queryContrib[j+1].
	contrib      []pairContrib
	queryContrib []int
	evidence     []Position
}

// pairContrib is one query's contribution to the ordered pair idx =
// k·m + k' (0-based, k ≠ k'): its documents shown at both, their summed
// click rate at k, and their clicks at k.
type pairContrib struct {
	idx    int32
	docs   int64
	clicks int64
	rate   float64
}

// newOverlap reads t's cells (in the order of Each, one query at a
// time) into the overlap, and sums them.
func newOverlap(t *Table) (*overlap, Totals, error) {
	m := t.MaxPosition
	o := &overlap{m: m, evidence: make([]Position, m), queryStart: []int{0}, queryContrib: []int{0}}
	c, n := make([]int64, m), make([]int64, m)
	rate := make([]float64, m*m)
	docs, clk := make([]int64, m*m), make([]int64, m*m)
	var shown, touched []int32
	// doc adds the pooled counts of one document if it was shown at two
	// positions or more, and says whether it did
	doc := func() bool {
		kept := len(shown) >= 2
		sortedInt32(shown)
		if kept {
			o.docStart = append(o.docStart, len(o.pos))
		}
		for _, k := range shown {
			if kept {
				o.pos = append(o.pos, k)
				o.clicks = append(o.clicks, c[k])
				o.imps = append(o.imps, n[k])
				o.evidence[k].Pairs++
				o.evidence[k].Clicks += c[k]
				r := float64(c[k]) / float64(n[k])
				for _, k2 := range shown {
					if k2 == k {
						continue
					}
					idx := k*int32(m) + k2
					if docs[idx] == 0 {
						touched = append(touched, idx)
					}
					docs[idx]++
					clk[idx] += c[k]
					rate[idx] += r
				}
			}
		}
		for _, k := range shown {
			c[k], n[k] = 0, 0
		}
		shown = shown[:0]
		return kept
	}
	var tot totaler
	var cells []Cell // of one query
	// query adds the documents of one query's cells
	query := func() {
		if len(cells) == 0 {
			return
		}
		i, j := 0, len(cells)
		kept := false
		for a := i; a < j; {
			b := a
			for b < j && cells[b].Doc == cells[a].Doc {
				k := int32(cells[b].Position - 1)
				if n[k] == 0 {
					shown = append(shown, k)
				}
				c[k] += cells[b].Clicks
				n[k] += cells[b].Impressions
				o.evidence[k].Impressions += cells[b].Impressions
				b++
			}
			kept = doc() || kept
			a = b
		}
		if kept {
			o.hash = append(o.hash, stats.QueryHash([]byte(cells[i].Query)))
			for _, idx := range sortedInt32(touched) {
				o.contrib = append(o.contrib, pairContrib{idx: idx, docs: docs[idx], clicks: clk[idx], rate: rate[idx]})
				rate[idx], docs[idx], clk[idx] = 0, 0, 0
			}
			touched = touched[:0]
			o.queryStart = append(o.queryStart, len(o.docStart))
			o.queryContrib = append(o.queryContrib, len(o.contrib))
		}
		cells = cells[:0]
	}
	err := t.Each(func(c Cell) error {
		tot.add(c)
		if len(cells) > 0 && c.Query != cells[0].Query {
			query()
		}
		cells = append(cells, c)
		return nil
	})
	if err != nil {
		return nil, Totals{}, err
	}
	query()
	o.docStart = append(o.docStart, len(o.pos))
	for k := range o.evidence {
		o.evidence[k].Position = k + 1
	}
	return o, tot.totals(t.Beyond), nil
}

func sortedInt32(s []int32) []int32 {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j-1] > s[j]; j-- {
			s[j-1], s[j] = s[j], s[j-1]
		}
	}
	return s
}

func (o *overlap) queries() int { return len(o.queryStart) - 1 }

// weights are each query's bootstrap weight in each replicate,
// weights[j·B + b].
func (o *overlap) weights(b int) []uint8 {
	w := make([]uint8, o.queries()*b)
	for j, h := range o.hash {
		stats.BootstrapWeights(h, w[j*b:(j+1)*b])
	}
	return w
}

// pairSums are the pair sums of one resample: per ordered pair idx, the
// documents shown at both positions, their click rates summed at the
// first and their clicks there.
type pairSums struct {
	docs, clicks []int64
	rate         []float64
}

func newPairSums(m int) pairSums {
	return pairSums{docs: make([]int64, m*m), clicks: make([]int64, m*m), rate: make([]float64, m*m)}
}

// sums adds each query's pair contributions, weighted by weight(j), in
// query order.
func (o *overlap) sums(s pairSums, weight func(j int) int64) {
	for j := range o.queries() {
		w := weight(j)
		if w == 0 {
			continue
		}
		for _, c := range o.contrib[o.queryContrib[j]:o.queryContrib[j+1]] {
			s.docs[c.idx] += w * c.docs
			s.clicks[c.idx] += w * c.clicks
			s.rate[c.idx] = float64(float64(w)*c.rate) + s.rate[c.idx]
		}
	}
}

// connected says which positions are tied to position 1 by pairs with
// clicks at both of their positions: only there is a propensity relative
// to position 1 identified by the data.
func connected(m int, s pairSums) []bool {
	ok := make([]bool, m)
	ok[0] = true
	stack := []int{0}
	for len(stack) > 0 {
		k := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for k2 := range m {
			if ok[k2] || k2 == k {
				continue
			}
			if s.clicks[k*m+k2] > 0 && s.clicks[k2*m+k] > 0 {
				ok[k2] = true
				stack = append(stack, k2)
			}
		}
	}
	any := false
	for k := 1; k < m; k++ {
		any = any || ok[k]
	}
	ok[0] = any
	return ok
}
