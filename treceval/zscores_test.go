package treceval

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rankeval/rankeval/metrics"
)

// TestZscores: -Z's conversion, with trec_eval's lookups: a measure
// sought past a query's lines finds the next query's first line when it
// is that measure (trec_eval's binary search probes one past its array);
// no line, or a stddev of 0 and another value, is -1000000.
func TestZscores(t *testing.T) {
	p := filepath.Join(t.TempDir(), "z")
	text := "302 map 0.5 0.25\n301 P_5 0.1 0.2\n303 map 0 1\n303 P_5 0.4 0\n303 num_ret 10 0\n"
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	z, err := readZscores(p)
	if err != nil {
		t.Fatal(err)
	}
	vs := []value{
		{name: "runid", rule: ruleRunID},
		{name: "map", metrics: []metrics.Metric{{}}},
		{name: "P_5", metrics: []metrics.Metric{{}}},
		{name: "num_ret", metrics: []metrics.Metric{{}}},
	}
	zs := func(v, mean, sd float64) float64 { return (v - mean) / sd } // at run time, as convert
	for _, tc := range []struct {
		qid       string
		vals, out []float64
	}{
		// map is not 301's, but 302's first line is map: (0.0324-0.5)/0.25
		{"301", []float64{0.0324, 0.3, 7}, []float64{zs(0.0324, 0.5, 0.25), zs(0.3, 0.1, 0.2), missingZscore}},
		{"302", []float64{0.5, 0.3, 7}, []float64{0, missingZscore, missingZscore}},
		// stddev 0: 0 at the mean, missing elsewhere
		{"303", []float64{2, 0.4, 9}, []float64{2, 0, missingZscore}},
		{"300", []float64{1, 1, 1}, []float64{missingZscore, missingZscore, missingZscore}},
	} {
		got := append([]float64(nil), tc.vals...)
		if err := z.convert(tc.qid, vs, got); err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if got[i] != tc.out[i] {
				t.Errorf("%s: %v, want %v", tc.qid, got, tc.out)
				break
			}
		}
	}
	for _, bad := range []string{"301 map 0.5\n", "301 map 0.5 1 2\n", "301 map 0.5 1\n\n", ""} {
		if err := os.WriteFile(p, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := readZscores(p); err == nil {
			t.Errorf("%q read", bad)
		}
	}
}

// TestZscoresPastTheEnd: a query after every query of ZSCORES, or a
// measure after every line of its last query, makes trec_eval's binary
// search read past its array (a segmentation fault): refused.
func TestZscoresPastTheEnd(t *testing.T) {
	p := filepath.Join(t.TempDir(), "z")
	if err := os.WriteFile(p, []byte("301 P_5 0.1 0.2\n303 map 0 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	z, err := readZscores(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, qid, meas string
		refused         bool
	}{
		{"query after all", "304", "map", true},
		{"measure after the last line", "303", "num_ret", true},
		{"measure after a query's lines, not the last", "301", "map", false},
		{"query before all", "300", "map", false},
		{"found", "303", "map", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vals := []float64{0.5}
			err := z.convert(tc.qid, []value{{name: tc.meas, metrics: []metrics.Metric{{}}}}, vals)
			if (err != nil) != tc.refused {
				t.Fatalf("err %v, want refused %v", err, tc.refused)
			}
		})
	}
}
