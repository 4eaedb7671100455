package pipeline

import (
	"bytes"
	"fmt"
	"math"

	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/reader"
)

// DefaultMaxGroupRows is --max-group-rows when it is not given.
const DefaultMaxGroupRows = 1_000_000

// Rules are a run's rules about rows and queries: which metrics under which
// conventions, how scores are stored, what a repeated document means, how
// large a query may be, where labels come from. Every path that turns rows
// into queries (the sorted grouper, --unsorted, the lockstep of several
// logs, and dist/beam) applies them through Rules.Append, Rules.Decode and
// a Unit, so a rule and its message exist once.
type Rules struct {
	Metrics []metrics.Metric
	Options metrics.Options
	// ScoreFloat32 rounds scores to float32 as rows are taken, so ties
	// fall where a tool storing 32-bit scores (trec_eval) sees them.
	ScoreFloat32 bool
	// DedupFirst keeps the first row of a doc id repeated within a query
	// and drops the others; by default a repeat is an error.
	DedupFirst bool
	// MaxGroupRows makes a larger query an error instead of an
	// out-of-memory (0: DefaultMaxGroupRows).
	MaxGroupRows int
	// Systems names the score columns of one log, the baseline first
	// (reader.Batch.Score, then ExtraScore in order), or with several logs
	// the log of each system. Empty means one system.
	Systems []string
	// Slices names the slice columns (reader.Batch.Extra, in order): every
	// row of a query must carry its first row's values.
	Slices []string
	// Qrels, when set, gives the labels of every judged document (a TREC
	// run's qrels): rows take their labels from it, and R and the ideal
	// rankings come from it.
	Qrels Judgments
}

// Judgments are a qrels file's labels (reader.Qrels). Both methods are
// called from several workers at once and must only read.
type Judgments interface {
	// Judged gives the labels of every judged document of a query.
	Judged(query []byte) []float64
	// Join sets the label of each row: find gives the row of a doc id, or
	// -1.
	Join(query []byte, label []float64, find func(doc []byte) int)
}

// Where names a packed row position (Pack) for a message.
type Where func(packed uint64) string

// Pack keeps a row's input and position in one word: 24 bits of input
// index, 40 of position (a trillion lines a file).
func Pack(input int, pos int64) uint64 { return uint64(input)<<40 | uint64(pos) }

// Unpack splits a packed position.
func Unpack(v uint64) (input int, pos int64) { return int(v >> 40), int64(v & (1<<40 - 1)) }

// MaxInputs is how many inputs a packed position can tell apart.
const MaxInputs = 1 << 24

func (r *Rules) maxGroupRows() int {
	if r.MaxGroupRows > 0 {
		return r.MaxGroupRows
	}
	return DefaultMaxGroupRows
}

func (r *Rules) systems() int { return max(1, len(r.Systems)) }

func (r *Rules) needMax() bool { return metrics.NeedsMaxGrade(r.Metrics) }

// score is a score as the run stores it.
func (r *Rules) score(s float64) float64 {
	if r.ScoreFloat32 {
		return float64(float32(s))
	}
	return s
}

func (r *Rules) appendScores(dst, src []float64) []float64 {
	if !r.ScoreFloat32 {
		return append(dst, src...)
	}
	for _, s := range src {
		dst = append(dst, r.score(s))
	}
	return dst
}

// Append validates rows [i, j) of b, which share one query id, and adds
// them to g (starting g when it is empty). src is the index of b's input
// among the run's inputs; where names positions already in g.
func (r *Rules) Append(g *Group, b *reader.Batch, i, j, src int, where Where) error {
	if err := r.Validate(b, i, j); err != nil {
		return err
	}
	if g.N() == 0 {
		g.Reset() // a zero Group too: its string columns need their first offset
		g.ID = append(g.ID, b.Query.At(i)...)
		g.First = Pack(src, b.Pos[i])
		for c := range b.Extra {
			g.Key.Append(b.Extra[c].At(i))
		}
	}
	for c := range b.Extra {
		want := g.Key.At(c)
		for k := i; k < j; k++ {
			if v := b.Extra[c].At(k); !bytes.Equal(v, want) {
				return r.sliceMismatch(b.Where(k), g, c, v, where)
			}
		}
	}
	if err := r.checkSize(g, j-i, where); err != nil {
		return err
	}
	g.Label = append(g.Label, b.Label[i:j]...)
	for _, pos := range b.Pos[i:j] {
		g.Where = append(g.Where, Pack(src, pos))
	}
	if len(b.Score) > 0 {
		g.Score = r.appendScores(g.Score, b.Score[i:j])
	}
	for len(g.XScore) < len(b.ExtraScore) {
		g.XScore = append(g.XScore, nil)
	}
	for c := range b.ExtraScore {
		g.XScore[c] = r.appendScores(g.XScore[c], b.ExtraScore[c][i:j])
	}
	if b.Rank != nil {
		g.Rank = append(g.Rank, b.Rank[i:j]...)
	}
	if len(b.Doc.Off) > 1 {
		g.Doc.Buf = append(g.Doc.Buf, b.Doc.Buf[b.Doc.Off[i]:b.Doc.Off[j]]...)
		base := int32(len(g.Doc.Buf)) - b.Doc.Off[j]
		for k := i + 1; k <= j; k++ {
			g.Doc.Off = append(g.Doc.Off, b.Doc.Off[k]+base)
		}
	}
	return nil
}

// checkSize fails when adding n rows would make g larger than
// --max-group-rows.
func (r *Rules) checkSize(g *Group, n int, where Where) error {
	if most := r.maxGroupRows(); g.N()+n > most {
		return fmt.Errorf("%s: query %q has more than %d rows (--max-group-rows): %w", where(g.First), g.ID, most, ErrGroupTooLarge)
	}
	return nil
}

// sliceMismatch is the error for a row, at at, whose value v of slice
// column c differs from g's first row.
func (r *Rules) sliceMismatch(at string, g *Group, c int, v []byte, where Where) error {
	return fmt.Errorf("%s: query %q has %s %q here but %q on its first row at %s; a query's rows must agree on slice columns: %w",
		at, g.ID, r.Slices[c], v, g.Key.At(c), where(g.First), ErrSliceMismatch)
}

// Validate checks rows [i, j) of b against SPEC §1: finite scores,
// non-negative labels, labels within the maximum grade when ERR needs it,
// ranks from 1.
func (r *Rules) Validate(b *reader.Batch, i, j int) error {
	needMax := r.needMax()
	if r.rowsValid(b, i, j, needMax) {
		return nil
	}
	for k := i; k < j; k++ {
		if len(b.Score) > 0 {
			if s := b.Score[k]; math.IsNaN(s) || math.IsInf(s, 0) {
				return fmt.Errorf("%s: score is %v; scores must be finite numbers: %w", b.Where(k), s, reader.ErrValue)
			}
		}
		for c, col := range b.ExtraScore {
			if s := col[k]; math.IsNaN(s) || math.IsInf(s, 0) {
				return fmt.Errorf("%s: score of %s is %v; scores must be finite numbers: %w", b.Where(k), r.Systems[c+1], s, reader.ErrValue)
			}
		}
		l := b.Label[k]
		if math.IsNaN(l) || l < 0 || math.IsInf(l, 0) {
			return fmt.Errorf("%s: label is %v; labels must be finite numbers >= 0: %w", b.Where(k), l, reader.ErrValue)
		}
		if needMax && l > r.Options.MaxGrade {
			return r.aboveMaxGrade(b.Where(k), l)
		}
		if b.Rank != nil && b.Rank[k] < 1 {
			return fmt.Errorf("%s: rank is %d; ranks start at 1: %w", b.Where(k), b.Rank[k], reader.ErrValue)
		}
	}
	return nil
}

func (r *Rules) aboveMaxGrade(at string, l float64) error {
	return fmt.Errorf("%s: label %v is above the maximum grade %v that ERR uses (set --max-grade): %w", at, l, r.Options.MaxGrade, reader.ErrValue)
}

// rowsValid is Validate's quick pass: one loop per column with no early
// exit, whose result only says whether Validate must look for the row at
// fault. x*0 is 0 for a finite x and NaN for NaN and the infinities, so a
// sum of them is 0 exactly when every value is finite. The label range
// uses plain comparisons: the min and max builtins order NaNs and signed
// zeros, which made the pass no faster than Validate's own loop
// (BenchmarkValidate: 180M rows/s against 350M).
func (r *Rules) rowsValid(b *reader.Batch, i, j int, needMax bool) bool {
	var inf float64
	if len(b.Score) > 0 {
		for _, s := range b.Score[i:j] {
			inf += s * 0
		}
	}
	for _, col := range b.ExtraScore {
		for _, s := range col[i:j] {
			inf += s * 0
		}
	}
	lo, hi := 0.0, 0.0
	for _, l := range b.Label[i:j] {
		inf += l * 0
		if l < lo {
			lo = l
		}
		if l > hi {
			hi = l
		}
	}
	if inf != 0 || lo < 0 || needMax && hi > r.Options.MaxGrade {
		return false
	}
	if b.Rank != nil {
		for _, rk := range b.Rank[i:j] {
			if rk < 1 {
				return false
			}
		}
	}
	return true
}

// missingValues fills the values of a query absent from a system: 0 for
// every metric, undefined for the correlations, which do not depend on
// relevance.
func (r *Rules) missingValues(vals []float64) {
	for i, m := range r.Metrics {
		vals[i] = 0
		if isCorrelation(m) {
			vals[i] = math.NaN()
		}
	}
}

func isCorrelation(m metrics.Metric) bool {
	return m.Kind == metrics.KindKendall || m.Kind == metrics.KindSpearman
}
