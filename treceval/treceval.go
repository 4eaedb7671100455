// Package treceval is rankeval trec_eval, the drop-in for trec_eval 9.0.8
// and 10.0: it owns trec_eval's command line (args.go), the -m selection
// over trec_eval's measures (measures.go; the measures, their spellings,
// defaults and help are metrics.TrecMeasures, their parameters read in
// kinds.go and params.go, relstring's in judged.go), what trec_eval does
// with the gain measures' parameters (gain.go), and with a query's values:
// the queries it evaluates, -c, -Z, the summary and the layout of its
// lines (queries.go, zscores.go, format.go). The values over qrels are
// rankeval metrics (package metrics) computed by the ordinary pipeline
// under the trec_eval profile, through the Evaluate function the command
// gives it, so that no measure exists twice. The judgments of the other
// -R formats are read by package reader/trec (ReadPrefs,
// ReadJudgmentGroups); the families that use them are this package's own
// (relformat.go): preferences (prefs.go, recount.go, prefs_measures.go)
// and judgment groups (jg.go, whose values are the same metrics, per
// group).
package treceval

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/config"
	"github.com/rankeval/rankeval/internal/engine"
	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/pipeline"
	"github.com/rankeval/rankeval/reader"
	"github.com/rankeval/rankeval/reader/trec"
)

const trecEvalUsage = `Usage: rankeval trec_eval [--release 10.0|9.0.8] [-h] [-q] [-n] [-c] [-J] [-l N] [-M N]
       [-N N] [-D 0.QID] [-Z ZSCORES] [-R FORMAT] [-T trec_results] {-m measure}* QRELS RUN

Evaluates a TREC run against qrels and prints exactly what trec_eval prints
for the same command line: the same lines, in the same order, with the
same values. QRELS and RUN may be plain, gzip or zstd files, and RUN need
not be sorted; under 10.0, RUN - is standard input. Long forms are
trec_eval's (--query_eval_wanted, --measure=map, ...).

  --release R   the trec_eval release to reproduce, given first: 10.0 (the
                default) or 9.0.8. They differ in iprec_at_recall and
                11pt_avg (10.0 rounds x*R, 9.0.8 truncates x*R + 0.9), in
                the measures (10.0 adds dcg, ideal_dcg, rbp, rbp_resid and
                unj, and the last three to all_trec), in the judged
                queries the run lacks (10.0 stops with an error unless -c;
                with -c -q it prints their lines; 9.0.8 skips them), in
                scores and prefs' levels (9.0.8 keeps 32-bit floats, 10.0
                doubles), and 10.0 skips lines starting with # and reads
                RUN - from standard input

  -q            also print each query's values (queries in trec_eval's order)
  -n            no summary (with -q: only the per-query lines)
  -c            average over every query of the qrels: a query the run
                lacks counts as 0
  -l N          a judgment >= N is relevant (default 1)
  -M N          evaluate only the first N documents of each query
  -J            drop the unjudged documents from each ranking first
  -N N          documents in the collection (utility's fourth coefficient)
  -D 0.QID      evaluate only query QID (trec_eval's debug traces, -D 1 and
                above, are not reproduced)
  -Z ZSCORES    print each value as a z-score: (value - mean)/stddev, from
                lines "qid measure mean stddev" of ZSCORES
  -m MEASURE    a measure, a measure with trec_eval's parameters
                (P.5,10  iprec_at_recall.0.5  ndcg.1=3,2=9  utility.2,-1,0,0),
                or a set: official (the default when no -m is given), set,
                all_trec, all_prefs, prefs, qrels_jg; repeatable
  -R FORMAT     what QRELS holds: qrels (the default); prefs, preferences
                (qid jg jsg docno rel_level: within the judgment group jg
                and its sub-group jsg, a higher rel_level is preferred);
                qrels_prefs, a qrels file read as prefs (its iter field the
                judgment group); qrels_jg, a qrels file whose iter field is
                a judgment group
  -T FORMAT     the run's format: trec_results (the default)
  -o            accepted and ignored, as trec_eval does
  -v            print the version
  -h            this help; with -m, each measure's description

`

// measuresUsage is the end of the usage: the measures of each -R format,
// from the table, in its order.
func measuresUsage() string {
	var qrels, prefs, jg []string
	for _, m := range table {
		switch {
		case m.Shape == metrics.TrecRunID || m.Shape == metrics.TrecNumQ:
			qrels, prefs, jg = append(qrels, m.Name), append(prefs, m.Name), append(jg, m.Name)
		case m.Rel == "":
			qrels = append(qrels, m.Name)
		case m.Rel == "prefs":
			prefs = append(prefs, m.Name)
		case m.Rel == "qrels_jg":
			jg = append(jg, m.Name)
		}
	}
	return wrapWords("Measures: "+strings.Join(qrels, " ")+".") +
		wrapWords("With -R prefs or qrels_prefs: "+strings.Join(prefs, " ")+
			". With -R qrels_jg: "+strings.Join(jg, " ")+
			". Exit status: 0 ok, 1 input error, 2 usage error.")
}

// wrapWords fills text's words into lines of at most 75 characters, each
// ended by a newline.
func wrapWords(text string) string {
	var b strings.Builder
	n := 0
	for _, w := range strings.Fields(text) {
		switch {
		case n == 0:
		case n+1+len(w) > 75:
			b.WriteByte('\n')
			n = 0
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	b.WriteByte('\n')
	return b.String()
}

// Run is rankeval trec_eval: args are what follows "trec_eval" on the
// command line; stdin is read for a run named "-". It evaluates the run
// with the ordinary command's engine under the trec_eval profile of the
// release asked for.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (err error) {
	a, err := parseTrecEvalArgs(args)
	if err != nil {
		return err
	}
	if a.help {
		return help(stdout, a)
	}
	sel, err := selectMeasures(a.measures, a.release)
	if err != nil {
		return err
	}
	if err := checkFormat(sel, a.relFormat); err != nil {
		return err
	}
	if a.resultsFormat != "trec_results" {
		return trecUsagef("trec_eval: Illegal retrieval results format '%s'", a.resultsFormat)
	}
	if a.debugLevel != 0 {
		return trecUsagef("trec_eval: -D %d: trec_eval's debug traces are not reproduced (-D 0.QID evaluates only query QID)", a.debugLevel)
	}
	if a.qrels == reader.Stdin {
		return trecUsagef("trec_eval: QRELS is a file, as for trec_eval (not -)")
	}
	var z *zscores
	if a.zscores != "" {
		if z, err = readZscores(a.zscores); err != nil {
			return err
		}
	}
	if fi, err := os.Stat(a.run); a.run != reader.Stdin && err == nil && fi.Mode().IsRegular() && fi.Size() == 0 {
		// trec_eval maps the run into memory, and an empty file is none
		return fmt.Errorf("%s: trec_eval.get_results: Cannot read results file '%s' (the run is empty)", a.run, a.run)
	}
	run, cleanup, err := runFile(a, stdin)
	if err != nil {
		return err
	}
	defer cleanup()
	if run != a.run {
		// a message names the run as the user gave it, not its copy
		shown := a.run
		if shown == reader.Stdin {
			shown = "<stdin>"
		}
		defer func() {
			if err != nil {
				err = &renamed{err: err, from: run, to: shown}
			}
		}()
	}
	var ev *evaluated
	if a.relFormat == "qrels" {
		ev, err = evaluateQrels(ctx, a, sel, run, stderr)
	} else {
		ev, err = evaluateRel(ctx, a, sel, run)
	}
	if err != nil {
		return err
	}
	qs, err := ev.queries(ctx, a)
	if err != nil {
		return err
	}
	var tag string
	if !a.noSummary && sel.hasRunID() {
		runTag := trec.RunTag
		if a.release != "9.0.8" {
			runTag = trec.RunTagComments
		}
		if tag, err = runTag(run); err != nil {
			return err
		}
		if tag == "" {
			// no result line (comments only, or an empty standard input):
			// trec_eval 10.0 prints the tag of a result it never read,
			// whatever bytes its memory holds
			return fmt.Errorf("%s: the run has no result line: trec_eval's runid would be uninitialised memory; rankeval refuses (ask without runid, or -n)", a.run)
		}
	}
	w := bufio.NewWriterSize(stdout, 1<<16)
	if err := ev.write(w, a, qs, z, tag); err != nil {
		return err
	}
	return w.Flush()
}

// renamed is err with the path from, a copy's, written as to in its
// message; errors.Is and As see err.
type renamed struct {
	err      error
	from, to string
}

func (r *renamed) Error() string { return strings.ReplaceAll(r.err.Error(), r.from, r.to) }
func (r *renamed) Unwrap() error { return r.err }

// runFile is the run to read: a, or under 10.0 standard input (RUN -) or a
// pipe copied to a temporary file first, since the run is read twice (its
// last line's tag is the runid; a shuffled run is read again grouped by
// query). cleanup removes the copy.
func runFile(a *trecEvalArgs, stdin io.Reader) (string, func(), error) {
	if reader.Rereadable(a.run) {
		return a.run, func() {}, nil
	}
	if a.release == "9.0.8" {
		// it maps the file into memory, which a pipe is not
		return "", nil, fmt.Errorf("trec_eval.get_results: Cannot read results file '%s' (trec_eval 9.0.8 reads a run from a file only; 10.0 from standard input or a pipe too)", a.run)
	}
	src := stdin
	if a.run == reader.Stdin && stdin == nil {
		return "", nil, trecUsagef("trec_eval: the run is - (standard input), and Run was given none")
	}
	if a.run != reader.Stdin {
		f, err := os.Open(a.run)
		if err != nil {
			return "", nil, err
		}
		defer f.Close()
		src = f
	}
	tmp, err := os.CreateTemp("", "rankeval-trec_eval-run-*")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { os.Remove(tmp.Name()) }
	if _, err := io.Copy(tmp, src); err != nil {
		tmp.Close()
		cleanup()
		return "", nil, fmt.Errorf("%s: %w", a.run, err)
	}
	if err := tmp.Close(); err != nil {
		cleanup()
		return "", nil, err
	}
	return tmp.Name(), cleanup, nil
}

// evaluated is what the pipeline gave for the run: each query's values,
// one per metric of the selection, and the qrels. For the judgments of
// another -R format, a family's evaluation gave them (relformat.go):
// one per slot of the selection (value.width), and bogusOf evaluates
// trec_eval 10.0's bogus ranking.
type evaluated struct {
	sel   *selection
	s     *config.Settings
	qrels judgments
	// join and run are the qrels as the pipeline joins them and the run
	// read (over qrels only), for leftover
	join    pipeline.Judgments
	run     string
	ids     []string    // the run's queries with judgments, as read
	vals    [][]float64 // their values
	numVals int
	// bogusEval evaluates the judged queries the run lacks (bogus)
	bogusEval *metrics.Evaluator
	bogusOf   func(id string) ([]float64, error)
}

// judgments are what trec_eval's loop over the queries reads of the
// judgments file: its queries (IDs, in file order; Queries counts them),
// every judgment above 0 (Positive, num_rel's total under -c), and the
// judgments of a query (Judged, for the measures over qrels; Duplicate,
// a docno it judges twice, which qrels keep until the query is evaluated).
type judgments interface {
	IDs() []string
	Queries() int
	Positive() int
	Judged(qid []byte) []float64
	Duplicate(qid string) error
}

// evaluateQrels runs the ordinary pipeline over run under the trec_eval
// profile of a's release, with the selection's metrics and trec_eval's
// options, collecting every query's values.
func evaluateQrels(ctx context.Context, a *trecEvalArgs, sel *selection, run string, stderr io.Writer) (*evaluated, error) {
	s, err := settings(a, sel)
	if err != nil {
		return nil, err
	}
	// Complete only words the note on the judged queries the run lacks:
	// queries() counts them. The labels read with atol, as trec_eval reads
	// them, under s's trec_eval profile (Sources.QrelsFormat).
	src := config.Sources{Qrels: a.qrels, Missing: "error", Complete: a.complete, Comments: a.comments(), ExtraFields: true, StrictLines: true}

	ev := &evaluated{sel: sel, s: s, numVals: len(sel.metrics)}
	sink := &records{ev: ev}
	pq := pipeline.PerQuery{W: sink, Format: encodeQuery, Only: true}
	qrels, err := evaluate(ctx, s, src, run, pq, false, stderr)
	if errors.Is(err, pipeline.ErrReappear) {
		// trec_eval sorts the run itself: read it again, grouping by query
		ev.ids, ev.vals = nil, nil
		sink = &records{ev: ev}
		pq.W = sink
		qrels, err = evaluate(ctx, s, src, run, pq, true, stderr)
	}
	if err != nil {
		return nil, err
	}
	if len(sink.pending) > 0 {
		return nil, errCutShort
	}
	ev.qrels, ev.join, ev.run = qrels, qrels, run
	return ev, nil
}

// settings are the ordinary command's settings under the trec_eval
// profile of a's release, with the selection's metrics and trec_eval's
// options.
func settings(a *trecEvalArgs, sel *selection) (*config.Settings, error) {
	// the ordinary settings, as a user would give them, so that every
	// default and the profile's conventions are rankeval's own
	c := config.Default()
	c.Profile, c.Format, c.Metrics = "trec_eval:"+a.release, "trec", "num_q"
	c.RelThreshold = strconv.FormatInt(a.level, 10)
	if err := c.ApplyProfile(func(setting string) bool { return setting == "rel-threshold" }); err != nil {
		return nil, err
	}
	s, err := c.Resolve()
	if err != nil {
		return nil, err
	}
	// the measures' metrics, built by the table, not names
	s.Rules.Metrics = sel.metrics
	s.Rules.NonFinite = true
	o := &s.Rules.Options
	o.MaxRanked = int(min(a.maxDocs, 1<<31-1))
	o.JudgedOnly = a.judgedOnly
	o.NoEmpty = true
	o.NumDocs = a.numDocs
	return s, nil
}

// evaluate is the ordinary command's evaluation of one TREC run: the
// engine over run against the qrels of src, under s, quiet but for what
// the join left out (on stderr), handing each query to pq; unsorted
// groups the run's lines by query first. It returns the qrels read.
func evaluate(ctx context.Context, s *config.Settings, src config.Sources, run string, pq pipeline.PerQuery, unsorted bool, stderr io.Writer) (*trec.Qrels, error) {
	r := config.DefaultRun()
	r.Quiet, r.Unsorted = true, unsorted
	sum := s.Summary()
	src.Describe(&sum, []string{run}, nil)
	out, err := engine.Evaluate(ctx, engine.Job{Settings: s, Sources: src, Run: r, Summary: &sum,
		Logs: [][]engine.Input{engine.Paths([]string{run})}, PerQuery: pq, Log: stderr, Command: "rankeval"})
	if err != nil {
		return nil, err
	}
	return out.Qrels, nil
}

// encodeQuery is a query's record: its id's length and bytes, then its
// values, 8 bytes each.
func encodeQuery(b, id []byte, _ []string, q *aggregate.Query) []byte {
	b = binary.AppendUvarint(b, uint64(len(id)))
	b = append(b, id...)
	for _, v := range q.Vals[0] {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b
}

var errCutShort = errors.New("rankeval trec_eval: a query's record is cut short")

// records takes the records encodeQuery writes as the pipeline writes
// them, one query's at a time, into ev's ids and values: the values of
// every query are not first held as bytes, a buffer that grows by
// doubling and is copied at each step (docs/performance.md, "Measured
// choices").
type records struct {
	ev      *evaluated
	pending []byte // a record's start, when a write ends inside it
	all     []float64
}

func (r *records) Write(p []byte) (int, error) {
	b := p
	if len(r.pending) > 0 {
		r.pending = append(r.pending, p...)
		b = r.pending
	}
	rest, err := r.decode(b)
	if err != nil {
		return 0, err
	}
	r.pending = append(r.pending[:0], rest...) // rest may be pending's end: copy moves it down
	return len(p), nil
}

// decode reads the whole records at b's start and returns what is left.
func (r *records) decode(b []byte) ([]byte, error) {
	ev, nv := r.ev, r.ev.numVals
	for len(b) > 0 {
		n, k := binary.Uvarint(b)
		if k < 0 {
			return nil, errCutShort
		}
		if k == 0 || n > uint64(len(b)-k) || uint64(len(b)-k)-n < uint64(8*nv) {
			return b, nil // the record goes on in the next write
		}
		ev.ids = append(ev.ids, string(b[k:k+int(n)]))
		b = b[k+int(n):]
		// the values of 64 queries a time in one array
		if cap(r.all)-len(r.all) < nv {
			r.all = make([]float64, 0, 64*nv)
		}
		v := r.all[len(r.all) : len(r.all)+nv]
		r.all = r.all[:len(r.all)+nv]
		for i := range v {
			v[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
		}
		ev.vals = append(ev.vals, v)
		b = b[8*nv:]
	}
	return nil, nil
}

// hasRunID reports whether runid was asked for.
func (sel *selection) hasRunID() bool {
	for _, v := range sel.values {
		if v.rule == ruleRunID {
			return true
		}
	}
	return false
}

// help is -h: the usage, then what each measure -m named computes, as
// trec_eval's help lists the measures marked.
func help(w io.Writer, a *trecEvalArgs) error {
	var b strings.Builder
	b.WriteString(trecEvalUsage)
	b.WriteString(measuresUsage())
	b.WriteString("\nIndividual measure documentation for requested measures\n")
	marked := map[*measure]bool{}
	for _, arg := range a.measures {
		name, _, _ := strings.Cut(arg, ".")
		if set := nickname(name, a.release); set != nil {
			for _, n := range set {
				marked[lookup(n, a.release)] = true
			}
		} else if m := lookup(name, a.release); m != nil {
			marked[m] = true
		}
	}
	if len(marked) == 0 {
		b.WriteString("-- No measures indicated.\n   Request measure documentation using <-m measure> on command line\n")
	}
	for _, m := range table {
		if marked[m] {
			fmt.Fprintf(&b, "%s\n    %s\n", m.Name, strings.ReplaceAll(m.Doc, "\n", "\n    "))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
