package treceval

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/rankeval/rankeval/metrics"
)

// trecMeasure is one of trec_eval's measures that rankeval trec_eval
// computes, in trec_eval's table order (the order it prints them in): its
// rankeval metric name (with %d or %s for a cutoff or level), and its
// default cutoffs.
type trecMeasure struct {
	name     string
	metric   string // rankeval's name; "" for runid
	cutoffs  []string
	floatCut bool // the cutoffs are recall levels
}

var defaultCuts = []string{"5", "10", "15", "20", "30", "100", "200", "500", "1000"}

// trecEvalMeasures follows te_trec_measures[] of trec_eval 9.0.8's measures.c,
// keeping the measures rankeval computes.
var trecEvalMeasures = []trecMeasure{
	{name: "runid"},
	{name: "num_q", metric: "num_q"},
	{name: "num_ret", metric: "num_ret"},
	{name: "num_rel", metric: "num_rel"},
	{name: "num_rel_ret", metric: "num_rel_ret"},
	{name: "map", metric: "map"},
	{name: "gm_map", metric: "gm_map"},
	{name: "Rprec", metric: "rprec"},
	{name: "bpref", metric: "bpref"},
	{name: "recip_rank", metric: "mrr"},
	{name: "iprec_at_recall", metric: "iprec@%s", floatCut: true,
		cutoffs: []string{"0.0", "0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1.0"}},
	{name: "P", metric: "p@%s", cutoffs: defaultCuts},
	{name: "recall", metric: "r@%s", cutoffs: defaultCuts},
	{name: "gm_bpref", metric: "gm_bpref"},
	{name: "11pt_avg", metric: "11pt_avg"},
	{name: "ndcg", metric: "ndcg"},
	{name: "ndcg_cut", metric: "ndcg@%s", cutoffs: defaultCuts},
	{name: "map_cut", metric: "ap@%s", cutoffs: defaultCuts},
	{name: "relative_P", metric: "relative_p@%s", cutoffs: defaultCuts},
	{name: "success", metric: "success@%s", cutoffs: []string{"1", "5", "10"}},
	{name: "set_P", metric: "set_p"},
	{name: "set_relative_P", metric: "set_relative_p"},
	{name: "set_recall", metric: "set_recall"},
	{name: "set_map", metric: "set_map"},
	{name: "set_F", metric: "set_f"},
	{name: "num_nonrel_judged_ret", metric: "num_nonrel_judged_ret"},
}

// trecNicknames are trec_eval's measure sets; only official is all
// computed here.
var trecNicknames = map[string][]string{
	"official": {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"},
}

// trecOthers are trec_eval's measures and sets rankeval does not compute,
// refused with a message rather than called illegal.
var trecOthers = []string{"relstring", "infAP", "Rprec_mult", "utility", "binG", "G",
	"ndcg_rel", "Rndcg", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
	"prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
	"prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp",
	"map_avgjg", "P_avgjg", "Rprec_mult_avgjg", "yaap", "all_trec", "set", "all_prefs", "prefs", "qrels_jg"}

// trecSelection is what -m asked for: rankeval metric names in trec_eval's
// order, and whether runid leads the summary.
type trecSelection struct {
	names []string
	runid bool
}

// selectTrecMeasures resolves -m arguments as trec_eval's mark_measure and
// init functions do: each measure (or set) is marked; a measure's
// parameters come from the first -m that gives it some (later ones, and a
// bare -m of it, do not change them); cutoffs are sorted; the measures
// come out in trec_eval's table order, whatever the order of -m.
func selectTrecMeasures(args []string, stderr io.Writer) (trecSelection, error) {
	if len(args) == 0 {
		args = []string{"official"}
	}
	marked := map[string]bool{}
	params := map[string]string{}
	for _, arg := range args {
		name, param, hasParam := strings.Cut(arg, ".")
		if hasParam {
			if param == "" {
				return trecSelection{}, trecUsagef("trec_eval: improper measure in parameter '%s'", name)
			}
			if _, ok := params[name]; !ok {
				params[name] = param
			}
		}
		if set, ok := trecNicknames[name]; ok {
			for _, n := range set {
				marked[n] = true
			}
			continue
		}
		if !slices.ContainsFunc(trecEvalMeasures, func(m trecMeasure) bool { return m.name == name }) {
			if slices.Contains(trecOthers, name) {
				return trecSelection{}, trecUsagef("trec_eval: measure '%s' is not computed by rankeval trec_eval (rankeval trec_eval -h lists those that are)", name)
			}
			return trecSelection{}, trecUsagef("trec_eval: illegal measure '%s'", arg)
		}
		marked[name] = true
	}
	var sel trecSelection
	for _, m := range trecEvalMeasures {
		if !marked[m.name] {
			continue
		}
		param, hasParam := params[m.name]
		switch {
		case m.name == "runid":
			sel.runid = true
		case m.cutoffs == nil:
			if hasParam {
				switch m.name {
				case "ndcg":
					return trecSelection{}, trecUsagef("trec_eval: ndcg's gain parameters (ndcg.%s) are not supported; ndcg uses the judgments as gains", param)
				case "11pt_avg":
					return trecSelection{}, trecUsagef("trec_eval: 11pt_avg's recall levels (11pt_avg.%s) are not supported; 11pt_avg uses 0, 0.1, ..., 1", param)
				case "set_F":
					return trecSelection{}, trecUsagef("trec_eval: set_F's beta (set_F.%s) is not supported; set_F is computed with beta 1", param)
				}
				fmt.Fprintf(stderr, "rankeval trec_eval: %s takes no parameters: %q ignored, as trec_eval ignores it\n", m.name, param)
			}
			sel.names = append(sel.names, m.metric)
		default:
			cuts := m.cutoffs
			if hasParam {
				var err error
				if cuts, err = trecCutoffs(m, param); err != nil {
					return trecSelection{}, err
				}
			}
			for _, k := range cuts {
				sel.names = append(sel.names, fmt.Sprintf(m.metric, k))
			}
		}
	}
	return sel, nil
}

// trecCutoffs reads a measure's parameters as trec_eval's
// get_long_cutoffs and get_float_cutoffs do: comma-separated, sorted
// ascending, no duplicates, whole cutoffs above 0; but a value that is not
// a number is an error here (trec_eval's atol reads it as 0).
func trecCutoffs(m trecMeasure, param string) ([]string, error) {
	items := strings.Split(param, ",")
	vals := make([]float64, len(items))
	for i, it := range items {
		var err error
		if m.floatCut {
			vals[i], err = strconv.ParseFloat(it, 64)
			if err == nil && !(vals[i] >= 0 && vals[i] <= 1) {
				err = strconv.ErrRange
			}
		} else {
			var n int64
			n, err = strconv.ParseInt(it, 10, 64)
			vals[i] = float64(n)
			if err == nil && n <= 0 {
				return nil, trecUsagef("trec_eval: Negative cutoff detected (%s.%s)", m.name, param)
			}
			if err == nil && n > metrics.MaxCutoff {
				return nil, trecUsagef("trec_eval: %s.%s: cutoff %d is above %d, the largest rankeval takes", m.name, param, n, metrics.MaxCutoff)
			}
		}
		if err != nil {
			return nil, trecUsagef("trec_eval: %s.%s: %q is not a cutoff", m.name, param, it)
		}
	}
	slices.Sort(vals)
	if len(slices.Compact(slices.Clone(vals))) != len(vals) {
		return nil, trecUsagef("trec_eval: duplicate cutoffs detected (%s.%s)", m.name, param)
	}
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = strconv.FormatFloat(v, 'f', -1, 64)
	}
	return out, nil
}
