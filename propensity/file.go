package propensity

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rankeval/rankeval/internal/printable"
)

// ErrNoEstimate is wrapped when no position past 1 has an estimate:
// the log holds no document of a query shown at two positions (or too
// few clicks on them), which both estimators need.
var ErrNoEstimate = errors.New("no position past 1 can be estimated")

// FileHeader is the first line of a propensity file. --position-bias
// reads the first two columns; the others say how sure the estimate is.
const FileHeader = "position,propensity,lower,upper,pairs,clicks"

// Estimated is how many positions, from 1, have an estimate: the file
// holds those, up to the first refused.
func (e *Estimate) Estimated() int {
	for i, p := range e.Positions {
		if p.Refused != "" {
			return i
		}
	}
	return len(e.Positions)
}

// Check refuses an estimate that gives no position past 1.
func (e *Estimate) Check() error {
	if e.Estimated() >= 2 {
		return nil
	}
	why := ""
	if len(e.Positions) >= 2 {
		why = ": position 2: " + e.Positions[1].Refused
	}
	return fmt.Errorf("%w%s (both methods need documents of a query shown at two positions or more: several rankers, --ranker-col or --system, or orders that vary)", ErrNoEstimate, why)
}

// WriteFile writes e as a position-bias file that --position-bias
// reads as it is: FileHeader, then one line a position from 1 up to the
// last before the first refused position, with the 95% interval and the
// evidence (pairs, clicks) of each.
func (e *Estimate) WriteFile(w io.Writer) error {
	var b strings.Builder
	b.WriteString(FileHeader + "\n")
	for _, p := range e.Positions[:e.Estimated()] {
		fmt.Fprintf(&b, "%d,%s,%s,%s,%d,%d\n", p.Position, number(p.Propensity), number(p.Lower), number(p.Upper), p.Pairs, p.Clicks)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// number writes a propensity with 6 significant digits, which keeps
// every value in (0, 1] within it.
func number(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// LastShown is the last position with a row (0 with none): what the
// notes and the report speak of.
func (e *Estimate) LastShown() int {
	last := 0
	for _, p := range e.Positions {
		if p.Impressions > 0 {
			last = p.Position
		}
	}
	return last
}

// Summary says in a line what was estimated from what: the method, the
// rows, clicks, queries and rankers counted (each name as
// internal/printable prints data), and the positions in the file.
func (e *Estimate) Summary() string {
	tot := e.Totals
	rankers := "one ranker"
	if n := len(tot.Rankers); n > 1 || n == 1 && tot.Rankers[0] != "" {
		names := make([]string, n)
		for i, r := range tot.Rankers {
			names[i] = printable.String(r)
		}
		rankers = fmt.Sprintf("%d rankers (%s)", n, strings.Join(names, ", "))
	}
	return fmt.Sprintf("propensities by %s from %d rows (%d clicks) of %d queries, %s; positions 1 to %d estimated",
		e.Method, tot.Impressions, tot.Clicks, tot.Queries, rankers, e.Estimated())
}

// Notes are the lines that say which positions the log shows have no
// estimate, and why (the file ends before the first of them), the rows
// past MaxPosition, and a log of one ranker, whose pairs are no
// intervention.
func (e *Estimate) Notes() []string {
	last := e.LastShown()
	var notes []string
	for _, p := range e.Positions[:last] {
		if p.Refused != "" {
			notes = append(notes, fmt.Sprintf("position %d: no estimate: %s", p.Position, p.Refused))
		}
	}
	if n := e.Estimated(); n < last {
		notes = append(notes, fmt.Sprintf("the file gives positions 1 to %d; a log evaluated with it must show no row past position %d", n, n))
	}
	if len(e.Totals.Rankers) <= 1 {
		notes = append(notes, "one ranker: its documents shown at two positions were moved by its own order, not by an intervention between rankers; the estimate holds only if those moves do not follow the documents' attractiveness")
	}
	if e.Totals.Beyond > 0 {
		notes = append(notes, fmt.Sprintf("%d rows past --max-position %d were not counted", e.Totals.Beyond, len(e.Positions)))
	}
	return notes
}
