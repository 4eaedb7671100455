package rankbeam

import (
	"context"
	"path/filepath"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/rankeval/rankeval/pipeline"
	"github.com/rankeval/rankeval/reader"
	"github.com/rankeval/rankeval/reader/trec"
)

// TREC runs with --qrels. The qrels are not a side input, which every
// worker would hold whole: one step loads them as rankeval does (its
// checks and messages, trec.ReadQrelsAs) and emits each judged query's
// judgments keyed by the query id; a CoGroupByKey joins them to the run's
// rows of that query, and the query is evaluated with its judgments alone
// (trec.Qrels.SetQuery), by the query unit rankeval's workers use.
//
//	run chunks  (query id, rows)      ─┐
//	qrels ─ load ─▶ (query id, judgments) ─┴─ CoGroupByKey ─ evaluate ─▶ Result
//
// A key with judgments and no run rows is a judged query absent from the
// run: under --complete it counts as 0 (pipeline.Rules.Absent), as
// trec_eval -c counts it. A key with run rows and no judgments is a query
// the qrels do not judge: under a peer profile it is ignored, as the peer
// tools ignore it; otherwise every row is non-relevant. Both are counted
// for the launcher, which says what the join left out as rankeval does
// (JoinLeft).

func init() {
	register.DoFn2x1[[]byte, func(string, []byte), error](&qrelsFn{})
	register.DoFn6x1[context.Context, string, func(*[]byte) bool, func(*[]byte) bool, func() func(*File) bool, func(Result), error](&joinFn{})
}

// evaluate groups the chunks by query and evaluates each query: joined to
// its judgments with --qrels. files, the expanded inputs, name positions
// in messages and say which log a file is of.
func evaluate(s beam.Scope, cfg Config, chunks, files beam.PCollection) beam.PCollection {
	side := beam.SideInput{Input: files}
	if cfg.Sources.Qrels == "" {
		return beam.ParDo(s.Scope("evaluate"), &evalFn{Cfg: cfg}, beam.GroupByKey(s.Scope("group"), chunks), side)
	}
	judged := beam.ParDo(s.Scope("qrels"), &qrelsFn{Name: cfg.Sources.Qrels, Dir: cfg.Dir, Format: cfg.Sources.QrelsFormat(cfg.Profile)}, beam.Impulse(s.Scope("qrels-start")))
	joined := beam.CoGroupByKey(s.Scope("join"), chunks, judged)
	return beam.ParDo(s.Scope("evaluate"), &joinFn{Cfg: cfg}, joined, side)
}

// open opens an input: a TREC run with --qrels, read as rankeval reads it
// but with every label left 0, for the join (DeferJoin); an empty Qrels
// judges nothing, so the reader keeps every row, and the join decides
// what an unjudged query means.
func (c *Config) open(name string, cols reader.Columns, opt reader.Options) (reader.Reader, error) {
	if c.Sources.Qrels == "" {
		return reader.Open(name, cols, opt)
	}
	return trec.OpenRun(name, &trec.Qrels{}, trec.RunOptions{Options: opt, DeferJoin: true})
}

// qrelsFn loads the qrels, their lines read as Format says (under a
// trec_eval profile, labels as trec_eval's atol reads them), and emits
// every judged query's judgments. A relative Name is read from Dir, the
// launcher's working directory, as the inputs are (expandFn).
type qrelsFn struct {
	Name, Dir string
	Format    trec.QrelsFormat
}

func (f *qrelsFn) ProcessElement(_ []byte, emit func(string, []byte)) (err error) {
	defer mark(&err)
	name := f.Name
	if f.Dir != "" && !filepath.IsAbs(name) {
		name = filepath.Join(f.Dir, name)
	}
	q, err := trec.ReadQrelsAs(name, f.Format)
	if err != nil {
		return err
	}
	for qn := range q.Queries() {
		emit(q.QueryID(qn), q.AppendQuery(nil, qn))
	}
	return nil
}

// joinFn evaluates a query of a TREC run with its judgments.
type joinFn struct {
	Cfg Config
	ev  evaluator
}

func (f *joinFn) Setup() error { return f.ev.setup(&f.Cfg) }

func (f *joinFn) ProcessElement(ctx context.Context, id string, runs func(*[]byte) bool, judged func(*[]byte) bool, files func() func(*File) bool, emit func(Result)) (err error) {
	defer mark(&err)
	f.ev.files.at(files)
	var j []byte
	if !judged(&j) {
		j = nil // not judged
	}
	chunks := collect(runs)
	if len(chunks) == 0 { // a key from one side at least: judged
		unseen.Inc(ctx, 1)
		if f.Cfg.Sources.Complete {
			if err := f.ev.judged.SetQuery(j); err != nil {
				return err
			}
			f.ev.unit.Absent([]byte(id), &f.ev.res)
			clear(f.ev.dropped)
			r := f.ev.result(id)
			r.Unseen = true
			emit(r)
		}
		return nil
	}
	if j == nil && f.ev.set.SkipUnjudged() {
		var rows int
		for _, c := range chunks {
			n, err := pipeline.GroupRows(c)
			if err != nil {
				return err
			}
			rows += n
		}
		unjudgedQueries.Inc(ctx, 1)
		unjudgedRows.Inc(ctx, int64(rows))
		return nil
	}
	if err := f.ev.judged.SetQuery(j); err != nil {
		return err
	}
	return f.ev.eval(id, chunks, emit)
}
