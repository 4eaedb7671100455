// Package aggregate owns the exact sums behind every figure of a run and
// their merge. Sums are exact (a fixed-point superaccumulator), so merging
// partial aggregates in any order, from any number of workers and any
// split of the input, gives bit-identical results.
//
// Its rooms:
//
//   - the sums: Sum and its compact form Small (sum.go, small.go), and Stat,
//     a metric's count, sum and sum of exact squares, whose Summary reads a
//     mean and its interval (stat.go);
//   - a run's aggregate: Layout, Analysis and Slice (analysis.go), the
//     click weights' sums behind the ratios of the self-normalized IPS
//     estimates and their delta-method summaries (ratio.go), histograms
//     (hist.go), interleaving outcomes (outcomes.go);
//   - the replicate sums of the Poisson bootstrap (boot.go) and of the
//     randomization tests (perm.go), in 128-bit fixed point;
//   - what a saved aggregate must obey (check.go) and the digests that
//     tell a merge which inputs a state holds (digest.go);
//   - the binary encoding, canonical (equal sums, equal bytes), in which
//     aggregates cross process boundaries and are saved (encode.go: Sum,
//     Stat and Set; encode_layout.go; encode_analysis.go; encode_parts.go).
//     It stays in this package because it writes and checks the sums'
//     unexported limbs and windows, which no other package may set.
//
// The statistics read from the sums (t and bootstrap intervals, tests,
// corrections, effect sizes) and the resampling draws are package stats's,
// which never sees how the sums are kept.
package aggregate
