package main

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// TestTrecProfileBelowThreshold: under --profile trec_eval a query whose
// judgments are all below --rel-threshold (trec_eval's -l) is evaluated by
// each measure's formula, as trec_eval evaluates it: its ndcg counts the
// gains below the threshold. The profile's "empty zero" gave it 0 (exit
// 0), where trec_eval 10.0 -l 2 prints 0.9197.
func TestTrecProfileBelowThreshold(t *testing.T) {
	qrels := writeTemp(t, "qrels", "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 1\nq2 0 d1 2\nq2 0 d2 1\n")
	run := writeTemp(t, "run", "q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 2.0 r\nq1 Q0 d3 3 1.0 r\nq2 Q0 d2 1 3.0 r\nq2 Q0 d1 2 2.0 r\n")
	// q1, labels 1 0 1 ranked, none >= 2: dcg 1 + 1/log2(4) = 1.5, ideal
	// (1 1 0) 1 + 1/log2(3); map 0 (R = 0). q2: d2 (1), d1 (2): dcg 1 +
	// 2/log2(3), ideal 2 + 1/log2(3); map: its relevant row at rank 2, 1/2.
	l3 := math.Log2(3)
	want := map[string]float64{
		"ndcg q1": 1.5 / (1 + 1/l3), "map q1": 0,
		"ndcg q2": (1 + 2/l3) / (2 + 1/l3), "map q2": 0.5,
	}
	want["ndcg all"] = (want["ndcg q1"] + want["ndcg q2"]) / 2
	want["map all"] = 0.25
	code, out, stderr := cli(t, "--quiet", "--qrels", qrels, "--profile", "trec_eval", "--rel-threshold", "2",
		"--format", "trec", "--per-query", "-", "-m", "ndcg,map", run)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got := 0
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		w, ok := want[f[0]+" "+f[1]]
		if !ok {
			continue
		}
		v, _ := strconv.ParseFloat(f[2], 64)
		if math.Abs(v-w) > 5e-5 {
			t.Errorf("%s %s = %s, want %.4f", f[0], f[1], f[2], w)
		}
		got++
	}
	if got != len(want) {
		t.Fatalf("%d of %d values printed:\n%s", got, len(want), out)
	}
}
