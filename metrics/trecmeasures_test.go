package metrics

import "testing"

// TestTrecMeasureTable: the table names each measure once per release, its
// sets name measures of the table, a measure with a metric names a family,
// and no two measures spell the same family's name.
func TestTrecMeasureTable(t *testing.T) {
	for _, release := range []string{"9.0.8", "10.0"} {
		seen := map[string]bool{}
		for _, m := range TrecMeasures {
			if m.Since == "" || release != "9.0.8" {
				if seen[m.Name] {
					t.Errorf("%s: %s twice", release, m.Name)
				}
				seen[m.Name] = true
			}
		}
		for set := range trecNicknames {
			for _, n := range TrecNickname(set, release) {
				if !seen[n] {
					t.Errorf("%s: set %s names %s, not in the table", release, set, n)
				}
			}
		}
	}
	type slot struct {
		k   Kind
		cut bool
	}
	spelled := map[slot]string{}
	for _, m := range TrecMeasures {
		switch m.Shape {
		case TrecRunID, TrecPrefs:
			if m.Family {
				t.Errorf("%s: a family without a metric", m.Name)
			}
			continue
		}
		if m.Kind < 0 || m.Kind > lastKind || m.Shape == TrecGains && m.Plain != NoKind && (m.Plain < 0 || m.Plain > lastKind) {
			t.Errorf("%s: kind %d, plain %d", m.Name, m.Kind, m.Plain)
		}
		if (m.Shape == TrecCutoffs || m.Shape == TrecRelstring) && len(m.Cutoffs) == 0 || m.Shape == TrecLevels && len(m.Reals) == 0 {
			t.Errorf("%s: no defaults", m.Name)
		}
		if !m.Family {
			continue
		}
		s := slot{m.Kind, m.Shape == TrecCutoffs || m.Shape == TrecLevels}
		if m.Shape == TrecGains {
			s.k = m.Plain
		}
		if prev, ok := spelled[s]; ok {
			t.Errorf("%s and %s spell the same family", prev, m.Name)
		}
		spelled[s] = m.Name
		if families[s.k].dropIn {
			t.Errorf("%s spells a drop-in family", m.Name)
		}
	}
}

// TestTrecSpelling: the families' trec_eval names, as Parse reads them and
// TrecName writes them.
func TestTrecSpelling(t *testing.T) {
	for _, tc := range []struct {
		name string
		want Metric
		out  string
	}{
		{"p_5", Metric{Kind: KindP, K: 5}, "P_5"},
		{"p.10", Metric{Kind: KindP, K: 10}, "P_10"},
		{"recall_1000", Metric{Kind: KindR, K: 1000}, "recall_1000"},
		{"ndcg_cut_10", Metric{Kind: KindNDCG, K: 10}, "ndcg_cut_10"},
		{"ndcg", Metric{Kind: KindNDCG}, "ndcg"},
		{"map", Metric{Kind: KindAP}, "map"},
		{"map_cut.7", Metric{Kind: KindAP, K: 7}, "map_cut_7"},
		{"iprec_at_recall_0.50", Metric{Kind: KindIPrec, Level: 0.5}, "iprec_at_recall_0.50"},
		{"recip_rank", Metric{Kind: KindRR}, "recip_rank"},
		{"rprec", Metric{Kind: KindRPrec}, "Rprec"},
		{"success_1", Metric{Kind: KindHit, K: 1}, "success_1"},
		{"relative_p_5", Metric{Kind: KindRelP, K: 5}, "relative_P_5"},
		{"set_f", Metric{Kind: KindSetF, Beta: 1}, "set_F"},
		{"set_relative_p", Metric{Kind: KindSetRelP}, "set_relative_P"},
		{"11pt_avg", Metric{Kind: Kind11pt}, "11pt_avg"},
		{"gm_bpref", Metric{Kind: KindGMBpref}, "gm_bpref"},
		{"num_q", Metric{Kind: KindNumQ}, "num_q"},
		{"num_nonrel_judged_ret", Metric{Kind: KindNumNonrelJudgedRet}, "num_nonrel_judged_ret"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Parse(tc.name)
			tc.want.Name = tc.name
			if err != nil || m != tc.want || TrecName(m) != tc.out {
				t.Fatalf("Parse(%q) = %+v, %v, TrecName %q; want %+v, %q", tc.name, m, err, TrecName(m), tc.want, tc.out)
			}
		})
	}
	for _, name := range []string{"rprec_mult_0.20", "infap", "utility", "p_avgjg_5", "unj_5", "relstring"} {
		if _, err := Parse(name); err == nil {
			t.Errorf("Parse(%q): a measure of rankeval trec_eval alone, read", name)
		}
	}
}
