// Package metrics owns the per-query metric functions of SPEC §4 and the tie
// policies of SPEC §2. It is pure: it reads a ranked list's scores and labels
// and writes values; it does no I/O and, after an Evaluator has warmed up to
// the largest list it has seen, allocates nothing.
package metrics
