package pipeline

import (
	"fmt"
	"math"
	"slices"

	"github.com/rankeval/rankeval/metrics"
)

// Unit evaluates queries under a run's Rules: the per-query checks
// (repeated documents, the empty-query policy), the qrels join, and the
// metrics. Each worker owns one; it reuses its buffers from query to
// query.
type Unit struct {
	r     *Rules
	where Where
	maxG  float64 // Rules.maxGrade
	// idealG is Rules.idealMaxGrade: the grade a judged label is held to
	idealG float64
	ev     *metrics.Evaluator
	dedup  *docSet
	docs   [][]byte
	// posAt[k] is 1 + the row at logged position k, for the check of a
	// query's logged positions (Group.Logged); reused from query to query
	posAt []int32
	// which rows the qrels judge, when a metric or option asks (nil
	// otherwise): found by the join, then status for the evaluator
	wantStatus bool
	found      []bool
	status     []metrics.Judgment
	// labels seen, under Rules.NoteBinaryLabels: any, and any not 0 or 1
	labels, nonBinary bool
	emptyErr          bool // metrics.RefusesEmpty
	// --missing-score and --missing-label (missing.go): which rows a
	// query keeps, the columns of a ranking with rows left out, the rows
	// of the last query prepared without a label and of the last ranking
	// evaluated without a score, and the counts per system since
	// TakeMissing
	keep                   []bool
	score, label, prop     []float64
	rank                   []int64
	doc                    [][]byte
	stat                   []metrics.Judgment
	team                   []uint8
	noLabelNow, noScoreNow int
	noScore, noLabel       []int64
	// the rank-similarity measures (metrics.Metric.Pair): kept holds the
	// rows of the last ranking that --missing-score drop left (dropped:
	// it dropped some), ranked the last ranking evaluated as the
	// group's rows, ranks each system's ranking of the query as items,
	// and ids numbers the doc ids of several logs' rankings
	pair    bool
	kept    []int32
	dropped bool
	ranked  []int32
	ranks   [][]int32
	ids     docIDs
}

// NewUnit makes a Unit for r; where names positions in its messages.
func (r *Rules) NewUnit(where Where) *Unit {
	return &Unit{r: r, where: where, maxG: r.maxGrade(), idealG: r.idealMaxGrade(), ev: metrics.NewEvaluator(r.Metrics, r.Options), dedup: newDocSet(),
		wantStatus: r.Qrels != nil && metrics.NeedsJudgments(r.Metrics, r.Options),
		emptyErr:   metrics.RefusesEmpty(r.Metrics, r.Options),
		noScore:    make([]int64, r.systems()), noLabel: make([]int64, r.systems()),
		pair: metrics.AnyPair(r.Metrics), ranks: make([][]int32, r.systems())}
}

// Prepare readies g's rows for evaluation once, whatever the number of
// score columns: a repeated doc id is an error naming both rows, or with
// DedupFirst the later rows are dropped (their count returned), after
// --missing-label has zeroed or dropped the rows without a label; then a
// TREC run's rows take their labels from the qrels; then two rows at one
// logged position (Group.Logged) are an error naming both.
func (u *Unit) Prepare(g *Group) (dropped int, err error) {
	u.noLabelNow = u.applyMissingLabels(g)
	if dropped, err = u.prepareDocs(g); err != nil {
		return dropped, err
	}
	if dup, first := u.repeatedPosition(g.Logged); dup >= 0 {
		return dropped, fmt.Errorf("%s: query %s has two rows at logged position %v (the other at %s); an impression shows one row at each position: %w",
			u.where(g.Where[dup]), quoteShort(g.ID), g.Logged[dup], u.where(g.Where[first]), ErrDuplicatePos)
	}
	return dropped, nil
}

// repeatedPosition returns the first row (in input order) whose logged
// position an earlier row has, and that earlier row; or -1, -1. Positions
// are whole numbers >= 1 (Taker checked them); a table as long as the
// largest serves when it is within a few times the rows, as a click log's
// positions 1..n are, else a map.
func (u *Unit) repeatedPosition(pos []float64) (dup, first int) {
	if len(pos) < 2 {
		return -1, -1
	}
	most := 0.0
	for _, p := range pos {
		most = max(most, p)
	}
	if most > float64(4*len(pos)+64) {
		seen := make(map[float64]int, len(pos))
		for i, p := range pos {
			if j, ok := seen[p]; ok {
				return i, j
			}
			seen[p] = i
		}
		return -1, -1
	}
	n := int(most) + 1
	u.posAt = slices.Grow(u.posAt[:0], n)[:n]
	clear(u.posAt)
	for i, p := range pos {
		if j := u.posAt[int(p)]; j != 0 {
			return i, int(j - 1)
		}
		u.posAt[int(p)] = int32(i + 1)
	}
	return -1, -1
}

// prepareDocs is Prepare's work on doc ids and judgments.
func (u *Unit) prepareDocs(g *Group) (dropped int, err error) {
	u.docs, u.status = u.docs[:0], u.status[:0]
	if !g.hasDoc() {
		return 0, nil
	}
	if len(g.Doc.Off)-1 != g.N() {
		return 0, fmt.Errorf("%s: query %q: some of its rows have a doc id column and some do not: %w", u.where(g.First), g.ID, ErrMixedColumns)
	}
	n := g.N()
	u.docs = slices.Grow(u.docs, n)[:n]
	buf, off := g.Doc.Buf, g.Doc.Off[:n+1]
	for i := range u.docs {
		u.docs[i] = buf[off[i]:off[i+1]]
	}
	if len(g.Doc.Buf) == 0 { // no row has a doc id
		return 0, nil
	}
	if u.r.DedupFirst {
		dropped = u.dedup.keepFirst(g, &u.docs)
	} else if dup, first := u.dedup.firstDuplicate(u.docs); dup >= 0 {
		return 0, fmt.Errorf("%s: document %s appears twice in query %s (first at %s): %w",
			u.where(g.Where[dup]), quoteShort(u.docs[dup]), quoteShort(g.ID), u.where(g.Where[first]), ErrDuplicateDoc)
	}
	if u.r.Qrels != nil {
		var found []bool
		if u.wantStatus {
			u.found = slices.Grow(u.found[:0], len(g.Label))[:len(g.Label)]
			clear(u.found)
			found = u.found
		}
		u.r.Qrels.Join(g.ID, g.Label, found, u.dedup.lookup)
		if found != nil {
			u.status = slices.Grow(u.status[:0], len(found))[:len(found)]
			for i, f := range found {
				u.status[i] = JudgmentOf(f, g.Label[i])
			}
		}
		// the qrels loader has rejected labels that are not finite and
		// made negative ones 0; the maximum grade is the run's to check
		for i, l := range g.Label {
			if l > u.maxG {
				return dropped, u.r.aboveMaxGrade(u.where(g.Where[i]), l, u.maxG)
			}
		}
	}
	return dropped, nil
}

// JudgmentOf is what a qrels file says of a row: nothing when it does not
// judge its document (not found), else judged, or in the pool but not
// judged for a negative judgment, which trec.ParseLabel keeps as -0.0.
func JudgmentOf(found bool, label float64) metrics.Judgment {
	// without branches: which rows of a ranking the qrels judge follows no
	// pattern, so a switch is mispredicted on most rows; the class is a sum
	// of 0/1 terms, since an if choosing it on found compiles to a branch
	var f, neg uint8
	if found {
		f = 1
	}
	if math.Float64bits(label) == 1<<63 { // -0.0
		neg = 1
	}
	return metrics.Unjudged - metrics.Judgment(f) + metrics.Judgment(2*(f&neg))
}

// Eval evaluates g, prepared, ranked by score (g.Score or one of
// g.XScore), into vals (one per metric), and reports whether the query is
// empty; under --empty error an empty query is an error.
func (u *Unit) Eval(g *Group, score []float64, vals []float64) (empty bool, err error) {
	l := metrics.List{Label: g.Label}
	if len(score) > 0 {
		l.Score = score
	}
	if len(g.Rank) > 0 {
		l.Rank = g.Rank
	}
	if len(u.docs) > 0 {
		l.Doc = u.docs
	}
	if u.r.Qrels != nil {
		l.Judged = u.r.Qrels.Judged(g.ID)
		l.Unjudged = len(l.Judged) == 0
		// the judged documents the run did not retrieve enter the ideal
		// rankings of nerr and gdeval's nDCG: held to their grade as rows are
		for _, y := range l.Judged {
			if y > u.idealG {
				return false, u.r.aboveMaxGrade(fmt.Sprintf("%s: query %q, a document judged in the qrels", u.where(g.First), g.ID), y, u.idealG)
			}
		}
	}
	if u.wantStatus && len(u.status) == len(g.Label) {
		l.Status = u.status
	}
	if len(g.Prop) > 0 {
		l.Prop = g.Prop
	}
	if len(g.Team) > 0 {
		l.Team = g.Team
	}
	u.noScoreNow = u.applyMissingScores(&l)
	if u.r.NoteBinaryLabels && !u.nonBinary {
		u.labels = u.labels || len(g.Label) > 0
		for _, y := range g.Label {
			if y != 0 && y != 1 {
				u.nonBinary = true
				break
			}
		}
	}
	empty = u.ev.Eval(&l, vals) && !u.r.NoLabels // without labels no query is empty
	if u.pair {
		u.ranked = u.ev.AppendRanking(u.ranked[:0])
		if u.dropped { // the list's rows are those --missing-score drop kept
			for p, i := range u.ranked {
				u.ranked[p] = u.kept[i]
			}
		}
	}
	if empty && u.emptyErr {
		return empty, fmt.Errorf("%s: query %q has no relevant row (--empty error): %w", u.where(g.First), g.ID, ErrEmptyQuery)
	}
	if !empty && !u.r.NonFinite {
		return false, u.checkFinite(g, &l, vals)
	}
	return empty, nil
}

// MaxValue bounds a query's metric values: a difference of two of them
// squared (the paired test's sums, the intervals' sums of squares) stays
// finite.
const MaxValue = 0x1p510

// checkFinite fails when a metric of a query that is not empty came out
// infinite or above MaxValue, which only huge labels can do (each
// label is finite, but a gain of 2^y − 1 is infinite from y = 1024 under
// --gain exp, and a sum of gains or of their squares can overflow below
// that): such a query would otherwise drop out of the means, or make them
// infinite or null, with exit 0. NaN is a value left undefined, as the
// correlations' (metrics returns +Inf for an ndcg whose ideal DCG
// overflows, where the ratio would be 0 or NaN). The message names the row of the largest label (or the
// query's first row, when the largest label is a judgment the ranking does
// not hold).
func (u *Unit) checkFinite(g *Group, l *metrics.List, vals []float64) error {
	for j, v := range vals {
		m := u.r.Metrics[j]
		if !(math.Abs(v) > MaxValue) {
			continue
		}
		at, top := u.where(g.First), 0.0
		for i, y := range g.Label {
			if y > top {
				top = y
				if len(g.Where) == len(g.Label) {
					at = u.where(g.Where[i])
				}
			}
		}
		for _, y := range l.Judged {
			if y > top {
				top, at = y, u.where(g.First)
			}
		}
		hint := "use smaller labels"
		if u.r.Options.Gain == metrics.GainExp {
			hint = "under --gain exp a label's gain is 2^y − 1: use --gain linear, or smaller labels"
		}
		return fmt.Errorf("%s: query %q: %s is %v from its largest label %v (a value must be finite and at most 2^510, so that sums of squares stay finite); %s: %w",
			at, g.ID, m.Name, v, top, hint, ErrOverflow)
	}
	return nil
}

// Labels says what u has seen of labels under Rules.NoteBinaryLabels: any
// label, and any that is not 0 or 1. Its verdicts over several units (or
// Beam workers) combine by or-ing each; LabelVerdict reads them.
func (u *Unit) Labels() (seen, nonBinary bool) { return u.labels, u.nonBinary }

// LabelVerdict says whether a run's labels were all 0 or 1 (binary: ERR's
// default maximum grade then makes it tiny) or not (graded).
func LabelVerdict(seen, nonBinary bool) (binary, graded bool) { return seen && !nonBinary, nonBinary }

// scoreOf returns the scores of system s of one log's group: g.Score for
// the first, then the extra score columns.
func (g *Group) scoreOf(s int) []float64 {
	if s == 0 {
		return g.Score
	}
	return g.XScore[s-1]
}
