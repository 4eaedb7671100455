package pipeline

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/rankeval/rankeval/internal/pmath"

	"github.com/rankeval/rankeval/reader"
)

// The rule that gives each row of a click log its propensity of
// examination, for the IPS estimates: read from a column, or looked up in
// a position-based model at the row's logged position. It is applied as
// rows are taken (Taker), so that a Group carries the propensities every
// path (sorted, --unsorted, Beam) evaluates with.

// ErrPositionBias is wrapped by the errors of a --position-bias model
// that cannot be read.
var ErrPositionBias = errors.New("bad position-bias model")

// PositionBias is a position-based model of examination: the propensity
// p(k) that the row shown at logged position k is examined.
type PositionBias struct {
	// Eta gives p(k) = k^-Eta when Table is nil.
	Eta float64
	// Table gives p(k) = Table[k-1]; a position past its end has none.
	Table []float64
}

// MaxEta bounds a power model's exponent: k^-10 is already below 1e-10
// at k = 10, far below any clip.
const MaxEta = 10

// ParsePositionBias reads a model in its canonical form: pow:η (p(k) =
// k^−η) or table:p1,p2,... (p(k) = p_k), as String writes it; a model
// read from a file (ReadPositionBias) travels in the latter form.
func ParsePositionBias(s string) (PositionBias, error) {
	switch kind, arg, _ := strings.Cut(s, ":"); kind {
	case "pow":
		eta, err := strconv.ParseFloat(arg, 64)
		if err != nil || !(eta >= 0 && eta <= MaxEta) {
			return PositionBias{}, fmt.Errorf("%q: want pow:η with η from 0 to %d, as pow:1: %w", s, MaxEta, ErrPositionBias)
		}
		return PositionBias{Eta: eta}, nil
	case "table":
		var t []float64
		for i, f := range strings.Split(arg, ",") {
			p, err := parsePropensity(strings.TrimSpace(f))
			if err != nil {
				return PositionBias{}, fmt.Errorf("%q: position %d: %v: %w", s, i+1, err, ErrPositionBias)
			}
			t = append(t, p)
		}
		return PositionBias{Table: t}, nil
	}
	return PositionBias{}, fmt.Errorf("%q: want pow:η, table:p1,p2,... or a file of position,propensity lines: %w", s, ErrPositionBias)
}

// IsModel reports whether s names a model (pow:, table:) rather than a
// file to read.
func IsModel(s string) bool { return strings.HasPrefix(s, "pow:") || strings.HasPrefix(s, "table:") }

// parsePropensity reads a model's propensity: a number in (0, 1].
func parsePropensity(f string) (float64, error) {
	p, err := strconv.ParseFloat(f, 64)
	if err != nil || !(p > 0 && p <= 1) {
		return 0, fmt.Errorf("propensity %q: want a number in (0, 1]", f)
	}
	return p, nil
}

// String is the model's canonical form, which ParsePositionBias reads
// back to the same bits.
func (b PositionBias) String() string {
	if b.Table == nil {
		return "pow:" + strconv.FormatFloat(b.Eta, 'g', -1, 64)
	}
	fs := make([]string, len(b.Table))
	for i, p := range b.Table {
		fs[i] = strconv.FormatFloat(p, 'g', -1, 64)
	}
	return "table:" + strings.Join(fs, ",")
}

// ReadPositionBias reads a model from a CSV file of position,propensity
// lines, positions 1, 2, ... in order, an optional header first; columns
// after the propensity (the interval and evidence rankeval propensities
// writes) are not read. name names the file in messages.
func ReadPositionBias(name string, r io.Reader) (PositionBias, error) {
	sc := bufio.NewScanner(r)
	var t []float64
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || line == 1 && strings.HasPrefix(strings.ToLower(text), "position") {
			continue
		}
		pos, rest, ok := strings.Cut(text, ",")
		prop, _, _ := strings.Cut(rest, ",") // further columns (an interval) are not read
		k, err := strconv.Atoi(strings.TrimSpace(pos))
		if !ok || err != nil {
			return PositionBias{}, fmt.Errorf("%s:%d: want position,propensity, found %q: %w", name, line, text, ErrPositionBias)
		}
		if k != len(t)+1 {
			return PositionBias{}, fmt.Errorf("%s:%d: position %d where %d comes next (positions 1, 2, ... in order): %w", name, line, k, len(t)+1, ErrPositionBias)
		}
		p, err := parsePropensity(strings.TrimSpace(prop))
		if err != nil {
			return PositionBias{}, fmt.Errorf("%s:%d: %v: %w", name, line, err, ErrPositionBias)
		}
		t = append(t, p)
	}
	if err := sc.Err(); err != nil {
		return PositionBias{}, fmt.Errorf("%s: %w", name, err)
	}
	if len(t) == 0 {
		return PositionBias{}, fmt.Errorf("%s: no position,propensity line: %w", name, ErrPositionBias)
	}
	return PositionBias{Table: t}, nil
}

// At is the propensity at logged position k (a whole number >= 1; the
// power law takes any k >= 1), or false when the table has none.
func (b *PositionBias) At(k float64) (float64, bool) {
	if b.Table == nil {
		return pmath.Pow(k, -b.Eta), true
	}
	if k > float64(len(b.Table)) {
		return 0, false
	}
	return b.Table[int(k)-1], true
}

// Propensity says where a row's propensity of examination comes from: a
// column (reader.Batch.Numbers[0], a number in [0, 1]), or Model at the
// row's logged position (Numbers[0], or the rank column's value when
// FromRank). The zero value reads none.
type Propensity struct {
	From     PropensityFrom
	Model    PositionBias
	FromRank bool
}

// PropensityFrom is where Propensity reads.
type PropensityFrom uint8

const (
	PropNone   PropensityFrom = iota
	PropColumn                // a column of propensities
	PropModel                 // a position-based model of a column of positions
)

// appendProps appends the propensities of rows [i, j) of b to g.Prop,
// checking each value, and under a position model their logged positions
// to g.Logged.
func (t *Taker) appendProps(g *Group, b *reader.Batch, i, j int) error {
	pr := &t.r.Propensity
	switch pr.From {
	case PropColumn:
		col := b.Numbers[0][i:j]
		for k, p := range col {
			if !(p >= 0 && p <= 1) {
				return fmt.Errorf("%s: propensity is %v; propensities must be numbers from 0 to 1: %w", b.Where(i+k), p, reader.ErrValue)
			}
		}
		g.Prop = append(g.Prop, col...)
	case PropModel:
		for k := i; k < j; k++ {
			var pos float64
			if pr.FromRank {
				pos = float64(b.Rank[k])
			} else {
				pos = b.Numbers[0][k]
			}
			if !(pos >= 1 && pos == math.Trunc(pos)) || math.IsInf(pos, 0) {
				return fmt.Errorf("%s: position is %v; logged positions must be whole numbers >= 1 (1 = top): %w", b.Where(k), pos, reader.ErrValue)
			}
			p, ok := pr.Model.At(pos)
			if !ok {
				return fmt.Errorf("%s: position %v is past the --position-bias table, whose last position is %d: %w", b.Where(k), pos, len(pr.Model.Table), reader.ErrValue)
			}
			g.Prop = append(g.Prop, p)
			g.Logged = append(g.Logged, pos)
		}
	}
	return nil
}
