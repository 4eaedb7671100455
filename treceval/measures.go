package treceval

import (
	"slices"
	"strings"

	"github.com/rankeval/rankeval/metrics"
)

// measure is one measure of trec_eval's table (te_trec_measures[] in its
// measures.c), the order in which trec_eval computes and prints them. Its
// definition is in the file of its family (counts.go, prec.go, ap.go,
// gain.go, judged.go).
type measure struct {
	name string
	// since is the first release that has it; "" for both
	since string
	// rel is the -R format whose judgments it reads: "" qrels, "prefs"
	// (prefs or qrels_prefs), "qrels_jg" (runid and num_q: any)
	rel string
	// init reads the parameters of the first "-m name.PARAM" that gave
	// some (param is "" when none did) as trec_eval's init_meas does, and
	// returns the measure's values.
	init func(c *initContext, param string) ([]value, error)
	doc  string // what -h -m name prints about it
}

// initContext is what a measure's init reads besides its parameters.
type initContext struct {
	release string
}

// value is one value a measure prints (one TREC_EVAL_VALUE of trec_eval):
// its name and how it is computed, printed and summarized.
type value struct {
	name string
	rule rule
	// metrics compute it for a query: one metric, or one per character of
	// relstring; none for runid and num_q
	metrics []metrics.Metric
	// own: its family computes it from judgments of another -R format
	// than qrels, without a metric (the prefs measures)
	own bool
}

// width is how many of a query's values v takes: one per metric, one when
// its family computes it (own).
func (v value) width() int {
	if v.own {
		return 1
	}
	return len(v.metrics)
}

// rule is how a value prints per query and sums up in the summary.
type rule uint8

const (
	ruleMean   rule = iota // "%6.4f"; the summary is the mean
	ruleCount              // "%ld"; the summary is the sum
	ruleNumRel             // a count; under -c the summary counts every judgment above 0
	ruleNumQ               // the summary only: the number of queries
	ruleGeo                // the summary only: exp of the mean of logarithms
	ruleString             // per query only: relstring's characters
	ruleRunID              // the summary only: the run's tag
)

// table is te_trec_measures[] of trec_eval 10.0 (9.0.8's is the same less
// the measures whose since is 10.0).
var table = []*measure{
	runidMeasure, numQ, numRet, numRel, numRelRet, mapMeasure, gmMap, rprec, bpref, recipRank,
	iprecAtRecall, precision, relstring, recall, infAP, gmBpref, rprecMult, utility, elevenPoint,
	binG, gMeasure, dcg, idealDCG, ndcg, ndcgRel, rndcg, ndcgCut, mapCut, relativeP, success,
	setP, setRelativeP, setRecall, setMAP, setF, numNonrelJudgedRet,
	prefsNumPrefsPoss, prefsNumPrefsFul, prefsNumPrefsFulRet, prefsSimp, prefsPair, prefsAvgJG,
	prefsAvgJGRnonrel, prefsSimpRet, prefsPairRet, prefsAvgJGRet, prefsAvgJGRnonrelRet, prefsSimpImp,
	prefsPairImp, prefsAvgJGImp, mapAvgJG, pAvgJG, rprecMultAvgJG,
	yaap, rbp, rbpResid, unj,
}

// nicknames are te_trec_measure_nicknames[]: sets of measures -m names
// at once, by release where they differ.
var nicknames = map[string]map[string][]string{
	"official": {"": {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
		"Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"}},
	"set": {"": {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
		"set_recall", "set_relative_P", "set_map", "set_F"}},
	"all_trec": {
		"9.0.8": {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
			"Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "relstring",
			"recall", "infAP", "gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P",
			"Rprec_mult", "success", "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G",
			"set_P", "set_recall", "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret"},
		"10.0": {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
			"Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "relstring",
			"recall", "unj", "rbp", "rbp_resid", "infAP", "gm_bpref", "utility", "11pt_avg",
			"ndcg", "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut", "ndcg_rel",
			"Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map", "set_F",
			"num_nonrel_judged_ret"},
	},
	"all_prefs": {"": {"runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
		"prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
		"prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp"}},
	"prefs": {"": {"runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
		"prefs_simp", "prefs_pair", "prefs_avgjg"}},
	"qrels_jg": {"": {"runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"}},
}

// nickname is the set name names under release, or nil.
func nickname(name, release string) []string {
	sets, ok := nicknames[name]
	if !ok {
		return nil
	}
	if s, ok := sets[release]; ok {
		return s
	}
	return sets[""]
}

// lookup is the measure of the table named name under release, or nil.
func lookup(name, release string) *measure {
	for _, m := range table {
		if m.name == name && (m.since == "" || release != "9.0.8") {
			return m
		}
	}
	return nil
}

// selection is what -m asked for: the values in trec_eval's order.
type selection struct {
	values []value
	// metrics are the values' metrics in order: a query's record holds
	// one value per metric (slots)
	metrics []metrics.Metric
	marked  []*measure // the measures, for -h
}

// measureArg is one -m's parameters, kept under the name before its '.'.
type measureArg struct{ name, param string }

// selectMeasures resolves -m arguments as trec_eval's mark_measure and
// init functions do: each measure (or set) is marked; a measure's
// parameters come from the first -m that names it with some (later ones,
// and a bare -m of it, do not change them; parameters of a set are
// ignored); the measures come out in the table's order, whatever the
// order of -m. With no -m, official.
func selectMeasures(args []string, release string) (*selection, error) {
	if len(args) == 0 {
		args = []string{"official"}
	}
	marked := map[*measure]bool{}
	var params []measureArg
	for _, arg := range args {
		name, param, hasParam := strings.Cut(arg, ".")
		if hasParam {
			if param == "" {
				return nil, trecUsagef("trec_eval: improper measure in parameter '%s'", name)
			}
			params = append(params, measureArg{name, param})
		}
		if set := nickname(name, release); set != nil {
			for _, n := range set {
				marked[lookup(n, release)] = true
			}
			continue
		}
		m := lookup(name, release)
		if m == nil {
			if lookup(name, "10.0") != nil {
				return nil, trecUsagef("trec_eval: illegal measure '%s' (trec_eval %s has no %s; --release 10.0 has)", name, release, name)
			}
			return nil, trecUsagef("trec_eval: illegal measure '%s'", name)
		}
		marked[m] = true
	}
	if err := checkSharedGains(marked, params, release); err != nil {
		return nil, err
	}
	sel := &selection{}
	c := &initContext{release: release}
	for _, m := range table {
		if !marked[m] {
			continue
		}
		param := ""
		if i := slices.IndexFunc(params, func(a measureArg) bool { return a.name == m.name }); i >= 0 {
			param = params[i].param
		}
		vals, err := m.init(c, param)
		if err != nil {
			return nil, UsageError{Err: err}
		}
		for _, v := range vals {
			for _, mt := range v.metrics {
				if err := metrics.CheckParam(mt); err != nil {
					return nil, UsageError{Err: err}
				}
			}
			sel.metrics = append(sel.metrics, v.metrics...)
		}
		sel.values = append(sel.values, vals...)
		sel.marked = append(sel.marked, m)
	}
	return sel, nil
}
