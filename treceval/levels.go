package treceval

import (
	"fmt"
	"math"
	"slices"

	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/reader/trec"
)

// A query of -R qrels judged only below 0 (every judgment negative: in
// the pool, not judged) is one trec_eval cannot evaluate but once.
// te_form_res_rels sizes its count of documents per level by the query's
// highest judgment, max_rel + 1 entries, through te_chk_and_malloc, which
// keeps the buffer it has when asked for no more:
//   - the first query it forms has no buffer yet, so it gets NULL and
//     trec_eval stops: "Can't calculate measure" (exit 4);
//   - a later one whose highest judgment is -1 keeps the counts of the
//     last query before it judged from 0 up (leftover reproduces what
//     that changes);
//   - a later one whose highest judgment is -2 or below clears a negative
//     number of bytes: trec_eval crashes, so rankeval refuses it.
// Only measures that form the ranking's judgments (all but runid and
// num_q) ask.

// highLevel refuses a judgment of a's qrels above trec.MaxLevel.
func (ev *evaluated) highLevel(a *trecEvalArgs) error {
	for _, id := range ev.qrels.IDs() {
		for _, l := range ev.qrels.Judged([]byte(id)) {
			if l > trec.MaxLevel {
				return trec.LevelError(a.qrels, 0, l)
			}
		}
	}
	return nil
}

// formsRanking is the first measure asked for, in trec_eval's table, that
// forms the ranking's judgments (te_form_res_rels: all but runid and
// num_q), whose name trec_eval's "Can't calculate measure" gives when
// they cannot be formed; "" when none is.
func (ev *evaluated) formsRanking() string {
	for _, m := range ev.sel.marked {
		if m.Shape != metrics.TrecRunID && m.Shape != metrics.TrecNumQ {
			return m.Name
		}
	}
	return ""
}

// negativeOnly is the error trec_eval stops with, or the crash rankeval
// refuses, for the queries qs of a's qrels as trec_eval evaluates them,
// or nil.
func (ev *evaluated) negativeOnly(a *trecEvalArgs, qs []query) error {
	if a.relFormat != "qrels" {
		return nil // prefs' and jg's forms count levels from 0 up
	}
	if err := ev.highLevel(a); err != nil {
		return err
	}
	forms := ev.formsRanking()
	if forms == "" {
		return nil
	}
	var later []string
	for i, q := range qs {
		if slices.ContainsFunc(ev.qrels.Judged([]byte(q.id)), func(v float64) bool { return !math.Signbit(v) }) {
			continue
		}
		if i == 0 {
			return fmt.Errorf("%s: query %s: trec_eval: Can't calculate measure '%s' (every judgment of the query is negative, and trec_eval stops at such a query when it is the first it evaluates)", a.qrels, q.id, forms)
		}
		later = append(later, q.id)
	}
	if len(later) == 0 {
		return nil
	}
	return belowMinusOne(a, later)
}

// belowMinusOne reads a's qrels again for queries ids, judged only below
// 0, and refuses one whose highest judgment, as trec_eval's atol reads
// it, is -2 or below. Such queries are rare: the file is read again only
// when there is one.
func belowMinusOne(a *trecEvalArgs, ids []string) error {
	highest := make(map[string]float64, len(ids))
	for _, id := range ids {
		highest[id] = math.Inf(-1)
	}
	t, err := trec.OpenTextLines(a.qrels, a.comments(), true)
	if err != nil {
		return err
	}
	defer t.Close()
	for t.Next() {
		h, ok := highest[string(t.Field(0))]
		if !ok || t.Fields() != 4 {
			continue
		}
		highest[string(t.Field(0))] = max(h, float64(trec.Atol(t.Field(3))))
	}
	if err := t.Err(); err != nil {
		return err
	}
	for _, id := range ids {
		if highest[id] <= -2 {
			return fmt.Errorf("%s: query %s: every judgment of the query is -2 or below: trec_eval crashes on it (it clears a negative number of bytes) unless it is the first query evaluated; rankeval refuses it", a.qrels, id)
		}
	}
	return nil
}
