package synth

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/rankeval/rankeval/internal/pmath"
)

// PropSim simulates the click log of several rankers serving the same
// queries (A/B buckets, model versions), for checking position-bias
// estimates against the propensities that made the clicks. Each of
// Queries queries has Docs documents with hidden graded relevances y in
// 0..4 and attractiveness γ(y) (Gamma). Ranker r scores each document of
// a query once, y plus normal noise of sd Noise[r], so the rankers' orders
// of a query overlap but differ; with Jitter > 0 every impression adds
// noise of that sd again, so one ranker's order varies too. An
// impression draws a query and a ranker uniformly and shows the ranker's
// first Positions documents; the row at position k is examined with
// probability Prop(k) = k^−Eta and clicked when examined with probability
// γ(y).
//
// Rows come one impression at a time, in shown order: query_id (the
// query, repeated by its impressions), doc_id, label (the click, 0 or
// 1), position, propensity (the true Prop(k)) and ranker ("r1", "r2",
// ...); no score.
type PropSim struct {
	cfg         PropConfig
	rng         *rand.Rand
	rel         [][]int       // rel[q][d]: hidden relevance
	score       [][][]float64 // score[r][q][d]: ranker r's fixed score
	order, tmp  []int
	jittered    []float64
	rows        []Row
	next, shown int
}

// PropConfig is a PropSim's shape.
type PropConfig struct {
	Impressions, Queries, Docs, Positions int
	// Noise[r] is ranker r's score noise; its length is the rankers'
	// count.
	Noise  []float64
	Jitter float64
	Eta    float64
}

// DefaultNoise are the score noises of up to four rankers.
var DefaultNoise = []float64{0.8, 1.2, 1.6, 2.0}

// NewPropSim makes the simulation of cfg from seed.
func NewPropSim(seed uint64, cfg PropConfig) *PropSim {
	s := &PropSim{cfg: cfg, rng: rand.New(rand.NewPCG(seed, 0x70726f7073696d))}
	s.rel = make([][]int, cfg.Queries)
	for q := range s.rel {
		s.rel[q] = make([]int, cfg.Docs)
		for d := range s.rel[q] {
			s.rel[q][d] = drawGrade(s.rng)
		}
	}
	s.score = make([][][]float64, len(cfg.Noise))
	for r, sd := range cfg.Noise {
		s.score[r] = make([][]float64, cfg.Queries)
		for q := range s.score[r] {
			s.score[r][q] = make([]float64, cfg.Docs)
			for d := range s.score[r][q] {
				s.score[r][q][d] = float64(s.rel[q][d]) + float64(s.rng.NormFloat64()*sd)
			}
		}
	}
	s.jittered = make([]float64, cfg.Docs)
	return s
}

// Prop is the true propensity at position k, k^−Eta (1 at position 1,
// so relative to position 1 too).
func (s *PropSim) Prop(k int) float64 { return pmath.Pow(float64(k), -s.cfg.Eta) }

// Next implements Source.
func (s *PropSim) Next(r *Row) bool {
	if s.next == len(s.rows) {
		if s.shown == s.cfg.Impressions {
			return false
		}
		s.impression()
	}
	*r = s.rows[s.next]
	s.next++
	return true
}

func (s *PropSim) impression() {
	s.shown++
	q := s.rng.IntN(s.cfg.Queries)
	rk := s.rng.IntN(len(s.cfg.Noise))
	sc := s.score[rk][q]
	for d := range sc {
		s.jittered[d] = sc[d]
		if s.cfg.Jitter > 0 {
			s.jittered[d] += float64(s.rng.NormFloat64() * s.cfg.Jitter)
		}
	}
	s.order = s.order[:0]
	for d := range sc {
		s.order = append(s.order, d)
	}
	slices.SortStableFunc(s.order, func(a, b int) int { return -cmp.Compare(s.jittered[a], s.jittered[b]) })
	s.rows, s.next = s.rows[:0], 0
	qid, ranker := "q"+strconv.Itoa(q+1), "r"+strconv.Itoa(rk+1)
	for k, d := range s.order[:min(s.cfg.Positions, len(s.order))] {
		p := s.Prop(k + 1)
		// both draws every time, so the stream does not depend on outcomes
		examined, attracted := s.rng.Float64() < p, s.rng.Float64() < Gamma(s.rel[q][d])
		click := 0.0
		if examined && attracted {
			click = 1
		}
		s.rows = append(s.rows, Row{Query: qid, Doc: fmt.Sprintf("d%d", d), NoScore: true, Label: click,
			Position: int64(k + 1), Propensity: p, HasClicks: true, Ranker: ranker})
	}
}
