package metrics

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// TestParseIR: ir_measures' syntax, its parameters and their
// conventions; the table's other measures refused by name.
func TestParseIR(t *testing.T) {
	trec := func(rel float64, judged bool) Conv {
		return Conv{Peer: PeerTrecEval, Rel: rel, HasRel: rel != 0, JudgedOnly: judged}
	}
	for _, c := range []struct {
		in   string
		want Metric
	}{
		{"nDCG@10", Metric{Kind: KindNDCG, K: 10, Conv: trec(0, false)}},
		{"nDCG", Metric{Kind: KindNDCG, Conv: trec(0, false)}},
		{"nDCG(dcg='exp-log2')@20", Metric{Kind: KindNDCG, K: 20, Conv: Conv{Peer: PeerGdeval}}},
		{"nDCG(dcg=\"log2\", judged_only=True)@5", Metric{Kind: KindNDCG, K: 5, Conv: trec(0, true)}},
		{"P(rel=2)@5", Metric{Kind: KindP, K: 5, Conv: trec(2, false)}},
		{"P(cutoff=5, rel=2)", Metric{Kind: KindP, K: 5, Conv: trec(2, false)}},
		{"AP(rel=2)", Metric{Kind: KindAP, Conv: trec(2, false)}},
		{"R@1000", Metric{Kind: KindR, K: 1000, Conv: trec(0, false)}},
		{"RR@10", Metric{Kind: KindRR, K: 10, Conv: Conv{Peer: PeerPython}}},
		{"RR(judged_only=False)@10", Metric{Kind: KindRR, K: 10, Conv: Conv{Peer: PeerPython}}},
		{"RBP(p=0.8)", Metric{Kind: KindRBP, Beta: 0.8, Conv: trec(0, false)}},
		{"RBP", Metric{Kind: KindRBP, Beta: 0.8, Conv: trec(0, false)}},
		{"RBP(p=0.5)", Metric{Kind: KindRBP, Beta: 0.5, Conv: trec(0, false)}},
		{"Judged@10", Metric{Kind: KindJudged, K: 10, Conv: Conv{Peer: PeerPython}}},
		{"ERR@20", Metric{Kind: KindERR, K: 20, Conv: Conv{Peer: PeerGdeval}}},
		{"SetF", Metric{Kind: KindSetF, Beta: 1, Conv: trec(0, false)}},
		{"SetF(rel=2,beta=0.5)", Metric{Kind: KindSetF, Beta: 0.5, Conv: trec(2, false)}},
		{"SetP(relative=True)", Metric{Kind: KindSetRelP, Conv: trec(0, false)}},
		{"SetP(relative=False)", Metric{Kind: KindSetP, Conv: trec(0, false)}},
		{"NumRet", Metric{Kind: KindNumRet, Conv: trec(0, false)}},
		{"NumRet(rel=1)", Metric{Kind: KindNumRelRet, Conv: trec(1, false)}},
		{"IPrec@0.5", Metric{Kind: KindIPrec, Level: 0.5, Conv: trec(0, false)}},
		{"IPrec(recall=0.5)", Metric{Kind: KindIPrec, Level: 0.5, Conv: trec(0, false)}},
		{"MRR@10", Metric{Kind: KindRR, K: 10, Conv: Conv{Peer: PeerPython}}},
		{" Success@1 ", Metric{Name: "Success@1", Kind: KindHit, K: 1, Conv: trec(0, false)}},
	} {
		t.Run(c.in, func(t *testing.T) {
			got, err := Parse(c.in)
			if err != nil {
				t.Fatal(err)
			}
			if c.want.Name == "" {
				c.want.Name = c.in
			}
			if got != c.want {
				t.Errorf("Parse(%q) = %+v, want %+v", c.in, got, c.want)
			}
		})
	}
	for _, c := range []struct {
		in   string
		want error
	}{
		{"alpha_nDCG@10", ErrIRMeasure},
		{"infAP", ErrIRMeasure},
		{"nDCG(gains={0:0,1:1})@10", ErrIRMeasure},
		{"nDCG(rel=2)@10", ErrIRMeasure},
		{"RBP(rel=1)", ErrIRMeasure},
		{"RBP(p=0)", ErrIRMeasure},
		{"SetF(beta=-1)", ErrIRMeasure},
		{"P(rel=two)@5", ErrIRMeasure},
		{"P", ErrBadCutoff},
		{"ERR", ErrBadCutoff},
		{"Rprec@5", ErrBadCutoff},
		{"P@0", ErrBadCutoff},
		{"IPrec@1.5", ErrBadLevel},
		{"P(rel=2", ErrUnknownMetric},
		{"P(rel)@5", ErrUnknownMetric},
		{"P(rel=1,rel=2)@5", ErrUnknownMetric},
		{"P@5(rel=2)", ErrUnknownMetric},
	} {
		t.Run(c.in, func(t *testing.T) {
			_, err := Parse(c.in)
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.in) {
				t.Errorf("Parse(%q): %v; want %v naming it", c.in, err, c.want)
			}
		})
	}
}

// TestIRMeasureOptions: an ir_measures measure's conventions override
// the run's, keep what is not a convention (-M), and equal a profile's.
func TestIRMeasureOptions(t *testing.T) {
	run := Options{Ties: TiesOptimistic, Gain: GainExp, MaxGrade: 7, Empty: EmptyError, MaxRanked: 50, JudgedOnly: true, IPrecRound: true}
	m, _ := Parse("P(rel=2)@5")
	want := Options{Ties: TiesTrec, Gain: GainLinear, MaxGrade: 7, RelThreshold: 2, HasThreshold: true, Empty: EmptyZero, NoEmpty: true, MaxRanked: 50}
	if got := m.Options(run); got != want {
		t.Errorf("P(rel=2)@5 under %+v: %+v, want %+v", run, got, want)
	}
	m, _ = Parse("ERR@20")
	want = Options{Ties: TiesTrec, Gain: GainExp, MaxGrade: 4, Empty: EmptyZero, NoEmpty: true, MaxRanked: 50}
	if got := m.Options(run); got != want {
		t.Errorf("ERR@20: %+v, want %+v", got, want)
	}
	m, _ = Parse("ndcg@10")
	if got := m.Options(run); got != run {
		t.Errorf("ndcg@10: %+v, want the run's", got)
	}
	if g, ok := MaxGrade([]Metric{mustParse(t, "err@5"), mustParse(t, "ERR@5")}, run); !ok || g != 4 {
		t.Errorf("MaxGrade = %v, %v; want 4 (gdeval's, below the run's 7)", g, ok)
	}
	if NeedsDocs([]Metric{mustParse(t, "ndcg@10")}, run) || !NeedsDocs([]Metric{mustParse(t, "ndcg@10"), mustParse(t, "AP")}, run) {
		t.Error("NeedsDocs: want true only with an ir_measures measure (ties by doc id)")
	}
}

func mustParse(t *testing.T, s string) Metric {
	t.Helper()
	m, err := Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestIRMeasuresDocumented: docs/metrics.md's table of ir_measures'
// measures names every one of them, computed or not, and no other.
func TestIRMeasuresDocumented(t *testing.T) {
	b, err := os.ReadFile("../docs/metrics.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "| ir_measures | rankeval computes it as |")
	end := strings.Index(doc[start:], "\n\n")
	if start < 0 || end < 0 {
		t.Fatal("no table of ir_measures' measures in docs/metrics.md")
	}
	listed := map[string]bool{}
	for _, row := range strings.Split(doc[start:start+end], "\n")[2:] {
		cell := strings.Split(row, "|")[1]
		for _, f := range strings.Split(cell, "`") {
			if base := irBase(strings.TrimSpace(f)); base != "" {
				listed[base] = true
			}
		}
	}
	for _, n := range IRMeasureNames() {
		if !listed[n] {
			t.Errorf("%s is not in docs/metrics.md's table", n)
		}
	}
	if len(listed) != len(IRMeasureNames()) {
		t.Errorf("the table lists %d names, the code %d", len(listed), len(IRMeasureNames()))
	}
}

// TestSplitMetrics: commas inside a measure's parentheses stay in it; a
// gate's value is cut at the last '=' outside them.
func TestSplitMetrics(t *testing.T) {
	got := strings.Join(SplitMetrics("ndcg@10,SetF(rel=2,beta=0.5),P(rel=2)@5"), "|")
	if want := "ndcg@10|SetF(rel=2,beta=0.5)|P(rel=2)@5"; got != want {
		t.Errorf("SplitMetrics = %s, want %s", got, want)
	}
	for in, want := range map[string][2]string{"P(rel=2)@5=0.3": {"P(rel=2)@5", "0.3"}, "ndcg@10=0.4": {"ndcg@10", "0.4"}, "SetF(rel=2,beta=0.5)=1": {"SetF(rel=2,beta=0.5)", "1"}} {
		m, v, ok := CutValue(in)
		if !ok || m != want[0] || v != want[1] {
			t.Errorf("CutValue(%q) = %q, %q, %v", in, m, v, ok)
		}
	}
	if _, _, ok := CutValue("P(rel=2)@5"); ok {
		t.Error("CutValue found a value inside the parentheses")
	}
	ms, _ := ParseList("P(rel=2)@5,10")
	if len(ms) != 2 || ms[1].Name != "P(rel=2)@10" || ms[1].K != 10 || ms[1].Conv.Rel != 2 {
		t.Errorf("P(rel=2)@5,10 = %+v", ms)
	}
	if i := Index(ms, "P(rel=2)@10"); i != 1 {
		t.Errorf("Index = %d, want 1", i)
	}
}

// TestParseIRRelNegative: rel= below 0 is refused, as rankeval
// trec_eval refuses -l -1: trec_eval then counts the unjudged documents
// relevant in some measures (P, map) and not in others (num_rel). rel=0
// is trec_eval's -l 0 (judged documents labelled 0 relevant, unjudged ones
// not: NeedsJudgments).
func TestParseIRRelNegative(t *testing.T) {
	for _, in := range []string{"P(rel=-1)@5", "AP(rel=-2)", "SetF(rel=-1,beta=0.5)"} {
		t.Run(in, func(t *testing.T) {
			_, err := Parse(in)
			if !errors.Is(err, ErrIRMeasure) || !strings.Contains(err.Error(), in) || !strings.Contains(err.Error(), "unjudged") {
				t.Errorf("Parse(%q): %v; want ErrIRMeasure naming it and saying why", in, err)
			}
		})
	}
	for _, in := range []string{"P(rel=0)@5", "P(rel=1)@5"} {
		m, err := Parse(in)
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		want := in == "P(rel=0)@5" // label 0 passes: unjudged rows must be told apart
		if got := NeedsJudgments([]Metric{m}, DefaultOptions()); got != want {
			t.Errorf("%s: NeedsJudgments = %v, want %v", in, got, want)
		}
	}
}

// TestIRGdevalNoRelevant: ir_measures scores 0 every query of its qrels
// for which its provider gives no value (providers.Evaluator.iter_calc
// fills Measure.DEFAULT); gdeval prints no line for a topic without a
// relevant document, so ERR@k and nDCG(dcg='exp-log2')@k of such a query
// are 0 and counted, not left out as gdeval.pl's own mean (--profile
// gdeval) leaves it.
func TestIRGdevalNoRelevant(t *testing.T) {
	ms := []Metric{mustParse(t, "ERR@20"), mustParse(t, "nDCG(dcg='exp-log2')@10"), mustParse(t, "nDCG@10")}
	for _, o := range []Options{DefaultOptions(), {MaxGrade: 4, Empty: EmptyError}} {
		e := NewEvaluator(ms, o)
		l := &List{Score: []float64{2, 1}, Label: []float64{0, 0}, Doc: [][]byte{[]byte("a"), []byte("b")}, Judged: []float64{0, 0}}
		out := make([]float64, len(ms))
		e.Eval(l, out)
		for i, m := range ms {
			if out[i] != 0 {
				t.Errorf("empty %v: %s = %v, want 0 (counted)", o.Empty, m.Name, out[i])
			}
		}
	}
	if RefusesEmpty([]Metric{mustParse(t, "ERR@20")}, Options{Empty: EmptyError}) {
		t.Error("--empty error refuses a query without a relevant row for ERR@20, which ir_measures scores 0")
	}
}

// TestIRPythonProvidersTies: ir_measures' RR@k is its msmarco provider's
// and Judged its judged provider's, Python code that sorts a query's
// documents by (−score, doc id): ties by doc id ascending, where
// trec_eval (RR without a cutoff) breaks them descending. Rows a (judged
// 0) and b (judged 1) tie at
// the top, c follows.
func TestIRPythonProvidersTies(t *testing.T) {
	ms := []Metric{mustParse(t, "RR@10"), mustParse(t, "MRR@10"), mustParse(t, "RR"), mustParse(t, "Judged@1"), mustParse(t, "rr@10")}
	l := &List{Score: []float64{1, 1, 0.5}, Label: []float64{0, 1, 0}, Doc: [][]byte{[]byte("a"), []byte("b"), []byte("c")},
		Judged: []float64{0, 1}, Status: []Judgment{Judged, Judged, Unjudged}}
	out := make([]float64, len(ms))
	NewEvaluator(ms, Options{MaxGrade: 4, Ties: TiesTrec}).Eval(l, out)
	// msmarco: a, b → 1/2; trec_eval's recip_rank: b, a → 1; judged: a
	// judged → 1; rankeval's rr@10 under --ties trec: 1
	want := []float64{0.5, 0.5, 1, 1, 1}
	for i, m := range ms {
		if out[i] != want[i] {
			t.Errorf("%s = %v, want %v", m.Name, out[i], want[i])
		}
	}
	l.Status = []Judgment{Unjudged, Judged, Judged} // now a is unjudged: Judged@1 = 0 (a first)
	NewEvaluator(ms, Options{MaxGrade: 4, Ties: TiesTrec}).Eval(l, out)
	if out[3] != 0 {
		t.Errorf("Judged@1 = %v with a unjudged first, want 0", out[3])
	}
	if !NeedsDocs([]Metric{mustParse(t, "RR@10")}, Options{}) || !NeedsDocs([]Metric{mustParse(t, "Judged@5")}, Options{}) {
		t.Error("NeedsDocs: RR@10 and Judged@5 order ties by doc id")
	}
	if _, err := Parse("RR(judged_only=True)@10"); !errors.Is(err, ErrIRMeasure) {
		t.Errorf("RR(judged_only=True)@10: %v; want ErrIRMeasure (msmarco's RR@k has no judged_only, pytrec_eval's RR no cutoff)", err)
	}
}

// TestIRRBPRel: RBP(rel=r), ir_measures' cwl_eval RBP (binary gains,
// ties in the run's order), is refused saying what rankeval's RBP is:
// trec_eval 10.0's graded rbp, the meaning the ordinary command gives
// RBP(p=x), equal to the drop-in's rbp.p=x (TestIRMeasuresAsTrecEval).
func TestIRRBPRel(t *testing.T) {
	_, err := Parse("RBP(rel=2,p=0.5)")
	if !errors.Is(err, ErrIRMeasure) || !strings.Contains(err.Error(), "cwl_eval RBP, of binary gains") {
		t.Errorf("RBP(rel=2,p=0.5): %v; want ErrIRMeasure naming cwl_eval's binary RBP", err)
	}
}

// TestIndexIRCase: a name in ir_measures' spelling finds only the
// metric of that meaning, never a rankeval name that equals it but for
// case (nDCG@10 is trec_eval's ndcg_cut.10, ndcg@10 the run's own).
func TestIndexIRCase(t *testing.T) {
	own := []Metric{mustParse(t, "ndcg@10"), mustParse(t, "map")}
	both := []Metric{mustParse(t, "nDCG@10"), mustParse(t, "ndcg@10")}
	for _, c := range []struct {
		ms   []Metric
		name string
		want int
	}{
		{own, "ndcg@10", 0},
		{own, "NdCg@10", 0},
		{own, "nDCG@10", -1},
		{own, "NDCG@10", -1},
		{own, "MAP", -1},
		{own, "Map", 1},
		{both, "nDCG@10", 0},
		{both, "NDCG@10", 0},
		{both, "ndcg@10", 1},
		{both, "ndcg_cut_10", 1},
	} {
		if got := Index(c.ms, c.name); got != c.want {
			t.Errorf("Index(%s, %q) = %d, want %d", c.ms[0].Name, c.name, got, c.want)
		}
	}
}

// TestIRGdevalMaxGrade: gdeval refuses a judgment above 4 for every
// measure it computes, so nDCG(dcg='exp-log2')@k has a maximum grade as
// ERR@k has (ir_measures fails on such a qrels file; rankeval refuses
// the label rather than give a number ir_measures cannot).
func TestIRGdevalMaxGrade(t *testing.T) {
	run := Options{MaxGrade: 10}
	for _, c := range []struct {
		list string
		g    float64
		ok   bool
	}{
		{"nDCG(dcg='exp-log2')@10", 4, true},
		{"ERR@10", 4, true},
		{"nDCG@10,ndcg@10", 0, false},
		{"err@10", 10, true},
	} {
		ms, err := ParseList(c.list)
		if err != nil {
			t.Fatal(err)
		}
		if g, ok := MaxGrade(ms, run); g != c.g || ok != c.ok {
			t.Errorf("MaxGrade(%s) = %v, %v; want %v, %v", c.list, g, ok, c.g, c.ok)
		}
	}
}
