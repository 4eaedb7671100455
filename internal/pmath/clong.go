package pmath

import "math"

// CLong is C's (long) x on amd64: x truncated toward 0, and x86's "integer
// indefinite", the least int64, when x is NaN or outside int64's range.
// Go's int64(x) is that on amd64 only (arm64 saturates, and gives 0 for
// NaN), so a conversion whose argument may be out of range calls CLong to
// give the same integer on every machine, the one trec_eval computes on
// amd64 (glibc's lround returns (long) x past 2^62 too).
func CLong(x float64) int64 {
	if !(x > -9223372036854775809.0 && x < 9223372036854775808.0) {
		return math.MinInt64
	}
	return int64(x)
}
