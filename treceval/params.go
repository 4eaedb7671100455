package treceval

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/rankeval/rankeval/metrics"
)

// trec_eval reads a measure's parameters (-m name.PARAMS) with C's atol
// and atof, which read the longest number at the start of a string and
// give 0 for none, in one of four ways by measure (meas_init.c): whole
// cutoffs, sorted; real cutoffs, sorted; a list of reals as given; and
// name=real pairs. This file reads them as trec_eval does.

// cAtol is C's atol: optional blanks and sign, then decimal digits, the
// rest ignored; 0 when there are none; clamped at the long's range as
// glibc's strtol clamps.
func cAtol(s string) int64 {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	var n uint64
	over := false
	for i := 0; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		d := uint64(s[i] - '0')
		if n > (math.MaxUint64-d)/10 {
			over = true
		} else {
			n = n*10 + d
		}
	}
	switch {
	case neg && (over || n > 1<<63):
		return math.MinInt64
	case neg:
		return -int64(n)
	case over || n > math.MaxInt64:
		return math.MaxInt64
	}
	return int64(n)
}

// cAtof is C's atof: the longest prefix (after blanks) that strtod reads
// as a number, decimal or hexadecimal, inf or nan; 0 when there is none.
// A nan keeps its sign, as glibc's strtod keeps it ("-nan" has the sign
// bit set, and prints -nan); its bits otherwise are Go's NaN, which C's
// printf prints as an input's nan (cFixed).
func cAtof(s string) float64 {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	num, hexNoExp := floatPrefix(s)
	if num == "" {
		return 0
	}
	if n := strings.TrimLeft(num, "+-"); strings.EqualFold(n, "nan") {
		if num[0] == '-' {
			return -math.NaN()
		}
		return math.NaN()
	}
	if hexNoExp { // strtod takes 0x1.8; Go's ParseFloat wants its p0
		num += "p0"
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) { // out of range: strtod's ±HUGE_VAL or 0, as Go's
		return 0
	}
	return v
}

// floatPrefix is the number strtod reads at the start of s ("" for
// none), and whether it is hexadecimal without a binary exponent.
func floatPrefix(s string) (string, bool) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	rest := strings.ToLower(s[i:])
	switch {
	case strings.HasPrefix(rest, "infinity"):
		return s[:i+8], false
	case strings.HasPrefix(rest, "inf"), strings.HasPrefix(rest, "nan"):
		return s[:i+3], false
	}
	hex := strings.HasPrefix(rest, "0x")
	digit := func(c byte) bool {
		return c >= '0' && c <= '9' || hex && (c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F')
	}
	j := i
	if hex {
		j += 2
	}
	digits := 0
	for j < len(s) && digit(s[j]) {
		j++
		digits++
	}
	if j < len(s) && s[j] == '.' {
		j++
		for j < len(s) && digit(s[j]) {
			j++
			digits++
		}
	}
	switch {
	case digits == 0 && hex: // "0x" alone reads as 0, the x left over
		return s[:i+1], false
	case digits == 0:
		return "", false
	}
	// an exponent counts only when digits follow it
	exp := false
	if j < len(s) && (!hex && (s[j] == 'e' || s[j] == 'E') || hex && (s[j] == 'p' || s[j] == 'P')) {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && s[k] >= '0' && s[k] <= '9' {
			for k < len(s) && s[k] >= '0' && s[k] <= '9' {
				k++
			}
			j, exp = k, true
		}
	}
	return s[:j], hex && !exp
}

// paramError is a measure's parameters that trec_eval refuses when it
// initializes the measure (its message, then exit).
func paramError(format string, a ...any) error {
	return fmt.Errorf("trec_eval: "+format+" (rankeval trec_eval -h -m MEASURE describes its parameters)", a...)
}

// longCutoffs is get_long_cutoffs: whole cutoffs, atol each, sorted;
// one <= 0 or a duplicate is an error.
func longCutoffs(param string) ([]int64, error) {
	var cuts []int64
	for _, it := range strings.Split(param, ",") {
		cuts = append(cuts, cAtol(it))
	}
	slices.Sort(cuts)
	if cuts[0] <= 0 {
		return nil, paramError("Negative cutoff detected")
	}
	if top := cuts[len(cuts)-1]; top > metrics.MaxCutoff {
		return nil, paramError("cutoff %d is above %d, the largest rankeval takes", top, metrics.MaxCutoff)
	}
	for i := 1; i < len(cuts); i++ {
		if cuts[i-1] == cuts[i] {
			return nil, paramError("duplicate cutoffs detected")
		}
	}
	return cuts, nil
}

// doubleCutoffs is get_double_cutoffs: reals, atof each, sorted; a
// duplicate is an error (any value is taken, 1.5 or -1 as recall).
func doubleCutoffs(param string) ([]float64, error) {
	var cuts []float64
	for _, it := range strings.Split(param, ",") {
		cuts = append(cuts, cAtof(it))
	}
	// qsort by comp_double, to which a NaN (-m iprec_at_recall.nan)
	// equals everything: where it ends up is glibc's merge sort's doing
	metrics.Msort(cuts, nil, compDouble)
	for i := 1; i < len(cuts); i++ {
		if cuts[i-1] == cuts[i] {
			return nil, paramError("duplicate cutoffs detected")
		}
	}
	return cuts, nil
}

// compDouble is meas_init.c's comp_double.
func compDouble(a, b *float64) int {
	switch {
	case *a < *b:
		return -1
	case *a > *b:
		return 1
	}
	return 0
}

// doubleParams is get_double_params: reals, atof each, in order.
func doubleParams(param string) []float64 {
	var xs []float64
	for _, it := range strings.Split(param, ",") {
		xs = append(xs, cAtof(it))
	}
	return xs
}

// pair is one name=value parameter.
type pair struct {
	name  string
	value float64
}

// paramPairs is get_param_pairs: name=value items separated by commas; a
// list that does not end in a value, or has an empty item or two '=' in a
// row, is malformed.
func paramPairs(param string) ([]pair, error) {
	last := byte(',')
	for i := 0; i < len(param); i++ {
		c := param[i]
		if c == ',' {
			if last == ',' {
				break
			}
			last = ','
		} else if c == '=' {
			if last == '=' {
				last = ','
				break
			}
			last = '='
		}
	}
	if last != '=' {
		return nil, paramError("malformed pair parameters in '%s'", param)
	}
	// trec_eval then splits at every '=' and ','; a name is what follows
	// the last ',' before its '='
	var out []pair
	start, name := 0, ""
	for i := 0; i < len(param); i++ {
		switch param[i] {
		case '=':
			name, start = param[start:i], i+1
		case ',':
			out = append(out, pair{name, cAtof(param[start:i])})
			start = i + 1
		}
	}
	return append(out, pair{name, cAtof(param[start:])}), nil
}

// cutName is a cutoff measure's value name, "%s_%ld".
func cutName(name string, k int64) string { return name + "_" + strconv.FormatInt(k, 10) }

// levelName is a real-cutoff measure's value name, "%s_%3.2f" written
// into trec_eval's buffer of len(name)+10 bytes: cut at len(name)+9.
func levelName(name string, x float64) string {
	s := name + "_" + cFixed(x, 2, 3)
	return s[:min(len(s), len(name)+9)]
}

// paramName is the name of a measure given parameters, "%s_%s" with the
// parameters as typed.
func paramName(name, param string) string { return name + "_" + param }
