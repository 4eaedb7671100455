package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestGolden pins every layout summary renders (text, JSON and trec; one
// system or several with slices; per-query records as JSON lines and in
// trec_eval's layout), so a change to any shared renderer shows here.
func TestGolden(t *testing.T) {
	sample := filepath.Join("..", "..", "testdata", "sample.jsonl.zst")
	compare, _, _ := comparePaths()
	tests := []struct {
		name string
		args []string
	}{
		{"sample.text", []string{sample}},
		{"sample.json", []string{"--format", "json", sample}},
		{"sample.all-metrics.json", []string{"--format", "json", "--ties", "average", "-m",
			"p@5,r@10,f1@10,f0.5@10,hit@1,ap,ap@10,rr,rr@5,rprec,cg@5,dcg@5,ndcg,ndcg@5,err,nerr@10,kendall,spearman@10", sample}},
		{"sample.trec", []string{"--format", "trec", "-m", "map,ndcg@10,p@5,recall@10,rr", sample}},
		{"sample.per-query.trec", []string{"--format", "trec", "-m", "map,ndcg@10", "--per-query", "-", sample}},
		{"sample.per-query.jsonl", []string{"--format", "json", "-m", "map,ndcg@10,kendall", "--empty", "zero", "--per-query", "-", sample}},
		{"compare.text", append(slices.Clone(compareArgs), compare)},
		{"compare.per-query.jsonl", append(slices.Clone(compareArgs), "--format", "json", "--per-query", "-", compare)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := cli(t, append([]string{"--quiet"}, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			golden := filepath.Join("..", "..", "testdata", "golden", tc.name)
			if *update {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./cmd/rankeval -run TestGolden -update)", err)
			}
			if out != string(want) {
				t.Fatalf("output differs from %s:\n%s", golden, out)
			}
		})
	}
}
