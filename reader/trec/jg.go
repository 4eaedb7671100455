package trec

import (
	"github.com/rankeval/rankeval/reader/internal/batch"
)

// -R qrels_jg (get_qrels_jg.c, form_res_rels_jg.c): a qrels file whose
// iter field names a judgment group (a user); map_avgjg, P_avgjg and
// Rprec_mult_avgjg are map, P and Rprec_mult (the ordinary metrics, -M,
// -J and -l included) of the ranking against each group's judgments,
// summed over the groups in their order (byte-wise) and, when there are
// several, divided by their number.

// JudgmentGroup is one judgment group of a query: its documents' labels (as
// AtolLabel reads them: negative ones -0.0) in file order.
type JudgmentGroup struct {
	Index  map[string]int // by docno
	Labels []float64
	lines  []int64
}

// JudgmentGroups is a qrels_jg file, read: by query, its judgment groups by name.
type JudgmentGroups map[string]map[string]*JudgmentGroup

// ReadJudgmentGroups reads the qrels_jg file name, skipping comment lines when
// comments is set: a document judged twice in a group of a query is an
// error, as in trec_eval, and so is a label above MaxLevel.
func ReadJudgmentGroups(name string, comments bool) (JudgmentGroups, error) {
	t, err := OpenTextLines(name, comments, true)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	f := JudgmentGroups{}
	for t.Next() {
		if n := t.Fields(); n != 4 {
			return nil, batch.ParseErrorf(t.Name(), t.Line(), "a -R qrels_jg line has 4 fields (qid jg docno label), found %d: %w", n, batch.ErrSyntax)
		}
		qid, jg, doc, lab := t.Field(0), t.Field(1), t.Field(2), t.Field(3)
		label := AtolLabel(lab) // get_qrels_jg's atol
		if label > MaxLevel {
			return nil, LevelError(t.Name(), t.Line(), label)
		}
		groups := f[string(qid)]
		if groups == nil {
			groups = map[string]*JudgmentGroup{}
			f[string(qid)] = groups
		}
		g := groups[string(jg)]
		if g == nil {
			g = &JudgmentGroup{Index: map[string]int{}}
			groups[string(jg)] = g
		}
		if k, ok := g.Index[string(doc)]; ok {
			return nil, batch.ParseErrorf(t.Name(), t.Line(), "docno %q judged twice for query %q in judgment group %q (first at line %d): %w", doc, qid, jg, g.lines[k], batch.ErrValue)
		}
		g.Index[string(doc)] = len(g.Labels)
		g.Labels = append(g.Labels, label)
		g.lines = append(g.lines, t.Line())
	}
	return f, t.Err()
}
