package metrics

import "strings"

// This file is trec_eval's measures in one table: each measure's name as
// trec_eval spells it, the release that has it, the judgments it reads,
// the shape of its parameters and their defaults, the family that
// computes its values, whether it is the trec_eval spelling of one of
// rankeval's own families, and what -h -m says of it; then the sets of
// measures -m names at once (TrecNickname). Package treceval builds its
// measures from the table, Parse and TrecName read rankeval's families'
// trec_eval names from it (trecSpelling), and Help lists them; none of
// them spells a measure of its own.

// TrecShape is how trec_eval reads a measure's parameters (-m
// name.PARAMS) and names its values, by the init_meas function of
// meas_init.c, or a measure of its own kind.
type TrecShape uint8

const (
	// TrecSingle is one value, named Name, and no parameters
	// (te_init_meas_s_double, te_init_meas_s_long).
	TrecSingle TrecShape = iota
	// TrecCutoffs is a value per whole cutoff k, named Name_k
	// (te_init_meas_a_double_cut_long): Cutoffs by default.
	TrecCutoffs
	// TrecLevels is a value per real cutoff x, named Name_x with x as
	// "%3.2f" (te_init_meas_a_double_cut_double): Reals by default.
	TrecLevels
	// TrecReals is one value under a list of reals
	// (te_init_meas_s_double_p_double): Reals by default.
	TrecReals
	// TrecGains is one value under name=real pairs, a gain table
	// (te_init_meas_s_double_p_pair); Plain is its family without
	// parameters.
	TrecGains
	// TrecRelstring is relstring: one value spelling the judgments of the
	// first n documents, n Cutoffs[0] by default.
	TrecRelstring
	// TrecRunID is runid: the run's tag, in the summary only.
	TrecRunID
	// TrecNumQ is num_q: the number of queries, in the summary only.
	TrecNumQ
	// TrecPrefs is one value that package treceval computes from
	// preferences, without a metric.
	TrecPrefs
)

// NoKind is TrecMeasure.Plain of a TrecGains measure that needs its
// parameters' gain table, whatever they are.
const NoKind Kind = -1

// TrecMeasure is one measure of trec_eval's table (te_trec_measures[] in
// its measures.c).
type TrecMeasure struct {
	Name string
	// Since is the first release that has it: "" for both, "10.0".
	Since string
	// Rel is the -R format whose judgments it reads: "" qrels, "prefs"
	// (prefs or qrels_prefs), "qrels_jg".
	Rel   string
	Shape TrecShape
	// Kind is the family that computes its values.
	Kind Kind
	// Plain is, for TrecGains, the family that computes it when -m gives
	// no parameters, or NoKind.
	Plain Kind
	// Cutoffs are the default cutoffs of TrecCutoffs, and relstring's n.
	Cutoffs []int64
	// Reals are the default levels of TrecLevels and the default
	// parameters of TrecReals (none: the family's own).
	Reals []float64
	// Count: a TrecPrefs value prints as a whole number, its summary the
	// total.
	Count bool
	// Family: the measure is rankeval's family Kind (Plain for
	// TrecGains) spelled trec_eval's way, the whole list's name for the
	// single shapes, the cut's prefix for the cutoff shapes: Parse reads
	// the spelling and TrecName writes it.
	Family bool
	// Doc is what -h -m prints about it.
	Doc string
}

// trecDefaultCutoffs are the cutoffs of P, recall, map_cut, ndcg_cut and
// their kin when -m gives none.
var trecDefaultCutoffs = []int64{5, 10, 15, 20, 30, 100, 200, 500, 1000}

// trecMultiples are Rprec_mult's default multiples x of R.
var trecMultiples = []float64{0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0}

const (
	trecCutoffsDoc = "\n(parameters: the cutoffs k, default 5,10,15,20,30,100,200,500,1000)"
	trecGainDoc    = "\n(parameters: a gain table level=gain,..., each level without one gaining\n" +
		"its own number)"
	trecPrefsDoc = "\n(-R prefs or qrels_prefs)"
)

// TrecMeasures is te_trec_measures[] of trec_eval 10.0 (9.0.8's is the
// same less the measures whose Since is 10.0), in its order: the order in
// which trec_eval computes and prints them.
var TrecMeasures = []TrecMeasure{
	// The counts: each prints as a whole number; its summary is the
	// total, the number of queries for num_q.
	{Name: "runid", Shape: TrecRunID,
		Doc: "the run's tag: the last field of the run's last line (the summary only)"},
	{Name: "num_q", Shape: TrecNumQ, Kind: KindNumQ, Family: true,
		Doc: "the queries evaluated (the summary only); with -c, every query of the qrels"},
	{Name: "num_ret", Kind: KindNumRet, Family: true,
		Doc: "documents retrieved (after -M and -J); the summary is the total"},
	{Name: "num_rel", Kind: KindNumRel, Family: true,
		Doc: "relevant documents (judged at -l or above); the summary is the total,\n" +
			"with -c every judgment above 0 of the qrels whatever -l is"},
	{Name: "num_rel_ret", Kind: KindNumRelRet, Family: true,
		Doc: "relevant documents retrieved; the summary is the total"},
	{Name: "map", Kind: KindAP, Family: true,
		Doc: "average precision: over the relevant documents, the precision at each\n" +
			"one retrieved (0 for those not retrieved)"},
	{Name: "gm_map", Kind: KindGMAP, Family: true,
		Doc: "geometric mean of average precision, each at least 0.00001 (the summary only)"},
	{Name: "Rprec", Kind: KindRPrec, Family: true,
		Doc: "precision at R, the number of relevant documents"},
	{Name: "bpref", Kind: KindBpref, Family: true,
		Doc: "binary preference: over the relevant documents, 1 less the share of the\n" +
			"judged non-relevant ones (at most R) ranked above each"},
	{Name: "recip_rank", Kind: KindRR, Family: true,
		Doc: "1 over the rank of the first relevant document, 0 without one"},
	{Name: "iprec_at_recall", Shape: TrecLevels, Kind: KindIPrec, Reals: elevenPointLevels, Family: true,
		Doc: "interpolated precision at recall x: the best precision at x·R relevant\n" +
			"documents retrieved or more (9.0.8: x·R + 0.9 truncated; 10.0: x·R rounded)\n" +
			"(parameters: the levels x, default 0,.1,...,1)"},
	{Name: "P", Shape: TrecCutoffs, Kind: KindP, Cutoffs: trecDefaultCutoffs, Family: true,
		Doc: "precision of the first k documents: relevant ones over k" + trecCutoffsDoc},
	{Name: "relstring", Shape: TrecRelstring, Kind: KindRelAt, Cutoffs: []int64{10},
		Doc: "the judgments of the first n documents, a character each: the level\n" +
			"from 0 to 9, > above 9, - outside the qrels, . a negative judgment (per\n" +
			"query only) (parameter: n, default 10)"},
	{Name: "recall", Shape: TrecCutoffs, Kind: KindR, Cutoffs: trecDefaultCutoffs, Family: true,
		Doc: "recall of the first k documents: relevant ones over R" + trecCutoffsDoc},
	{Name: "infAP", Kind: KindInfAP,
		Doc: "inferred average precision (Yilmaz and Aslam), for a sampled pool: a\n" +
			"qrels judgment of -1 marks a pooled document not judged"},
	{Name: "gm_bpref", Kind: KindGMBpref, Family: true,
		Doc: "geometric mean of bpref, each at least 0.00001 (the summary only)"},
	{Name: "Rprec_mult", Shape: TrecLevels, Kind: KindRprecMult, Reals: trecMultiples,
		Doc: "precision at x·R documents (x·R + 0.9 truncated, in both releases)\n" +
			"(parameters: the multiples x, default .2,.4,...,2)"},
	{Name: "utility", Shape: TrecReals, Kind: KindUtility, Reals: utilityCoefficients,
		Doc: "p1·a + p2·b + p3·c + p4·d of the retrieved relevant (a), retrieved\n" +
			"non-relevant (b), relevant not retrieved (c) and other documents of the\n" +
			"collection (d, from -N) (parameters: p1,p2,p3,p4, default 1,-1,0,0)"},
	{Name: "11pt_avg", Shape: TrecReals, Kind: Kind11pt, Family: true,
		Doc: "mean of iprec_at_recall at the levels 0,.1,...,1 (parameters: other levels)"},
	{Name: "binG", Kind: KindBinG,
		Doc: "G with gain 1 for each relevant document"},
	{Name: "G", Shape: TrecGains, Kind: KindG, Plain: NoKind,
		Doc: "G: gains discounted by the log of the cost so far less the gain so far,\n" +
			"over the ideal gains" + trecGainDoc},
	{Name: "dcg", Since: "10.0", Shape: TrecGains, Kind: KindGainDCG, Plain: KindDCG,
		Doc: "discounted cumulative gain, ndcg's numerator" + trecGainDoc},
	{Name: "ideal_dcg", Since: "10.0", Shape: TrecGains, Kind: KindGainIDCG, Plain: KindIDCG,
		Doc: "discounted cumulative gain of the ideal ranking, ndcg's denominator" + trecGainDoc},
	{Name: "ndcg", Shape: TrecGains, Kind: KindGainNDCG, Plain: KindNDCG, Family: true,
		Doc: "normalized discounted cumulative gain: the sum over ranks i of gain/log2(i+1),\n" +
			"over that of the ideal ranking of the judged documents" + trecGainDoc},
	{Name: "ndcg_rel", Shape: TrecGains, Kind: KindNDCGRel, Plain: NoKind,
		Doc: "ndcg averaged over the relevant documents: at each one retrieved, and at\n" +
			"the ranking's end for the others" + trecGainDoc},
	{Name: "Rndcg", Shape: TrecGains, Kind: KindRNDCG, Plain: NoKind,
		Doc: "ndcg averaged over the ranks where the ideal gain changes, and the\n" +
			"ranking's end" + trecGainDoc},
	{Name: "ndcg_cut", Shape: TrecCutoffs, Kind: KindNDCG, Cutoffs: trecDefaultCutoffs, Family: true,
		Doc: "ndcg of the first k documents (gains the judgments)" + trecCutoffsDoc},
	{Name: "map_cut", Shape: TrecCutoffs, Kind: KindAP, Cutoffs: trecDefaultCutoffs, Family: true,
		Doc: "average precision of the first k documents, over all relevant ones" + trecCutoffsDoc},
	{Name: "relative_P", Shape: TrecCutoffs, Kind: KindRelP, Cutoffs: trecDefaultCutoffs, Family: true,
		Doc: "relevant documents among the first k over min(k, R)" + trecCutoffsDoc},
	{Name: "success", Shape: TrecCutoffs, Kind: KindHit, Cutoffs: []int64{1, 5, 10}, Family: true,
		Doc: "1 when a relevant document is among the first k, else 0\n" +
			"(parameters: the cutoffs k, default 1,5,10)"},
	{Name: "set_P", Kind: KindSetP, Family: true,
		Doc: "relevant documents retrieved over documents retrieved"},
	{Name: "set_relative_P", Kind: KindSetRelP, Family: true,
		Doc: "relevant documents retrieved over min(retrieved, R)"},
	{Name: "set_recall", Kind: KindSetRecall, Family: true,
		Doc: "relevant documents retrieved over R"},
	{Name: "set_map", Kind: KindSetMAP, Family: true,
		Doc: "set_P times set_recall"},
	{Name: "set_F", Shape: TrecReals, Kind: KindSetF, Reals: []float64{1}, Family: true,
		Doc: "F of set_P and set_recall: (β+1)·P·R/(β·P + R) (parameter: β, default 1)"},
	{Name: "num_nonrel_judged_ret", Kind: KindNumNonrelJudgedRet, Family: true,
		Doc: "documents retrieved judged below -l (not a negative judgment); the summary is the total"},
	// The all_prefs measures (m_prefs_*.c), from a query's preferences.
	{Name: "prefs_num_prefs_poss", Rel: "prefs", Shape: TrecPrefs, Count: true,
		Doc: "preferences possible, whether their documents are retrieved or not; the summary is the total" + trecPrefsDoc},
	{Name: "prefs_num_prefs_ful", Rel: "prefs", Shape: TrecPrefs, Count: true,
		Doc: "preferences fulfilled, those implied (the preferred document alone retrieved)\n" +
			"too; the summary is the total" + trecPrefsDoc},
	{Name: "prefs_num_prefs_ful_ret", Rel: "prefs", Shape: TrecPrefs, Count: true,
		Doc: "preferences fulfilled between retrieved documents; the summary is the total" + trecPrefsDoc},
	{Name: "prefs_simp", Rel: "prefs", Shape: TrecPrefs,
		Doc: "preferences fulfilled over preferences possible (one neither of whose\n" +
			"documents is retrieved fails)" + trecPrefsDoc},
	{Name: "prefs_pair", Rel: "prefs", Shape: TrecPrefs,
		Doc: "over the pairs of documents some judgment group orders, the share of the\n" +
			"groups the pair's order fulfils, averaged" + trecPrefsDoc},
	{Name: "prefs_avgjg", Rel: "prefs", Shape: TrecPrefs,
		Doc: "prefs_simp within each judgment group (user), averaged over the groups" + trecPrefsDoc},
	{Name: "prefs_avgjg_Rnonrel", Rel: "prefs", Shape: TrecPrefs,
		Doc: "prefs_avgjg with each group's non-relevant documents (rel_level 0), N, made\n" +
			"as many as its relevant ones, R: when fewer, R-N more fulfilled preferences\n" +
			"for each relevant retrieved; when more, only the first R count" + trecPrefsDoc},
	{Name: "prefs_simp_ret", Rel: "prefs", Shape: TrecPrefs,
		Doc: "prefs_simp over the preferences whose documents are both retrieved" + trecPrefsDoc},
	{Name: "prefs_pair_ret", Rel: "prefs", Shape: TrecPrefs,
		Doc: "prefs_pair over the pairs of retrieved documents" + trecPrefsDoc},
	{Name: "prefs_avgjg_ret", Rel: "prefs", Shape: TrecPrefs,
		Doc: "prefs_avgjg over the preferences whose documents are both retrieved" + trecPrefsDoc},
	{Name: "prefs_avgjg_Rnonrel_ret", Rel: "prefs", Shape: TrecPrefs,
		Doc: "prefs_avgjg_Rnonrel over the retrieved documents" + trecPrefsDoc},
	{Name: "prefs_simp_imp", Rel: "prefs", Shape: TrecPrefs,
		Doc: "prefs_simp without the preferences neither of whose documents is retrieved" + trecPrefsDoc},
	{Name: "prefs_pair_imp", Rel: "prefs", Shape: TrecPrefs,
		Doc: "prefs_pair without the pairs of documents neither retrieved" + trecPrefsDoc},
	{Name: "prefs_avgjg_imp", Rel: "prefs", Shape: TrecPrefs,
		Doc: "prefs_avgjg without the preferences neither of whose documents is retrieved" + trecPrefsDoc},
	// -R qrels_jg: map, P and Rprec_mult against each judgment group's
	// judgments, averaged over the groups.
	{Name: "map_avgjg", Rel: "qrels_jg", Kind: KindAP,
		Doc: "map against each judgment group's judgments, averaged over the groups\n(-R qrels_jg)"},
	{Name: "P_avgjg", Rel: "qrels_jg", Shape: TrecCutoffs, Kind: KindP, Cutoffs: trecDefaultCutoffs,
		Doc: "P at each cutoff against each judgment group's judgments, averaged over the\n" +
			"groups (-R qrels_jg; parameters: the cutoffs k, default 5,10,15,20,30,100,200,500,1000)"},
	{Name: "Rprec_mult_avgjg", Rel: "qrels_jg", Shape: TrecLevels, Kind: KindRprecMult, Reals: trecMultiples,
		Doc: "Rprec_mult against each judgment group's judgments, averaged over the\n" +
			"groups (-R qrels_jg; parameters: the multiples x, default .2,.4,...,2)"},
	{Name: "yaap", Kind: KindYaap,
		Doc: "yet another average precision (Robertson): ln((1 + S)/(1 + R - S)), S the\n" +
			"sum of the precisions at the relevant documents retrieved"},
	{Name: "rbp", Since: "10.0", Shape: TrecGains, Kind: KindRBP, Plain: NoKind,
		Doc: "rank-biased precision (Moffat and Zobel): (1-p) times the sum over ranks\n" +
			"i of gain·p^(i-1), gains scaled into [0,1] (parameters: p=persistence,\n" +
			"default 0.9, and a gain table level=gain,...)"},
	{Name: "rbp_resid", Since: "10.0", Shape: TrecGains, Kind: KindRBPResid, Plain: NoKind,
		Doc: "what rbp could gain from the unjudged documents retrieved, were each\n" +
			"of gain 1; 0 without one (parameter: p=persistence, default 0.9)"},
	{Name: "unj", Since: "10.0", Shape: TrecCutoffs, Kind: KindUnj, Cutoffs: []int64{5, 10, 20},
		Doc: "documents among the first k without a judgment (outside the qrels, or\n" +
			"judged negative), over k (parameters: the cutoffs k, default 5,10,20)"},
}

// utilityCoefficients are utility's default p1,p2,p3,p4.
var utilityCoefficients = []float64{1, -1, 0, 0}

// trecNicknames are te_trec_measure_nicknames[]: sets of measures -m
// names at once, by release where they differ ("" for both).
var trecNicknames = map[string]map[string][]string{
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

// TrecNickname is the names of the measures the set name stands for under
// release (trec_eval's order of the set, which -m does not keep), or nil
// when name is no set.
func TrecNickname(name, release string) []string {
	sets, ok := trecNicknames[name]
	if !ok {
		return nil
	}
	if s, ok := sets[release]; ok {
		return s
	}
	return sets[""]
}

// trecSpelling is, by family, trec_eval's name for the whole list (trec)
// and its prefix for a cut (trecCut), from the measures of TrecMeasures
// that are a family; "" where trec_eval has none.
var trecSpelling = func() (s [lastKind + 1]struct{ trec, trecCut string }) {
	for i := range TrecMeasures {
		t := &TrecMeasures[i]
		if !t.Family {
			continue
		}
		switch t.Shape {
		case TrecCutoffs, TrecLevels:
			s[t.Kind].trecCut = t.Name
		case TrecGains:
			s[t.Plain].trec = t.Name
		default:
			s[t.Kind].trec = t.Name
		}
	}
	return s
}()

// TrecCase returns name, a metric name lower-cased, with the case of the
// trec_eval measure it starts with (p_10 is P_10, rprec is Rprec); other
// names unchanged.
func TrecCase(name string) string {
	best := ""
	for _, m := range TrecMeasures {
		l := strings.ToLower(m.Name)
		if l == m.Name || len(m.Name) <= len(best) {
			continue
		}
		if name == l || strings.HasPrefix(name, l+"_") || strings.HasPrefix(name, l+".") {
			best = m.Name
		}
	}
	if best == "" {
		return name
	}
	return best + name[len(best):]
}
