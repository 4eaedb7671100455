package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// missingForms writes the rows of nullParquet (two queries of 5 rows, the
// score of row 7 missing) as JSONL with a null, as CSV with an empty field
// (as pandas writes NaN) and as that Parquet file; and, to compare with,
// the JSONL without row 7 (what drop means) and with its score below every
// other (what last means).
func missingForms(t *testing.T) (forms map[string]string, without, lowest string) {
	t.Helper()
	dir := t.TempDir()
	var js, csv, wo, lo strings.Builder
	csv.WriteString("query_id,score,label\n")
	for i := range 10 {
		q, l := fmt.Sprint("q", i/5), i%2
		if i == 6 {
			fmt.Fprintf(&js, `{"query_id":%q,"score":null,"label":%d}`+"\n", q, l)
			fmt.Fprintf(&csv, "%s,,%d\n", q, l)
			fmt.Fprintf(&lo, `{"query_id":%q,"score":-1000,"label":%d}`+"\n", q, l)
			continue
		}
		row := fmt.Sprintf(`{"query_id":%q,"score":%d,"label":%d}`+"\n", q, i, l)
		js.WriteString(row)
		wo.WriteString(row)
		lo.WriteString(row)
		fmt.Fprintf(&csv, "%s,%d.0,%d\n", q, i, l)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	forms = map[string]string{
		"jsonl":   write("log.jsonl", []byte(js.String())),
		"csv":     write("log.csv", []byte(csv.String())),
		"parquet": write("log.parquet", nullParquet(t)),
	}
	return forms, write("without.jsonl", []byte(wo.String())), write("lowest.jsonl", []byte(lo.String()))
}

type missingJSON struct {
	summaryJSON
	MissingScore *struct {
		Policy string `json:"policy"`
		Rows   int64  `json:"rows"`
	} `json:"missing_score"`
}

func missingSummary(t *testing.T, args ...string) missingJSON {
	t.Helper()
	code, stdout, stderr := cli(t, append([]string{"--quiet", "--format", "json", "-m", "map,p@5,ndcg@10"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var s missingJSON
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	return s
}

// TestMissingScore: a missing score stops the run with a message naming
// --missing-score; drop leaves the row out of its query (the figures of
// the input without it), last ranks it after every scored row (the
// figures of the input with the lowest score there), and the summary
// counts the rows in every format.
func TestMissingScore(t *testing.T) {
	forms, without, lowest := missingForms(t)
	for format, in := range forms {
		t.Run(format+"/error", func(t *testing.T) {
			code, _, stderr := cli(t, "--quiet", in)
			if code != 1 || !strings.Contains(stderr, "--missing-score last or drop") {
				t.Fatalf("exit %d, stderr %q: want 1 and a message naming --missing-score", code, stderr)
			}
		})
		for policy, ref := range map[string]string{"drop": without, "last": lowest} {
			t.Run(format+"/"+policy, func(t *testing.T) {
				got := missingSummary(t, "--missing-score", policy, in)
				want := missingSummary(t, ref)
				for m, w := range want.Metrics {
					if g := got.Metrics[m]; g.Mean == nil || *g.Mean != *w.Mean {
						t.Errorf("%s = %v, want %v", m, fmtp(g.Mean), *w.Mean)
					}
				}
				// the same figures and count by --unsorted, and for the
				// baseline of two --system logs
				for _, other := range [][]string{{"--unsorted", in}, {"--system", "x=" + in, "--system", "y=" + ref}} {
					o := missingSummary(t, append([]string{"--missing-score", policy}, other...)...)
					if mo, mg := o.Metrics["map"].Mean, got.Metrics["map"].Mean; mo == nil || *mo != *mg || o.MissingScore == nil || o.MissingScore.Rows != 1 {
						t.Errorf("%v: map %v, missing %+v; want %v and 1", other, fmtp(mo), o.MissingScore, *mg)
					}
				}
				if got.Rows != want.Rows {
					t.Errorf("rows %d, want %d", got.Rows, want.Rows)
				}
				if got.MissingScore == nil || got.MissingScore.Policy != policy || got.MissingScore.Rows != 1 {
					t.Errorf("missing_score %+v, want {%s 1}", got.MissingScore, policy)
				}
				rep := filepath.Join(t.TempDir(), "report.html")
				code, stdout, _ := cli(t, "--quiet", "--missing-score", policy, "--report", rep, in)
				line := map[string]string{"drop": "1 rows with no score dropped (--missing-score drop).", "last": "1 rows with no score ranked last (--missing-score last)."}[policy]
				if code != 0 || !strings.Contains(stdout, line) {
					t.Errorf("text summary lacks %q:\n%s", line, stdout)
				}
				if html, _ := os.ReadFile(rep); !strings.Contains(string(html), strings.TrimSuffix(line, ".")) {
					t.Errorf("report lacks %q", line)
				}
			})
		}
	}
	t.Run("no missing value: no new field", func(t *testing.T) {
		code, stdout, _ := cli(t, "--quiet", "--format", "json", "--missing-score", "error", without)
		if code != 0 || strings.Contains(stdout, "missing_score") {
			t.Fatalf("exit %d, summary %s", code, stdout)
		}
	})
	t.Run("state refused", func(t *testing.T) {
		code, _, stderr := cli(t, "--quiet", "--missing-score", "drop", "--state", filepath.Join(t.TempDir(), "s"), forms["jsonl"])
		if code != 2 || !strings.Contains(stderr, "--state with --missing-score drop") {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
	})
}

// TestMissingScoreSystems: with two score columns, each column's missing
// scores count for its system, and drop leaves a row out of that system's
// ranking only.
func TestMissingScoreSystems(t *testing.T) {
	in := filepath.Join(t.TempDir(), "log.jsonl")
	rows := `{"query_id":"q","a":1,"b":null,"label":1}
{"query_id":"q","a":null,"b":2,"label":0}
{"query_id":"q","a":null,"b":3,"label":1}
`
	if err := os.WriteFile(in, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := cli(t, "--quiet", "-m", "map", "--score-col", "a,b", "--missing-score", "drop", in)
	if code != 0 || !strings.Contains(stdout, "rows with no score dropped (--missing-score drop): a 2, b 1.") {
		t.Fatalf("exit %d, stderr %s, summary:\n%s", code, stderr, stdout)
	}
}

// TestMissingLabel: a missing label stops the run naming --missing-label;
// zero counts the row as not relevant, drop leaves it out.
func TestMissingLabel(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "log.csv")
	if err := os.WriteFile(in, []byte("query_id,score,label\nq,3,\nq,2,1\nq,1,0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := cli(t, "--quiet", in)
	if code != 1 || !strings.Contains(stderr, "--missing-label zero or drop") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for policy, want := range map[string]float64{"zero": 0.5, "drop": 1} {
		s := missingSummary(t, "--missing-label", policy, in)
		if m := s.Metrics["map"].Mean; m == nil || *m != want {
			t.Errorf("--missing-label %s: map %v, want %v", policy, fmtp(m), want)
		}
	}
	code, stdout, _ := cli(t, "--quiet", "--missing-label", "zero", in)
	if code != 0 || !strings.Contains(stdout, "1 rows with no label counted as label 0 (--missing-label zero).") {
		t.Fatalf("exit %d:\n%s", code, stdout)
	}
	code, _, stderr = cli(t, "--quiet", "--missing-label", "last", in)
	if code != 2 || !strings.Contains(stderr, "want error, drop or zero") {
		t.Fatalf("--missing-label last: exit %d, stderr %q", code, stderr)
	}
}

// TestMissingScoreTables: the LaTeX and Markdown tables, which a paper or
// a pull request copies without the text summary's footer, say what
// --missing-score did to how many rows, so a changed denominator shows
// there too; without a policy the tables are as before.
func TestMissingScoreTables(t *testing.T) {
	in := filepath.Join(t.TempDir(), "log.jsonl")
	rows := `{"query_id":"q","a":1,"b":null,"label":1}
{"query_id":"q","a":null,"b":2,"label":0}
{"query_id":"q","a":null,"b":3,"label":1}
`
	clean := filepath.Join(filepath.Dir(in), "clean.jsonl")
	if err := os.WriteFile(in, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(clean, []byte(`{"query_id":"q","a":1,"label":1}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"latex", "markdown"} {
		t.Run(format, func(t *testing.T) {
			code, stdout, stderr := cli(t, "--quiet", "-m", "map", "--format", format, "--score-col", "a,b", "--missing-score", "drop", in)
			want := "Rows with no score dropped (--missing-score drop): a 2, b 1."
			if code != 0 || !strings.Contains(stdout, want) {
				t.Fatalf("exit %d, stderr %s, table:\n%s\nwant it to hold %q", code, stderr, stdout, want)
			}
			code, stdout, _ = cli(t, "--quiet", "-m", "map", "--format", format, "--score-col", "a", "--missing-score", "error", clean)
			if code != 0 || strings.Contains(stdout, "Rows with no") {
				t.Fatalf("exit %d, table without a policy:\n%s", code, stdout)
			}
		})
	}
}
