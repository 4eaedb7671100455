package pipeline

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/rankeval/rankeval/aggregate"
)

// The rules of one query over the compared systems, for every path that
// brings a query's logs together: the lockstep of sorted logs here, and a
// distributed join by query id (dist/beam).

// EvalSystems evaluates one query for every system into res (Rows, Vals,
// Empty, Missing; the caller sets Slice and Hash) and adds to dropped[s]
// the rows --dedup first dropped for system s. logs holds the query's
// group from each log when systems are logs (nil where the query is
// absent: it counts as 0 there, see Absent), or the one log whose score
// columns are the systems.
//
// A query that every log holding it finds without a relevant row is empty
// for the systems whose logs lack it too: they take the --empty policy's
// values (left out under skip), not an absent query's 0, so that no
// system is marked down for a query no system could rank well.
func (u *Unit) EvalSystems(logs []*Group, res *aggregate.Query, dropped []int64) error {
	lockstep := len(logs) > 1
	if err := u.evalSystems(logs, res, dropped, lockstep); err != nil {
		return err
	}
	if !lockstep {
		return nil
	}
	absent, held := false, false
	for s := range logs {
		switch {
		case res.Missing[s]:
			absent = true
		case !res.Empty[s]:
			return nil // a relevant row somewhere: absent systems score 0
		default:
			held = true
		}
	}
	if absent && held {
		for s := range logs {
			if res.Missing[s] {
				for i, m := range u.r.Metrics {
					res.Vals[s][i] = m.MissingEmpty(u.r.Options)
				}
				res.Empty[s] = true
			}
		}
	}
	return nil
}

func (u *Unit) evalSystems(logs []*Group, res *aggregate.Query, dropped []int64, lockstep bool) error {
	for s := range u.r.systems() {
		g := logs[0]
		if lockstep {
			g = logs[s]
		}
		res.Missing[s] = g == nil
		if g == nil {
			u.absentValues(presentID(logs), res.Vals[s])
			res.Rows[s], res.Empty[s] = 0, false
			if res.Weight != nil {
				res.Weight[s], res.Clipped[s] = 0, 0
			}
			continue
		}
		// one log's rows serve every score column: prepare them once
		if s == 0 || lockstep {
			n, err := u.Prepare(g)
			if err != nil {
				return err
			}
			dropped[s] += int64(n)
			if lockstep {
				u.noLabel[s] += int64(u.noLabelNow)
			} else { // every score column ranks the log's rows
				for t := range u.noLabel {
					u.noLabel[t] += int64(u.noLabelNow)
				}
			}
		}
		score := g.Score
		if !lockstep {
			if s > len(g.XScore) {
				return fmt.Errorf("%s: query %q has no score of %s: %w", u.where(g.First), g.ID, u.r.Systems[s], ErrMixedColumns)
			}
			score = g.scoreOf(s)
		}
		var err error
		if res.Empty[s], err = u.Eval(g, score, res.Vals[s]); err != nil {
			return err
		}
		u.noScore[s] += int64(u.noScoreNow)
		res.Rows[s] = g.N()
		if u.r.MissingScore == MissingDrop {
			res.Rows[s] -= u.noScoreNow
		}
		if res.Weight != nil {
			res.Weight[s], res.Clipped[s] = u.ev.ClickWeight()
		}
	}
	return nil
}

// ClickWeights readies res to carry each system's click weight and
// clipped clicks, when some metric is an IPS estimate.
func (r *Rules) ClickWeights(res *aggregate.Query) {
	for _, m := range r.Metrics {
		if m.Propensities() {
			res.Weight, res.Clipped = make([]float64, len(res.Vals)), make([]int, len(res.Vals))
			return
		}
	}
}

// Absent fills res for query id, which no log holds but which counts all
// the same: a judged query missing from a TREC run, under --complete
// (trec_eval's -c). Every system's values are those of a query absent
// from its log (absentValues).
func (u *Unit) Absent(id []byte, res *aggregate.Query) {
	for s := range res.Vals {
		u.absentValues(id, res.Vals[s])
		res.Rows[s], res.Empty[s], res.Missing[s] = 0, false, true
		if res.Weight != nil {
			res.Weight[s], res.Clipped[s] = 0, 0
		}
	}
}

// absentValues fills the values of query id absent from a system: what
// an empty ranking scores (metrics.Metric.Missing: 0 for most, undefined
// for the correlations, 1 for num_q), but num_rel, the query's R from its
// judgments when a qrels file gives them (metrics.Evaluator.Absent).
func (u *Unit) absentValues(id []byte, vals []float64) {
	var judged []float64
	if u.r.Qrels != nil {
		judged = u.r.Qrels.Judged(id)
	}
	u.ev.Absent(judged, vals)
}

// presentID is the id of the query of the groups logs, nil where a log
// lacks it.
func presentID(logs []*Group) []byte {
	for _, g := range logs {
		if g != nil {
			return g.ID
		}
	}
	return nil
}

// SliceSource returns the group whose slice values are the query's: its
// first present log's (logs as EvalSystems takes them). The other logs
// must agree (ErrSliceMismatch).
func (r *Rules) SliceSource(logs []*Group, where Where) (*Group, error) {
	var key *Group
	for _, g := range logs {
		if g == nil {
			continue
		}
		if key == nil {
			key = g
			continue
		}
		if !bytes.Equal(g.Key.Buf, key.Key.Buf) || !slices.Equal(g.Key.Off, key.Key.Off) {
			c := firstDiff(&g.Key, &key.Key)
			return nil, fmt.Errorf("%s: query %q has %s %q here but %q at %s: %w", where(g.First), g.ID,
				r.Slices[c], g.Key.At(c), key.Key.At(c), where(key.First), ErrSliceMismatch)
		}
	}
	return key, nil
}

// AbsentError is the error for a query that log lacks while log has
// holds it at position at, when --missing zero was not given. The
// lockstep says more (what the lacking log holds in its place); a join by
// query id, where the logs may come in any order, says this.
func (r *Rules) AbsentError(at string, id []byte, has, lacks int) error {
	return fmt.Errorf("%s: query %q is in %s's log but not in %s's (give --missing zero to count absent queries as 0): %w",
		at, id, r.Systems[has], r.Systems[lacks], ErrLockstep)
}

// IDLess orders query ids for --missing zero: numerically when both are
// unsigned integers (TREC topic numbers), else byte-wise.
func IDLess(a, b []byte) bool {
	if isDigits(a) && isDigits(b) {
		a, b = bytes.TrimLeft(a, "0"), bytes.TrimLeft(b, "0")
		if len(a) != len(b) {
			return len(a) < len(b)
		}
	}
	return bytes.Compare(a, b) < 0
}

func isDigits(s []byte) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(s) > 0
}
