package pipeline

import (
	"fmt"

	"github.com/rankeval/rankeval/reader"
)

// The rule that gives each row of an interleaved result list its team:
// the value of the team column (reader.Batch.Texts[0]) names team A or
// team B, anything else is an input error naming the row. It is applied as
// rows are taken (Taker), so that a Group carries the teams every path
// (sorted, --unsorted, Beam) evaluates with.

// Teams are the values of the team column that name the two teams of an
// interleaved list, A (the baseline) first. The zero value reads none.
type Teams struct{ A, B string }

// On reports whether rows carry a team.
func (t Teams) On() bool { return t.A != "" }

// Team values in a Group and metrics.List.
const (
	TeamA uint8 = 0
	TeamB uint8 = 1
)

// appendTeams appends the teams of rows [i, j) of b to dst, checking each
// value.
func (t *Taker) appendTeams(dst []uint8, b *reader.Batch, i, j int) ([]uint8, error) {
	tm, col := &t.r.Teams, &b.Texts[0]
	for k := i; k < j; k++ {
		switch v := col.At(k); string(v) {
		case tm.A:
			dst = append(dst, TeamA)
		case tm.B:
			dst = append(dst, TeamB)
		default:
			return dst, fmt.Errorf("%s: team %q is neither of --teams %q (A) and %q (B): %w", b.Where(k), v, tm.A, tm.B, reader.ErrValue)
		}
	}
	return dst, nil
}
