package engine

import (
	"context"
	"fmt"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/config"
	"github.com/rankeval/rankeval/propensity"
	"github.com/rankeval/rankeval/reader"
)

// CountPropensities reads the inputs of p into a count table: one list
// of inputs, whose rows name their ranker in the --ranker-col column (or
// none), or one list per --system ranker, named by p.Rankers. Rows are
// counted as read, in any order: the table does not depend on it. A row
// the table cannot count stops the reading, naming the file and row.
// The table holds at most --mem-limit of cells, past which it spills
// sorted runs under --tmp-dir (propensity.Table.SpillTo), each told to
// the OnRun ctx carries (propensity.WithRunHook): the caller closes it. With digests, it also returns each input's digest (the sum of
// propensity.RowDigest over its rows), the inputs in the order of logs.
func CountPropensities(ctx context.Context, p *config.PropensityPlan, logs [][]Input, digests bool) (*propensity.Table, []aggregate.Digest, error) {
	t := propensity.NewTable(p.Config.Propensities.MaxPosition)
	t.SpillTo(p.Config.Run.TmpDir, p.Config.Run.MemLimit)
	t.OnRun = propensity.RunHook(ctx)
	var ds []aggregate.Digest
	opt := reader.Options{BatchSize: p.Config.Run.BatchSize, Decoders: p.Config.Run.Workers, Format: p.InputFormat, Delimiter: p.Delimiter,
		DecimalComma: p.DecimalComma, ReadTimeout: p.Config.ReadTimeout}
	for l, inputs := range logs {
		var ranker []byte
		if p.Rankers != nil {
			ranker = []byte(p.Rankers[l])
		}
		for _, in := range inputs {
			var d *aggregate.Digest
			if digests {
				ds = append(ds, aggregate.Digest{})
				d = &ds[len(ds)-1]
			}
			if err := countInput(ctx, t, in, p.Columns, opt, ranker, d); err != nil {
				t.Close()
				return nil, nil, err
			}
		}
	}
	return t, ds, nil
}

// countInput counts the rows of in into t, and adds their digests to d
// when it is not nil.
func countInput(ctx context.Context, t *propensity.Table, in Input, cols reader.Columns, opt reader.Options, ranker []byte, d *aggregate.Digest) error {
	var r reader.Reader
	var err error
	if in.Open != nil {
		r, err = in.Open(cols, opt)
	} else {
		r, err = reader.Open(in.Name, cols, opt)
	}
	if err != nil {
		return err
	}
	defer r.Close()
	for r.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := CountBatch(t, r.Batch(), len(cols.Texts) > 0, ranker, d, nil); err != nil {
			return err
		}
	}
	if err := r.Err(); err != nil {
		return err
	}
	return r.Close()
}

// CountBatch counts the rows of b into t, as CountPropensities counts
// every input's: each row checked by propensity.CheckRow (a row it refuses
// stops the counting, named by b.Where, passed through name when not
// nil), its ranker the row's --ranker-col value when ranked (the
// reader's Columns.Texts[0]), ranker otherwise; with d, each row's
// propensity.RowDigest is added to d. rankeval-beam's workers count the
// parts of the logs by it.
func CountBatch(t *propensity.Table, b *reader.Batch, ranked bool, ranker []byte, d *aggregate.Digest, name func(where string) string) error {
	pos := b.Numbers[0]
	for i := range b.N {
		if err := propensity.CheckRow(b.Query.At(i), b.Doc.At(i), pos[i], b.Label[i]); err != nil {
			where := b.Where(i)
			if name != nil {
				where = name(where)
			}
			return fmt.Errorf("%s: %w", where, err)
		}
		rk := ranker
		if ranked {
			rk = b.Texts[0].At(i)
		}
		if t.Add(b.Query.At(i), b.Doc.At(i), rk, int(pos[i]), b.Label[i] == 1); t.Err() != nil {
			return t.Err()
		}
		if d != nil {
			d.Add(propensity.RowDigest(b.Query.At(i), b.Doc.At(i), rk, int(pos[i]), b.Label[i] == 1))
		}
	}
	return nil
}
