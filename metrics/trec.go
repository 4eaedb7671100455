package metrics

import (
	"strconv"
	"strings"
)

// trec_eval spells measures its own way (P_5, recall_10, ndcg_cut_10,
// recip_rank, Rprec, success_1, map_cut_10); people paste them from
// trec_eval's output, so they are accepted as names and used when printing
// in trec_eval's layout.
var trecPrefixes = []struct {
	prefix string
	kind   Kind
}{
	{"map_cut", KindAP},
	{"ndcg_cut", KindNDCG},
	{"recall", KindR},
	{"success", KindHit},
	{"p", KindP},
}

// parseTrecName recognises a trec_eval measure name (lower-cased).
func parseTrecName(lower string) (Metric, bool) {
	switch lower {
	case "recip_rank":
		return Metric{Name: lower, Kind: KindRR}, true
	}
	for _, p := range trecPrefixes {
		rest, ok := strings.CutPrefix(lower, p.prefix)
		if !ok || len(rest) < 2 || (rest[0] != '_' && rest[0] != '.') {
			continue
		}
		k, err := strconv.Atoi(rest[1:])
		if err != nil || k < 1 || strconv.Itoa(k) != rest[1:] {
			return Metric{}, false
		}
		return Metric{Name: lower, Kind: p.kind, K: k}, true
	}
	return Metric{}, false
}

// TrecName is the name trec_eval prints for m, or m.Name when trec_eval
// has no such measure.
func TrecName(m Metric) string {
	k := strconv.Itoa(m.K)
	switch {
	case m.Kind == KindAP && m.K == 0:
		return "map"
	case m.Kind == KindAP:
		return "map_cut_" + k
	case m.Kind == KindP && m.K > 0:
		return "P_" + k
	case m.Kind == KindR && m.K > 0:
		return "recall_" + k
	case m.Kind == KindNDCG && m.K == 0:
		return "ndcg"
	case m.Kind == KindNDCG:
		return "ndcg_cut_" + k
	case m.Kind == KindRR && m.K == 0:
		return "recip_rank"
	case m.Kind == KindRPrec:
		return "Rprec"
	case m.Kind == KindHit && m.K > 0:
		return "success_" + k
	}
	return m.Name
}
