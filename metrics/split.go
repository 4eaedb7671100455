package metrics

import (
	"math"
	"slices"
)

// split evaluates the metrics of an Evaluator whose metrics do not all
// follow the run's conventions: one Evaluator per set of conventions
// (Metric.Options), each with its own ranking, since a tie order is a
// convention. parts[0] holds the metrics under the run's own (maybe
// none): it says whether a query is empty, and it holds the click, IPS
// and rank-similarity metrics, which ir_measures does not name.
type split struct {
	ms    []Metric
	parts []part
	buf   []float64
}

// part is the metrics of one set of conventions: their Evaluator, and
// the index of each in the caller's list.
type part struct {
	ev  *Evaluator
	idx []int
}

// AnyIR reports whether some metric of ms is named in ir_measures' syntax
// (conventions of its own).
func AnyIR(ms []Metric) bool {
	return slices.ContainsFunc(ms, func(m Metric) bool { return m.Conv.Peer != PeerNone })
}

// newSplit returns the split of ms under run conventions o, or nil when
// every metric follows o's, as a run without ir_measures' names does.
func newSplit(ms []Metric, o Options) *split {
	if !AnyIR(ms) {
		return nil
	}
	opts := []Options{o}
	idx := [][]int{nil}
	sub := [][]Metric{nil}
	for i, m := range ms {
		mo := m.Options(o)
		p := 0
		for p < len(opts) && opts[p] != mo {
			p++
		}
		if p == len(opts) {
			opts, idx, sub = append(opts, mo), append(idx, nil), append(sub, nil)
		}
		idx[p], sub[p] = append(idx[p], i), append(sub[p], m)
	}
	s := &split{ms: ms, buf: make([]float64, len(ms))}
	for p := range opts {
		s.parts = append(s.parts, part{ev: newEvaluator(sub[p], opts[p]), idx: idx[p]})
	}
	return s
}

// eval is Evaluator.Eval: each part evaluates l under its conventions;
// the query is empty as the run's conventions say. A metric named in
// ir_measures' syntax is NaN for a query the qrels do not judge.
func (s *split) eval(l *List, out []float64) (empty bool) {
	for i, p := range s.parts {
		buf := s.buf[:len(p.idx)]
		e := p.ev.Eval(l, buf)
		if i == 0 {
			empty = e
		}
		for j, k := range p.idx {
			out[k] = buf[j]
		}
	}
	if l.Unjudged {
		for k, m := range s.ms {
			if m.Conv.Peer != PeerNone {
				out[k] = math.NaN()
			}
		}
	}
	return empty
}

// absent is Evaluator.Absent, part by part.
func (s *split) absent(judged []float64, out []float64) {
	for _, p := range s.parts {
		buf := s.buf[:len(p.idx)]
		p.ev.Absent(judged, buf)
		for j, k := range p.idx {
			out[k] = buf[j]
		}
	}
}

// similarity is Evaluator.Similarity: the rank-similarity metrics are
// parts[0]'s; the others' values are left alone.
func (s *split) similarity(base, cand []int32, items int, out []float64) {
	p := s.parts[0]
	buf := s.buf[:len(p.idx)]
	p.ev.Similarity(base, cand, items, buf)
	for j, k := range p.idx {
		if s.ms[k].Pair() {
			out[k] = buf[j]
		}
	}
}
