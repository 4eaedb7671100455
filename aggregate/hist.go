package aggregate

import "math"

// Range says where a metric's values lie. It picks the histogram's bins and
// the bootstrap's fixed-point scale.
type Range int

const (
	RangeUnit   Range = iota // [0, 1]: p, r, f, hit, ap, rr, rprec, ndcg, err, nerr
	RangeSigned              // [-1, 1]: kendall, spearman
	RangeOpen                // [0, ∞): cg, dcg
)

// unitBins is the number of equal bins of a bounded range.
const unitBins = 20

// openBins: 0, (0, 1), then [2^(k-2), 2^(k-1)) for k >= 2; the last bin
// takes everything above.
const openBins = 40

// Hist counts the per-query values of one metric in fixed bins, so that
// histograms merge exactly and need no pass over the data to find a range.
type Hist struct {
	Range  Range
	Counts []int64
}

// NewHist makes an empty histogram for values of r.
func NewHist(r Range) Hist {
	n := unitBins
	if r == RangeOpen {
		n = openBins
	}
	return Hist{Range: r, Counts: make([]int64, n)}
}

// Add counts v; NaN (undefined) is not counted, values outside the range
// go to the nearest end bin.
func (h *Hist) Add(v float64) {
	if math.IsNaN(v) {
		return
	}
	n := len(h.Counts)
	var i int
	switch h.Range {
	case RangeUnit:
		i = int(math.Floor(v * unitBins))
	case RangeSigned:
		i = int(math.Floor((v + 1) * unitBins / 2))
	default:
		switch {
		case v <= 0:
			i = 0
		case v < 1:
			i = 1
		default:
			_, e := math.Frexp(v) // v in [2^(e-1), 2^e)
			i = min(e+1, n-1)
		}
	}
	h.Counts[max(0, min(i, n-1))]++
}

// Merge adds o into h.
func (h *Hist) Merge(o *Hist) {
	for i, c := range o.Counts {
		h.Counts[i] += c
	}
}

// Edges returns bin i's bounds: [lo, hi), the last bounded bin closed. For
// the open range, bin 0 is the value 0 (lo = hi = 0) and the last bin's hi
// is +Inf.
func (h *Hist) Edges(i int) (lo, hi float64) {
	switch h.Range {
	case RangeUnit:
		return float64(i) / unitBins, float64(i+1) / unitBins
	case RangeSigned:
		return -1 + 2*float64(i)/unitBins, -1 + 2*float64(i+1)/unitBins
	}
	switch {
	case i == 0:
		return 0, 0
	case i == 1:
		return 0, 1
	case i == len(h.Counts)-1:
		return math.Ldexp(1, i-2), math.Inf(1)
	}
	return math.Ldexp(1, i-2), math.Ldexp(1, i-1)
}
