// Package synth generates a synthetic search log, deterministic from a seed,
// and writes any stream of rows as JSONL, CSV or TSV (plain, gzip, zstd),
// Parquet or Arrow IPC, so tests and benchmarks can compare formats on identical data.
// scripts/gen is its command-line front end.
package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
)

// Row is one row of a log.
type Row struct {
	Query string
	Doc   string
	Score float64
	Label float64
	// Market is a slice column ("m0042"), written when not empty.
	Market string
	// ScoreB is a second model's score, written when HasScoreB.
	ScoreB    float64
	HasScoreB bool
	// ScoreC and ScoreD are a third and a fourth model's scores, written
	// as score_c and score_d when HasScoreC and HasScoreD.
	ScoreC, ScoreD       float64
	HasScoreC, HasScoreD bool
	// Rank (1 = top) is written as a "rank" column when HasRank; with
	// NoScore the score column is left out (rows ordered by rank alone).
	// Conversions of logs ordered by rank set them; the generator does not.
	Rank    int64
	HasRank bool
	NoScore bool
	// Position (1 = top) and Propensity are a click log's logged position
	// and its propensity of examination, written as "position" and
	// "propensity" when HasClicks (ClickSim sets them).
	Position   int64
	Propensity float64
	HasClicks  bool
	// Team is the team of an interleaved list that contributed the row,
	// written as "team" when not empty (InterleaveSim sets it).
	Team string
	// Ranker is the ranker (an A/B bucket, a model version) whose ranking
	// the impression showed, written as "ranker" when not empty (PropSim
	// sets it).
	Ranker string
}

// Source yields rows in order; Next returns false at the end.
type Source interface {
	Next(r *Row) bool
}

// Generator yields the rows of the log in order.
//
// Each query has docs rows (query_id "q0000001", doc_id "d17", score a noisy
// function of the label so metrics land mid-range, label 0..4 skewed toward
// 0).
type Generator struct {
	rng        *rand.Rand
	rows, docs int
	emitted    int
	q          int
	d          int
	qid        string
	quality    float64

	seed            uint64
	slices, systems int
	extra           *rand.Rand // draws of the options, apart so the base columns do not change
	market          string
	qualityB        float64
	qualityC        float64
	qualityD        float64
}

// NewGenerator makes the log of rows rows with docs rows a query.
func NewGenerator(seed uint64, rows, docs int) *Generator {
	return &Generator{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), rows: rows, docs: docs, seed: seed}
}

// For slices and comparisons (rankeval --by, --score-col a,b): slices > 0
// gives each query a "market" ("m0042", one of slices, the same on all its
// rows); systems 2 adds "score_b", a second model that ranks a little
// better, 3 "score_c", about as good as the first, 4 "score_d", a little
// worse. The other columns are the same as without them.
func (g *Generator) WithSlices(slices, systems int) *Generator {
	g.slices, g.systems = slices, systems
	g.extra = rand.New(rand.NewPCG(g.seed^0x5bd1e995, 7))
	return g
}

// Next fills r with the next row; false at the end.
func (g *Generator) Next(r *Row) bool {
	if g.emitted >= g.rows {
		return false
	}
	if g.d == 0 {
		g.q++
		g.qid = fmt.Sprintf("q%07d", g.q)
		g.quality = g.rng.Float64() // how well the "model" ranks this query
		if g.slices > 0 {
			g.market = fmt.Sprintf("m%04d", g.extra.IntN(g.slices))
		}
		if g.systems > 1 {
			g.qualityB = min(1, g.quality+float64(0.15*g.extra.Float64()))
		}
		if g.systems > 2 {
			g.qualityC = min(1, max(0, g.quality+float64(0.1*(float64(g.extra.Float64())-0.5))))
			g.qualityD = max(0, g.quality-float64(0.1*g.extra.Float64()))
		}
	}
	label := 0
	if u := float64(g.rng.Float64()); u > 0.55 {
		label = 1 + int(float64((u-0.55)/0.45*4))
		if label > 4 {
			label = 4
		}
	}
	r.Query = g.qid
	r.Doc = "d" + strconv.Itoa(g.d)
	// scores rounded to 6 decimals, as logs usually are; some ties result.
	s := float64(g.quality*float64(label)/4) + float64(g.rng.NormFloat64()*0.35)
	r.Score = math.Round(s*1e6) / 1e6
	r.Label = float64(label)
	r.Market = g.market
	r.HasScoreB = g.systems > 1
	if r.HasScoreB {
		sb := float64(g.qualityB*float64(label)/4) + float64(g.extra.NormFloat64()*0.35)
		r.ScoreB = math.Round(sb*1e6) / 1e6
	}
	r.HasScoreC, r.HasScoreD = g.systems > 2, g.systems > 3
	if r.HasScoreC {
		r.ScoreC = math.Round((float64(g.qualityC*float64(label)/4)+float64(g.extra.NormFloat64()*0.35))*1e6) / 1e6
	}
	if r.HasScoreD {
		r.ScoreD = math.Round((float64(g.qualityD*float64(label)/4)+float64(g.extra.NormFloat64()*0.35))*1e6) / 1e6
	}
	g.d++
	if g.d == g.docs {
		g.d = 0
	}
	g.emitted++
	return true
}

// Rows is a Source over a slice, for tests and conversions.
type Rows struct {
	R []Row
	i int
}

// Next implements Source.
func (s *Rows) Next(r *Row) bool {
	if s.i >= len(s.R) {
		return false
	}
	*r = s.R[s.i]
	s.i++
	return true
}
