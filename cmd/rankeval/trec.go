package main

import (
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/rankeval/rankeval/evalflags"
	"github.com/rankeval/rankeval/pipeline"
	"github.com/rankeval/rankeval/reader"
)

// trecInput wires a qrels file and TREC runs into the pipeline.
type trecInput struct {
	c     *config
	qrels *reader.Qrels
	// skipped counts what each run's reader left out: runs read at once
	// (--system) count apart; report unites them
	skipped []*reader.SkipCount
	// bytesRead feeds progress reports
	bytesRead *atomic.Int64
}

func openTrec(c *config, cfg *pipeline.Config, stderr io.Writer) (*trecInput, error) {
	start := time.Now()
	q, err := reader.ReadQrelsAs(c.src.Qrels, c.src.QrelsFormat(c.shared.Profile))
	if err != nil {
		return nil, err
	}
	if !c.quiet {
		// a large qrels file takes seconds before the run's progress starts
		fmt.Fprintf(stderr, "rankeval: %s: %d judgments of %d queries loaded in %.2f s\n",
			c.src.Qrels, q.Judgments(), q.Queries(), time.Since(start).Seconds())
	}
	t := &trecInput{c: c, qrels: q, bytesRead: cfg.Progress.BytesRead}
	cfg.Rules.Qrels = q
	if c.src.Complete {
		cfg.Unseen = q.Unseen
	}
	return t, nil
}

func (t *trecInput) source(name string) pipeline.Source {
	skipped := new(reader.SkipCount)
	t.skipped = append(t.skipped, skipped)
	return pipeline.Source{Name: name, Reread: reader.Rereadable(name), Open: func() (reader.Reader, error) {
		return reader.OpenRun(name, t.qrels, reader.RunOptions{
			Options:      reader.Options{BatchSize: t.c.batch, Decoders: t.c.workers, BytesRead: t.bytesRead},
			SkipUnjudged: t.c.shared.SkipUnjudged(),
			Skipped:      skipped,
			DeferJoin:    true, // the pipeline's workers join (Rules.Qrels)
			Comments:     t.c.src.Comments,
			ExtraFields:  t.c.src.ExtraFields,
			RefuseNul:    t.c.src.StrictLines,
		})
	}}
}

// explain adds the remedy to errors a TREC user can fix with a command.
func (t *trecInput) explain(err error) error {
	if errors.Is(err, pipeline.ErrReappear) {
		return fmt.Errorf("%w\nTREC runs keep each query's lines together; sort the run first, keeping the order within a query: sort -s -k1,1 RUN > RUN.sorted", err)
	}
	return err
}

// report says on stderr what the join left out, so nothing is dropped
// silently.
func (t *trecInput) report(stderr io.Writer) {
	var skipped reader.SkipCount
	for _, s := range t.skipped {
		skipped.Merge(s)
	}
	t.c.src.ReportLeft(stderr, "rankeval", t.c.shared.Profile, evalflags.Left{
		UnjudgedQueries: skipped.Queries, UnjudgedRows: skipped.Rows, Unseen: int64(len(t.qrels.Unseen()))})
}
