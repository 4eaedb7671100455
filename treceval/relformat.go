package treceval

import (
	"bytes"
	"context"
	"errors"
	"slices"

	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/pipeline"
	"github.com/rankeval/rankeval/reader"
	"github.com/rankeval/rankeval/reader/trec"
)

// trec_eval's -R formats other than qrels, whose measures this package
// computes itself, a family each: prefs and qrels_prefs (prefs_read.go,
// prefs.go, recount.go, prefs_measures.go) and qrels_jg (jg.go). The run
// is read and grouped by query under the ordinary command's rules, each
// judged query's values come from its family, and what trec_eval does
// with them (the queries it evaluates, -c, -Z, the lines) is the same as
// for qrels (queries.go).

// ErrJudgments is wrapped by the errors of judgments trec_eval cannot
// evaluate (inconsistent preferences), found when their query is.
var ErrJudgments = errors.New("judgments trec_eval cannot evaluate")

// relFamily is a family's side of the evaluation: the judgments' queries,
// and the evaluation of one query's ranking, the run's rows of the query
// (docs and scores as the release stores them), into one value per slot
// of the selection.
type relFamily struct {
	judged relJudged
	eval   func(qid string, docs [][]byte, scores []float64, vals []float64) error
}

// relJudged are a judgments file's queries as trec_eval's loop reads them
// (judgments): ids sorted byte-wise.
type relJudged []string

func relQueries[V any](byQ map[string]V) relJudged { return sortedKeys(byQ) }

func (r relJudged) IDs() []string { return r }
func (r relJudged) Queries() int  { return len(r) }

// Positive is num_rel's total under -c, a measure over qrels only.
func (r relJudged) Positive() int { return 0 }

// Judged is what the measures over qrels read of a query.
func (r relJudged) Judged([]byte) []float64 { return nil }

// Duplicate is nil: the families' readers refuse a document judged twice
// as trec_eval's do.
func (r relJudged) Duplicate(string) error { return nil }

// checkFormat refuses a measure of another -R format than a's (trec_eval
// stops at its first query: "Can't calculate measure"); runid and num_q
// go with any.
func checkFormat(sel *selection, format string) error {
	want, ok := map[string]string{"qrels": "", "prefs": "prefs", "qrels_prefs": "prefs", "qrels_jg": "qrels_jg"}[format]
	if !ok {
		return trecUsagef("trec_eval: Illegal rel_format '%s' (qrels, prefs, qrels_prefs or qrels_jg)", format)
	}
	for _, m := range sel.marked {
		switch {
		case m.Shape == metrics.TrecRunID || m.Shape == metrics.TrecNumQ || m.Rel == want:
		case m.Rel == "":
			return trecUsagef("trec_eval: measure '%s' needs -R qrels (not -R %s)", m.Name, format)
		case m.Rel == "prefs":
			return trecUsagef("trec_eval: measure '%s' needs -R prefs or -R qrels_prefs (not -R %s)", m.Name, format)
		default:
			return trecUsagef("trec_eval: measure '%s' needs -R %s (not -R %s)", m.Name, m.Rel, format)
		}
	}
	return nil
}

// evaluateRel evaluates run against the judgments of a's -R format (not
// qrels): every judged query the run holds (only -D's, if given), by its
// family, and under 10.0 -c the bogus ranking of those it lacks.
func evaluateRel(ctx context.Context, a *trecEvalArgs, sel *selection, run string) (*evaluated, error) {
	s, err := settings(a, sel)
	if err != nil {
		return nil, err
	}
	var fam *relFamily
	if a.relFormat == "qrels_jg" {
		fam, err = jgFamily(a, sel, s)
	} else {
		fam, err = prefsFamily(a, sel)
	}
	if err != nil {
		return nil, err
	}
	width := 0
	for _, v := range sel.values {
		width += v.width()
	}
	judged := make(map[string]bool, len(fam.judged))
	for _, q := range fam.judged {
		judged[q] = a.debugQuery == "" || q == a.debugQuery
	}
	groups, where, err := runGroups(ctx, run, a, &s.Rules, judged)
	if err != nil {
		return nil, err
	}
	unit := s.Rules.NewUnit(where)
	ev := &evaluated{sel: sel, s: s, qrels: fam.judged, numVals: width}
	for _, id := range fam.judged {
		g := groups[id]
		if g == nil {
			continue
		}
		if _, err := unit.Prepare(g); err != nil {
			return nil, err // a document twice in the query
		}
		vals := make([]float64, width)
		if err := fam.eval(id, groupDocs(g), g.Score, vals); err != nil {
			return nil, err
		}
		ev.ids = append(ev.ids, id)
		ev.vals = append(ev.vals, vals)
		delete(groups, id) // its rows are no longer needed
	}
	ev.bogusOf = func(id string) ([]float64, error) {
		vals := make([]float64, width)
		return vals, fam.eval(id, [][]byte{[]byte(bogusDoc)}, []float64{1}, vals)
	}
	return ev, nil
}

// groupDocs lists a group's doc ids.
func groupDocs(g *pipeline.Group) [][]byte {
	docs := make([][]byte, g.N())
	for i := range docs {
		docs[i] = g.Doc.At(i)
	}
	return docs
}

// runGroups reads the run's rows of the queries judged marks true,
// grouped by query wherever their lines are (trec_eval sorts the run),
// under the ordinary command's rules (scores as the release stores
// them); the rows of other queries are not kept. where names a row's
// line for messages.
func runGroups(ctx context.Context, run string, a *trecEvalArgs, rules *pipeline.Rules, judged map[string]bool) (map[string]*pipeline.Group, pipeline.Where, error) {
	r, err := trec.OpenRun(run, nil, trec.RunOptions{Comments: a.comments(), ExtraFields: true, RefuseNul: true})
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	src := reader.Batch{Source: run}
	where := func(v uint64) string {
		_, pos := pipeline.Unpack(v)
		return src.WherePos(pos)
	}
	take := rules.NewTaker(where)
	groups := map[string]*pipeline.Group{}
	for r.Next() {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		b := r.Batch()
		src.Source, src.Locate = b.Source, b.Locate
		for i := 0; i < b.N; {
			q := b.Query.At(i)
			j := i + 1
			for j < b.N && bytes.Equal(b.Query.At(j), q) {
				j++
			}
			if judged[string(q)] {
				g := groups[string(q)]
				if g == nil {
					g = new(pipeline.Group)
					groups[string(q)] = g
				}
				if err := take.Append(g, b, i, j, 0); err != nil {
					return nil, nil, err
				}
			}
			i = j
		}
	}
	if err := r.Err(); err != nil {
		return nil, nil, err
	}
	return groups, where, nil
}

// sortedKeys returns m's keys in byte-wise order, trec_eval's strcmp.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
