package pipeline

import (
	"bytes"
	"fmt"
	"hash/maphash"
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
	if lockstep {
		u.emptyAbsent(logs, res)
	}
	if u.pair {
		return u.similarities(logs, res, lockstep)
	}
	return nil
}

// emptyAbsent gives the systems whose logs lack the query the empty-query
// policy's values when no log holding it has a relevant row.
func (u *Unit) emptyAbsent(logs []*Group, res *aggregate.Query) {
	absent, held := false, false
	for s := range logs {
		switch {
		case res.Missing[s]:
			absent = true
		case !res.Empty[s]:
			return // a relevant row somewhere: absent systems score 0
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
}

// similarities writes the rank-similarity measures of every candidate
// system (docs/metrics.md §4, rank similarity): its ranking of the
// query against the baseline's, as Unit.Eval left each (an absent log's
// ranking is empty). The baseline's own values stay undefined. Items
// are the rows of the one log whose score columns are the systems, or,
// between logs, their doc ids (keepRanking).
func (u *Unit) similarities(logs []*Group, res *aggregate.Query, lockstep bool) error {
	items := u.ids.items()
	if !lockstep {
		items = logs[0].N()
	}
	for s := 1; s < len(res.Vals); s++ {
		u.ev.Similarity(u.ranks[0], u.ranks[s], items, res.Vals[s])
	}
	return nil
}

// keepRanking keeps system s's ranking of the query, which Unit.Eval
// left in u.ranked as rows of g, for similarities: as those rows when
// the systems are one log's score columns, else as numbers of their doc
// ids: the baseline's rows in its ranked order 0, 1, ..., and another
// log's each the baseline's number of its doc id, or a number of its own
// past them (docIDs). A ranked row without a doc id is an error: it
// matches no row of another log, nor can two such rows be told apart.
func (u *Unit) keepRanking(s int, g *Group, lockstep bool) error {
	if !lockstep {
		u.ranks[s] = append(u.ranks[s], u.ranked...)
		return nil
	}
	if len(u.docs) != g.N() {
		return fmt.Errorf("%s: query %q of %s has no doc id: the rank-similarity measures match the rows of two logs by doc id: %w",
			u.where(g.First), g.ID, u.r.Systems[s], ErrMixedColumns)
	}
	for _, row := range u.ranked {
		d := u.docs[row]
		if len(d) == 0 { // no row of another log can be told to be this one
			return fmt.Errorf("%s: query %q of %s has a row without a doc id: the rank-similarity measures match the rows of two logs by doc id: %w",
				u.where(g.Where[row]), g.ID, u.r.Systems[s], ErrDuplicateDoc)
		}
		u.ranks[s] = append(u.ranks[s], u.ids.number(d, s == 0))
	}
	return nil
}

func (u *Unit) evalSystems(logs []*Group, res *aggregate.Query, dropped []int64, lockstep bool) error {
	if u.pair && lockstep {
		u.ids.reset()
	}
	for s := range u.r.systems() {
		g := logs[0]
		if lockstep {
			g = logs[s]
		}
		res.Missing[s] = g == nil
		u.ranks[s] = u.ranks[s][:0]
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
		if u.pair {
			if err := u.keepRanking(s, g, lockstep); err != nil {
				return err
			}
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

// docIDs numbers the doc ids of one query's rankings across logs without
// allocating: the baseline's (base) are numbered in turn, and the other
// logs' found among them by an open-addressing table of their hashes
// (slot: 1 + the number, 0 empty), compared byte for byte; a doc id the
// baseline lacks gets the next number (a log's doc ids are distinct, and
// each log's own extra ids need no match across logs: a candidate is
// only ever compared with the baseline).
type docIDs struct {
	base  [][]byte
	slots []int32
	built bool  // slots holds this query's base
	extra int32 // ids given past the baseline's, this query
	seed  maphash.Seed
}

func (d *docIDs) reset() {
	if d.base == nil {
		d.base = make([][]byte, 0, 16)
		d.seed = maphash.MakeSeed()
	}
	d.base, d.extra, d.built = d.base[:0], 0, false
}

// items is the count of numbers given: the ids lie in [0, items).
func (d *docIDs) items() int { return len(d.base) + int(d.extra) }

// number is doc's number: a new one for the baseline's doc (base), else
// the baseline's doc's, or one past them.
func (d *docIDs) number(doc []byte, base bool) int32 {
	if base {
		d.base = append(d.base, doc)
		return int32(len(d.base) - 1)
	}
	if !d.built {
		d.build()
	}
	mask := uint64(len(d.slots) - 1)
	for h := maphash.Bytes(d.seed, doc) & mask; ; h = (h + 1) & mask {
		v := d.slots[h]
		if v == 0 {
			break
		}
		if bytes.Equal(d.base[v-1], doc) {
			return v - 1
		}
	}
	d.extra++
	return int32(len(d.base)) + d.extra - 1
}

// build fills the table with the baseline's doc ids, at most half full.
func (d *docIDs) build() {
	n := 16
	for n < 2*len(d.base) {
		n *= 2
	}
	if len(d.slots) < n {
		d.slots = make([]int32, n)
	}
	d.slots = d.slots[:n]
	clear(d.slots)
	mask := uint64(n - 1)
	for i, doc := range d.base {
		h := maphash.Bytes(d.seed, doc) & mask
		for d.slots[h] != 0 {
			h = (h + 1) & mask
		}
		d.slots[h] = int32(i + 1)
	}
	d.built = true
}
