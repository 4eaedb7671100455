package metrics

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestFamilies checks the table itself: every Kind has a filled entry, every
// name and trec_eval spelling in it parses back to its family, and Help has
// a line for each.
func TestFamilies(t *testing.T) {
	if len(families) != int(lastKind)+1 {
		t.Fatalf("%d families for %d kinds", len(families), lastKind+1)
	}
	help := Help()
	listed := 0
	for k := range families {
		f, sp := &families[k], &trecSpelling[k]
		kind := Kind(k)
		if f.dropIn {
			// rankeval trec_eval's alone: no name, not in Help
			if len(f.names) > 0 || sp.trec != "" || sp.trecCut != "" || f.help == "" || strings.Contains(help, f.help) {
				t.Errorf("kind %d: a drop-in family named or listed: %+v", k, *f)
			}
			continue
		}
		listed++
		if f.help == "" || len(f.names) == 0 && f.usage == "" {
			t.Errorf("kind %d: entry not filled in: %+v", k, *f)
		}
		for _, n := range f.names {
			switch f.cut {
			case cutRequired:
				n += "@10"
			case cutLevel:
				n += "@0.5"
			}
			if f.persist {
				n += ":0.9"
			}
			if m, err := Parse(n); err != nil || m.Kind != kind {
				t.Errorf("%s: %+v, %v; want kind %d", n, m, err, k)
			}
		}
		if sp.trec != "" {
			m, err := Parse(sp.trec)
			if err != nil || m.Kind != kind || TrecName(m) != sp.trec {
				t.Errorf("%s: %+v, %v, TrecName %q", sp.trec, m, err, TrecName(m))
			}
		}
		if sp.trecCut != "" && f.cut == cutLevel {
			name := sp.trecCut + "_0.70"
			m, err := Parse(name)
			if err != nil || m.Kind != kind || m.Level != 0.7 || TrecName(m) != name {
				t.Errorf("%s: %+v, %v, TrecName %q", name, m, err, TrecName(m))
			}
		} else if sp.trecCut != "" {
			name := sp.trecCut + "_7"
			m, err := Parse(name)
			if err != nil || m.Kind != kind || m.K != 7 || TrecName(m) != name {
				t.Errorf("%s: %+v, %v, TrecName %q", name, m, err, TrecName(m))
			}
		}
		if !strings.Contains(help, f.help) {
			t.Errorf("Help has no line for kind %d:\n%s", k, help)
		}
	}
	if n, want := strings.Count(help, "\n"), listed+11; n != want { // + header, trec_eval's names, ir_measures'
		t.Errorf("Help has %d lines, want %d:\n%s", n, want, help)
	}
	for _, line := range strings.Split(help, "\n") {
		if len(line) > 80 {
			t.Errorf("Help line longer than 80 columns: %q", line)
		}
	}
}

func TestRange(t *testing.T) {
	for _, c := range []struct {
		name string
		want ValueRange
	}{
		{"ndcg@10", RangeUnit}, {"map", RangeUnit}, {"f1@5", RangeUnit}, {"rprec", RangeUnit},
		{"kendall", RangeSigned}, {"spearman@5", RangeSigned},
		{"cg", RangeOpen}, {"dcg@10", RangeOpen},
	} {
		m, err := Parse(c.name)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Range(); got != c.want {
			t.Errorf("%s: Range() = %d, want %d", c.name, got, c.want)
		}
	}
}

// TestMissingEmpty: a query absent from a system that no system's ranking
// finds a relevant row in takes the --empty policy's value where the
// metric follows the policy (through gm_map's logarithm), else an absent
// query's value; under NoEmpty, always the latter.
func TestMissingEmpty(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		metric  string
		empty   Empty
		noEmpty bool
		want    float64
	}{
		{"map", EmptySkip, false, nan},
		{"map", EmptyZero, false, 0},
		{"ndcg@10", EmptyOne, false, 1},
		{"11pt_avg", EmptyZero, false, 0},
		{"iprec@0.5", EmptyOne, false, 1},
		{"gm_map", EmptyZero, false, math.Log(gmFloor)},
		{"gm_map", EmptyOne, false, 0},
		{"kendall", EmptyZero, false, nan},
		{"abandon", EmptySkip, false, 1},
		{"num_q", EmptySkip, false, 1},
		{"clicks@3", EmptySkip, false, 0},
		{"judged@3", EmptySkip, false, 0},
		{"map", EmptySkip, true, 0},
	} {
		t.Run(fmt.Sprintf("%s/%s/noempty=%v", tc.metric, tc.empty, tc.noEmpty), func(t *testing.T) {
			m, err := Parse(tc.metric)
			if err != nil {
				t.Fatal(err)
			}
			o := DefaultOptions()
			o.Empty, o.NoEmpty = tc.empty, tc.noEmpty
			if got := m.MissingEmpty(o); got != tc.want && !(math.IsNaN(got) && math.IsNaN(tc.want)) {
				t.Fatalf("%v, want %v", got, tc.want)
			}
		})
	}
}
