package metrics

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Parse parses one metric name (case-insensitive; output key Name = the input
// lower-cased and trimmed).
func Parse(name string) (Metric, error) {
	key := strings.ToLower(strings.TrimSpace(name))
	base, kstr, hasAt := strings.Cut(key, "@")
	m := Metric{Name: key}
	kind, ok := kindOf(base)
	switch {
	case ok:
		m.Kind = kind
	case isFBeta(base):
		beta, err := strconv.ParseFloat(base[1:], 64)
		if err != nil || !(beta > 0) || math.IsInf(beta, 0) {
			return Metric{}, fmt.Errorf("metric %q: %w (F-beta needs a beta > 0, as in f1@10 or f0.5@10)", key, ErrUnknownMetric)
		}
		m.Kind, m.Beta = KindF, beta
	default:
		if tm, ok := parseTrecName(key); ok {
			return tm, nil
		}
		if near := closest(base, hasAt); near != "" {
			at := ""
			if hasAt {
				at = "@" + kstr
			}
			return Metric{}, fmt.Errorf("metric %q: %w; did you mean %s%s? (rankeval metrics lists them all)", key, ErrUnknownMetric, near, at)
		}
		return Metric{}, fmt.Errorf("metric %q: %w (rankeval metrics lists them all)", key, ErrUnknownMetric)
	}
	switch cut := families[m.Kind].cut; {
	case !hasAt && cut == cutRequired:
		return Metric{}, fmt.Errorf("metric %q: %w (it needs one, as in %s@10)", key, ErrBadCutoff, base)
	case hasAt && cut == cutAtR:
		return Metric{}, fmt.Errorf("metric %q: %w (%s takes no cutoff)", key, ErrBadCutoff, base)
	case hasAt:
		k, err := parseCutoff(kstr)
		if err != nil {
			return Metric{}, fmt.Errorf("metric %q: %w", key, ErrBadCutoff)
		}
		m.K = k
	}
	return m, nil
}

// isFBeta reports whether base looks like "f<number>"; the number is
// validated by the caller so that "f0@10" gets a precise message.
func isFBeta(base string) bool {
	return len(base) > 1 && base[0] == 'f' && (base[1] == '.' || base[1] >= '0' && base[1] <= '9')
}

// parseCutoff accepts only plain decimal digits: strconv.Atoi alone would let
// "+5" through, and a cutoff is never written that way.
func parseCutoff(s string) (int, error) {
	if s == "" {
		return 0, strconv.ErrSyntax
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, strconv.ErrSyntax
		}
	}
	k, err := strconv.Atoi(s)
	if err != nil {
		return 0, err
	}
	if k < 1 {
		return 0, strconv.ErrRange
	}
	return k, nil
}

// ParseList parses a comma-separated list; rejects empty items and
// duplicates (same Name).
func ParseList(s string) ([]Metric, error) {
	items := strings.Split(s, ",")
	ms := make([]Metric, 0, len(items))
	for _, it := range items {
		if strings.TrimSpace(it) == "" {
			return nil, fmt.Errorf("metric list %q: empty item: %w", s, ErrUnknownMetric)
		}
		m, err := Parse(it)
		if err != nil {
			return nil, err
		}
		for _, prev := range ms {
			if prev.Name == m.Name {
				return nil, fmt.Errorf("metric list %q: %q given twice", s, m.Name)
			}
		}
		ms = append(ms, m)
	}
	return ms, nil
}

// NeedsMaxGrade reports whether any metric uses the maximum grade (err,
// nerr), so the caller validates labels <= MaxGrade.
func NeedsMaxGrade(ms []Metric) bool {
	for _, m := range ms {
		if families[m.Kind].needs&needERR != 0 {
			return true
		}
	}
	return false
}

// closest is the known base name nearest to base (two edits at most, and
// fewer than half its letters) that takes a cutoff if one was given and
// needs none if none was, or "".
func closest(base string, hasAt bool) string {
	best, bestD := "", 3
	for k := range families {
		if cut := families[k].cut; hasAt && cut == cutAtR || !hasAt && cut == cutRequired {
			continue
		}
		for _, n := range families[k].names {
			if d := editDistance(base, n); d < bestD && 2*d < max(len(base), len(n)) {
				best, bestD = n, d
			}
		}
	}
	return best
}

// editDistance is the Damerau–Levenshtein distance (optimal string
// alignment): a swap of two neighbours, the commonest typo (ndgc), is one
// edit.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
