package propensity

import (
	"strings"
	"testing"
)

// TestSummaryPrintable: the summary line names the rankers as every
// message prints data (internal/printable): a name with a line break, an
// escape or a bidi override is quoted, so that a ranker column can
// neither forge a line of stderr nor drive the terminal; a plain name
// prints as itself.
func TestSummaryPrintable(t *testing.T) {
	e := &Estimate{Method: Harvest, Positions: []Position{{Position: 1, Propensity: 1, Lower: 1, Upper: 1}}}
	e.Totals.Impressions, e.Totals.Clicks, e.Totals.Queries = 10, 3, 2
	e.Totals.Rankers = []string{"A", "b\nrankeval: closest power law: pow:3", "\x1b[31mred", "x\u202ey"}
	got := e.Summary()
	want := `propensities by harvest from 10 rows (3 clicks) of 2 queries, 4 rankers (A, "b\nrankeval: closest power law: pow:3", "\x1b[31mred", "x\u202ey"); positions 1 to 1 estimated`
	if got != want {
		t.Errorf("Summary =\n%s\nwant\n%s", got, want)
	}
	if strings.ContainsAny(got, "\n\x1b\u202e") {
		t.Errorf("raw control characters in %q", got)
	}
}
