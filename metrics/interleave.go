package metrics

import "math"

// The interleaving outcome of a team-draft interleaved list (Radlinski,
// Kurup and Joachims, CIKM 2008; Chapelle, Joachims, Radlinski and Yue,
// TOIS 2012): each row was contributed by team A or team B (List.Team),
// and a click credits the row's team. It reads only which rows are
// clicked and their teams, not where they are ranked, and like the click
// metrics it is defined whatever the empty-query policy says.

// interleaveValue is the outcome of an interleaved list whose ranking
// e.ents holds n rows: +1 when team B's rows hold more clicks than team
// A's, −1 when A's do, 0 when both hold the same number > 0, NaN (left
// out of the mean and counted apart) without a click.
func (e *Evaluator) interleaveValue(l *List, n int) float64 {
	if len(l.Team) != len(l.Label) {
		panic("metrics: the interleaving outcome needs List.Team, a team a row")
	}
	var credit [2]int
	for _, en := range e.ents[:n] {
		if e.rel(l.Label[en.i]) {
			credit[l.Team[en.i]]++
		}
	}
	switch a, b := credit[0], credit[1]; {
	case a == 0 && b == 0:
		return math.NaN()
	case b > a:
		return 1
	case a > b:
		return -1
	}
	return 0
}
