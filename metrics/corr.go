package metrics

import (
	"math"
	"slices"
)

// pt is one row for a correlation: x is the score side, y the label, rx the
// average rank of x (Spearman).
type pt struct{ x, y, rx float64 }

// The comparators skip cmp.Compare's NaN handling: the caller rejects NaN
// scores and labels.
func cmpXY(a, b pt) int {
	switch {
	case a.x < b.x:
		return -1
	case a.x > b.x:
		return 1
	}
	return cmpY(a, b)
}

func cmpY(a, b pt) int {
	switch {
	case a.y < b.y:
		return -1
	case a.y > b.y:
		return 1
	}
	return 0
}

// correlations fills the kendall and spearman values. It must run while
// e.ents still holds the TiesInput ranking, since that is what their cutoffs
// take.
func (e *Evaluator) correlations(l *List, out []float64) {
	n := len(l.Label)
	for j, m := range e.ms {
		if m.Kind != KindKendall && m.Kind != KindSpearman {
			continue
		}
		k := cutAt(m.K, n)
		e.pts = grow(e.pts, k)
		for p, en := range e.ents[:k] {
			var x float64
			if l.Score != nil {
				x = l.Score[en.i]
			} else {
				x = -float64(l.Rank[en.i])
			}
			e.pts[p] = pt{x: x, y: l.Label[en.i]}
		}
		if m.Kind == KindKendall {
			out[j] = e.kendall(e.pts)
		} else {
			out[j] = spearman(e.pts)
		}
	}
}

// kendall is Kendall's tau-b by Knight's O(n log n) algorithm: sort by
// (x, y), count the tied pairs, then count the swaps a merge sort on y makes
// (the discordant pairs).
func (e *Evaluator) kendall(ps []pt) float64 {
	n := len(ps)
	if n < 2 {
		return math.NaN()
	}
	slices.SortFunc(ps, cmpXY)
	var tx, txy int64 // pairs tied on x, on both
	for s := 0; s < n; {
		end := s + 1
		for end < n && ps[end].x == ps[s].x {
			end++
		}
		tx += pairs(end - s)
		for u := s; u < end; {
			w := u + 1
			for w < end && ps[w].y == ps[u].y {
				w++
			}
			txy += pairs(w - u)
			u = w
		}
		s = end
	}
	e.ky = grow(e.ky, n)
	e.ktmp = grow(e.ktmp, n)
	for p := range ps {
		e.ky[p] = ps[p].y
	}
	swaps := mergeCount(e.ky, e.ktmp)
	var ty int64
	for s := 0; s < n; {
		end := s + 1
		for end < n && e.ky[end] == e.ky[s] {
			end++
		}
		ty += pairs(end - s)
		s = end
	}
	n0 := pairs(n)
	if tx == n0 || ty == n0 {
		return math.NaN()
	}
	num := float64(n0 - tx - ty + txy - 2*swaps)
	return num / math.Sqrt(float64(n0-tx)*float64(n0-ty))
}

func pairs(m int) int64 { return int64(m) * int64(m-1) / 2 }

// mergeCount sorts a ascending with a bottom-up merge sort and returns the
// number of inversions (pairs out of order, ties not counted).
func mergeCount(a, tmp []float64) int64 {
	n := len(a)
	var swaps int64
	if n < 2 {
		return 0
	}
	src, dst := a, tmp[:n]
	for w := 1; w < n; w *= 2 {
		for lo := 0; lo < n; lo += 2 * w {
			mid := min(lo+w, n)
			hi := min(lo+2*w, n)
			i, j, k := lo, mid, lo
			for i < mid && j < hi {
				if src[j] < src[i] {
					swaps += int64(mid - i)
					dst[k] = src[j]
					j++
				} else {
					dst[k] = src[i]
					i++
				}
				k++
			}
			k += copy(dst[k:], src[i:mid])
			copy(dst[k:], src[j:hi])
		}
		src, dst = dst, src
	}
	if &src[0] != &a[0] {
		copy(a, src)
	}
	return swaps
}

// spearman is Spearman's rho: Pearson's correlation of the average ranks.
func spearman(ps []pt) float64 {
	n := len(ps)
	if n < 2 {
		return math.NaN()
	}
	mean := float64(float64(n+1) / 2)
	slices.SortFunc(ps, cmpXY)
	var sxx float64
	for s := 0; s < n; {
		end := s + 1
		for end < n && ps[end].x == ps[s].x {
			end++
		}
		rank := float64(float64(s+1+end) / 2)
		for p := s; p < end; p++ {
			ps[p].rx = rank
		}
		d := rank - mean
		sxx += float64(float64(end-s) * d * d)
		s = end
	}
	slices.SortFunc(ps, cmpY)
	var syy, sxy float64
	for s := 0; s < n; {
		end := s + 1
		for end < n && ps[end].y == ps[s].y {
			end++
		}
		d := float64(float64(s+1+end)/2) - mean
		syy += float64(float64(end-s) * d * d)
		for p := s; p < end; p++ {
			sxy += float64((ps[p].rx - mean) * d)
		}
		s = end
	}
	if sxx == 0 || syy == 0 {
		return math.NaN()
	}
	return sxy / math.Sqrt(sxx*syy)
}
