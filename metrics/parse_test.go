package metrics

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	good := []struct {
		in   string
		want Metric
	}{
		{"p@10", Metric{Name: "p@10", Kind: KindP, K: 10}},
		{"p@1000000000", Metric{Name: "p@1000000000", Kind: KindP, K: MaxCutoff}},
		{"precision@5", Metric{Name: "precision@5", Kind: KindP, K: 5}},
		{"P@5", Metric{Name: "P@5", Kind: KindP, K: 5, Conv: Conv{Peer: PeerTrecEval}}}, // ir_measures' P@5
		{"PRECISION@5", Metric{Name: "precision@5", Kind: KindP, K: 5}},
		{"r@100", Metric{Name: "r@100", Kind: KindR, K: 100}},
		{"Recall@3", Metric{Name: "Recall@3", Kind: KindR, K: 3, Conv: Conv{Peer: PeerTrecEval}}},
		{"RECALL@3", Metric{Name: "recall@3", Kind: KindR, K: 3}},
		{"f1@10", Metric{Name: "f1@10", Kind: KindF, K: 10, Beta: 1}},
		{"f0.5@10", Metric{Name: "f0.5@10", Kind: KindF, K: 10, Beta: 0.5}},
		{"F2@20", Metric{Name: "f2@20", Kind: KindF, K: 20, Beta: 2}},
		{"hit@1", Metric{Name: "hit@1", Kind: KindHit, K: 1}},
		{"Success@10", Metric{Name: "Success@10", Kind: KindHit, K: 10, Conv: Conv{Peer: PeerTrecEval}}},
		{"success@10", Metric{Name: "success@10", Kind: KindHit, K: 10}},
		{"accuracy@3", Metric{Name: "accuracy@3", Kind: KindHit, K: 3}},
		{"ap", Metric{Name: "ap", Kind: KindAP}},
		{"AP", Metric{Name: "AP", Kind: KindAP, Conv: Conv{Peer: PeerTrecEval}}},
		{"Ap", Metric{Name: "ap", Kind: KindAP}},
		{"AP@100", Metric{Name: "AP@100", Kind: KindAP, K: 100, Conv: Conv{Peer: PeerTrecEval}}},
		{"map", Metric{Name: "map", Kind: KindAP}},
		{"map@10", Metric{Name: "map@10", Kind: KindAP, K: 10}},
		{"rr", Metric{Name: "rr", Kind: KindRR}},
		{"RR@10", Metric{Name: "RR@10", Kind: KindRR, K: 10, Conv: Conv{Peer: PeerPython}}},
		{"rR@10", Metric{Name: "rr@10", Kind: KindRR, K: 10}},
		{"mrr", Metric{Name: "mrr", Kind: KindRR}},
		{"mrr@10", Metric{Name: "mrr@10", Kind: KindRR, K: 10}},
		{"rprec", Metric{Name: "rprec", Kind: KindRPrec}},
		{"Rprec", Metric{Name: "Rprec", Kind: KindRPrec, Conv: Conv{Peer: PeerTrecEval}}},
		{"RPREC", Metric{Name: "rprec", Kind: KindRPrec}},
		{"r-prec", Metric{Name: "r-prec", Kind: KindRPrec}},
		{"cg", Metric{Name: "cg", Kind: KindCG}},
		{"cg@5", Metric{Name: "cg@5", Kind: KindCG, K: 5}},
		{"dcg@5", Metric{Name: "dcg@5", Kind: KindDCG, K: 5}},
		{"ndcg", Metric{Name: "ndcg", Kind: KindNDCG}},
		{"nDCG@10", Metric{Name: "nDCG@10", Kind: KindNDCG, K: 10, Conv: Conv{Peer: PeerTrecEval}}},
		{"NDcg@10", Metric{Name: "ndcg@10", Kind: KindNDCG, K: 10}},
		{"  ndcg@10 ", Metric{Name: "ndcg@10", Kind: KindNDCG, K: 10}},
		{"ERR@20", Metric{Name: "ERR@20", Kind: KindERR, K: 20, Conv: Conv{Peer: PeerGdeval}}},
		{"Err@20", Metric{Name: "err@20", Kind: KindERR, K: 20}},
		{"nerr", Metric{Name: "nerr", Kind: KindNERR}},
		{"nerr@10", Metric{Name: "nerr@10", Kind: KindNERR, K: 10}},
		{"kendall", Metric{Name: "kendall", Kind: KindKendall}},
		{"kendall@5", Metric{Name: "kendall@5", Kind: KindKendall, K: 5}},
		{"Spearman@7", Metric{Name: "spearman@7", Kind: KindSpearman, K: 7}},
		{"ndcg@010", Metric{Name: "ndcg@010", Kind: KindNDCG, K: 10}},
	}
	for _, c := range good {
		t.Run(c.in, func(t *testing.T) {
			got, err := Parse(c.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", c.in, err)
			}
			if got != c.want {
				t.Errorf("Parse(%q) = %+v, want %+v", c.in, got, c.want)
			}
		})
	}

	if want := fmt.Sprintf("from 1 to %d", MaxCutoff); !strings.Contains(ErrBadCutoff.Error(), want) {
		t.Errorf("ErrBadCutoff %q does not give the bound (%s)", ErrBadCutoff, want)
	}
	bad := []struct {
		in   string
		want error
	}{
		{"ndcg@0", ErrBadCutoff},
		{"ndcg@-1", ErrBadCutoff},
		{"ndcg@1.5", ErrBadCutoff},
		{"ndcg@x", ErrBadCutoff},
		{"ndcg@", ErrBadCutoff},
		{"ndcg@+5", ErrBadCutoff},
		{"ndcg@10@2", ErrBadCutoff},
		{"ndcg@99999999999999999999999", ErrBadCutoff},
		{"p@9200000000000000000", ErrBadCutoff},
		{"p@1000000001", ErrBadCutoff},
		{"p@01000000000", ErrBadCutoff},
		{"P_1000000001", ErrUnknownMetric},
		{"p", ErrBadCutoff},
		{"r", ErrBadCutoff},
		{"f1", ErrBadCutoff},
		{"hit", ErrBadCutoff},
		{"success", ErrBadCutoff},
		{"rprec@5", ErrBadCutoff},
		{"bogus", ErrUnknownMetric},
		{"bogus@10", ErrUnknownMetric},
		{"", ErrUnknownMetric},
		{"@10", ErrUnknownMetric},
		{"f@10", ErrUnknownMetric},
		{"f0@10", ErrUnknownMetric},
		{"f-1@10", ErrUnknownMetric},
		{"finf@10", ErrUnknownMetric},
		{"fx@10", ErrUnknownMetric},
		{"ap(rel=2)", ErrUnknownMetric},
		{"ndcg10", ErrUnknownMetric},
	}
	for _, c := range bad {
		t.Run("bad/"+c.in, func(t *testing.T) {
			m, err := Parse(c.in)
			if !errors.Is(err, c.want) {
				t.Fatalf("Parse(%q) = %+v, %v; want an error wrapping %v", c.in, m, err, c.want)
			}
			if name := strings.ToLower(strings.TrimSpace(c.in)); name != "" && !strings.Contains(err.Error(), name) {
				t.Errorf("error %q does not name %q", err, name)
			}
		})
	}
}

func TestParseList(t *testing.T) {
	ms, err := ParseList("map, Mrr,ndcg@10,err@10,p@10,r@10")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range ms {
		names = append(names, m.Name)
	}
	if got, want := strings.Join(names, ","), "map,mrr,ndcg@10,err@10,p@10,r@10"; got != want {
		t.Errorf("names = %s, want %s", got, want)
	}

	for _, c := range []struct {
		in, name string
		want     error // nil: any error
	}{
		{"map,,ndcg", "empty item", ErrUnknownMetric},
		{"map,", "trailing comma", ErrUnknownMetric},
		{"", "empty list", ErrUnknownMetric},
		{"ndcg@10,NDcg@10", "duplicate", nil},
		{"nDCG@10,nDCG@10", "duplicate ir_measures", nil},
		{"map,ndcg@0", "bad cutoff", ErrBadCutoff},
		{"map,foo", "unknown", ErrUnknownMetric},
	} {
		t.Run(c.name, func(t *testing.T) {
			ms, err := ParseList(c.in)
			if err == nil {
				t.Fatalf("ParseList(%q) = %+v, want an error", c.in, ms)
			}
			if c.want != nil && !errors.Is(err, c.want) {
				t.Errorf("ParseList(%q): %v, want it to wrap %v", c.in, err, c.want)
			}
		})
	}
	// map and ap are different output keys, so both may be asked for.
	if _, err := ParseList("map,ap"); err != nil {
		t.Errorf("ParseList(map,ap): %v", err)
	}
}

func TestNeedsMaxGrade(t *testing.T) {
	for _, c := range []struct {
		in   string
		want bool
	}{
		{"map,ndcg@10,p@5,kendall", false},
		{"map,err@10", true},
		{"nerr", true},
	} {
		t.Run(c.in, func(t *testing.T) {
			ms, err := ParseList(c.in)
			if err != nil {
				t.Fatal(err)
			}
			if got := NeedsMaxGrade(ms); got != c.want {
				t.Errorf("NeedsMaxGrade(%s) = %v, want %v", c.in, got, c.want)
			}
		})
	}
}

func TestParseTrecNames(t *testing.T) {
	tests := []struct {
		in   string
		kind Kind
		k    int
		out  string // TrecName of the parsed metric
	}{
		{"map", KindAP, 0, "map"},
		{"P_5", KindP, 5, "P_5"},
		{"P.5", KindP, 5, "P_5"},
		{"recall_10", KindR, 10, "recall_10"},
		{"ndcg_cut_10", KindNDCG, 10, "ndcg_cut_10"},
		{"ndcg", KindNDCG, 0, "ndcg"},
		{"recip_rank", KindRR, 0, "recip_rank"},
		{"Rprec", KindRPrec, 0, "Rprec"},
		{"success_1", KindHit, 1, "success_1"},
		{"map_cut_100", KindAP, 100, "map_cut_100"},
		{"p@5", KindP, 5, "P_5"},
		{"ndcg@10", KindNDCG, 10, "ndcg_cut_10"},
		{"err@20", KindERR, 20, "err@20"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			m, err := Parse(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if m.Kind != tc.kind || m.K != tc.k || TrecName(m) != tc.out {
				t.Fatalf("got %+v (%s), want kind %v k %d %s", m, TrecName(m), tc.kind, tc.k, tc.out)
			}
		})
	}
	for _, bad := range []string{"P_0", "P_x", "recall_", "ndcg_cut_05", "P_-1"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

// TestUnknownMetricSuggests: a misspelt metric gets the nearest known
// name, cutoff kept; a name far from any gets only the pointer to the list.
func TestUnknownMetricSuggests(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"ndgc@10", `metric "ndgc@10": unknown metric; did you mean ndcg@10? (rankeval metrics lists them all)`},
		{"recal@5", `metric "recal@5": unknown metric; did you mean recall@5?`},
		{"mapp", `metric "mapp": unknown metric; did you mean map?`},
		{"bleu@4", `metric "bleu@4": unknown metric (rankeval metrics lists them all)`},
		{"rprek@5", `metric "rprek@5": unknown metric (rankeval metrics lists them all)`}, // rprec takes no cutoff
		{"ndgc", `metric "ndgc": unknown metric; did you mean ndcg?`},
	} {
		t.Run(tc.in, func(t *testing.T) {
			_, err := Parse(tc.in)
			if !errors.Is(err, ErrUnknownMetric) || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %s", err, tc.want)
			}
		})
	}
}
