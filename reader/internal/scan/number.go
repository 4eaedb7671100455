package scan

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"unsafe"
)

// IsInteger says whether t is digits with an optional '-', of any length:
// an id of 20 digits (a uint64 hash) is an integer too, and ParseRank
// reports one beyond int64 as out of range.
func IsInteger(t []byte) bool {
	if len(t) > 0 && t[0] == '-' {
		t = t[1:]
	}
	if len(t) == 0 {
		return false
	}
	for _, c := range t {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// ParseNumber parses a JSON number, and the NaN/Infinity tokens some
// writers emit so that they reach validation as NaN/Inf and are reported
// as such rather than as syntax errors.
func ParseNumber(t []byte) (float64, bool) {
	if len(t) == 0 {
		return 0, false
	}
	if v, ok := parseShortDecimal(t); ok {
		return v, true
	}
	switch string(t) {
	case "NaN":
		return math.NaN(), true
	case "Infinity", "+Infinity":
		return math.Inf(1), true
	case "-Infinity":
		return math.Inf(-1), true
	}
	for _, c := range t {
		if !(c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E') {
			return 0, false
		}
	}
	v, err := strconv.ParseFloat(unsafeString(t), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return v, true // out of range gives ±Inf, which validation reports
}

// parseShortDecimal parses [-]digits[.digits] with at most 15 significant
// digits: the mantissa and the power of ten are then both exact in float64,
// so one division gives the correctly rounded value (Clinger's fast path),
// the same bits strconv.ParseFloat returns, in a fraction of its time.
func parseShortDecimal(t []byte) (float64, bool) {
	neg := false
	if len(t) > 0 && t[0] == '-' {
		neg, t = true, t[1:]
	}
	if len(t) == 0 || len(t) > 16 {
		return 0, false
	}
	var m uint64
	digits, frac := 0, -1
	for i, c := range t {
		switch {
		case c >= '0' && c <= '9':
			m = m*10 + uint64(c-'0')
			digits++
		case c == '.' && frac < 0 && i > 0 && i < len(t)-1:
			frac = i
		default:
			return 0, false
		}
	}
	if digits > 15 {
		return 0, false
	}
	v := float64(m)
	if frac >= 0 {
		v /= Pow10[len(t)-1-frac]
	}
	if neg {
		v = -v
	}
	return v, true
}

func QuoteSnippet(b []byte) string {
	if len(b) > 24 {
		return strconv.Quote(string(b[:24])) + "..."
	}
	if len(b) == 0 {
		return "end of line"
	}
	return strconv.Quote(string(b))
}

func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

func IsSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func SkipSpace(s []byte, p int) int {
	for p < len(s) && IsSpace(s[p]) {
		p++
	}
	return p
}

// What ParseRank finds wrong with a rank.
const (
	rankOK = iota
	RankNotNumber
	RankNotWhole
	RankRange
)

// ParseRank parses a rank: any integer, or a float with no fraction (2.0,
// 1e2), for only the order of ranks matters; they need not start at 1.
// Every text reader types ranks with it.
func ParseRank(tok []byte) (int64, int) {
	if IsInteger(tok) {
		if v, err := strconv.ParseInt(unsafeString(tok), 10, 64); err == nil {
			return v, rankOK
		}
		return 0, RankRange
	}
	v, ok := ParseNumber(tok)
	switch {
	case !ok:
		return 0, RankNotNumber
	case v != math.Trunc(v) || math.IsInf(v, 0):
		return 0, RankNotWhole
	case v < math.MinInt64 || v >= math.MaxInt64:
		return 0, RankRange
	}
	return int64(v), rankOK
}

// Pow10 holds the powers of ten that float64 represents exactly.
var Pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

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
// columns calls InexactScore (text) or checkIntScores (Arrow arrays).

// OddBitsFit reports whether the magnitude u is a float64 exactly: its
// odd part (u without its trailing zero bits) has at most 53 bits.
func OddBitsFit(u uint64) bool {
	return u == 0 || bits.Len64(u)-bits.TrailingZeros64(u) <= 53
}

// Int64Exact reports whether x is a float64 exactly.
func Int64Exact(x int64) bool {
	u := uint64(x)
	if x < 0 {
		u = -u // MinInt64 becomes 1<<63, its magnitude
	}
	return OddBitsFit(u)
}

// BigExact reports whether the integer x is a float64 exactly (an
// integer beyond float64's range is left to the check for finite scores).
func BigExact(x *big.Int) bool {
	if x.Sign() == 0 {
		return true
	}
	return x.BitLen()-int(x.TrailingZeroBits()) <= 53 || x.BitLen() > 1024
}

// InexactScore returns the message for score text t, parsed as v, when t
// is an integer literal that v does not hold exactly, or "". It inlines
// into the readers' loops: a token of at most 15 bytes (a short decimal,
// which parseNumber reads on its fast path) costs a comparison; a longer
// one, which strconv parsed, a call and a comparison more.
func InexactScore(t []byte, v float64) string {
	if len(t) <= 15 {
		return ""
	}
	return inexactScoreText(t, v)
}

// inexactScoreText is InexactScore for a token of more than 15 bytes.
func inexactScoreText(t []byte, v float64) string {
	if math.Abs(v) < 1<<53 || math.IsInf(v, 0) || !isIntegerText(t) {
		return ""
	}
	x, ok := new(big.Int).SetString(string(t), 10)
	if !ok || BigExact(x) {
		return ""
	}
	return InexactMessage(x.String(), v)
}

// isIntegerText says whether t is an optional sign and digits: JSON's
// integers (IsInteger) and a CSV field's "+7".
func isIntegerText(t []byte) bool {
	if len(t) > 1 && t[0] == '+' && t[1] != '-' {
		t = t[1:]
	}
	return IsInteger(t)
}

// InexactMessage says that the integer score text is not a float64,
// whose nearest value is v, and what to do.
func InexactMessage(text string, v float64) string {
	return fmt.Sprintf("the integer score %s is not exactly a float64 (the nearest is %s) and could tie with another score; "+
		"keep integer scores within ±2^53 (9007199254740992): rescale them (subtract a base, use coarser units), "+
		"or give their order as a --rank-col column (1 = top)", text, new(big.Float).SetFloat64(v).Text('f', 0))
}

// ScaledInt is the value of a decimal of scale <= 0: n·10^-scale.
func ScaledInt(n *big.Int, scale int32) *big.Int {
	if scale < 0 {
		n.Mul(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-scale)), nil))
	}
	return n
}
