package synth

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/rankeval/rankeval/internal/pmath"
)

// InterleaveSim simulates team-draft interleaving (Radlinski, Kurup and
// Joachims, CIKM 2008) of two rankers, for checking the interleaving
// outcome against the truth it estimates. Each impression has Docs
// documents with hidden graded relevances y in 0..4 (as ClickSim's);
// ranker A scores a document y + N(0, NoiseA²), ranker B y + N(0, NoiseB²)
// (or A's very scores, Same). Team draft builds the shown list: the team
// with fewer picks (a coin flip when even) adds its ranker's best
// document not yet shown, credited to it. The row at position k is
// examined with probability k^−Eta and clicked when examined with
// probability γ(y) (Gamma), as in ClickSim.
//
// Rows come in shown order: query_id, doc_id, label (the click), market
// (one of Markets), position, propensity (k^−Eta) and team ("A" or "B");
// no score: the position orders them. Truth holds what the lists shown
// and the click model give over the impressions generated so far.
type InterleaveSim struct {
	cfg   InterleaveConfig
	rng   *rand.Rand
	q     int
	rows  []Row
	next  int
	truth InterleaveTruth
	// scratch of one impression
	ys, pi, dist, tmp []float64
	score             [2][]float64
	rank              [2][]int
	shown             []bool
}

// InterleaveConfig is what InterleaveSim simulates.
type InterleaveConfig struct {
	Impressions, Docs int
	Eta               float64
	NoiseA, NoiseB    float64
	// Same makes ranker B a copy of ranker A: the two teams draft from one
	// ranking, and the true preference is 0.
	Same bool
}

// InterleaveTruth is what the click model gives for the lists shown:
// summed over the impressions, the probabilities that team B's rows hold
// more clicks than team A's (Wins), fewer (Losses), and that any row is
// clicked (Clicked).
type InterleaveTruth struct {
	Impressions           int
	Wins, Losses, Clicked float64
}

// Delta is the preference the interleave metric's mean estimates on
// these lists: E[wins − losses] / E[wins + losses + ties], the impressions
// with a click being those that count.
func (t InterleaveTruth) Delta() float64 { return (t.Wins - t.Losses) / t.Clicked }

// NewInterleaveSim makes the simulation of cfg.
func NewInterleaveSim(seed uint64, cfg InterleaveConfig) *InterleaveSim {
	return &InterleaveSim{cfg: cfg, rng: rand.New(rand.NewPCG(seed, 0x696e7465726c6561))}
}

// Next implements Source.
func (s *InterleaveSim) Next(r *Row) bool {
	if s.next == len(s.rows) {
		if s.q == s.cfg.Impressions {
			return false
		}
		s.impression()
	}
	*r = s.rows[s.next]
	s.next++
	return true
}

// Truth is the truth over the impressions emitted so far.
func (s *InterleaveSim) Truth() InterleaveTruth { return s.truth }

func (s *InterleaveSim) impression() {
	s.q++
	n := s.cfg.Docs
	qid := "q" + strconv.Itoa(s.q)
	market := Markets[s.rng.IntN(len(Markets))]
	s.ys = s.ys[:0]
	for t := range s.score {
		s.score[t] = s.score[t][:0]
	}
	for range n {
		y := float64(drawGrade(s.rng))
		s.ys = append(s.ys, y)
		a := math.Round((y+float64(s.rng.NormFloat64()*s.cfg.NoiseA))*1e6) / 1e6
		b := math.Round((y+float64(s.rng.NormFloat64()*s.cfg.NoiseB))*1e6) / 1e6
		if s.cfg.Same {
			b = a
		}
		s.score[0], s.score[1] = append(s.score[0], a), append(s.score[1], b)
	}
	for t := range s.rank {
		s.rank[t] = s.rank[t][:0]
		for d := range n {
			s.rank[t] = append(s.rank[t], d)
		}
		sc := s.score[t]
		slices.SortStableFunc(s.rank[t], func(a, b int) int { return -cmp.Compare(sc[a], sc[b]) })
	}
	// team draft: the team with fewer picks picks next, a coin decides
	// when they have as many; each picks its ranker's best document not
	// yet shown
	s.shown = slices.Grow(s.shown[:0], n)[:n]
	clear(s.shown)
	var picks, at [2]int
	s.rows, s.pi = s.rows[:0], s.pi[:0]
	for pos := 1; pos <= n; pos++ {
		t := 0
		if picks[1] < picks[0] || picks[0] == picks[1] && s.rng.IntN(2) == 1 {
			t = 1
		}
		for s.shown[s.rank[t][at[t]]] {
			at[t]++
		}
		d := s.rank[t][at[t]]
		s.shown[d] = true
		picks[t]++
		p := pmath.Pow(float64(pos), -s.cfg.Eta)
		g := Gamma(int(s.ys[d]))
		examined, attracted := s.rng.Float64() < p, s.rng.Float64() < g
		click := 0.0
		if examined && attracted {
			click = 1
		}
		s.rows = append(s.rows, Row{Query: qid, Doc: fmt.Sprintf("d%d", d), NoScore: true, Label: click, Market: market,
			Position: int64(pos), Propensity: p, HasClicks: true, Team: string(rune('A' + t))})
		s.pi = append(s.pi, p*g)
	}
	s.addTruth()
	s.next = 0
}

// addTruth adds the impression's probabilities of a win, a loss and a
// click: the distribution of B's clicks minus A's over the independent
// clicks of the rows (a click of row i with probability π_i), one row at
// a time.
func (s *InterleaveSim) addTruth() {
	n := len(s.rows)
	s.dist = slices.Grow(s.dist[:0], 2*n+1)[:2*n+1] // dist[n+d]: P(B − A = d)
	s.tmp = slices.Grow(s.tmp[:0], 2*n+1)[:2*n+1]
	clear(s.dist)
	s.dist[n] = 1
	none := 1.0
	for i, r := range s.rows {
		step := 1
		if r.Team == "A" {
			step = -1
		}
		clear(s.tmp)
		for d, pr := range s.dist {
			if pr == 0 {
				continue
			}
			s.tmp[d] += float64(pr * (1 - s.pi[i]))
			s.tmp[d+step] += float64(pr * s.pi[i])
		}
		s.dist, s.tmp = s.tmp, s.dist
		none *= 1 - s.pi[i]
	}
	for d, pr := range s.dist {
		switch {
		case d > n:
			s.truth.Wins += pr
		case d < n:
			s.truth.Losses += pr
		}
	}
	s.truth.Clicked += 1 - none
	s.truth.Impressions++
}
