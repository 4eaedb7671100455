// Package metrics owns the per-query metric functions (docs/metrics.md §4)
// and the tie policies (§2 there). It is pure: it reads a ranked list's scores and labels
// and writes values; it does no I/O and, after an Evaluator has warmed up to
// the largest list it has seen, allocates nothing.
//
// Where things are:
//   - families.go: every metric family in one table, by Kind: its formula,
//     the names it accepts, its cutoff rule, its trec_eval names, its value
//     range, what it reads, and (value) how its value comes from the sweep's
//     sums; Help, the list for a command's --help, is made from it.
//   - parse.go: Parse, ParseList and NeedsMaxGrade, through the table;
//     trec.go: trec_eval's spellings (parseTrecName, TrecName), likewise.
//   - trecmeasures.go: trec_eval's measures in one table (TrecMeasures):
//     their names, releases, parameters' shapes and defaults, help, and
//     which of them spell the families above; package treceval builds
//     its measures from it.
//   - api.go: the sentinel errors, the conventions (Ties, Gain, Empty,
//     Options), Metric and List;
//     options.go: the conventions' names (ParseTies, String, …).
//   - eval.go: the Evaluator: the ranking, the tie policies and the sweep
//     down it that keeps the running sums (acc) at every cut, exact
//     expectations under TiesAverage; sort.go: the ranking's sort.
//   - corr.go: Kendall's tau-b and Spearman's rho, from the scores.
//   - clicks.go: the click metrics and the IPS estimates, from the clicked
//     rows' places in the ranking (and their propensities), for every
//     impression; ClickWeight, the denominator of the self-normalized ones.
package metrics
