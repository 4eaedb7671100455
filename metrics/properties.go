package metrics

import (
	"math"
	"slices"

	"github.com/rankeval/rankeval/internal/pmath"
)

// What a metric is, as the rest of the program asks it: how its values
// aggregate, where they lie, which inputs it reads, which side is better,
// whether the empty-query policy applies. Every answer is read from the
// family table (families.go), so a new family answers them all there.

// ValueRange says where a metric's values lie.
type ValueRange int

const (
	RangeUnit   ValueRange = iota // [0, 1]
	RangeSigned                   // [-1, 1]: the correlations
	RangeOpen                     // no upper bound ([0, ∞) as labels are >= 0): cg, dcg, the counts; and gm_map's logs
)

// Aggregation says how a metric's per-query values make its summary.
type Aggregation int

const (
	AggMean Aggregation = iota // the mean over queries
	AggSum                     // the total: trec_eval's num_* counts
	AggGeo                     // exp of the mean: per query the value is a logarithm (gm_map)
	// AggRatio is a ratio of sums over queries: Σ value / Σ weight, the
	// weight being the query's click weight (Evaluator.ClickWeight): the
	// self-normalized IPS estimates (snips_*)
	AggRatio
)

// Aggregate says how m's per-query values make its summary.
func (m Metric) Aggregate() Aggregation { return families[m.Kind].agg }

// Count reports whether m counts documents or queries (trec_eval prints
// those as integers).
func (m Metric) Count() bool { return families[m.Kind].agg == AggSum }

// SummaryOnly reports whether trec_eval prints m in the summary only, never
// per query (num_q, gm_map).
func (m Metric) SummaryOnly() bool { return m.Kind == KindNumQ || m.Geometric() }

// Geometric reports whether m's per-query value is a logarithm, its
// summary a geometric mean (gm_map, gm_bpref).
func (m Metric) Geometric() bool { return families[m.Kind].agg == AggGeo }

// FollowsEmpty reports whether the empty-query policy (docs/metrics.md §3)
// applies to m: every metric but the correlations, the counts, judged@k, the click
// metrics and the rank-similarity measures, which do not depend on there being a relevant row (an
// impression without a click is the very event the click metrics measure,
// and leaving it out of an IPS estimate would bias it).
func (m Metric) FollowsEmpty() bool {
	return !m.Correlation() && !m.Count() && m.Kind != KindJudged && families[m.Kind].needs&(needClicks|needPair) == 0
}

// Clicks reports whether m is a click metric or an IPS estimate (clicks.go),
// defined on every impression.
func (m Metric) Clicks() bool { return families[m.Kind].needs&needClicks != 0 }

// Propensities reports whether m reads each row's propensity of
// examination (List.Prop): the IPS estimates.
func (m Metric) Propensities() bool { return families[m.Kind].needs&needProp != 0 }

// Better says which mean of m is the better one: 1 the higher (every
// metric but three), -1 the lower (abandon, first_click), 0 neither
// (last_click). Gates and the table's best mean read it.
func (m Metric) Better() int {
	switch families[m.Kind].better {
	case 0:
		return 1
	case noBetter:
		return 0
	}
	return -1
}

// noBetter is family.better of a metric with no better direction.
const noBetter = 2

// Teams reports whether m reads each row's team of an interleaved list
// (List.Team): the interleaving outcome, whose values are +1, -1 and 0
// (its summary counts them: wins, losses and ties).
func (m Metric) Teams() bool { return families[m.Kind].needs&needTeam != 0 }

// Ratio reports whether m's summary is a ratio of sums (AggRatio).
func (m Metric) Ratio() bool { return families[m.Kind].agg == AggRatio }

// Missing is m's value for a query a system did not return (--missing
// zero, and trec_eval's -c): what an empty ranking scores. It is NaN for
// the correlations, the click ranks and the interleaving outcome
// (undefined) and for the rank-similarity measures (which compare the
// empty ranking with the baseline's apart: Evaluator.Similarity), 1 for num_q (the query counts) and abandon (nothing
// clicked), gm_map's logarithm of its floor, and 0 for every other metric:
// rbp_resid too (an empty ranking has no unjudged row; trec_eval -c gives
// its rbp_resid 0), and num_rel when the query's judgments are unknown
// (Evaluator.Absent gives its R when they are).
func (m Metric) Missing() float64 {
	switch {
	case m.Correlation(), m.Kind == KindFirstClick, m.Kind == KindLastClick, m.Kind == KindInterleave, m.Pair():
		return math.NaN()
	case m.Kind == KindNumQ, m.Kind == KindAbandon:
		return 1
	case m.Geometric():
		return geoTerm(0)
	}
	return 0
}

// MissingEmpty is m's value for a query a system did not return when
// no system's ranking of it has a relevant row (--missing zero): the
// empty-query policy's value, as the systems that returned it take,
// where the policy applies to m (FollowsEmpty; not under Options.NoEmpty,
// which evaluates such a query as any other), else Missing.
func (m Metric) MissingEmpty(o Options) float64 {
	o = m.Options(o)
	if !m.FollowsEmpty() || o.NoEmpty {
		return m.Missing()
	}
	v := emptyValue(o.Empty)
	if m.Geometric() {
		return geoTerm(v)
	}
	return v
}

// emptyValue is the value of a metric that follows the empty-query
// policy for a query without a relevant row: NaN (left out) under skip,
// 0 under zero, 1 under one.
func emptyValue(p Empty) float64 {
	switch p {
	case EmptyZero:
		return 0
	case EmptyOne:
		return 1
	}
	return math.NaN()
}

// gmFloor is trec_eval's MIN_GEO_MEAN: the smallest AP gm_map takes the
// logarithm of, so that one query with AP 0 does not make the mean 0.
const gmFloor = 0.00001

// geoTerm is gm_map's per-query value: ln(max(ap, gmFloor)).
func geoTerm(ap float64) float64 {
	if ap != ap { // NaN: the query is left out
		return ap
	}
	return pmath.Log(max(ap, gmFloor))
}

// Range says where m's values lie.
func (m Metric) Range() ValueRange { return families[m.Kind].rng }

// Correlation reports whether m correlates scores with labels (Kendall,
// Spearman): it does not depend on relevance, so the empty-query policy
// does not apply to it and a query absent from a system leaves it
// undefined.
func (m Metric) Correlation() bool { return families[m.Kind].needs&needScores != 0 }

// RefusesEmpty reports whether a query with no relevant row stops a run of
// ms under o: --empty error, and some metric follows the policy (the
// click metrics and correlations are defined without a relevant row, so a
// run of those alone has no empty query to refuse).
func RefusesEmpty(ms []Metric, o Options) bool {
	return o.Empty == EmptyError && slices.ContainsFunc(ms, func(m Metric) bool { return m.FollowsEmpty() && m.Conv.Peer == PeerNone })
}
