package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/stats"
)

// powerSummary is the part of a JSON summary the power figures are in.
type powerSummary struct {
	Comparison []struct {
		Metrics map[string]struct {
			Queries int64
			MDE     *float64 `json:"mde"`
			Detect  []struct {
				Delta  float64
				Needed *int64
				Unit   string
				Note   string
			}
		}
	}
}

func parsePower(t *testing.T, out string) powerSummary {
	t.Helper()
	var s powerSummary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	if len(s.Comparison) == 0 {
		t.Fatalf("no comparison in %s", out)
	}
	return s
}

// TestPowerRecomputed: the MDE and the --detect answers printed (JSON and
// text) are those of the standard deviation of the per-query differences
// of the --per-query records, recomputed here by two passes: the MDE the
// power function's root times it, the queries needed the least n whose
// power reaches 80%.
func TestPowerRecomputed(t *testing.T) {
	dir := t.TempDir()
	log, _ := fourSystems(t, dir, 60)
	pq := filepath.Join(dir, "pq.jsonl")
	deltas := map[string]float64{"ndcg@10": 0.02, "map": 0.05}
	args := []string{"--quiet", "-m", "ndcg@10,map", "--score-col", "s0,s1", "--detect", "ndcg@10=0.02,map=0.05"}
	code, out, stderr := cli(t, append(args, "--format", "json", "--per-query", pq, log)...)
	if code != 0 {
		t.Fatal(stderr)
	}
	got := parsePower(t, out)
	_, text, _ := cli(t, append(args, log)...)

	diffs := map[string][]float64{}
	f, err := os.Open(pq)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var rec struct {
			QueryID string `json:"query_id"`
			Systems map[string]map[string]*float64
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil || rec.QueryID == "" {
			continue // the summary's line
		}
		for m := range deltas {
			if a, b := rec.Systems["s0"][m], rec.Systems["s1"][m]; a != nil && b != nil { // null: an empty query, left out
				diffs[m] = append(diffs[m], *b-*a)
			}
		}
	}
	for m, delta := range deltas {
		t.Run(m, func(t *testing.T) {
			ds := diffs[m]
			n := int64(len(ds))
			mean := 0.0
			for _, d := range ds {
				mean += d
			}
			mean /= float64(n)
			ss := 0.0
			for _, d := range ds {
				ss += (d - mean) * (d - mean)
			}
			sd := math.Sqrt(ss / float64(n-1))
			wantMDE := stats.MDEFactor(n) * sd
			wantN := stats.DetectN(delta, sd)
			// the least n: 80% reached there and not one query before
			if p, p1 := stats.TPower(delta/sd, wantN), stats.TPower(delta/sd, wantN-1); !(p >= 0.8 && p1 < 0.8) {
				t.Fatalf("n %d: power %v, at n-1 %v", wantN, p, p1)
			}
			c := got.Comparison[0].Metrics[m]
			if c.Queries != n || n < 50 {
				t.Fatalf("queries %d, per-query differences %d", c.Queries, n)
			}
			if c.MDE == nil || math.Abs(*c.MDE-wantMDE) > 1e-9*wantMDE {
				t.Errorf("mde %v, recomputed %v", c.MDE, wantMDE)
			}
			if len(c.Detect) != 1 || c.Detect[0].Needed == nil || *c.Detect[0].Needed != wantN || c.Detect[0].Unit != "queries" || c.Detect[0].Delta != delta {
				t.Errorf("detect %+v, recomputed %d queries", c.Detect, wantN)
			}
			if row := fmt.Sprintf("%.4f", wantMDE); !strings.Contains(text, row) {
				t.Errorf("text has no MDE %s:\n%s", row, text)
			}
			// 2 of the 60 queries have no relevant row: the answer counts
			// the 58 that define the difference, and the 60 at that rate
			inAll := int64(math.Ceil(float64(wantN) * (60.0 / float64(n))))
			if line := fmt.Sprintf("  %s, a difference of %g: %d queries that define the difference, about %d in all at this run's rate (sd of the differences %.4g over %d of 60 queries)\n", m, delta, wantN, inAll, sd, n); !strings.Contains(text, line) {
				t.Errorf("text has no line %q:\n%s", line, text)
			}
		})
	}
}

// TestPowerEdges: where the t-test has no power function (one query, or
// differences all equal) the MDE is null in JSON and n/a in text, and so
// is the --detect answer, with a note saying why; a difference beyond
// every spread needs 2 queries, a tiny one more than the bound; a click
// metric counts impressions; a merge of one system's states refuses
// --detect.
func TestPowerEdges(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, queries int, same bool) string {
		var b strings.Builder
		for q := range queries {
			for d := range 4 {
				label := (q + d) % 2
				s0 := float64((q*7+d*3)%5) / 5
				s1 := s0
				if !same {
					s1 = float64((q*3+d*5)%7) / 7
				}
				fmt.Fprintf(&b, `{"query_id":"q%d","doc_id":"d%d","label":%d,"a":%v,"b":%v}`+"\n", q, d, label, s0, s1)
			}
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	same, one, varied := write("same.jsonl", 6, true), write("one.jsonl", 1, false), write("varied.jsonl", 30, false)
	for _, tc := range []struct {
		name, log, metric, detect string
		mde                       bool // defined
		needed                    int64
		unit, note, text          string
	}{
		{"no spread", same, "map", "map=0.01", false, 0, "queries", "the per-query differences have no spread: the t-test has no power function",
			"  map, a difference of 0.01: n/a (the per-query differences have no spread: the t-test has no power function)\n"},
		{"one query", one, "map", "map=0.01", false, 0, "queries", "fewer than 2 queries define the difference: no spread to plan with",
			"  map, a difference of 0.01: n/a (fewer than 2 queries define the difference: no spread to plan with)\n"},
		{"beyond every spread", varied, "map", "map=1000", true, 2, "queries", "", "  map, a difference of 1000: 2 queries ("},
		{"past the bound", varied, "map", "map=1e-12", true, 0, "queries", "more than 1000000000000000 queries",
			"  map, a difference of 1e-12: n/a (more than 1000000000000000 queries)\n"},
		{"click metric", varied, "ctr@3", "ctr@3=0.01", true, -1, "impressions", "", " impressions (sd of the differences "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"--quiet", "--score-col", "a,b", "-m", tc.metric, "--detect", tc.detect, tc.log}
			code, out, stderr := cli(t, append([]string{"--format", "json"}, args...)...)
			if code != 0 {
				t.Fatal(stderr)
			}
			c := parsePower(t, out).Comparison[0].Metrics[tc.metric]
			if (c.MDE != nil) != tc.mde || strings.Contains(out, "NaN") {
				t.Errorf("mde %v, want defined %v", c.MDE, tc.mde)
			}
			if len(c.Detect) != 1 {
				t.Fatalf("detect %+v", c.Detect)
			}
			d := c.Detect[0]
			switch {
			case tc.needed == 0 && d.Needed != nil, tc.needed > 0 && (d.Needed == nil || *d.Needed != tc.needed), tc.needed < 0 && d.Needed == nil:
				t.Errorf("needed %v, want %d", d.Needed, tc.needed)
			}
			if d.Unit != tc.unit || d.Note != tc.note {
				t.Errorf("unit %q note %q, want %q %q", d.Unit, d.Note, tc.unit, tc.note)
			}
			_, text, _ := cli(t, args...)
			if !strings.Contains(text, tc.text) || strings.Contains(text, "NaN") {
				t.Errorf("text has no %q:\n%s", tc.text, text)
			}
			if !tc.mde && !strings.Contains(text, "        n/a ") {
				t.Errorf("text has no n/a MDE:\n%s", text)
			}
		})
	}
	t.Run("rank similarity", func(t *testing.T) {
		// a similarity to the baseline has no difference against the
		// baseline: a request no comparison answers is refused, in a run
		// and in a merge
		const refused = "--detect: churn@3 is a rank similarity to the baseline"
		args := []string{"--quiet", "--score-col", "a,b", "-m", "ndcg@10,churn@3"}
		code, out, stderr := cli(t, append(args, "--detect", "churn@3=0.01,ndcg@10=0.05", varied)...)
		if code != 2 || out != "" || !strings.Contains(stderr, refused) {
			t.Fatalf("exit %d, stdout %q, stderr %q", code, out, stderr)
		}
		st := filepath.Join(dir, "pair.state")
		if code, _, stderr := cli(t, append(args, "--state", st, varied)...); code != 0 {
			t.Fatal(stderr)
		}
		code, out, stderr = cli(t, "merge", "--detect", "churn@3=0.01", st)
		if code != 2 || out != "" || !strings.Contains(stderr, refused) {
			t.Fatalf("merge: exit %d, stdout %q, stderr %q", code, out, stderr)
		}
		code, text, stderr := cli(t, "merge", "--detect", "ndcg@10=0.05", st)
		if code != 0 || !strings.Contains(text, "  ndcg@10, a difference of 0.05: ") {
			t.Fatalf("merge: exit %d, stderr %q:\n%s", code, stderr, text)
		}
	})
	t.Run("merge of one system", func(t *testing.T) {
		st := filepath.Join(dir, "one.state")
		if code, _, stderr := cli(t, "--quiet", "--score-col", "a", "-m", "map", "--state", st, varied); code != 0 {
			t.Fatal(stderr)
		}
		code, out, stderr := cli(t, "merge", "--detect", "map=0.01", st)
		if code != 2 || out != "" || !strings.Contains(stderr, "--detect answers for a comparison of systems") {
			t.Fatalf("exit %d, stdout %q, stderr %q", code, out, stderr)
		}
		code, _, stderr = cli(t, "merge", "--detect", "ndcg@10=0.01", st)
		if code != 2 || !strings.Contains(stderr, `--detect: "ndcg@10" is not among the metrics computed`) {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
	})
}

// TestPowerUnitsDefined: the queries or impressions --detect counts are
// those that define the difference (a click metric such as first_click is
// undefined on an impression without a click, ndcg@10 on a query without
// a relevant row), so the answer says so when the run has others, and a
// plan does not read "N impressions" as N impressions to collect.
func TestPowerUnitsDefined(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for q := range 60 {
		for d := range 4 {
			click := 0
			if q%3 != 0 && (q+d)%3 == 0 { // a third of the impressions have no click
				click = 1
			}
			fmt.Fprintf(&b, `{"query_id":"q%d","doc_id":"d%d","label":%d,"a":%v,"b":%v}`+"\n", q, d, click, float64((q*7+d*3)%5)/5, float64((q*3+d*5)%7)/7)
		}
	}
	log := filepath.Join(dir, "clicks.jsonl")
	if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, text, stderr := cli(t, "--quiet", "--score-col", "a,b", "-m", "first_click,ndcg@10", "--detect", "first_click=0.5,ndcg@10=0.05", log)
	if code != 0 {
		t.Fatal(stderr)
	}
	for _, want := range []string{"over 40 of 60 impressions", "over 40 of 60 queries"} {
		if !strings.Contains(text, want) {
			t.Errorf("text has no %q:\n%s", want, text)
		}
	}
}

// TestPowerGeometricMean: gm_map's comparison is of the mean logarithm of
// ap (its table prints the geometric means), so a --detect difference on
// it is one of logarithms; the answer says so, or the request is refused,
// rather than reading as a difference of gm_map's printed means.
func TestPowerGeometricMean(t *testing.T) {
	dir := t.TempDir()
	log, _ := fourSystems(t, dir, 60)
	code, text, stderr := cli(t, "--quiet", "--score-col", "s0,s1", "-m", "gm_map", "--detect", "gm_map=0.01", log)
	if code == 2 {
		return // refused: fine
	}
	if code != 0 {
		t.Fatal(stderr)
	}
	if !strings.Contains(text, "logarithm") {
		t.Errorf("the gm_map answer does not say its difference is of logarithms:\n%s", text)
	}
}

// TestPowerTableFormats: --format markdown and latex print a table of
// means; a --detect request there is answered (under the table) or
// refused, not dropped with exit 0.
func TestPowerTableFormats(t *testing.T) {
	dir := t.TempDir()
	log, _ := fourSystems(t, dir, 60)
	for _, format := range []string{"markdown", "latex"} {
		t.Run(format, func(t *testing.T) {
			code, out, stderr := cli(t, "--quiet", "--score-col", "s0,s1", "-m", "ndcg@10", "--detect", "ndcg@10=0.02", "--format", format, log)
			if code == 2 {
				return // refused: fine
			}
			if code != 0 || !strings.Contains(out, " queries") || !strings.Contains(out, "0.02") {
				t.Errorf("exit %d, stderr %q: no answer to --detect in\n%s", code, stderr, out)
			}
		})
	}
}
