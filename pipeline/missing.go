package pipeline

import (
	"fmt"
	"math"
	"slices"

	"github.com/rankeval/rankeval/metrics"
)

// Missing is what a run does with a row whose score or label is missing
// (a JSON null, an empty CSV/TSV field, a Parquet or Arrow null, or a NaN
// a reader took as a number): --missing-score and --missing-label. The
// readers hand such a value on as NaN (reader.Columns.MissingScore,
// MissingLabel); the Taker lets it through only under a policy other
// than MissingError, and the Unit applies the policy before any metric
// sees the row, counting the rows per system (Unit.TakeMissing).
type Missing uint8

const (
	// MissingError stops at the row, naming the flag.
	MissingError Missing = iota
	// MissingDrop leaves the row out of its query, as if absent: for a
	// score, out of the ranking of the system it has no score of.
	MissingDrop
	// MissingLast ranks the row after every scored row of its query
	// (scores only); rows without a score tie among themselves, broken
	// by the --ties policy.
	MissingLast
	// MissingZero counts the row as not relevant, label 0 (labels only).
	MissingZero
)

// String is the policy as its flag takes it.
func (m Missing) String() string {
	return [...]string{"error", "drop", "last", "zero"}[m]
}

// ParseMissing reads a --missing-score (label false) or --missing-label
// (label true) value.
func ParseMissing(s string, label bool) (Missing, error) {
	switch {
	case s == "error":
		return MissingError, nil
	case s == "drop":
		return MissingDrop, nil
	case s == "last" && !label:
		return MissingLast, nil
	case s == "zero" && label:
		return MissingZero, nil
	}
	if label {
		return 0, fmt.Errorf("--missing-label %q: want error, drop or zero", s)
	}
	return 0, fmt.Errorf("--missing-score %q: want error, drop or last", s)
}

// missingScore says whether score s, NaN, passes the Taker as missing.
func (r *Rules) missingScore(s float64) bool { return r.MissingScore != MissingError && math.IsNaN(s) }

// missingLabel says whether label l, NaN, passes the Taker as missing.
func (r *Rules) missingLabel(l float64) bool { return r.MissingLabel != MissingError && math.IsNaN(l) }

// missingHint is what a message about a NaN score or label adds to say
// how to go on; "" for a value that is not NaN.
func missingHint(v float64, hint string) string {
	if !math.IsNaN(v) {
		return ""
	}
	return hint
}

// labelMask marks the rows of g whose label is missing, in u.keep (true:
// kept), and returns how many are not kept.
func (u *Unit) labelMask(g *Group) int {
	u.keep = slices.Grow(u.keep[:0], len(g.Label))[:len(g.Label)]
	n := 0
	for i, l := range g.Label {
		u.keep[i] = !math.IsNaN(l)
		if !u.keep[i] {
			n++
		}
	}
	return n
}

// applyMissingLabels applies --missing-label to g's rows before anything
// else looks at them (repeated doc ids, the qrels join): under zero a
// missing label becomes 0, under drop the row leaves g. It returns how
// many rows had no label.
func (u *Unit) applyMissingLabels(g *Group) int {
	if u.r.MissingLabel == MissingError {
		return 0
	}
	n := u.labelMask(g)
	if n == 0 {
		return 0
	}
	if u.r.MissingLabel == MissingZero {
		for i, k := range u.keep {
			if !k {
				g.Label[i] = 0
			}
		}
		return n
	}
	g.keepRows(u.keep)
	return n
}

// keepRows leaves in g only the rows i with keep[i], in order, in every
// column.
func (g *Group) keepRows(keep []bool) {
	kept := 0
	var docBuf []byte
	hasDoc := len(g.Doc.Off) == len(keep)+1
	if hasDoc {
		docBuf = make([]byte, 0, len(g.Doc.Buf))
	}
	for i, k := range keep {
		if !k {
			continue
		}
		g.moveRow(kept, i)
		if hasDoc {
			docBuf = append(docBuf, g.Doc.At(i)...)
			g.Doc.Off[kept+1] = int32(len(docBuf))
		}
		kept++
	}
	g.Label, g.Where = g.Label[:kept], g.Where[:kept]
	if len(g.Score) > 0 {
		g.Score = g.Score[:kept]
	}
	if len(g.Rank) > 0 {
		g.Rank = g.Rank[:kept]
	}
	if len(g.Prop) > 0 {
		g.Prop = g.Prop[:kept]
	}
	if len(g.Logged) > 0 {
		g.Logged = g.Logged[:kept]
	}
	if len(g.Team) > 0 {
		g.Team = g.Team[:kept]
	}
	for c := range g.XScore {
		g.XScore[c] = g.XScore[c][:kept]
	}
	if hasDoc {
		g.Doc.Buf = append(g.Doc.Buf[:0], docBuf...)
		g.Doc.Off = g.Doc.Off[:kept+1]
	}
}

// applyMissingScores applies --missing-score to l, ranked by one
// system's scores, and returns how many of its rows had no score: under
// last such a row takes the score -Inf, which no read score is (the Taker
// refuses infinite scores), so it ranks after every scored row and ties
// with the other unscored rows; under drop the row leaves l (and u.kept
// holds the rows left, in order). l's columns are replaced by the Unit's
// own copies, never written through.
func (u *Unit) applyMissingScores(l *metrics.List) int {
	u.kept = u.kept[:0]
	u.dropped = false
	if u.r.MissingScore == MissingError || l.Score == nil {
		return 0
	}
	n := 0
	for _, s := range l.Score {
		if math.IsNaN(s) {
			n++
		}
	}
	if n == 0 {
		return 0
	}
	if u.r.MissingScore == MissingLast {
		u.score = append(u.score[:0], l.Score...)
		for i, s := range u.score {
			if math.IsNaN(s) {
				u.score[i] = math.Inf(-1)
			}
		}
		l.Score = u.score
		return n
	}
	keep := func(i int) bool { return !math.IsNaN(l.Score[i]) }
	u.dropped = true
	for i := range l.Score {
		if keep(i) {
			u.kept = append(u.kept, int32(i))
		}
	}
	u.label = filter(u.label[:0], l.Label, keep)
	if l.Rank != nil {
		u.rank = filter(u.rank[:0], l.Rank, keep)
		l.Rank = u.rank
	}
	if l.Doc != nil {
		u.doc = filter(u.doc[:0], l.Doc, keep)
		l.Doc = u.doc
	}
	if l.Status != nil {
		u.stat = filter(u.stat[:0], l.Status, keep)
		l.Status = u.stat
	}
	if l.Prop != nil {
		u.prop = filter(u.prop[:0], l.Prop, keep)
		l.Prop = u.prop
	}
	if l.Team != nil {
		u.team = filter(u.team[:0], l.Team, keep)
		l.Team = u.team
	}
	u.score = filter(u.score[:0], l.Score, keep)
	l.Label, l.Score = u.label, u.score
	return n
}

// filter appends to dst the xs[i] with keep(i).
func filter[T any](dst, xs []T, keep func(int) bool) []T {
	for i, x := range xs {
		if keep(i) {
			dst = append(dst, x)
		}
	}
	return dst
}

// TakeMissing adds to noScore[s] and noLabel[s] the rows of system s that
// had no score or no label in the queries u evaluated since it was last
// asked, and starts its counts again.
func (u *Unit) TakeMissing(noScore, noLabel []int64) {
	for s := range u.noScore {
		noScore[s] += u.noScore[s]
		noLabel[s] += u.noLabel[s]
		u.noScore[s], u.noLabel[s] = 0, 0
	}
}
