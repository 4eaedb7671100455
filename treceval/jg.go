package treceval

import (
	"github.com/rankeval/rankeval/config"
	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/pipeline"
	"github.com/rankeval/rankeval/reader/trec"
)

// jgFamily reads the qrels_jg file of a and readies the measures of sel,
// whose metrics each group's judgments are evaluated with under s.
func jgFamily(a *trecEvalArgs, sel *selection, s *config.Settings) (*relFamily, error) {
	f, err := trec.ReadJudgmentGroups(a.qrels, a.comments())
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
			l.Judged = g.Labels
			for i, d := range docs {
				k, found := g.Index[string(d)]
				l.Label[i] = 0
				if found {
					l.Label[i] = g.Labels[k]
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
