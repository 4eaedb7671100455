package aggregate

import (
	"fmt"

	"github.com/rankeval/rankeval/stats"
)

// Outcomes are the counts of an interleaving experiment (the interleave
// metric), read from the exact sums of its per-impression outcomes v: +1
// where team B wins, −1 where team A wins, 0 on a tie, undefined (not
// counted) without a click. With N values, Σv = wins − losses and Σv² =
// wins + losses, so
//
//	wins = (Σv² + Σv)/2, losses = (Σv² − Σv)/2, ties = N − Σv².
//
// The sums are exact (Sum), so the counts are exact whatever the merge
// order, and the mean Σv/N is the preference Δ = (wins − losses) / (wins
// + losses + ties).
type Outcomes struct {
	Wins, Losses, Ties int64
	// NoClick counts the impressions without a click, left out of Δ.
	NoClick int64
	// P is the two-sided sign test of wins against losses (stats.SignTest).
	P float64
}

// Outcomes reads the interleaving counts from st, the aggregate of the
// interleave metric over impressions impressions (those its system's log
// holds). Sums that no outcomes of +1, −1 and 0 give (a crafted state's)
// are ErrImpossible.
func (st *Stat) Outcomes(impressions int64) (Outcomes, error) {
	bad := func(why string) (Outcomes, error) {
		return Outcomes{}, fmt.Errorf("interleaving outcomes: %s: %w", why, ErrImpossible)
	}
	sum, sq := st.Sum.Big(), st.SumSq.Big()
	if sum == nil || sq == nil || !sum.IsInt() || !sq.IsInt() {
		return bad("sums that are not whole numbers")
	}
	d, _ := sum.Int(nil) // wins − losses
	t, _ := sq.Int(nil)  // wins + losses
	if !d.IsInt64() || !t.IsInt64() {
		return bad("sums beyond any count")
	}
	dv, tv := d.Int64(), t.Int64()
	switch {
	case st.N < 0 || st.N > impressions:
		return bad(fmt.Sprintf("%d outcomes of %d impressions", st.N, impressions))
	case tv > st.N || dv > tv || -dv > tv:
		return bad(fmt.Sprintf("Σv = %d and Σv² = %d from %d outcomes", dv, tv, st.N))
	case (tv-dv)%2 != 0:
		return bad(fmt.Sprintf("Σv = %d and Σv² = %d of different parity", dv, tv))
	}
	o := Outcomes{Wins: (tv + dv) / 2, Losses: (tv - dv) / 2, Ties: st.N - tv, NoClick: impressions - st.N}
	o.P = stats.SignTest(o.Wins, o.Losses)
	return o, nil
}

// CheckOutcomes verifies that metric m of a holds interleaving outcomes
// for every system and slice (Stat.Outcomes): a saved aggregate is read
// from a file anyone can write.
func (a *Analysis) CheckOutcomes(m int) error {
	for s := range a.Sys {
		if _, err := a.SysOutcomes(s, m); err != nil {
			return fmt.Errorf("system %d, metric %d: %w", s, m, err)
		}
	}
	if m >= len(a.L.Core) {
		return nil
	}
	for i, sl := range a.Slices {
		if sl == nil {
			continue
		}
		for s := range sl.Stats {
			if _, err := sl.SliceOutcomes(s, m); err != nil {
				return fmt.Errorf("slice %d, system %d, metric %d: %w", i, s, m, err)
			}
		}
	}
	return nil
}

// SysOutcomes are the interleaving counts of metric m of system s.
func (a *Analysis) SysOutcomes(s, m int) (Outcomes, error) {
	set := a.Sys[s]
	return set.Stats[m].Outcomes(set.Queries - a.Missing[s])
}

// SliceOutcomes are the interleaving counts of core metric m of system s
// in slice sl.
func (sl *Slice) SliceOutcomes(s, m int) (Outcomes, error) {
	st := sl.Stats[s][m].Stat()
	return st.Outcomes(sl.Queries[s] - sl.Missing[s])
}
