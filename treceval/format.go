package treceval

import (
	"math"
	"strconv"

	"github.com/rankeval/rankeval/internal/pmath"
)

// trec_eval's lines are printf's: "%-22s\t%s\t%6.4f\n" for a value,
// "%ld" for a count, "'%s'" for relstring. These are the same, down to
// C's spelling of a value that is not a number.

// cFixed is C's %W.Pf of x (W the width, P the precision): glibc rounds
// the exact binary value, as strconv does; nan, -nan, inf and -inf are
// C's words. A NaN prints as trec_eval on amd64 prints it: "-nan" where an
// invalid operation (0/0, ∞-∞) made it, whose NaN has the sign set on
// amd64 and is invalidNaN, unsigned, on arm64 and the other
// architectures; "nan" where it came unsigned from the input (a "nan" in
// a -Z file, which Go and C read with payload 1 and 0).
func cFixed(x float64, prec, width int) string {
	var s string
	switch {
	case math.IsNaN(x) && (math.Signbit(x) || math.Float64bits(x) == invalidNaN):
		s = "-nan"
	case math.IsNaN(x):
		s = "nan"
	case math.IsInf(x, 1):
		s = "inf"
	case math.IsInf(x, -1):
		s = "-inf"
	default:
		s = strconv.FormatFloat(x, 'f', prec, 64)
	}
	for len(s) < width {
		s = " " + s
	}
	return s
}

// invalidNaN is the NaN that an invalid operation gives on arm64, ppc64le,
// riscv64 and s390x (their default NaN: positive, quiet, no payload).
const invalidNaN = 0x7ff8000000000000

// cLong is C's (long) x as trec_eval computes it on amd64 (pmath.CLong).
func cLong(x float64) int64 { return pmath.CLong(x) }

// appendHead appends "%-22s\t%s\t" of a measure's name and a query id,
// the name after a Z under -Z. The query id is printed as read, byte for
// byte, as trec_eval prints it (bytes that are not UTF-8 and control
// characters included): the ordinary command's trec layout quotes such an
// id (internal/printable), a drop-in prints what trec_eval prints.
func appendHead(b []byte, z bool, name, qid string) []byte {
	w := len(b)
	if z {
		b = append(b, 'Z')
		w++
	}
	b = append(b, name...)
	for len(b)-w < 22 {
		b = append(b, ' ')
	}
	b = append(b, '\t')
	b = append(b, qid...)
	return append(b, '\t')
}

// appendValue appends one line: a count as "%ld" (but as "%6.4f" under
// -Z), any other value as "%6.4f".
func appendValue(b []byte, z bool, name, qid string, v float64, count bool) []byte {
	b = appendHead(b, z, name, qid)
	if count && !z {
		b = strconv.AppendInt(b, cLong(v), 10)
	} else {
		b = append(b, cFixed(v, 4, 6)...)
	}
	return append(b, '\n')
}
