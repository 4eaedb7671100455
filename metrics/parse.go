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
		return Metric{}, fmt.Errorf("metric %q: %w", key, ErrUnknownMetric)
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
