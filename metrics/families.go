package metrics

import (
	"math"
)

// This file is every metric family of docs/metrics.md §4 in one place.
// Each entry of families gives the family's formula (in the words of that
// section, or of §7 for trec_eval's measures), the names Parse accepts,
// its cutoff rule, where its values lie and which of the sweep's sums it
// reads (its trec_eval names are in TrecMeasures); value, below the
// table, computes it from those sums, case by case in the same order.
// Parse, TrecName, Help, Range and Evaluator.Eval read the table; none
// lists families of its own.
//
// Notation (docs/metrics.md §3–4): one query has ranked labels
// y_1..y_n; b_i = 1 when the row at rank i is relevant; R = number of
// relevant rows (with qrels, relevant judged documents); k = cutoff, the
// whole list without @k.

// Kind is a metric family (docs/metrics.md §4): an index into families.
type Kind int

const (
	KindP Kind = iota
	KindR
	KindF // F-beta; Beta 1 is f1
	KindHit
	KindAP
	KindRR
	KindRPrec
	KindCG
	KindDCG
	KindNDCG
	KindERR
	KindNERR
	KindKendall
	KindSpearman
	// trec_eval's own measures (docs/metrics.md §7)
	KindBpref
	KindGMAP
	KindNumQ
	KindNumRet
	KindNumRel
	KindNumRelRet
	KindIPrec // interpolated precision at a recall level (iprec_at_recall)
	KindJudged
	// trec_eval's set measures: of the whole ranking as a set
	KindSetP
	KindSetRelP
	KindSetRecall
	KindSetMAP
	KindSetF
	KindNumNonrelJudgedRet
	Kind11pt
	KindRelP    // relative precision at k (relative_P)
	KindGMBpref // geometric mean of bpref (gm_bpref)
	// trec_eval's measures that rankeval trec_eval computes and the
	// ordinary command does not name (families' dropIn): package treceval
	// builds their Metric, with trec_eval's parameters in Param
	KindIDCG      // dcg of the ideal ranking (ideal_dcg)
	KindInfAP     // inferred AP (infAP)
	KindRprecMult // precision at Level·R rows (Rprec_mult)
	KindUtility   // set utility (utility)
	KindBinG      // binG
	KindG         // G
	KindGainNDCG  // ndcg under a gain table (ndcg.1=3,2=9)
	KindGainDCG   // dcg under a gain table
	KindGainIDCG  // ideal dcg under a gain table
	KindNDCGRel   // ndcg averaged at the relevant rows (ndcg_rel)
	KindRNDCG     // ndcg averaged where the ideal gain changes (Rndcg)
	KindRBP       // rank-biased precision (rbp)
	KindRBPResid  // rbp's residual (rbp_resid)
	KindUnj       // unjudged share of the first k rows (unj)
	KindYaap      // yet another AP (yaap)
	KindRelAt     // the judgment at rank k (relstring's characters)
	// click metrics (clicks.go): of a click log's impressions, defined
	// whatever the empty-query policy says
	KindClicks
	KindCTR
	KindAbandon
	KindFirstClick
	KindLastClick
	// IPS estimates of a ranking that did not produce the clicks (clicks.go)
	KindIPSClicks
	KindIPSP
	KindIPSDCG
	KindSNIPSClicks
	KindSNIPSP
	KindSNIPSDCG
	// the outcome of an interleaved list (interleave.go)
	KindInterleave
	// rank similarity between a candidate's ranking and the baseline's
	// (similarity.go)
	KindOverlap
	KindJaccard
	KindChurn
	KindRBO    // rbo:p, the lower bound RBO_min; Beta is p
	KindRBORes // rbo_res:p, RBO_max − RBO_min
	KindRBOExt // rbo_ext:p, RBO_ext
	KindTau    // Kendall's tau-b between the two rankings' top k
)

// lastKind is the last Kind: families has one entry for each up to it.
const lastKind = KindTau

// cutoffRule says whether a family takes "@k".
type cutoffRule int

const (
	cutRequired cutoffRule = iota // name@k only
	cutOptional                   // name@k, or name for the whole list
	cutAtR                        // no @k: the cut is at R (or n if shorter)
	cutNone                       // no @k: the whole list
	cutLevel                      // @x, a recall level in [0, 1], required (iprec)
)

// needs says what a family's value reads beyond the sums every sweep keeps
// (rel, cg, ap, rr, hit).
type needs uint16

const (
	needDCG    needs = 1 << iota // the DCG sums, down to the family's cut
	needERR                      // the ERR sums, and so the maximum grade G
	needIdeal                    // the same sums over the ideal ranking
	needScores                   // no sweep: a correlation of scores and labels (corr.go)
	needOwn                      // no sweep: trec_eval's measures computed apart (trecm.go)
	needRels                     // trec_eval's ranked judgments, levels and gains (trecrels.go)
	needClicks                   // no sweep: the click metrics, computed apart for every impression (clicks.go)
	needProp                     // the rows' propensities (List.Prop): the IPS estimates
	needTeam                     // the rows' teams (List.Team): the interleaving outcome
	needPair                     // no sweep: two systems' rankings compared (similarity.go)
)

// family is one metric family; families holds them by Kind.
type family struct {
	// names are the base names Parse accepts, lower case; ir_measures'
	// spellings (nDCG, P, R, AP, RR, ERR, Success, Rprec) are these
	// lower-cased. KindF has none: its names carry beta (f1, f0.5), see Parse.
	names []string
	cut   cutoffRule
	rng   ValueRange
	needs needs
	agg   Aggregation
	usage string // Help's names column when names cannot say it
	help  string // Help's description
	// dropIn: only rankeval trec_eval computes it (package treceval makes
	// its Metric); Parse, TrecName and Help leave it out
	dropIn bool
	// better is which mean is the better one (Metric.Better): higher for
	// every family but abandon and first_click (lower) and last_click
	// and the rank-similarity measures (neither: a late last click is a
	// long look or a long search, and a candidate is not better for
	// being like the baseline)
	better int8
	// persist: the name carries a persistence p in (0, 1) after a colon
	// (rbo:0.9), which Parse puts in Metric.Beta
	persist bool
}

var families = [...]family{
	// p@k = (1/k) Σ_{i≤min(k,n)} b_i — divides by k even when n < k.
	KindP: {
		names: []string{"p", "precision"}, cut: cutRequired,
		rng: RangeUnit, help: "precision: relevant rows in the first k, over k",
	},
	// r@k = Σ_{i≤k} b_i / R.
	KindR: {
		names: []string{"r", "recall"}, cut: cutRequired,
		rng: RangeUnit, help: "recall: relevant rows in the first k, over R",
	},
	// f1@k = 2·P·R/(P+R) of p@k and r@k, 0 when both are 0; fB@k for
	// another β (f0.5@10, f2@10) is (1+β²)·P·R/(β²·P+R).
	KindF: {
		cut: cutRequired, usage: "f1@k, fB@k (f0.5@10, f2@10)",
		rng: RangeUnit, help: "F-measure of p@k and r@k with weight B (beta)",
	},
	// hit@k = 1 if Σ_{i≤k} b_i > 0, else 0.
	KindHit: {
		names: []string{"hit", "success", "accuracy"}, cut: cutRequired,
		rng: RangeUnit, help: "1 if a relevant row is among the first k, else 0",
	},
	// ap@k = (1/R) Σ_{i≤k} b_i · (Σ_{j≤i} b_j)/i — the denominator is R, as
	// trec_eval's map_cut. map names the mean, and is an alias.
	KindAP: {
		names: []string{"ap", "map"}, cut: cutOptional,
		rng: RangeUnit, help: "average precision, over R (map: the mean)",
	},
	// rr@k = 1/(rank of the first relevant row within k), 0 if none. mrr
	// names the mean, and is an alias.
	KindRR: {
		names: []string{"rr", "mrr"}, cut: cutOptional,
		rng: RangeUnit, help: "1/rank of the first relevant row (mrr: the mean)",
	},
	// rprec = p@R.
	KindRPrec: {
		names: []string{"rprec", "r-prec"}, cut: cutAtR,
		rng: RangeUnit, help: "precision at R, the number of relevant rows",
	},
	// cg@k = Σ_{i≤k} y_i (cumulative gain, no discount, raw labels).
	KindCG: {
		names: []string{"cg"}, cut: cutOptional,
		rng: RangeOpen, help: "cumulative gain: the sum of the labels",
	},
	// dcg@k = Σ_{i≤k} g(y_i)/log2(i+1), gain g(y) = 2^y − 1 (--gain exp,
	// default) or g(y) = y (--gain linear).
	KindDCG: {
		names: []string{"dcg"}, cut: cutOptional,
		rng: RangeOpen, needs: needDCG, help: "discounted cumulative gain (--gain)",
	},
	// ndcg@k = dcg@k / idcg@k, where idcg@k is dcg@k of the labels sorted
	// descending (with qrels: all judged labels of the query); 0 when
	// idcg@k is 0. ndcg = ndcg@n.
	KindNDCG: {
		names: []string{"ndcg"}, cut: cutOptional,
		rng: RangeUnit, needs: needDCG | needIdeal, help: "dcg over the dcg of the ideal ranking",
	},
	// err@k = Σ_{r≤k} (1/r)·R_r·Π_{i<r}(1−R_i), R_i = (2^{y_i} − 1)/2^{G},
	// G = maximum grade (--max-grade, default 4, as gdeval).
	KindERR: {
		names: []string{"err"}, cut: cutOptional,
		rng: RangeUnit, needs: needERR, help: "expected reciprocal rank (--max-grade)",
	},
	// nerr@k = err@k / err@k of the labels sorted descending.
	KindNERR: {
		names: []string{"nerr"}, cut: cutOptional,
		rng: RangeUnit, needs: needERR | needIdeal, help: "err over the err of the ideal ranking",
	},
	// kendall@k = Kendall's tau-b between scores and labels; undefined
	// (left out) when fewer than 2 rows or either side is constant.
	KindKendall: {
		names: []string{"kendall"}, cut: cutOptional,
		rng: RangeSigned, needs: needScores, help: "Kendall's tau-b between scores and labels",
	},
	// spearman@k = Spearman's rho between scores and labels, average ranks
	// for ties; undefined as for kendall.
	KindSpearman: {
		names: []string{"spearman"}, cut: cutOptional,
		rng: RangeSigned, needs: needScores, help: "Spearman's rho between scores and labels",
	},
	// bpref = (1/R) Σ over relevant retrieved d_r of (1 − min(N_r, R) /
	// min(J, R)), N_r = judged non-relevant rows above d_r, J = judged
	// non-relevant documents of the query; a term is 1 when N_r = 0.
	KindBpref: {
		names: []string{"bpref"}, cut: cutNone,
		rng: RangeUnit, needs: needOwn, help: "judged non-relevant ranked below the relevant",
	},
	// gm_map = exp of the mean over queries of ln(max(ap, 0.00001)); per
	// query the value is that logarithm.
	KindGMAP: {
		names: []string{"gm_map"}, cut: cutNone,
		rng: RangeOpen, agg: AggGeo, help: "geometric mean of ap, with a floor of 0.00001",
	},
	// num_q = 1 per query; the summary is the number of queries.
	KindNumQ: {
		names: []string{"num_q"}, cut: cutNone,
		rng: RangeOpen, needs: needOwn, agg: AggSum, help: "queries (summary: their number)",
	},
	// num_ret = n, the rows ranked; the summary is the total.
	KindNumRet: {
		names: []string{"num_ret"}, cut: cutNone,
		rng: RangeOpen, needs: needOwn, agg: AggSum, help: "rows ranked (summary: the total)",
	},
	// num_rel = R; the summary is the total.
	KindNumRel: {
		names: []string{"num_rel"}, cut: cutNone,
		rng: RangeOpen, needs: needOwn, agg: AggSum, help: "relevant documents, R (summary: the total)",
	},
	// num_rel_ret = Σ_i b_i; the summary is the total.
	KindNumRelRet: {
		names: []string{"num_rel_ret"}, cut: cutNone,
		rng: RangeOpen, needs: needOwn, agg: AggSum, help: "relevant rows ranked (summary: the total)",
	},
	// iprec@x = max over ranks i with recall@i >= x of p@i, trec_eval's
	// interpolated precision: recall x means ⌊x·R + 0.9⌋ relevant rows
	// (trec_eval 9.0.8), or round(x·R), halves up (10.0, Options.IPrecRound);
	// 0 when no rank reaches it.
	KindIPrec: {
		names: []string{"iprec"}, cut: cutLevel, usage: "iprec@x (x in [0, 1])",
		rng: RangeUnit, needs: needOwn, help: "interpolated precision at recall x",
	},
	// judged@k = share of the first min(k, n) rows that the qrels judge
	// (ir_measures' Judged@k); every row of a log is judged.
	KindJudged: {
		names: []string{"judged"}, cut: cutOptional,
		rng: RangeUnit, needs: needOwn, help: "share of the first k rows that are judged",
	},
	// set_p = Σ_i b_i / n, 0 when n = 0 (trec_eval's set_P: p@n).
	KindSetP: {
		names: []string{"set_p"}, cut: cutNone,
		rng: RangeUnit, needs: needOwn, help: "relevant rows over n, all rows ranked",
	},
	// set_relative_p = Σ_i b_i / min(n, R), 0 when n or R is 0.
	KindSetRelP: {
		names: []string{"set_relative_p"}, cut: cutNone,
		rng: RangeUnit, needs: needOwn, help: "relevant rows over min(n, R)",
	},
	// set_recall = Σ_i b_i / R.
	KindSetRecall: {
		names: []string{"set_recall"}, cut: cutNone,
		rng: RangeUnit, needs: needOwn, help: "relevant rows ranked, over R",
	},
	// set_map = (Σ_i b_i)² / (n·R), 0 when n or R is 0: set_p · set_recall.
	KindSetMAP: {
		names: []string{"set_map"}, cut: cutNone,
		rng: RangeUnit, needs: needOwn, help: "set_p times set_recall",
	},
	// set_f = 2·P·R/(P + R) of set_p and set_recall, 0 when no row is
	// relevant (trec_eval's set_F with its default beta, 1).
	KindSetF: {
		names: []string{"set_f"}, cut: cutNone,
		rng: RangeUnit, needs: needOwn, help: "F1 of set_p and set_recall",
	},
	// num_nonrel_judged_ret = the rows judged non-relevant (a label below
	// the threshold, not a negative judgment); the summary is the total.
	KindNumNonrelJudgedRet: {
		names: []string{"num_nonrel_judged_ret"}, cut: cutNone,
		rng: RangeOpen, needs: needOwn, agg: AggSum, help: "rows judged non-relevant (summary: the total)",
	},
	// 11pt_avg = the mean of iprec@x over x = 0, 0.1, …, 1 (each with
	// iprec's rounding rule).
	Kind11pt: {
		names: []string{"11pt_avg"}, cut: cutNone,
		rng: RangeUnit, needs: needOwn, help: "mean of iprec at recall 0, 0.1, ..., 1",
	},
	// relative_p@k = Σ_{i≤min(k,n)} b_i / min(k, R): p@k over the best
	// p@k could be.
	KindRelP: {
		names: []string{"relative_p"}, cut: cutRequired,
		rng: RangeUnit, help: "relevant rows in the first k, over min(k, R)",
	},
	// gm_bpref = exp of the mean over queries of ln(max(bpref, 0.00001)),
	// as gm_map is of ap; per query the value is that logarithm.
	KindGMBpref: {
		names: []string{"gm_bpref"}, cut: cutNone,
		rng: RangeOpen, needs: needOwn, agg: AggGeo, help: "geometric mean of bpref, with a floor of 0.00001",
	},
	// The measures below are trec_eval's, each computed as its m_*.c
	// computes it (trecrels.go, trecgain.go), in trec_eval's arithmetic.
	// idcg@k = dcg@k of the ideal ranking (trec_eval 10.0's ideal_dcg).
	KindIDCG: {
		cut: cutOptional, rng: RangeOpen, needs: needDCG | needIdeal, dropIn: true,
		help: "idcg: dcg of the labels sorted descending",
	},
	// infAP = (1/R) Σ over relevant retrieved d at rank i of 1/i +
	// ((i-1)/i)·((r+n+u)/(i-1))·((r+ε)/(r+n+2ε)), r, n, u the relevant,
	// non-relevant and pooled-unjudged rows above d, ε = 0.00001, the
	// term 1 at rank 1; rows outside the pool are skipped.
	KindInfAP: {
		cut: cutNone, rng: RangeOpen, needs: needOwn | needRels, dropIn: true,
		help: "inferred AP (Yilmaz and Aslam)",
	},
	// Rprec_mult_x = precision at ⌊x·R + 0.9⌋ rows (relevant rows over
	// that number when the ranking is shorter).
	KindRprecMult: {
		cut: cutNone, rng: RangeOpen, needs: needOwn | needRels, dropIn: true,
		help: "precision at x times R rows",
	},
	// utility = p1·a + p2·b + p3·c + p4·d of the contingency table
	// (relevant retrieved, non-relevant retrieved, relevant not retrieved,
	// the rest of NumDocs); Param p1,p2,p3,p4, default 1,-1,0,0.
	KindUtility: {
		cut: cutNone, rng: RangeOpen, needs: needOwn | needRels, dropIn: true,
		help: "set utility: weights of the contingency table",
	},
	// binG = (1/R) Σ over relevant retrieved at rank i of
	// 1/log2(2 + i - r_i), r_i the relevant rows up to i.
	KindBinG: {
		cut: cutNone, rng: RangeOpen, needs: needOwn | needRels, dropIn: true,
		help: "binary G",
	},
	// G, ndcg, dcg, ideal_dcg, ndcg_rel, Rndcg and rbp under trec_eval's
	// gain table: Param "level=gain,...", each level of the qrels without
	// one gaining its own number (trecgain.go).
	KindG: {
		cut: cutNone, rng: RangeOpen, needs: needOwn | needRels, dropIn: true,
		help: "G, normalized cumulative gain with a cost discount",
	},
	KindGainNDCG: {
		cut: cutNone, rng: RangeOpen, needs: needOwn | needRels, dropIn: true,
		help: "ndcg under a gain table",
	},
	KindGainDCG: {
		cut: cutNone, rng: RangeOpen, needs: needOwn | needRels, dropIn: true,
		help: "dcg under a gain table",
	},
	KindGainIDCG: {
		cut: cutNone, rng: RangeOpen, needs: needOwn | needRels, dropIn: true,
		help: "dcg of the ideal ranking under a gain table",
	},
	KindNDCGRel: {
		cut: cutNone, rng: RangeOpen, needs: needOwn | needRels, dropIn: true,
		help: "ndcg averaged over the relevant rows",
	},
	KindRNDCG: {
		cut: cutNone, rng: RangeOpen, needs: needOwn | needRels, dropIn: true,
		help: "ndcg averaged where the ideal gain changes",
	},
	// rbp = (1-p) Σ_i g_i·p^(i-1), gains scaled into [0, 1]; Beta is p
	// (rbp:0.8 in the ordinary command, trec_eval's rbp.p=0.8 in the
	// drop-in: one computation).
	KindRBP: {
		names: []string{"rbp"}, cut: cutNone, rng: RangeOpen, needs: needOwn | needRels, persist: true,
		usage: "rbp:p", help: "rank-biased precision (Moffat and Zobel)",
	},
	// rbp_resid = p^n + (1-p) Σ over unjudged rows at rank i of p^(i-1),
	// when some row is unjudged; else 0.
	KindRBPResid: {
		names: []string{"rbp_resid"}, cut: cutNone, rng: RangeOpen, needs: needOwn | needRels, persist: true,
		usage: "rbp_resid:p", help: "rbp's residual: what unjudged rows could add",
	},
	// unj@k = the unjudged rows (outside the pool or pooled unjudged)
	// among the first k, over k.
	KindUnj: {
		cut: cutRequired, rng: RangeOpen, needs: needOwn | needRels, dropIn: true,
		help: "share of unjudged rows in the first k",
	},
	// yaap = ln((1 + S)/(1 + R - S)), S = Σ_i b_i·(Σ_{j≤i} b_j)/i.
	KindYaap: {
		cut: cutNone, rng: RangeOpen, needs: needOwn | needRels, dropIn: true,
		help: "yet another AP (Robertson)",
	},
	// relat@k = the judgment of the row at rank k: its level, -1 outside
	// the pool, -2 pooled but unjudged; NaN past the ranking.
	KindRelAt: {
		cut: cutRequired, rng: RangeOpen, needs: needOwn | needRels, dropIn: true,
		help: "the judgment at rank k",
	},
	// The click metrics: c_i = b_i, the row at rank i is clicked (label > 0,
	// or >= the threshold); defined for every impression.
	//
	// clicks@k = Σ_{i≤min(k,n)} c_i.
	KindClicks: {
		names: []string{"clicks"}, cut: cutOptional,
		rng: RangeOpen, needs: needClicks, help: "clicked rows among the first k",
	},
	// ctr@k = clicks@k / min(k, n).
	KindCTR: {
		names: []string{"ctr"}, cut: cutOptional,
		rng: RangeUnit, needs: needClicks, help: "click-through rate: clicks@k over min(k, n)",
	},
	// abandon = 1 when no row is clicked, else 0.
	KindAbandon: {
		names: []string{"abandon"}, cut: cutNone,
		rng: RangeUnit, needs: needClicks, better: -1, help: "1 when no row is clicked, else 0",
	},
	// first_click = the rank of the first clicked row; undefined (left
	// out of the mean) without a click.
	KindFirstClick: {
		names: []string{"first_click"}, cut: cutNone,
		rng: RangeOpen, needs: needClicks, better: -1, help: "rank of the first clicked row (none: left out)",
	},
	// last_click = the rank of the last clicked row; undefined without a
	// click.
	KindLastClick: {
		names: []string{"last_click"}, cut: cutNone,
		rng: RangeOpen, needs: needClicks, better: noBetter, help: "rank of the last clicked row (none: left out)",
	},
	// The IPS estimates: a clicked row weighs w_i = 1/max(p_i, clip), p_i
	// its propensity of examination at its logged position; i is its rank
	// in the ranking under test.
	//
	// ips_clicks@k = Σ_{i≤min(k,n)} c_i·w_i.
	KindIPSClicks: {
		names: []string{"ips_clicks"}, cut: cutOptional,
		rng: RangeOpen, needs: needClicks | needProp, help: "IPS estimate of relevant rows in the first k",
	},
	// ips_p@k = ips_clicks@k / k.
	KindIPSP: {
		names: []string{"ips_p"}, cut: cutRequired,
		rng: RangeOpen, needs: needClicks | needProp, help: "IPS estimate of p@k: ips_clicks@k over k",
	},
	// ips_dcg@k = Σ_{i≤min(k,n)} c_i·w_i / log2(i+1).
	KindIPSDCG: {
		names: []string{"ips_dcg"}, cut: cutOptional,
		rng: RangeOpen, needs: needClicks | needProp, help: "IPS estimate of dcg@k (a click's gain is 1)",
	},
	// snips_X = Σ_q ips_X(q) / Σ_q W_q over the queries, W_q = Σ_i c_i·w_i
	// (ips_clicks of the whole list): a ratio of sums, not a mean.
	KindSNIPSClicks: {
		names: []string{"snips_clicks"}, cut: cutOptional,
		rng: RangeOpen, needs: needClicks | needProp, agg: AggRatio, help: "ips_clicks@k over the click weight (SNIPS)",
	},
	KindSNIPSP: {
		names: []string{"snips_p"}, cut: cutRequired,
		rng: RangeOpen, needs: needClicks | needProp, agg: AggRatio, help: "ips_p@k over the click weight (SNIPS)",
	},
	KindSNIPSDCG: {
		names: []string{"snips_dcg"}, cut: cutOptional,
		rng: RangeOpen, needs: needClicks | needProp, agg: AggRatio, help: "ips_dcg@k over the click weight (SNIPS)",
	},
	// interleave = +1 when the rows of team B hold more clicks than team
	// A's (B wins), −1 when team A's do (A wins), 0 when both hold the same
	// number > 0 (a tie); undefined without a click. Its mean is the
	// preference Δ = (wins_B − wins_A) / (wins + losses + ties).
	KindInterleave: {
		names: []string{"interleave", "interleaving"}, cut: cutNone,
		rng: RangeSigned, needs: needClicks | needTeam, help: "team B wins 1, A wins -1, tie 0 (none: left out)",
	},
	// The rank-similarity measures: a candidate's ranking B against the
	// baseline's A (similarity.go), A_k and B_k their first k items (the
	// whole lists without @k); undefined for the baseline itself.
	//
	// overlap@k = |A_k ∩ B_k| / |A_k|; undefined when A is empty.
	KindOverlap: {
		names: []string{"overlap"}, cut: cutOptional, rng: RangeUnit, needs: needPair, better: noBetter,
		help: "share of the baseline's top k in the candidate's",
	},
	// jaccard@k = |A_k ∩ B_k| / |A_k ∪ B_k|; undefined when both are empty.
	KindJaccard: {
		names: []string{"jaccard"}, cut: cutOptional, rng: RangeUnit, needs: needPair, better: noBetter,
		help: "items in both top k over items in either",
	},
	// churn@k = 1 − overlap@k.
	KindChurn: {
		names: []string{"churn"}, cut: cutOptional, rng: RangeUnit, needs: needPair, better: noBetter,
		help: "1 - overlap@k",
	},
	// rbo:p@d = RBO_min of the first d items of A and B (Webber et al.
	// 2010), rbo_res:p@d its residual RBO_max − RBO_min, rbo_ext:p@d
	// RBO_ext; similarity.go has the formulas.
	KindRBO: {
		names: []string{"rbo"}, cut: cutOptional, rng: RangeUnit, needs: needPair, better: noBetter, persist: true,
		usage: "rbo:p[@d]", help: "rank-biased overlap, lower bound",
	},
	KindRBORes: {
		names: []string{"rbo_res"}, cut: cutOptional, rng: RangeUnit, needs: needPair, better: noBetter, persist: true,
		usage: "rbo_res:p[@d]", help: "rbo's residual: what unseen items could add",
	},
	KindRBOExt: {
		names: []string{"rbo_ext"}, cut: cutOptional, rng: RangeUnit, needs: needPair, better: noBetter, persist: true,
		usage: "rbo_ext:p[@d]", help: "rank-biased overlap, extrapolated",
	},
	// tau@k = Kendall's tau-b between A_k and B_k over their union, an item
	// absent from one side's top k tied below it there.
	KindTau: {
		names: []string{"tau"}, cut: cutOptional, rng: RangeSigned, needs: needPair, better: noBetter,
		help: "Kendall's tau-b of the two systems' top k",
	},
}

// value is m's value from a, the sums of the ranking down to m's cut, and
// ia, those of the ideal ranking down to its own (zero unless m's family
// needs the ideal), for a query with R = fR relevant rows (0 only under
// Options.NoEmpty, where a ratio over R is 0, as trec_eval's). Under
// TiesAverage the sums are expectations, and so is every value below: each
// is linear in them, over a divisor that ties cannot move (k, R, the
// ideal's sums). The correlations are computed apart, in corr.go.
func value(m *Metric, a, ia *acc, fR float64) float64 {
	switch m.Kind {
	case KindP:
		return a.rel / float64(m.K)
	case KindR:
		if fR > 0 { // R is 0 only under Options.NoEmpty: trec_eval's 0
			return a.rel / fR
		}
	case KindF:
		// (1+β²)PR/(β²P+R) with P = c/k and R = c/nRel reduces to a form
		// linear in c, which is what keeps TiesAverage exact.
		if a.rel > 0 {
			b2 := float64(m.Beta * m.Beta)
			return (1 + b2) * a.rel / (float64(b2*fR) + float64(m.K))
		}
	case KindHit:
		return a.hit
	case KindAP:
		if fR > 0 {
			return a.ap / fR
		}
	case KindRR:
		return a.rr
	case KindRPrec:
		if fR > 0 {
			return a.rel / fR // the cut is at R, so p@R = r@R
		}
	case KindCG:
		return a.cg
	case KindDCG:
		return a.dcg
	case KindNDCG:
		if math.IsInf(ia.dcg, 0) {
			// The ideal gains overflow (labels of 1024 and more under
			// --gain exp): the ratio would be 0 or NaN, a wrong number;
			// +Inf has the caller report it (pipeline's checkFinite).
			return ia.dcg
		}
		if ia.dcg > 0 {
			return a.dcg / ia.dcg
		}
	case KindERR:
		return a.err
	case KindNERR:
		if ia.err > 0 { // else 0, as ndcg
			return a.err / ia.err
		}
	case KindGMAP:
		if fR > 0 {
			return geoTerm(a.ap / fR)
		}
		return geoTerm(0)
	case KindRelP:
		if fR > 0 {
			return a.rel / min(float64(m.K), fR)
		}
	case KindIDCG:
		return ia.dcg
	case KindKendall, KindSpearman:
		panic("metrics: value of a correlation") // Eval leaves them to corr.go
	case KindClicks, KindCTR, KindAbandon, KindFirstClick, KindLastClick, KindIPSClicks, KindIPSP, KindIPSDCG,
		KindSNIPSClicks, KindSNIPSP, KindSNIPSDCG, KindInterleave:
		panic("metrics: value of a click metric") // clicks.go, interleave.go
	case KindOverlap, KindJaccard, KindChurn, KindRBO, KindRBORes, KindRBOExt, KindTau:
		panic("metrics: value of a rank-similarity measure") // similarity.go
	default:
		panic("metrics: value of a measure computed apart") // trecm.go
	}
	return 0
}

// kindOf finds the family of a base name (lower case).
func kindOf(base string) (Kind, bool) {
	for k := range families {
		for _, n := range families[k].names {
			if n == base {
				return Kind(k), true
			}
		}
	}
	return 0, false
}
