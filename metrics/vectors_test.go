package metrics

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/internal/vectors"
)

// vectorsDir is the repository's testdata/vectors (a copy of the project's
// shared vectors); the test fails, never skips, when it is missing.
func vectorsDir(t testing.TB) string {
	t.Helper()
	d, err := vectors.Testdata()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(d, "vectors")
}

type query struct {
	id   string
	list List
}

// loadLog reads a vectors log (JSON lines) into its queries, in order.
func loadLog(t testing.TB, path string) []query {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var qs []query
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var row struct {
			Query any     `json:"query_id"`
			Doc   any     `json:"doc_id"`
			Score float64 `json:"score"`
			Label float64 `json:"label"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		id := fmt.Sprint(row.Query)
		if len(qs) == 0 || qs[len(qs)-1].id != id {
			qs = append(qs, query{id: id})
		}
		l := &qs[len(qs)-1].list
		l.Score = append(l.Score, row.Score)
		l.Label = append(l.Label, row.Label)
		l.Doc = append(l.Doc, []byte(fmt.Sprint(row.Doc)))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return qs
}

type vecOptions struct {
	Ties         string   `json:"ties"`
	Gain         string   `json:"gain"`
	Empty        string   `json:"empty"`
	MaxGrade     float64  `json:"max_grade"`
	RelThreshold *float64 `json:"rel_threshold"`
}

func (v vecOptions) String() string {
	th := "none"
	if v.RelThreshold != nil {
		th = fmt.Sprint(*v.RelThreshold)
	}
	return fmt.Sprintf("ties=%s,gain=%s,empty=%s,G=%g,T=%s", v.Ties, v.Gain, v.Empty, v.MaxGrade, th)
}

func (v vecOptions) options(t testing.TB) Options {
	t.Helper()
	o := Options{MaxGrade: v.MaxGrade}
	ties := map[string]Ties{"input": TiesInput, "trec": TiesTrec, "optimistic": TiesOptimistic, "pessimistic": TiesPessimistic, "average": TiesAverage}
	gains := map[string]Gain{"exp": GainExp, "linear": GainLinear}
	empties := map[string]Empty{"skip": EmptySkip, "zero": EmptyZero, "one": EmptyOne, "error": EmptyError}
	var ok1, ok2, ok3 bool
	o.Ties, ok1 = ties[v.Ties]
	o.Gain, ok2 = gains[v.Gain]
	o.Empty, ok3 = empties[v.Empty]
	if !ok1 || !ok2 || !ok3 {
		t.Fatalf("unknown options %v", v)
	}
	if v.RelThreshold != nil {
		o.HasThreshold, o.RelThreshold = true, *v.RelThreshold
	}
	return o
}

type vecFile struct {
	Input   string   `json:"input"`
	Metrics []string `json:"metrics"`
	Cases   []struct {
		Options  vecOptions                     `json:"options"`
		PerQuery map[string]map[string]*float64 `json:"per_query"`
		Summary  map[string]struct {
			Mean    *float64 `json:"mean"`
			Queries int      `json:"queries"`
		} `json:"summary"`
	} `json:"cases"`
}

func readJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func mustParseList(t testing.TB, names []string) []Metric {
	t.Helper()
	ms, err := ParseList(strings.Join(names, ","))
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// near is the vectors' agreement rule: within tol relative, NaN matching NaN.
func near(got, want, tol float64) bool {
	if math.IsNaN(got) || math.IsNaN(want) {
		return math.IsNaN(got) && math.IsNaN(want)
	}
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))
}

// evalAll runs every query and returns values[query][metric] and, per
// metric, the mean over defined values and their count.
func evalAll(qs []query, ms []Metric, o Options) (vals [][]float64, empty []bool, means []float64, counts []int) {
	e := NewEvaluator(ms, o)
	means = make([]float64, len(ms))
	counts = make([]int, len(ms))
	for i := range qs {
		out := make([]float64, len(ms))
		empty = append(empty, e.Eval(&qs[i].list, out))
		vals = append(vals, out)
		for j, v := range out {
			if !math.IsNaN(v) {
				means[j] += v
				counts[j]++
			}
		}
	}
	for j := range means {
		if counts[j] > 0 {
			means[j] /= float64(counts[j])
		} else {
			means[j] = math.NaN()
		}
	}
	return vals, empty, means, counts
}

func TestVectors(t *testing.T) {
	dir := vectorsDir(t)
	files, err := filepath.Glob(filepath.Join(dir, "*.expected.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no *.expected.json in %s (%v)", dir, err)
	}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".expected.json")
		t.Run(name, func(t *testing.T) {
			var vf vecFile
			readJSON(t, path, &vf)
			input := vf.Input
			if input == "" {
				input = name + ".jsonl"
			}
			qs := loadLog(t, filepath.Join(dir, input))
			ms := mustParseList(t, vf.Metrics)
			if len(vf.Cases) == 0 {
				t.Fatal("no cases")
			}
			for _, c := range vf.Cases {
				t.Run(c.Options.String(), func(t *testing.T) {
					o := c.Options.options(t)
					vals, empty, means, counts := evalAll(qs, ms, o)
					if len(c.PerQuery) != len(qs) {
						t.Errorf("expected has %d queries, log has %d", len(c.PerQuery), len(qs))
					}
					// Per query the vectors print null for an empty query under
					// every policy and apply zero/one only in the summary; Eval
					// applies the policy itself.
					fill := emptyValue(o.Empty)
					for i, q := range qs {
						want, ok := c.PerQuery[q.id]
						if !ok {
							t.Errorf("query %s missing from expected", q.id)
							continue
						}
						for j, m := range ms {
							w, ok := want[m.Name]
							if !ok {
								t.Fatalf("query %s: no expected %s", q.id, m.Name)
							}
							wv := math.NaN()
							corr := m.Kind == KindKendall || m.Kind == KindSpearman
							switch {
							case w != nil:
								wv = *w
							case empty[i] && !corr:
								wv = fill
							}
							if got := vals[i][j]; !near(got, wv, 1e-9) {
								t.Errorf("query %s %s = %.17g, want %.17g", q.id, m.Name, got, wv)
							}
						}
					}
					for j, m := range ms {
						s, ok := c.Summary[m.Name]
						if !ok {
							t.Fatalf("no summary for %s", m.Name)
						}
						wm, wn := ptrOr(s.Mean), s.Queries
						if !near(means[j], wm, 1e-9) || counts[j] != wn {
							t.Errorf("summary %s = %.17g over %d queries, want %.17g over %d", m.Name, means[j], counts[j], wm, wn)
						}
					}
				})
			}
		})
	}
}

func ptrOr(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// TestBigTiesMonteCarlo checks TiesAverage on tied groups far too large to
// enumerate against the Monte Carlo estimates shipped with the vectors.
func TestBigTiesMonteCarlo(t *testing.T) {
	dir := vectorsDir(t)
	var mc struct {
		Input   string   `json:"input"`
		Metrics []string `json:"metrics"`
		Summary map[string]struct {
			Mean    float64 `json:"mean"`
			SE      float64 `json:"se"`
			Queries int     `json:"queries"`
		} `json:"summary"`
	}
	readJSON(t, filepath.Join(dir, "big_ties.mc.json"), &mc)
	qs := loadLog(t, filepath.Join(dir, mc.Input))
	ms := mustParseList(t, mc.Metrics)
	o := Options{Ties: TiesAverage, Gain: GainExp, MaxGrade: 4, Empty: EmptySkip}
	_, _, means, counts := evalAll(qs, ms, o)
	for j, m := range ms {
		t.Run(m.Name, func(t *testing.T) {
			s, ok := mc.Summary[m.Name]
			if !ok {
				t.Fatalf("no Monte Carlo summary for %s", m.Name)
			}
			if counts[j] != s.Queries {
				t.Errorf("queries = %d, want %d", counts[j], s.Queries)
			}
			if z := (means[j] - s.Mean) / s.SE; math.Abs(z) > 4.5 || math.IsNaN(z) {
				t.Errorf("mean = %.10g, Monte Carlo %.10g ± %.3g: %.2f se away", means[j], s.Mean, s.SE, z)
			} else {
				t.Logf("mean = %.10g, Monte Carlo %.10g: %.2f se", means[j], s.Mean, z)
			}
		})
	}
}

// TestWorkedExamples checks the figures of the source documents of
// docs/metrics.md §6 (Worked examples) from inline data, so they hold apart from the vector files.
func TestWorkedExamples(t *testing.T) {
	example := List{
		Score: []float64{0.9, 0.85, 0.71, 0.63, 0.47, 0.36, 0.24, 0.16},
		Label: []float64{1, 0, 1, 1, 0, 1, 0, 0},
	}
	phone := List{Score: []float64{10, 9, 8, 7, 6, 5, 4}, Label: []float64{1, 1, 0, 0, 1, 0, 0}}
	watch := List{Score: []float64{10, 9, 8, 7, 6, 5, 4}, Label: []float64{0, 1, 1, 0, 0, 1, 1}}
	round4 := func(v float64) float64 { return math.Round(v*1e4) / 1e4 }

	ms := mustParseList(t, []string{"p@4", "r@4", "f1@4", "ap", "dcg@8", "ndcg@8"})
	for _, gain := range []Gain{GainExp, GainLinear} {
		// Binary labels make 2^y - 1 = y, so both gains give the same DCG.
		t.Run(fmt.Sprintf("example/gain=%d", gain), func(t *testing.T) {
			o := DefaultOptions()
			o.Gain = gain
			out := make([]float64, len(ms))
			NewEvaluator(ms, o).Eval(&example, out)
			want := []float64{0.75, 0.75, 0.75, 37.0 / 48, 2.2869, 0.8928}
			for j, m := range ms {
				got := out[j]
				if m.Kind == KindDCG || m.Kind == KindNDCG {
					got = round4(got)
				}
				if !near(got, want[j], 1e-12) {
					t.Errorf("%s = %.17g, want %.17g", m.Name, got, want[j])
				}
			}
		})
	}
	t.Run("phone-watch-map", func(t *testing.T) {
		ms := mustParseList(t, []string{"map"})
		e := NewEvaluator(ms, DefaultOptions())
		var sum float64
		for _, l := range []*List{&phone, &watch} {
			out := []float64{0}
			e.Eval(l, out)
			sum += out[0]
		}
		if got := sum / 2; !near(got, 599.0/840, 1e-12) {
			t.Errorf("MAP = %.17g, want 599/840 = %.17g", got, 599.0/840)
		}
	})
}
