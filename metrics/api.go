package metrics

import "errors"

// Sentinel errors for metric names, matched with errors.Is.
var (
	ErrUnknownMetric  = errors.New("unknown metric")
	ErrBadCutoff      = errors.New("cutoff k must be a whole number from 1 to 1000000000")
	ErrBadLevel       = errors.New("bad recall level")
	ErrBadPersistence = errors.New("bad persistence")
)

// Ties is the policy that orders rows with equal scores (docs/metrics.md §2).
type Ties int

const (
	TiesInput       Ties = iota // input order (stable sort)
	TiesTrec                    // doc id descending, byte-wise
	TiesOptimistic              // higher label first
	TiesPessimistic             // lower label first
	TiesAverage                 // exact expected value over all orders of each tied group
	// tiesDocAscending, doc id ascending, is no --ties value: ir_measures'
	// own providers (Metric.Options, PeerPython) sort so
	tiesDocAscending
)

// byDoc reports whether t orders ties by doc id (List.Doc needed).
func (t Ties) byDoc() bool { return t == TiesTrec || t == tiesDocAscending }

// Gain maps a label to the gain of DCG.
type Gain int

const (
	GainExp    Gain = iota // 2^y - 1
	GainLinear             // y
)

// Empty is the policy for queries with no relevant row (R = 0,
// docs/metrics.md §3).
type Empty int

const (
	EmptySkip  Empty = iota // left out of every mean (value NaN)
	EmptyZero               // counts as 0
	EmptyOne                // counts as 1
	EmptyError              // the caller fails the run
)

// Options are the conventions in force for every query of a run.
type Options struct {
	Ties     Ties
	Gain     Gain
	MaxGrade float64 // G of ERR: R_i = (2^y - 1) / 2^G
	// Relevant means label >= RelThreshold when HasThreshold, else label > 0.
	RelThreshold float64
	HasThreshold bool
	Empty        Empty
	// MaxRanked, when > 0, keeps only the first MaxRanked rows of each
	// ranking (after ties are broken), as trec_eval's -M does: every metric
	// but the correlations sees the shorter list; R is unchanged.
	MaxRanked int
	// JudgedOnly drops the rows that List.Status does not mark Judged from
	// each ranking, after the MaxRanked cut, as trec_eval's -J does.
	JudgedOnly bool
	// IPrecRound makes iprec@x's x·R relevant rows lround(x·R), as
	// trec_eval 10.0 does, instead of 9.0.8's ⌊x·R + 0.9⌋.
	IPrecRound bool
	// NoEmpty evaluates a query with no relevant row as any other, by
	// each metric's formula (0 where R divides), as trec_eval does: its
	// ndcg does not depend on the relevance level, and is not 0 when the
	// judged documents are all below it. Empty is then not applied.
	NoEmpty bool
	// NumDocs is the number of documents in the collection (trec_eval's
	// -N), which utility's fourth coefficient weighs.
	NumDocs int64
	// PropClip is the least propensity an IPS estimate divides a click
	// by: a clicked row's propensity below it counts as PropClip (and
	// Evaluator.ClickWeight counts it as clipped).
	PropClip float64
}

// Relevant reports whether label y is relevant under o (docs/metrics.md
// §3): y >= RelThreshold when HasThreshold, else y > 0. A click metric's row is
// clicked when it is relevant.
func (o *Options) Relevant(y float64) bool {
	if o.HasThreshold {
		return y >= o.RelThreshold
	}
	return y > 0
}

// DefaultOptions are the conventions' defaults (docs/metrics.md §2–4):
// ties input, gain exp, empty skip, maximum grade 4.
func DefaultOptions() Options { return Options{MaxGrade: 4} }

// Metric is one parsed metric name.
type Metric struct {
	Name  string // as the user wrote it, lower-cased but for ir_measures' names: the output key
	Kind  Kind
	K     int     // cutoff; 0 means the whole list
	Beta  float64 // KindF, KindSetF: β; KindRBP, KindRBPResid: the persistence p
	Level float64 // KindIPrec: the recall level, in [0, 1]; KindRprecMult: the multiple of R
	// Param holds the parameters of the measures of trec_eval that take
	// more than a cutoff, in a form ParseParam reads: a gain table
	// ("1=3,2=9,4=4.5"), utility's four coefficients, 11pt_avg's recall
	// levels; "" is the measure's default.
	Param string
	// Conv, for a measure named in ir_measures' syntax, are its
	// provider's conventions, which override the run's (Metric.Options).
	Conv Conv
}

// Same reports whether m and o are one metric under two names (p@10,
// precision@10 and P_10): all but the name equal.
func (m Metric) Same(o Metric) bool { m.Name = o.Name; return m == o }

// Judgment says whether a qrels file judges a run's row (trec_eval's
// RELVALUE_NONPOOL and RELVALUE_UNJUDGED).
type Judgment uint8

const (
	Judged    Judgment = iota // judged, with a label >= 0
	Unjudged                  // not in the qrels
	JudgedOut                 // in the qrels with a negative label: in the pool but not judged; its Label is 0
)

// List is one query's rows, in input order. The slices are the caller's and
// are only read.
type List struct {
	Score []float64
	Label []float64
	// Rank, when non-nil, orders the list (ascending) instead of Score. Kendall
	// and Spearman then use Score if it is non-nil, else -Rank.
	Rank []int64
	// Doc ids, needed by TiesTrec (nil otherwise).
	Doc [][]byte
	// Judged, when non-nil, holds the labels of every judged document of the
	// query (a qrels file): R and every ideal ranking come from it instead of
	// from Label. A negative judgment is in it as -0.0 (0 for every
	// metric, but told apart by bpref, which does not count it as judged
	// non-relevant).
	Judged []float64
	// Unjudged says that a qrels file judges no document of the query:
	// the metrics named in ir_measures' syntax leave it out (NaN), as
	// ir_measures evaluates the queries its qrels hold.
	Unjudged bool
	// Status, when non-nil, says of each row whether the qrels judge it
	// (bpref, judged@k, Options.JudgedOnly); nil means every row is
	// judged, as in a log, whose labels are its judgments.
	Status []Judgment
	// Prop, when non-nil, holds each row's propensity of examination at
	// its logged position, in [0, 1]: the IPS estimates divide each click
	// by it (Options.PropClip at least). Those metrics need it.
	Prop []float64
	// Team, when non-nil, holds the team of an interleaved list that
	// contributed each row: 0 for team A, 1 for team B. The interleaving
	// outcome needs it.
	Team []uint8
}
