package metrics

import (
	"strconv"
	"strings"
)

// trec_eval spells measures its own way (P_5, recall_10, ndcg_cut_10,
// recip_rank, Rprec, success_1, map_cut_10, iprec_at_recall_0.50); people
// paste them from trec_eval's output, so they are accepted as names and
// used when printing in trec_eval's layout. Each family's spellings come
// from TrecMeasures (trecSpelling).

// parseTrecName recognises a trec_eval measure name (lower-cased): a
// family's trec name, or its trecCut prefix, '_' or '.', and a cutoff
// written without leading zeros (a recall level, for iprec_at_recall).
func parseTrecName(lower string) (Metric, bool) {
	for k := range families {
		f, sp := &families[k], &trecSpelling[k]
		if sp.trec != "" && lower == strings.ToLower(sp.trec) {
			m := Metric{Name: lower, Kind: Kind(k)}
			if m.Kind == KindSetF {
				m.Beta = 1 // trec_eval's default β
			}
			return m, true
		}
		if sp.trecCut == "" {
			continue
		}
		rest, ok := strings.CutPrefix(lower, strings.ToLower(sp.trecCut))
		if !ok || len(rest) < 2 || (rest[0] != '_' && rest[0] != '.') {
			continue
		}
		if f.cut == cutLevel {
			lv, ok := parseLevel(rest[1:])
			return Metric{Name: lower, Kind: Kind(k), Level: lv}, ok
		}
		n, err := parseCutoff(rest[1:])
		if err != nil || strconv.Itoa(n) != rest[1:] {
			return Metric{}, false
		}
		return Metric{Name: lower, Kind: Kind(k), K: n}, true
	}
	return Metric{}, false
}

// TrecName is the name trec_eval prints for m, or m.Name when trec_eval
// has no such measure.
func TrecName(m Metric) string {
	f, sp := &families[m.Kind], &trecSpelling[m.Kind]
	switch {
	case m.Kind == KindSetF && m.Beta != 1: // SetF(beta=0.5): trec_eval's set_F.0.5
		return sp.trec + "_" + strconv.FormatFloat(m.Beta, 'f', -1, 64)
	case sp.trec != "" && (m.K == 0 || f.cut == cutAtR):
		return sp.trec
	case f.cut == cutLevel:
		return sp.trecCut + "_" + strconv.FormatFloat(m.Level, 'f', 2, 64) // trec_eval's %3.2f
	case sp.trecCut != "" && m.K > 0:
		return sp.trecCut + "_" + strconv.Itoa(m.K)
	}
	return m.Name
}
