package metrics

import "strconv"

// Peer names the conventions of a peer tool: the run's --profile sets
// them for every metric, and a measure named in ir_measures' syntax
// (irmeasures.go) carries its provider's for itself.
type Peer uint8

const (
	PeerNone     Peer = iota // the run's own conventions
	PeerTrecEval             // trec_eval (and pytrec_eval, which ir_measures runs)
	PeerGdeval               // gdeval.pl
	// PeerPython is ir_measures' own Python providers, msmarco's (RR@k)
	// and judged's (Judged): trec_eval's conventions but ties by doc id
	// ascending (they sort by −score, then doc id). No --profile.
	PeerPython
)

// peerConv is what a peer sets: the tie order, the gain, the empty-query
// policy, the relevance level (0: label > 0) and the maximum grade of ERR
// (0: the run's).
type peerConv struct {
	ties     Ties
	gain     Gain
	empty    Empty
	rel      float64
	maxGrade float64
}

var peerConvs = [...]peerConv{
	PeerTrecEval: {ties: TiesTrec, gain: GainLinear, empty: EmptyZero, rel: 1},
	PeerGdeval:   {ties: TiesTrec, gain: GainExp, empty: EmptySkip, maxGrade: 4},
	PeerPython:   {ties: tiesDocAscending, gain: GainLinear, empty: EmptyZero, rel: 1},
}

// Settings are p's conventions as the values of the run's flags (ties,
// gain, empty, rel-threshold, max-grade), which --profile sets.
func (p Peer) Settings() map[string]string {
	c := peerConvs[p]
	s := map[string]string{"ties": c.ties.String(), "gain": c.gain.String(), "empty": c.empty.String()}
	if c.rel != 0 {
		s["rel-threshold"] = strconv.FormatFloat(c.rel, 'g', -1, 64)
	}
	if c.maxGrade != 0 {
		s["max-grade"] = strconv.FormatFloat(c.maxGrade, 'g', -1, 64)
	}
	return s
}

// Conv is the conventions a metric named in ir_measures' syntax carries
// (Metric.Conv); the zero Conv follows the run's.
type Conv struct {
	Peer Peer
	// Rel is the relevance level (ir_measures' rel=, trec_eval's -l)
	// when HasRel; else the peer's.
	Rel    float64
	HasRel bool
	// JudgedOnly is ir_measures' judged_only=True (trec_eval's -J).
	JudgedOnly bool
}

// Options are the conventions m is computed under in a run whose
// conventions are o: o itself, or, for a metric named in ir_measures'
// syntax, its provider's. What is not a convention of the metric (-M's
// cut, -N's collection size, the propensities' clip) stays the run's.
// trec_eval's are pytrec_eval's: trec_eval 9.0.8's iprec rounding, a
// query without a relevant row evaluated by each formula; under either
// provider such a query is counted (0 for gdeval's), as ir_measures
// counts it.
func (m Metric) Options(o Options) Options {
	if m.Conv.Peer == PeerNone {
		return o
	}
	c := peerConvs[m.Conv.Peer]
	o.Ties, o.Gain, o.Empty = c.ties, c.gain, c.empty
	o.HasThreshold, o.RelThreshold = c.rel != 0, c.rel
	if m.Conv.HasRel {
		o.HasThreshold, o.RelThreshold = true, m.Conv.Rel
	}
	if c.maxGrade != 0 {
		o.MaxGrade = c.maxGrade
	}
	// ir_measures scores 0 every query of its qrels that its provider
	// gives no value (providers.Evaluator.iter_calc fills
	// Measure.DEFAULT): gdeval's topics without a relevant document too,
	// which gdeval.pl's own mean (--profile gdeval) leaves out
	o.Empty, o.NoEmpty = EmptyZero, true
	o.JudgedOnly = m.Conv.JudgedOnly
	o.IPrecRound = false
	return o
}
