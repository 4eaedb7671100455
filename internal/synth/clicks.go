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

// ClickSim simulates a click log under a position-based model, for
// checking the IPS estimates against the truth they estimate. Each
// impression shows Docs documents with hidden graded relevances y in
// 0..4; their attractiveness (the probability of a click once examined)
// is γ(y) = 0.05 + 0.95·(2^y − 1)/15. A logging ranker ("prod": y plus
// noise) orders them; the row at logged position k is examined with
// probability k^−Eta and clicked when examined with probability γ(y). A
// candidate ranker ("cand": y plus less noise) scores the same rows.
//
// Rows come in logged order: query_id, doc_id, score (prod's), score_b
// (cand's), label (the click, 0 or 1), market (one of Markets), position
// and propensity (the true k^−Eta). Truth holds what the hidden
// relevances give over the impressions generated so far.
type ClickSim struct {
	rng          *rand.Rand
	impressions  int
	docs         int
	eta          float64
	q            int
	rows         []Row // the impression being emitted, in logged order
	next         int
	truth        ClickTruth
	gamma, cands []float64
	order        []int
	disc         []float64
}

// Markets are the slices a simulated impression falls in.
var Markets = []string{"de", "fr", "jp", "us"}

// ClickTruth is what the hidden relevances of the impressions give.
type ClickTruth struct {
	Impressions int
	// DCG is the mean over impressions of DCG@K of each ranker (prod,
	// cand) with gain γ: Σ_{i≤K} γ(y_i)/log2(i+1), what ips_dcg@K
	// estimates; Rel the mean of Σ_d γ(y_d), the expected clicks were
	// every row examined, which a click weight estimates.
	K        int
	DCG      [2]float64
	DCGSumSq [2]float64
	Rel      float64
}

// Gamma is a document's attractiveness γ(y): the probability that it is
// clicked once examined.
func Gamma(y int) float64 { return 0.05 + 0.95*(pmath.Exp2(float64(y))-1)/15 }

// NewClickSim makes the simulation of impressions impressions of docs
// rows each, examination k^−eta, the truth's DCG cut at k.
func NewClickSim(seed uint64, impressions, docs int, eta float64, k int) *ClickSim {
	c := &ClickSim{rng: rand.New(rand.NewPCG(seed, 0x73696d636c69636b)), impressions: impressions, docs: docs, eta: eta}
	c.truth.K = k
	for i := range max(docs, k) {
		c.disc = append(c.disc, 1/pmath.Log2(float64(i+2)))
	}
	return c
}

// Next implements Source.
func (c *ClickSim) Next(r *Row) bool {
	if c.next == len(c.rows) {
		if c.q == c.impressions {
			return false
		}
		c.impression()
	}
	*r = c.rows[c.next]
	c.next++
	return true
}

// Truth is the truth over the impressions emitted so far (all of them
// once Next has returned false).
func (c *ClickSim) Truth() ClickTruth {
	t := c.truth
	for i := range t.DCG {
		t.DCG[i] /= float64(t.Impressions)
		t.DCGSumSq[i] /= float64(t.Impressions)
	}
	t.Rel /= float64(t.Impressions)
	return t
}

// StdErr is the standard error of the mean true DCG of ranker i over the
// impressions: how far the truth of these impressions may lie from that
// of the population they are drawn from (ips_dcg's interval covers the
// former, with the clicks' noise on top).
func (t ClickTruth) StdErr(i int) float64 {
	v := t.DCGSumSq[i] - float64(t.DCG[i]*t.DCG[i])
	return math.Sqrt(v / float64(t.Impressions))
}

// drawGrade draws a hidden graded relevance y in 0..4, skewed toward 0
// as in a log: P(y) = 0.5, 0.25, 0.13, 0.08, 0.04.
func drawGrade(rng *rand.Rand) int {
	switch u := rng.Float64(); {
	case u < 0.5:
		return 0
	case u < 0.75:
		return 1
	case u < 0.88:
		return 2
	case u < 0.96:
		return 3
	}
	return 4
}

func (c *ClickSim) impression() {
	c.q++
	n := c.docs
	qid := "q" + strconv.Itoa(c.q)
	market := Markets[c.rng.IntN(len(Markets))]
	c.rows = c.rows[:0]
	c.gamma, c.cands = c.gamma[:0], c.cands[:0]
	prods := make([]float64, n)
	ys := make([]int, n)
	for d := range n {
		y := drawGrade(c.rng)
		ys[d] = y
		prods[d] = math.Round((float64(y)+float64(c.rng.NormFloat64()*1.2))*1e6) / 1e6
		c.cands = append(c.cands, math.Round((float64(y)+float64(c.rng.NormFloat64()*0.8))*1e6)/1e6)
	}
	// logged order: prod's ranking, ties in document order (the input
	// order rankeval then sees)
	c.order = c.order[:0]
	for d := range n {
		c.order = append(c.order, d)
	}
	slices.SortStableFunc(c.order, func(a, b int) int { return -cmp.Compare(prods[a], prods[b]) })
	for k, d := range c.order {
		pos := k + 1
		p := pmath.Pow(float64(pos), -c.eta)
		g := Gamma(ys[d])
		click := 0.0
		// draw both every time, so the stream of draws does not depend on
		// the outcome
		examined, attracted := c.rng.Float64() < p, c.rng.Float64() < g
		if examined && attracted {
			click = 1
		}
		c.rows = append(c.rows, Row{Query: qid, Doc: fmt.Sprintf("d%d", d), Score: prods[d], Label: click, Market: market,
			ScoreB: c.cands[d], HasScoreB: true, Position: int64(pos), Propensity: p, HasClicks: true})
		c.gamma = append(c.gamma, g)
	}
	// the truth: each ranker's DCG@K with gain γ, ranked as rankeval
	// ranks (score descending, ties in input order); and Σγ
	for i := range 2 {
		idx := make([]int, n)
		for j := range idx {
			idx[j] = j
		}
		score := func(j int) float64 { return c.rows[j].Score }
		if i == 1 {
			score = func(j int) float64 { return c.rows[j].ScoreB }
		}
		slices.SortStableFunc(idx, func(a, b int) int { return -cmp.Compare(score(a), score(b)) })
		dcg := 0.0
		for r, j := range idx[:min(n, c.truth.K)] {
			dcg += float64(c.gamma[j] * c.disc[r])
		}
		c.truth.DCG[i] += dcg
		c.truth.DCGSumSq[i] += float64(dcg * dcg)
	}
	for _, g := range c.gamma {
		c.truth.Rel += g
	}
	c.truth.Impressions++
	c.next = 0
}
