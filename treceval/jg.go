package treceval

import (
	"fmt"

	"github.com/rankeval/rankeval/config"
	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/pipeline"
	"github.com/rankeval/rankeval/reader"
	"github.com/rankeval/rankeval/reader/trec"
)

// -R qrels_jg (get_qrels_jg.c, form_res_rels_jg.c): a qrels file whose
// iter field names a judgment group (a user); map_avgjg, P_avgjg and
// Rprec_mult_avgjg are map, P and Rprec_mult (the ordinary metrics, -M,
// -J and -l included) of the ranking against each group's judgments,
// summed over the groups in their order (byte-wise) and, when there are
// several, divided by their number.

// jgGroup is one judgment group of a query: its documents' labels (as
// trec.AtolLabel reads them: negative ones -0.0) in file order.
type jgGroup struct {
	index  map[string]int // by docno
	labels []float64
	lines  []int64
}

// jgFile is a qrels_jg file, read: by query, its judgment groups by name.
type jgFile map[string]map[string]*jgGroup

// readJG reads the qrels_jg file name, skipping comment lines when
// comments is set: a document judged twice in a group of a query is an
// error, as in trec_eval, and so is a label above maxLevel.
func readJG(name string, comments bool) (jgFile, error) {
	t, err := trec.OpenTextLines(name, comments, true)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	f := jgFile{}
	for t.Next() {
		if n := t.Fields(); n != 4 {
			return nil, fmt.Errorf("%s:%d: a -R qrels_jg line has 4 fields (qid jg docno label), found %d: %w", t.Name(), t.Line(), n, reader.ErrSyntax)
		}
		qid, jg, doc, lab := t.Field(0), t.Field(1), t.Field(2), t.Field(3)
		label := trec.AtolLabel(lab) // get_qrels_jg's atol
		if label > maxLevel {
			return nil, levelError(t.Name(), t.Line(), label)
		}
		groups := f[string(qid)]
		if groups == nil {
			groups = map[string]*jgGroup{}
			f[string(qid)] = groups
		}
		g := groups[string(jg)]
		if g == nil {
			g = &jgGroup{index: map[string]int{}}
			groups[string(jg)] = g
		}
		if k, ok := g.index[string(doc)]; ok {
			return nil, fmt.Errorf("%s:%d: docno %q judged twice for query %q in judgment group %q (first at line %d): %w",
				t.Name(), t.Line(), doc, qid, jg, g.lines[k], reader.ErrValue)
		}
		g.index[string(doc)] = len(g.labels)
		g.labels = append(g.labels, label)
		g.lines = append(g.lines, t.Line())
	}
	return f, t.Err()
}

// jgFamily reads the qrels_jg file of a and readies the measures of sel,
// whose metrics each group's judgments are evaluated with under s.
func jgFamily(a *trecEvalArgs, sel *selection, s *config.Settings) (*relFamily, error) {
	f, err := readJG(a.qrels, a.comments())
	if err != nil {
		return nil, err
	}
	ev := metrics.NewEvaluator(sel.metrics, s.Rules.Options)
	var l metrics.List
	var sums []float64
	fam := &relFamily{judged: relQueries(f)}
	fam.eval = func(qid string, docs [][]byte, scores []float64, vals []float64) error {
		groups := f[qid]
		l.Score, l.Doc = scores, docs
		l.Label = append(l.Label[:0], make([]float64, len(docs))...)
		l.Status = append(l.Status[:0], make([]metrics.Judgment, len(docs))...)
		sums = append(sums[:0], make([]float64, len(vals))...)
		for _, jg := range sortedKeys(groups) {
			g := groups[jg]
			l.Judged = g.labels
			for i, d := range docs {
				k, found := g.index[string(d)]
				l.Label[i] = 0
				if found {
					l.Label[i] = g.labels[k]
				}
				l.Status[i] = pipeline.JudgmentOf(found, l.Label[i])
			}
			ev.Eval(&l, vals)
			for k, v := range vals {
				sums[k] += v
			}
		}
		for k, v := range sums {
			if len(groups) > 1 {
				v /= float64(len(groups))
			}
			vals[k] = v
		}
		return nil
	}
	return fam, nil
}
