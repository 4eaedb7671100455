package metrics

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Parse parses one metric name: rankeval's and trec_eval's names in any
// case (output key Name = the input lower-cased and trimmed), and
// ir_measures' measures as its registry spells them, with their
// provider's conventions (irmeasures.go; Name = the input trimmed).
func Parse(name string) (Metric, error) {
	if m, ok, err := parseIR(strings.TrimSpace(name)); ok {
		return m, err
	}
	key := strings.ToLower(strings.TrimSpace(name))
	base, kstr, hasAt := strings.Cut(key, "@")
	m := Metric{Name: key}
	name, par, hasPar := strings.Cut(base, ":")
	kind, ok := kindOf(name)
	switch {
	case ok && families[kind].persist:
		p, good := parsePersistence(par)
		if !hasPar || !good {
			return Metric{}, fmt.Errorf("metric %q: %w (%s needs a persistence p from 0 to 1, both excluded, after a colon, as in %s:0.9)", key, ErrBadPersistence, name, name)
		}
		m.Kind, m.Beta = kind, p
		base = name
	case ok && !hasPar:
		m.Kind = kind
		if kind == KindSetF {
			m.Beta = 1 // trec_eval's default β
		}
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
		if near := closest(base, hasAt, kstr); near != "" {
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
	case hasAt && (cut == cutAtR || cut == cutNone):
		return Metric{}, fmt.Errorf("metric %q: %w (%s takes no cutoff)", key, ErrBadCutoff, base)
	case cut == cutLevel:
		lv, ok := parseLevel(kstr)
		if !hasAt || !ok {
			return Metric{}, fmt.Errorf("metric %q: %w (it needs a recall level from 0 to 1, as in %s@0.5)", key, ErrBadLevel, base)
		}
		m.Level = lv
	case hasAt:
		k, err := parseCutoff(kstr)
		if err != nil {
			return Metric{}, fmt.Errorf("metric %q: %w", key, ErrBadCutoff)
		}
		m.K = k
	}
	return m, nil
}

// parsePersistence reads a persistence: a decimal number strictly
// between 0 and 1 (rbo:0.9).
func parsePersistence(s string) (float64, bool) {
	v, ok := parseLevel(s)
	return v, ok && v > 0 && v < 1
}

// isFBeta reports whether base looks like "f<number>"; the number is
// validated by the caller so that "f0@10" gets a precise message.
func isFBeta(base string) bool {
	return len(base) > 1 && base[0] == 'f' && (base[1] == '.' || base[1] >= '0' && base[1] <= '9')
}

// MaxCutoff is the largest cutoff k a metric takes. It is far above any
// ranking's length (a k beyond n cuts nothing), and low enough that no
// arithmetic on k, k+1 or a sweep to k, can overflow an int, on 32-bit
// platforms too.
const MaxCutoff = 1_000_000_000

// parseCutoff accepts only plain decimal digits from 1 to MaxCutoff:
// strconv.Atoi alone would let "+5" through, and a cutoff is never written
// that way.
func parseCutoff(s string) (int, error) {
	if s == "" || len(s) > len(strconv.Itoa(MaxCutoff)) {
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
	if k < 1 || k > MaxCutoff {
		return 0, strconv.ErrRange
	}
	return k, nil
}

// parseLevel reads a recall level: a decimal number from 0 to 1.
func parseLevel(s string) (float64, bool) {
	if s == "" || strings.ContainsAny(s, "+-eEinIN_") { // no signs, exponents, inf, nan or digit separators
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil && v >= 0 && v <= 1
}

// ParseList parses a comma-separated list; rejects empty items and
// duplicates (same Name). An item that is only a cutoff (or a recall
// level) continues the item before it, as trec_eval's P.5,10 does: P.5,10
// is P.5 and P.10, and ndcg@5,10 is ndcg@5 and ndcg@10.
func ParseList(s string) ([]Metric, error) {
	items := SplitMetrics(s)
	ms := make([]Metric, 0, len(items))
	prefix := "" // the item before, up to its cutoff
	for _, it := range items {
		it = strings.TrimSpace(it)
		if it == "" {
			return nil, fmt.Errorf("metric list %q: empty item: %w", s, ErrUnknownMetric)
		}
		if _, isLevel := parseLevel(it); isLevel || isDigits(it) {
			if prefix == "" {
				return nil, fmt.Errorf("metric list %q: %q is a cutoff with no metric before it: %w", s, it, ErrUnknownMetric)
			}
			it = prefix + it
		} else {
			prefix = cutPrefix(it)
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

// isDigits reports whether s is a plain whole number.
func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// cutPrefix is item up to and including the separator of its cutoff ('@',
// or trec_eval's '.' or '_' before a number), or "" when it has none.
func cutPrefix(item string) string {
	if i := strings.LastIndexByte(item, '@'); i >= 0 {
		return item[:i+1]
	}
	for i := 0; i < len(item)-1; i++ {
		if (item[i] == '.' || item[i] == '_') && item[i+1] >= '0' && item[i+1] <= '9' {
			return item[:i+1]
		}
	}
	return ""
}

// Index is the index in ms of the metric name names: by its Name, as -m
// gave it (in any case, but for a name in ir_measures' spelling); else by
// what the name means (-m precision@10 and p@10, or P_10, or P@10 under
// the conventions ir_measures' P@10 has); -1 when none.
func Index(ms []Metric, name string) int {
	name = strings.TrimSpace(name)
	keys := []string{name}
	if irBase(name) == "" {
		// rankeval's and trec_eval's names are case-insensitive;
		// ir_measures' are not (NDCG@10 is never rankeval's ndcg@10)
		keys = append(keys, strings.ToLower(name))
	}
	for _, key := range keys {
		if i := slices.IndexFunc(ms, func(m Metric) bool { return m.Name == key }); i >= 0 {
			return i
		}
	}
	if g, err := Parse(name); err == nil {
		return slices.IndexFunc(ms, g.Same)
	}
	return -1
}

// NeedsMaxGrade reports whether any metric uses the maximum grade (err,
// nerr), so the caller validates labels <= MaxGrade.
func NeedsMaxGrade(ms []Metric) bool {
	_, ok := MaxGrade(ms, Options{})
	return ok
}

// MaxGrade is the least maximum grade G that a metric of ms uses (err,
// nerr; every gdeval measure named in ir_measures' syntax, as gdeval
// refuses a judgment above its 4) under run conventions o, and whether
// one does: a label above it is refused.
func MaxGrade(ms []Metric, o Options) (g float64, ok bool) {
	for _, m := range ms {
		if families[m.Kind].needs&needERR != 0 || m.Conv.Peer == PeerGdeval {
			mg := m.Options(o).MaxGrade
			if !ok || mg < g {
				g = mg
			}
			ok = true
		}
	}
	return g, ok
}

// NeedsDocs reports whether some metric of ms orders ties by doc id
// under run conventions o (--ties trec, or a measure named in
// ir_measures' syntax): the doc column is then required.
func NeedsDocs(ms []Metric, o Options) bool {
	if o.Ties.byDoc() {
		return true
	}
	return slices.ContainsFunc(ms, func(m Metric) bool { return m.Options(o).Ties.byDoc() })
}

// closest is the known base name nearest to base (two edits at most, and
// fewer than half its letters) that takes a cutoff if one was given (a
// recall level if at is one) and needs none if none was, or "".
func closest(base string, hasAt bool, at string) string {
	best, bestD := "", 3
	_, isLevel := parseLevel(at)
	for k := range families {
		if cut := families[k].cut; hasAt && (cut == cutAtR || cut == cutNone) || !hasAt && (cut == cutRequired || cut == cutLevel) ||
			cut == cutLevel && !isLevel {
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

// NeedsJudgments reports whether ms or o read which rows a qrels file
// judges (List.Status): bpref, judged@k, num_nonrel_judged_ret,
// Options.JudgedOnly, and a relevance threshold of 0 or below, which a
// row read as label 0 passes only when the qrels judge it.
func NeedsJudgments(ms []Metric, o Options) bool {
	if o.JudgedOnly {
		return true
	}
	for _, m := range ms {
		mo := m.Options(o)
		if mo.JudgedOnly {
			return true
		}
		if mo.HasThreshold && mo.RelThreshold <= 0 {
			// a label 0 passes: an unjudged row, read as 0, must be told
			// from a judged one (trec_eval's -l 0 counts only the latter)
			return true
		}
		switch m.Kind {
		case KindBpref, KindGMBpref, KindJudged, KindNumNonrelJudgedRet:
			return true
		}
		if families[m.Kind].needs&needRels != 0 {
			return true // trec_eval's codes for unjudged documents
		}
	}
	return false
}

// CheckOptions reports a metric that cannot be computed under o: under
// TiesAverage every metric is an exact expectation, which bpref,
// iprec, judged@k, rbp and rbp_resid do not have yet, and MaxRanked and JudgedOnly need a
// ranking, not a distribution of them.
func CheckOptions(ms []Metric, o Options) error {
	if o.Ties == TiesAverage && (o.MaxRanked > 0 || o.JudgedOnly) {
		return fmt.Errorf("--ties average cannot cut or filter the ranking (trec_eval's -M, -J): %w", ErrBadOption)
	}
	for _, m := range ms {
		if m.Options(o).Ties != TiesAverage {
			continue
		}
		switch {
		case m.Kind == KindBpref, m.Kind == KindGMBpref, m.Kind == KindIPrec, m.Kind == Kind11pt, m.Kind == KindJudged,
			m.Kind == KindRBP, m.Kind == KindRBPResid:
			return fmt.Errorf("metric %q has no exact expectation under --ties average yet; use another tie policy: %w", m.Name, ErrBadOption)
		case m.Pair():
			return fmt.Errorf("metric %q compares two rankings, and --ties average gives each a distribution of orders, not one: use another tie policy (input, trec, optimistic, pessimistic): %w", m.Name, ErrBadOption)
		}
	}
	return nil
}
