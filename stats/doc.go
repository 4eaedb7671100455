// Package stats holds the statistics of rankeval's summaries and
// comparisons, as pure functions on numbers: the normal interval of a
// mean (Summary), Student's t distribution and the paired t-test
// (Paired), Cohen's d_z with its exact interval from the noncentral t
// distribution (Effect, NCTCDF), the exact sign test of an interleaving
// experiment (SignTest), the corrections of p-values tested together
// (Holm, BH, Correct), the bootstrap's percentile interval (PercentileCI95)
// and the Monte Carlo p-value of the randomization tests (MonteCarloP).
//
// It also holds the resampling draws: a query's Poisson bootstrap weights
// (BootstrapWeights), its randomization signs (FlipBlock) and its Tukey
// shuffles (Shuffler), each a fixed function of the query's id hash
// (QueryHash), a replicate and a seed, so that every worker, path and
// merge of states draws the same replicates.
//
// Nothing here sees how the figures are summed: package aggregate keeps
// the exact sums, the replicate sums and their encoding, and calls these
// functions on what it reads from them. Every function gives the same
// bits on every machine: products that are added are rounded (or fused
// with math.FMA on purpose) and the elementary functions are
// internal/pmath's. docs/comparisons.md describes the tests, corrections
// and effect sizes to a user, docs/analysis.md the bootstrap.
package stats
