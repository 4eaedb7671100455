package pipeline

import (
	"bytes"
	"fmt"
	"math"
	"slices"

	"github.com/rankeval/rankeval/internal/bytesize"
	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/reader"
)

// DefaultMaxGroupRows is --max-group-rows when it is not given.
const DefaultMaxGroupRows = 1_000_000

// DefaultMaxGroupBytes is --max-group-bytes when it is not given: a query
// of DefaultMaxGroupRows rows of the common columns with short doc ids
// (some 130 bytes a row, Group.Bytes) fits twice.
const DefaultMaxGroupBytes = 256 << 20

// MaxGroupBytesCeiling is the largest --max-group-bytes: a group's doc ids
// are found by 32-bit offsets into one buffer.
const MaxGroupBytesCeiling = 1 << 30

// Rules are a run's rules about rows and queries: which metrics under which
// conventions, how scores are stored, what a repeated document means, how
// large a query may be, where labels come from. Every path that turns rows
// into queries (the sorted grouper, --unsorted, the lockstep of several
// logs, and dist/beam) applies them through a Taker (rows into a Group:
// Append, AppendPart, Decode) and a Unit (a Group evaluated), so a rule
// and its message exist once.
type Rules struct {
	Metrics []metrics.Metric
	Options metrics.Options
	// ScoreFloat32 rounds scores to float32 as rows are taken, so ties
	// fall where a tool storing 32-bit scores (trec_eval) sees them.
	ScoreFloat32 bool
	// MissingScore and MissingLabel are what a row without a score or a
	// label means (missing.go); MissingError, the zero value, stops at it.
	MissingScore, MissingLabel Missing
	// DedupFirst keeps the first row of a doc id repeated within a query
	// and drops the others; by default a repeat is an error.
	DedupFirst bool
	// MaxGroupRows and MaxGroupBytes make a larger query (in rows, or in
	// the bytes it holds: Group.Bytes) an error instead of an
	// out-of-memory (0: DefaultMaxGroupRows, DefaultMaxGroupBytes).
	MaxGroupRows  int
	MaxGroupBytes int64
	// groupBytesWhy, when set, names what lowered MaxGroupBytes below the
	// flag's value, for its message (--unsorted's share of --mem-limit).
	groupBytesWhy string
	// Systems names the score columns of one log, the baseline first
	// (reader.Batch.Score, then ExtraScore in order), or with several logs
	// the log of each system. Empty means one system.
	Systems []string
	// Slices names the slice columns (reader.Batch.Extra, in order): every
	// row of a query must carry its first row's values.
	Slices []string
	// NoteBinaryLabels has the workers note whether every label they see
	// is 0 or 1 (Result.BinaryLabels).
	NoteBinaryLabels bool
	// NoLabels: no metric reads a label (reader.Columns.LabelUnread), so
	// every row's label is 0 whatever its input holds.
	NoLabels bool
	// NonFinite lets a metric's value be infinite: rankeval trec_eval
	// prints what trec_eval prints (inf, from a division by 0 its
	// measures do not guard), where the ordinary command stops
	// (ErrOverflow).
	NonFinite bool
	// Qrels, when set, gives the labels of every judged document (a TREC
	// run's qrels): rows take their labels from it, and R and the ideal
	// rankings come from it.
	Qrels Judgments
	// Propensity gives each row its propensity of examination, for the
	// IPS estimates (propensity.go).
	Propensity Propensity
	// Teams names the teams of an interleaved list, which each row
	// carries, for the interleaving outcome (teams.go).
	Teams Teams
}

// Judgments are a qrels file's labels (trec.Qrels). Both methods are
// called from several workers at once and must only read.
type Judgments interface {
	// Judged gives the labels of every judged document of a query.
	Judged(query []byte) []float64
	// Join sets the label of each judged row, and judged[i] (when judged is
	// not nil): find gives the row of a doc id, or -1.
	Join(query []byte, label []float64, judged []bool, find func(doc []byte) int)
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

// maxGroupBytes is the byte limit of one query and what sets it, for the
// message.
func (r *Rules) maxGroupBytes() (int64, string) {
	most := r.MaxGroupBytes
	if most <= 0 {
		most = DefaultMaxGroupBytes
	}
	if r.groupBytesWhy != "" {
		return most, r.groupBytesWhy
	}
	return most, "--max-group-bytes"
}

// lowerGroupBytes makes most the byte limit of one query when it is below
// the limit so far; why names its source in the message.
func (r *Rules) lowerGroupBytes(most int64, why string) {
	if cur, _ := r.maxGroupBytes(); most < cur {
		r.MaxGroupBytes, r.groupBytesWhy = most, why
	}
}

func (r *Rules) systems() int { return max(1, len(r.Systems)) }

// maxGrade is the largest label the run's metrics take: the least maximum
// grade of its err and nerr metrics (each under its own conventions) and
// gdeval's measures (metrics.MaxGrade), or
// +Inf when none has one.
func (r *Rules) maxGrade() float64 {
	if g, ok := metrics.MaxGrade(r.Metrics, r.Options); ok {
		return g
	}
	return math.Inf(1)
}

// idealMaxGrade is maxGrade over the metrics whose ideal ranking takes
// the judged documents a run did not retrieve (nerr, gdeval's nDCG), or
// +Inf when none: a judgment above it has no gain there.
func (r *Rules) idealMaxGrade() float64 {
	ideal := slices.DeleteFunc(slices.Clone(r.Metrics), func(m metrics.Metric) bool {
		return m.Kind != metrics.KindNERR && (m.Kind != metrics.KindNDCG || m.Conv.Peer != metrics.PeerGdeval)
	})
	if g, ok := metrics.MaxGrade(ideal, r.Options); ok {
		return g
	}
	return math.Inf(1)
}

// score is a score as the run stores it.
func (r *Rules) score(s float64) float64 {
	if r.ScoreFloat32 && !math.IsNaN(s) {
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

// Taker takes rows into Groups under a run's Rules. Each goroutine that
// reads rows (the producer; a Beam read or evaluate step) has its own; it
// keeps what the rules derive, so no per-row rule is worked out per query.
type Taker struct {
	r     *Rules
	where Where
	maxG  float64 // Rules.maxGrade
}

// NewTaker makes a Taker for r; where names the positions of rows already
// taken, in messages.
func (r *Rules) NewTaker(where Where) *Taker {
	return &Taker{r: r, where: where, maxG: r.maxGrade()}
}

// Append validates rows [i, j) of b, which share one query id, and adds
// them to g (starting g when it is empty), checking that the query stays
// within --max-group-rows and --max-group-bytes. src is the index of b's
// input among the run's inputs.
func (t *Taker) Append(g *Group, b *reader.Batch, i, j, src int) error {
	return t.append(g, b, i, j, src, true)
}

// AppendPart is Append for a part of a query whose other parts other
// steps take (--unsorted, a distributed read): the query's size is checked
// when the parts are joined (Decode), against its true first row.
func (t *Taker) AppendPart(g *Group, b *reader.Batch, i, j, src int) error {
	return t.append(g, b, i, j, src, false)
}

func (t *Taker) append(g *Group, b *reader.Batch, i, j, src int, size bool) error {
	r := t.r
	if err := t.Validate(b, i, j); err != nil {
		return err
	}
	if g.N() == 0 {
		g.Reset() // a zero Group too: its string columns need their first offset
		g.ID = append(g.ID, b.Query.At(i)...)
		g.First = Pack(src, b.Pos[i])
		for c := range b.Extra {
			g.Key.Append(b.Extra[c].At(i))
		}
	} else if r.batchColumns(b) != g.columns() || len(b.ExtraScore) != g.extraScores() {
		return mixedColumns(b.Where(i), g, t.where)
	}
	for c := range b.Extra {
		want := g.Key.At(c)
		for k := i; k < j; k++ {
			if v := b.Extra[c].At(k); !bytes.Equal(v, want) {
				return r.sliceMismatch(b.Where(k), g, c, v, t.where)
			}
		}
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
	if r.Propensity.From != PropNone {
		if err := t.appendProps(g, b, i, j); err != nil {
			return err
		}
	}
	if r.Teams.On() {
		var err error
		if g.Team, err = t.appendTeams(g.Team, b, i, j); err != nil {
			return err
		}
	}
	if len(b.Doc.Off) > 1 {
		g.Doc.Buf = append(g.Doc.Buf, b.Doc.Buf[b.Doc.Off[i]:b.Doc.Off[j]]...)
		base := int32(len(g.Doc.Buf)) - b.Doc.Off[j]
		for k := i + 1; k <= j; k++ {
			g.Doc.Off = append(g.Doc.Off, b.Doc.Off[k]+base)
		}
	}
	if size {
		return r.checkSize(g, t.where)
	}
	return nil
}

// batchColumns says which optional columns the rows of b give a Group,
// as Group.columns does.
func (r *Rules) batchColumns(b *reader.Batch) byte {
	var flags byte
	if len(b.Score) > 0 {
		flags |= encScore
	}
	if b.Rank != nil {
		flags |= encRank
	}
	if len(b.Doc.Off) > 1 {
		flags |= encDoc
	}
	if r.Propensity.From != PropNone {
		flags |= encProp
	}
	if r.Propensity.From == PropModel {
		flags |= encLogged
	}
	if r.Teams.On() {
		flags |= encTeam
	}
	return flags
}

// mixedColumns is the error for rows, at at, that have other columns than
// the rows of their query that came before.
func mixedColumns(at string, g *Group, where Where) error {
	return fmt.Errorf("%s: query %q: these rows have other columns than its rows from %s: %w", at, g.ID, where(g.First), ErrMixedColumns)
}

// checkSize fails when g, with the rows just added, has more rows than
// --max-group-rows or holds more bytes than --max-group-bytes. Checking
// after the rows are in lets a query overshoot by one batch's rows (one
// spill record's, one shuffled part's) at most, and counts the bytes of
// what was added rather than foreseeing them.
func (r *Rules) checkSize(g *Group, where Where) error {
	if most := r.maxGroupRows(); g.N() > most {
		return fmt.Errorf("%s: query %s has more than %d rows (--max-group-rows): %w", where(g.First), quoteShort(g.ID), most, ErrGroupTooLarge)
	}
	if most, why := r.maxGroupBytes(); g.Bytes() > most {
		return fmt.Errorf("%s: query %s holds more than %s (%s): %w", where(g.First), quoteShort(g.ID), bytesize.Format(most), why, ErrGroupTooLarge)
	}
	return nil
}

// sliceMismatch is the error for a row, at at, whose value v of slice
// column c differs from g's first row.
func (r *Rules) sliceMismatch(at string, g *Group, c int, v []byte, where Where) error {
	return fmt.Errorf("%s: query %s has %s %s here but %s on its first row at %s; a query's rows must agree on slice columns: %w",
		at, quoteShort(g.ID), r.Slices[c], quoteShort(v), quoteShort(g.Key.At(c)), where(g.First), ErrSliceMismatch)
}

// Validate checks rows [i, j) of b against docs/metrics.md §1: finite
// scores (and, stored as float32, within its range), non-negative labels,
// labels within the maximum grade when ERR needs it. Ranks only order the rows,
// so any integers do (0-based positions too).
func (t *Taker) Validate(b *reader.Batch, i, j int) error {
	r, maxG := t.r, t.maxG
	if r.NoLabels {
		zeroLabels(b, i, j)
	}
	if r.rowsValid(b, i, j, maxG) {
		return nil
	}
	for k := i; k < j; k++ {
		if len(b.Score) > 0 {
			if err := r.checkScore(b, k, b.Score[k], ""); err != nil {
				return err
			}
		}
		for c, col := range b.ExtraScore {
			if err := r.checkScore(b, k, col[k], " of "+r.Systems[c+1]); err != nil {
				return err
			}
		}
		l := b.Label[k]
		if r.missingLabel(l) {
			continue
		}
		if math.IsNaN(l) || l < 0 || math.IsInf(l, 0) {
			return fmt.Errorf("%s: label is %v; labels must be finite numbers >= 0%s: %w", b.Where(k), l, missingHint(l, reader.MissingLabelHint), reader.ErrValue)
		}
		if l > maxG {
			return r.aboveMaxGrade(b.Where(k), l, maxG)
		}
	}
	return nil
}

// zeroLabels gives rows i..j of b label 0 when the run reads no label
// (Rules.NoLabels): the reader filled none, or what a field named as the
// label column (which is not read) held.
func zeroLabels(b *reader.Batch, i, j int) {
	for len(b.Label) < j {
		b.Label = append(b.Label, 0)
	}
	clear(b.Label[i:j])
}

// aboveMaxGrade is the error of label l, above maxG (Rules.maxGrade),
// saying what sets maxG: --max-grade for rankeval's err and nerr, gdeval's
// fixed grade for ir_measures' ERR@k and nDCG(dcg='exp-log2')@k, which
// --max-grade does not move.
func (r *Rules) aboveMaxGrade(at string, l, maxG float64) error {
	own := slices.DeleteFunc(slices.Clone(r.Metrics), func(m metrics.Metric) bool { return m.Conv.Peer != metrics.PeerNone })
	if g, ok := metrics.MaxGrade(own, r.Options); ok && g == maxG {
		return fmt.Errorf("%s: label %v is above the maximum grade %v that ERR uses (set --max-grade): %w", at, l, maxG, reader.ErrValue)
	}
	return fmt.Errorf("%s: label %v is above the maximum grade %v of gdeval, whose ERR@k and nDCG(dcg='exp-log2')@k ir_measures computes (gdeval refuses such a label; --max-grade does not change it): %w", at, l, maxG, reader.ErrValue)
}

// checkScore checks one score (of a system, named in of).
func (r *Rules) checkScore(b *reader.Batch, k int, s float64, of string) error {
	if r.missingScore(s) {
		return nil
	}
	if math.IsNaN(s) || math.IsInf(s, 0) {
		return fmt.Errorf("%s: score%s is %v; scores must be finite numbers%s: %w", b.Where(k), of, s, missingHint(s, reader.MissingScoreHint), reader.ErrValue)
	}
	if r.ScoreFloat32 && math.Abs(s) > math.MaxFloat32 {
		return fmt.Errorf("%s: score%s is %v, beyond the range of the 32-bit floats this profile stores scores as: %w", b.Where(k), of, s, reader.ErrValue)
	}
	return nil
}

// rowsValid is Validate's quick pass: one loop per column with no early
// exit, whose result only says whether Validate must look for the row at
// fault. x*0 is 0 for a finite x and NaN for NaN and the infinities, so a
// sum of them is 0 exactly when every value is finite. The label range
// uses plain comparisons: the min and max builtins order NaNs and signed
// zeros, which makes the pass no faster than Validate's own loop
// (BenchmarkValidate; figures in docs/performance.md, "Measured choices").
func (r *Rules) rowsValid(b *reader.Batch, i, j int, maxG float64) bool {
	var inf float64
	if len(b.Score) > 0 {
		inf += nonFinite(b.Score[i:j])
	}
	for _, col := range b.ExtraScore {
		inf += nonFinite(col[i:j])
	}
	if r.ScoreFloat32 {
		// scores past float32's range would round to ±Inf
		big := false
		if len(b.Score) > 0 {
			for _, s := range b.Score[i:j] {
				big = big || math.Abs(s) > math.MaxFloat32
			}
		}
		for _, col := range b.ExtraScore {
			for _, s := range col[i:j] {
				big = big || math.Abs(s) > math.MaxFloat32
			}
		}
		if big {
			return false
		}
	}
	inf += nonFinite(b.Label[i:j])
	lo, hi := 0.0, 0.0
	for _, l := range b.Label[i:j] {
		if l < lo {
			lo = l
		}
		if l > hi {
			hi = l
		}
	}
	return inf == 0 && lo >= 0 && !(hi > maxG)
}

// nonFinite is 0 when every x is finite, else NaN: the sum of each x*0,
// taken as four sums so that an addition does not wait on the one before
// (BenchmarkValidate).
func nonFinite(xs []float64) float64 {
	var s0, s1, s2, s3 float64
	for len(xs) >= 4 {
		s0 += float64(xs[0] * 0)
		s1 += float64(xs[1] * 0)
		s2 += float64(xs[2] * 0)
		s3 += float64(xs[3] * 0)
		xs = xs[4:]
	}
	for _, x := range xs {
		s0 += float64(x * 0)
	}
	return s0 + s1 + s2 + s3
}
