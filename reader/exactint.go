package reader

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// The rule for integer scores: a score written as an integer (an integer
// literal in JSONL, CSV or TSV; an int64, uint64 or scale-0 decimal
// column in Parquet or Arrow IPC) must be a float64 exactly, or it is an
// error naming the row and both values. Scores are ranked as float64, and
// an integer past 2^53 that float64 cannot hold rounds to a neighbour: two
// nanosecond timestamps a few units apart become one value and tie, and
// the metrics change with no sign of it. Every integer float64 can hold
// is kept exactly, so the scores a run accepts compare as the integers do.
// A score written with a fraction or an exponent is a decimal and rounds
// to the nearest float64 as any decimal does. Every reader of score
// columns calls inexactScore (text) or checkIntScores (Arrow arrays).

// oddBitsFit reports whether the magnitude u is a float64 exactly: its
// odd part (u without its trailing zero bits) has at most 53 bits.
func oddBitsFit(u uint64) bool {
	return u == 0 || bits.Len64(u)-bits.TrailingZeros64(u) <= 53
}

// int64Exact reports whether x is a float64 exactly.
func int64Exact(x int64) bool {
	u := uint64(x)
	if x < 0 {
		u = -u // MinInt64 becomes 1<<63, its magnitude
	}
	return oddBitsFit(u)
}

// bigExact reports whether the integer x is a float64 exactly (an
// integer beyond float64's range is left to the check for finite scores).
func bigExact(x *big.Int) bool {
	if x.Sign() == 0 {
		return true
	}
	return x.BitLen()-int(x.TrailingZeroBits()) <= 53 || x.BitLen() > 1024
}

// inexactScore returns the message for score text t, parsed as v, when t
// is an integer literal that v does not hold exactly, or "". It inlines
// into the readers' loops: a token of at most 15 bytes (a short decimal,
// which parseNumber reads on its fast path) costs a comparison; a longer
// one, which strconv parsed, a call and a comparison more.
func inexactScore(t []byte, v float64) string {
	if len(t) <= 15 {
		return ""
	}
	return inexactScoreText(t, v)
}

// inexactScoreText is inexactScore for a token of more than 15 bytes.
func inexactScoreText(t []byte, v float64) string {
	if math.Abs(v) < 1<<53 || math.IsInf(v, 0) || !isIntegerText(t) {
		return ""
	}
	x, ok := new(big.Int).SetString(string(t), 10)
	if !ok || bigExact(x) {
		return ""
	}
	return inexactMessage(x.String(), v)
}

// isIntegerText says whether t is an optional sign and digits: JSON's
// integers (isInteger) and a CSV field's "+7".
func isIntegerText(t []byte) bool {
	if len(t) > 1 && t[0] == '+' && t[1] != '-' {
		t = t[1:]
	}
	return isInteger(t)
}

// inexactMessage says that the integer score text is not a float64,
// whose nearest value is v, and what to do.
func inexactMessage(text string, v float64) string {
	return fmt.Sprintf("the integer score %s is not exactly a float64 (the nearest is %s) and could tie with another score; "+
		"keep integer scores within ±2^53 (9007199254740992): rescale them (subtract a base, use coarser units), "+
		"or give their order as a --rank-col column (1 = top)", text, new(big.Float).SetFloat64(v).Text('f', 0))
}

// checkIntScores checks rows [lo, hi) of a score column arr, converted
// into vals (vals[0] is row lo), against the rule for integer scores.
// Floating-point arrays, and integers too narrow to exceed 2^53, pass
// without a look.
func (cv *converter) checkIntScores(arr arrow.Array, vals []float64, lo, hi int, r colReq, unit int, before int64) error {
	bad, text := -1, ""
	switch a := arr.(type) {
	case *array.Int64:
		for i, x := range a.Int64Values()[lo:hi] {
			if !int64Exact(x) {
				bad, text = i, strconv.FormatInt(x, 10)
				break
			}
		}
	case *array.Uint64:
		for i, x := range a.Uint64Values()[lo:hi] {
			if !oddBitsFit(x) {
				bad, text = i, strconv.FormatUint(x, 10)
				break
			}
		}
	case *array.Decimal64:
		if scale := a.DataType().(arrow.DecimalType).GetScale(); scale <= 0 {
			for i, x := range a.Values()[lo:hi] {
				if scale == 0 && int64Exact(int64(x)) {
					continue
				}
				if n := scaledInt(big.NewInt(int64(x)), scale); !bigExact(n) {
					bad, text = i, n.String()
					break
				}
			}
		}
	case *array.Decimal128:
		if scale := a.DataType().(arrow.DecimalType).GetScale(); scale <= 0 {
			for i, x := range a.Values()[lo:hi] {
				h, l := x.HighBits(), x.LowBits()
				if scale == 0 && (h == 0 && l < 1<<53 || h == -1 && l > math.MaxUint64-1<<53) {
					continue
				}
				if n := scaledInt(x.BigInt(), scale); !bigExact(n) {
					bad, text = i, n.String()
					break
				}
			}
		}
	case *array.Decimal256:
		if scale := a.DataType().(arrow.DecimalType).GetScale(); scale <= 0 {
			for i, x := range a.Values()[lo:hi] {
				if n := scaledInt(x.BigInt(), scale); !bigExact(n) {
					bad, text = i, n.String()
					break
				}
			}
		}
	}
	if bad < 0 {
		return nil
	}
	return fmt.Errorf("%s: %q (%s): %s: %w", cv.where(unit, before+int64(lo+bad)+1), r.name, r.role(), inexactMessage(text, vals[bad]), ErrValue)
}

// scaledInt is the value of a decimal of scale <= 0: n·10^-scale.
func scaledInt(n *big.Int, scale int32) *big.Int {
	if scale < 0 {
		n.Mul(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-scale)), nil))
	}
	return n
}
