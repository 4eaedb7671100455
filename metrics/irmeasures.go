package metrics

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// ErrIRMeasure is wrapped by the errors of a measure named in ir_measures'
// syntax that rankeval does not compute, or with a parameter it cannot
// honour.
var ErrIRMeasure = errors.New("ir_measures measure not computed here")

// irMeasure is one of ir_measures' measures: the family it is, what its
// default provider's conventions are, the cutoff rule and the parameters
// it takes besides cutoff (rel, judged_only, p, beta, relative, dcg,
// gains, recall). A measure with no family is refused by name (why says
// why). docs/metrics.md §8 is this table.
type irMeasure struct {
	kind   Kind
	peer   Peer
	cut    cutoffRule
	params []string
	why    string // not computed: why, or what computes it
}

const (
	irNotComputed = "rankeval does not compute it"
	irDiversity   = "a diversity measure (ndeval's): rankeval does not compute it"
	irCWL         = "a C/W/L measure (cwl_eval's): rankeval does not compute it"
)

// irRel are the parameters of most of trec_eval's measures in ir_measures.
var irRel = []string{"rel", "judged_only"}

// irMeasures are ir_measures' measures by name, aliases included, as its
// registry spells them (the names are case-sensitive there and here).
var irMeasures = map[string]irMeasure{
	"P":         {kind: KindP, peer: PeerTrecEval, cut: cutRequired, params: irRel},
	"Precision": {kind: KindP, peer: PeerTrecEval, cut: cutRequired, params: irRel},
	"R":         {kind: KindR, peer: PeerTrecEval, cut: cutRequired, params: irRel},
	"Recall":    {kind: KindR, peer: PeerTrecEval, cut: cutRequired, params: irRel},
	"AP":        {kind: KindAP, peer: PeerTrecEval, cut: cutOptional, params: irRel},
	"MAP":       {kind: KindAP, peer: PeerTrecEval, cut: cutOptional, params: irRel},
	"RR":        {kind: KindRR, peer: PeerTrecEval, cut: cutOptional, params: irRel},
	"MRR":       {kind: KindRR, peer: PeerTrecEval, cut: cutOptional, params: irRel},
	"Rprec":     {kind: KindRPrec, peer: PeerTrecEval, cut: cutAtR, params: irRel},
	"RPrec":     {kind: KindRPrec, peer: PeerTrecEval, cut: cutAtR, params: irRel},
	"Success":   {kind: KindHit, peer: PeerTrecEval, cut: cutRequired, params: irRel},
	"nDCG":      {kind: KindNDCG, peer: PeerTrecEval, cut: cutOptional, params: []string{"dcg", "gains", "judged_only"}},
	"NDCG":      {kind: KindNDCG, peer: PeerTrecEval, cut: cutOptional, params: []string{"dcg", "gains", "judged_only"}},
	"ERR":       {kind: KindERR, peer: PeerGdeval, cut: cutRequired},
	"Judged":    {kind: KindJudged, peer: PeerPython, cut: cutOptional},
	"Bpref":     {kind: KindBpref, peer: PeerTrecEval, cut: cutNone, params: []string{"rel"}},
	"BPref":     {kind: KindBpref, peer: PeerTrecEval, cut: cutNone, params: []string{"rel"}},
	"NumQ":      {kind: KindNumQ, peer: PeerTrecEval, cut: cutNone},
	"NumRel":    {kind: KindNumRel, peer: PeerTrecEval, cut: cutNone, params: []string{"rel"}},
	"NumRet":    {kind: KindNumRet, peer: PeerTrecEval, cut: cutNone, params: []string{"rel"}},
	"NumRelRet": {kind: KindNumRelRet, peer: PeerTrecEval, cut: cutNone, params: []string{"rel"}},
	"IPrec":     {kind: KindIPrec, peer: PeerTrecEval, cut: cutLevel, params: []string{"recall", "rel", "judged_only"}},
	"SetP":      {kind: KindSetP, peer: PeerTrecEval, cut: cutNone, params: []string{"rel", "relative", "judged_only"}},
	"SetRelP":   {kind: KindSetRelP, peer: PeerTrecEval, cut: cutNone, params: irRel},
	"SetR":      {kind: KindSetRecall, peer: PeerTrecEval, cut: cutNone, params: []string{"rel"}},
	"SetF":      {kind: KindSetF, peer: PeerTrecEval, cut: cutNone, params: []string{"rel", "beta", "judged_only"}},
	"SetAP":     {kind: KindSetMAP, peer: PeerTrecEval, cut: cutNone, params: irRel},
	"RBP":       {kind: KindRBP, peer: PeerTrecEval, cut: cutNone, params: []string{"p"}},

	"infAP":      {why: "rankeval trec_eval -m infAP computes it; the ordinary command does not"},
	"Accuracy":   {why: irNotComputed},
	"Compat":     {why: irNotComputed},
	"SDCG":       {why: irCWL},
	"BPM":        {why: irCWL},
	"INST":       {why: irCWL},
	"INSQ":       {why: irCWL},
	"NERR8":      {why: irCWL},
	"NERR9":      {why: irCWL},
	"NERR10":     {why: irCWL},
	"NERR11":     {why: irCWL},
	"ERR_IA":     {why: irDiversity},
	"nERR_IA":    {why: irDiversity},
	"alpha_DCG":  {why: irDiversity},
	"α_DCG":      {why: irDiversity},
	"alpha_nDCG": {why: irDiversity},
	"α_nDCG":     {why: irDiversity},
	"NRBP":       {why: irDiversity},
	"nNRBP":      {why: irDiversity},
	"AP_IA":      {why: irDiversity},
	"MAP_IA":     {why: irDiversity},
	"P_IA":       {why: irDiversity},
	"StRecall":   {why: irDiversity},
}

// IRMeasureNames lists ir_measures' measure names, aliases included,
// sorted: the ones rankeval computes and the ones it refuses.
func IRMeasureNames() []string {
	names := make([]string, 0, len(irMeasures))
	for n := range irMeasures {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// irBase is the name of an ir_measures measure at the start of s (up to
// a parenthesis or '@'), or "".
func irBase(s string) string {
	end := strings.IndexAny(s, "(@")
	if end < 0 {
		end = len(s)
	}
	if _, ok := irMeasures[s[:end]]; ok {
		return s[:end]
	}
	return ""
}

// parseIR parses s, trimmed, as a measure in ir_measures' syntax
// (Name, Name@k, Name(param=value, ...), Name(...)@k); ok is false when
// s does not start with one of ir_measures' names (spelled as its
// registry spells them), which leaves it to rankeval's own names. The
// metric's Name is s as written.
func parseIR(s string) (m Metric, ok bool, err error) {
	base := irBase(s)
	if base == "" {
		return Metric{}, false, nil
	}
	im := irMeasures[base]
	rest := s[len(base):]
	fail := func(format string, a ...any) (Metric, bool, error) {
		return Metric{}, true, fmt.Errorf("metric %q: "+format, append([]any{s}, a...)...)
	}
	if im.why != "" {
		return fail("%w: ir_measures' %s is %s (docs/metrics.md lists ir_measures' measures)", ErrIRMeasure, base, im.why)
	}
	var params map[string]string
	if strings.HasPrefix(rest, "(") {
		end := strings.IndexByte(rest, ')')
		if end < 0 {
			return fail("%w: the parameters have no closing parenthesis", ErrUnknownMetric)
		}
		var perr error
		if params, perr = irParams(rest[1:end]); perr != nil {
			return fail("%w: %v", ErrUnknownMetric, perr)
		}
		rest = rest[end+1:]
	}
	var at string
	hasAt := false
	if strings.HasPrefix(rest, "@") && !strings.ContainsAny(rest, "()") {
		at, hasAt, rest = rest[1:], true, ""
	}
	if rest != "" {
		return fail("%w: ir_measures' syntax is Name, Name@k, Name(param=value, ...) or Name(...)@k", ErrUnknownMetric)
	}
	m = Metric{Name: s, Kind: im.kind, Conv: Conv{Peer: im.peer}}
	if m.Kind == KindSetF {
		m.Beta = 1
	}
	if m.Kind == KindRBP {
		m.Beta = 0.8 // ir_measures' default persistence
	}
	// the cutoff (or IPrec's recall level) may come as a parameter too
	atParam := "cutoff"
	if im.cut == cutLevel {
		atParam = "recall"
	}
	if v, ok := params[atParam]; ok {
		if hasAt {
			return fail("%w: the %s is given twice (@ and %s=)", ErrBadCutoff, atParam, atParam)
		}
		at, hasAt = v, true
		delete(params, atParam)
	}
	switch {
	case !hasAt && (im.cut == cutRequired || im.cut == cutLevel):
		what := "a cutoff, as " + base + "@10"
		if im.cut == cutLevel {
			what = "a recall level, as " + base + "@0.5"
		}
		return fail("%w: ir_measures' %s needs %s", ErrBadCutoff, base, what)
	case hasAt && (im.cut == cutNone || im.cut == cutAtR):
		return fail("%w: ir_measures' %s takes no cutoff here", ErrBadCutoff, base)
	case hasAt && im.cut == cutLevel:
		lv, ok := parseLevel(at)
		if !ok {
			return fail("%w: want a recall level from 0 to 1, as %s@0.5", ErrBadLevel, base)
		}
		m.Level = lv
	case hasAt:
		k, err := parseCutoff(at)
		if err != nil {
			return fail("%w", ErrBadCutoff)
		}
		m.K = k
	}
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if err := m.irParam(base, im, k, params[k]); err != nil {
			return fail("%w", err)
		}
	}
	if m.Kind == KindRR && m.K > 0 {
		// RR@k is msmarco's (pytrec_eval's recip_rank takes no cutoff),
		// which has no judged_only=True
		m.Conv.Peer = PeerPython
		if m.Conv.JudgedOnly {
			return fail("%w: ir_measures' RR@k is msmarco's, which takes no judged_only=True (pytrec_eval's RR, which does, takes no cutoff)", ErrIRMeasure)
		}
	}
	return m, true, nil
}

// irParams splits "rel=2, judged_only=True" into its parameters.
func irParams(s string) (map[string]string, error) {
	p := map[string]string{}
	if strings.TrimSpace(s) == "" {
		return p, nil
	}
	for _, kv := range splitOutside(s, "{[", "}]") {
		k, v, ok := strings.Cut(kv, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || v == "" {
			return nil, fmt.Errorf("parameter %q: want name=value", strings.TrimSpace(kv))
		}
		if _, dup := p[k]; dup {
			return nil, fmt.Errorf("parameter %s given twice", k)
		}
		p[k] = v
	}
	return p, nil
}

// irParam applies parameter k=v of measure base to m, or says why it
// cannot.
func (m *Metric) irParam(base string, im irMeasure, k, v string) error {
	if base == "RBP" && k == "rel" {
		return fmt.Errorf("%w: RBP(rel=...) is ir_measures' cwl_eval RBP, of binary gains (label >= rel) in the run's order; rankeval computes RBP and RBP(p=x) as trec_eval 10.0's graded rbp.p=x, and not that one", ErrIRMeasure)
	}
	if !slices.Contains(im.params, k) {
		takes := "no parameter but its cutoff"
		if len(im.params) > 0 {
			takes = "the parameters " + strings.Join(im.params, ", ")
		}
		return fmt.Errorf("%w: ir_measures' %s has no parameter %s here (it takes %s)", ErrIRMeasure, base, k, takes)
	}
	bad := func(want string) error {
		return fmt.Errorf("%w: %s=%s: want %s", ErrIRMeasure, k, v, want)
	}
	switch k {
	case "rel":
		r, err := strconv.Atoi(v)
		if err != nil {
			return bad("a whole number (the least relevant label, inclusive)")
		}
		if r < 0 {
			// as rankeval trec_eval's -l: below 0, trec_eval counts the
			// unjudged documents relevant in some measures, not in others
			return bad("a whole number from 0 up: below 0, trec_eval counts the unjudged documents as relevant in some measures and not in others")
		}
		m.Conv.Rel, m.Conv.HasRel = float64(r), true
		if m.Kind == KindNumRet {
			m.Kind = KindNumRelRet // NumRet(rel=r) counts the relevant rows retrieved
		}
	case "judged_only", "relative":
		var b bool
		switch v {
		case "True", "true", "1":
			b = true
		case "False", "false", "0":
		default:
			return bad("True or False")
		}
		if k == "relative" {
			if b {
				m.Kind = KindSetRelP
			}
			break
		}
		m.Conv.JudgedOnly = b
	case "p", "beta":
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return bad("a number")
		}
		if k == "p" && !(f > 0 && f < 1) {
			return bad("a persistence from 0 to 1, both excluded")
		}
		if k == "beta" && !(f > 0) {
			return bad("a number > 0")
		}
		m.Beta = f
	case "dcg":
		switch strings.Trim(v, `'"`) {
		case "log2":
		case "exp-log2":
			// ir_measures gives nDCG(dcg='exp-log2') to gdeval: gains 2^y − 1
			if m.K == 0 {
				return fmt.Errorf("%w: nDCG(dcg='exp-log2') is gdeval's, which needs a cutoff, as nDCG(dcg='exp-log2')@10", ErrBadCutoff)
			}
			m.Conv.Peer = PeerGdeval
		default:
			return bad("'log2' or 'exp-log2'")
		}
	case "gains":
		return fmt.Errorf("%w: nDCG(gains=...) maps labels to gains; rankeval's ordinary command takes no gain table: relabel the qrels, or use rankeval trec_eval -m ndcg.1=0,2=3 for trec_eval's own", ErrIRMeasure)
	}
	return nil
}

// SplitMetrics splits a comma-separated list of metrics, keeping the
// commas inside a measure's parentheses (SetF(rel=2,beta=0.5)) in it.
func SplitMetrics(s string) []string { return splitOutside(s, "(", ")") }

// splitOutside splits s at the commas outside the brackets that open and
// close name.
func splitOutside(s, open, close string) []string {
	var items []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch {
		case strings.IndexByte(open, s[i]) >= 0:
			depth++
		case strings.IndexByte(close, s[i]) >= 0:
			depth = max(depth-1, 0)
		case s[i] == ',' && depth == 0:
			items = append(items, s[start:i])
			start = i + 1
		}
	}
	return append(items, s[start:])
}

// CutValue cuts "metric=value" at the last '=' outside parentheses
// (P(rel=2)@5=0.3 is P(rel=2)@5 and 0.3).
func CutValue(s string) (metric, value string, ok bool) {
	depth := 0
	at := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth = max(depth-1, 0)
		case '=':
			if depth == 0 {
				at = i
			}
		}
	}
	if at < 0 {
		return s, "", false
	}
	return s[:at], s[at+1:], true
}
