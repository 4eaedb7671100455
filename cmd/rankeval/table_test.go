package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestTableManySystems: with more than 26 systems under --pairs all, the
// LaTeX and Markdown tables give every system its own letter (aa, ab
// after z, as the report's matrix does) and separate the letters of a
// mean's marks, so that a mark names one system: they used to wrap
// round to a, b, naming the baseline for the 27th system.
func TestTableManySystems(t *testing.T) {
	const S = 28
	r := rand.New(rand.NewPCG(5, 6))
	var b strings.Builder
	var cols []string
	for s := range S {
		cols = append(cols, fmt.Sprintf("s%d", s))
	}
	for q := range 60 {
		for d := range 6 {
			label := r.IntN(2)
			fmt.Fprintf(&b, `{"query_id":"q%03d","doc_id":"d%d","label":%d`, q, d, label)
			for s := range S {
				score := r.Float64()
				if s == S-1 { // the last system ranks the relevant rows first
					score += float64(label)
				}
				fmt.Fprintf(&b, `,"s%d":%v`, s, score)
			}
			b.WriteString("}\n")
		}
	}
	log := filepath.Join(t.TempDir(), "many.jsonl")
	if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		format string
		row    *regexp.Regexp // a system's row: its letter, name and ndcg@5 cell
	}{
		{"markdown", regexp.MustCompile(`(?m)^\| \((\w+)\) (s\d+)(?: \(baseline\))? \| ([^|]*) \|$`)},
		{"latex", regexp.MustCompile(`(?m)^\((\w+)\) (s\d+)(?: \(baseline\))? & (.*) \\\\$`)},
	} {
		t.Run(tc.format, func(t *testing.T) {
			code, out, stderr := cli(t, "--quiet", "-m", "ndcg@5", "--score-col", strings.Join(cols, ","), "--pairs", "all",
				"--correction", "none", "--format", tc.format, log)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			rows := tc.row.FindAllStringSubmatch(out, -1)
			if len(rows) != S {
				t.Fatalf("%d rows, want %d:\n%s", len(rows), S, out)
			}
			seen := map[string]string{}
			for i, row := range rows {
				if other, ok := seen[row[1]]; ok {
					t.Errorf("letter %s names %s and %s", row[1], other, row[2])
				}
				seen[row[1]] = row[2]
				if want := cols[i]; row[2] != want {
					t.Errorf("row %d is %s, want %s", i, row[2], want)
				}
			}
			// the last system is above every other: its marks name each
			// of them once, the baseline's a and the 27th system's aa
			last := rows[S-1][3]
			marks := regexp.MustCompile(`(?:\^\{|<sup>)([a-z,]+)(?:\}|</sup>)`).FindStringSubmatch(last)
			if marks == nil {
				t.Fatalf("no marks in %q", last)
			}
			got := strings.Split(marks[1], ",")
			if len(got) != S-1 || got[0] != "a" || got[S-2] != "aa" {
				t.Fatalf("marks %q, want a,b,...,z,aa", marks[1])
			}
		})
	}
}

// TestTableEscapes: system names with the marks of Markdown and LaTeX
// come out as the names, not as markup: an HTML entity (&amp;) and
// GitHub's math ($x$) included.
func TestTableEscapes(t *testing.T) {
	dir := t.TempDir()
	_, logs := fourSystems(t, dir, 20)
	for _, tc := range []struct {
		format, name, want string
	}{
		{"markdown", "a&amp;b", `a\&amp;b`},
		{"markdown", "cost $x$ low", `cost \$x\$ low`},
		{"markdown", "**b**|c", `\*\*b\*\*\|c`},
		{"latex", "a&amp;b", `a\&amp;b`},
		{"latex", "cost $x$_1", `cost \$x\$\_1`},
	} {
		t.Run(tc.format+" "+tc.name, func(t *testing.T) {
			code, out, stderr := cli(t, "--quiet", "-m", "map", "--format", tc.format,
				"--system", "base="+logs[0], "--system", tc.name+"="+logs[1])
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if !strings.Contains(out, tc.want) {
				t.Fatalf("no %s in\n%s", tc.want, out)
			}
		})
	}
}

// TestTableBestClickMetrics: the table's bold best mean is the least of
// abandon and first_click (lower is better), none of last_click (no
// better side), the greatest of the others: the candidate whose first
// click lands lower was bold. Hand-made log: "prod" ranks the clicked
// row of q1 and q2 first, "cand" second; both rank all rows of q3, which
// has no click.
func TestTableBestClickMetrics(t *testing.T) {
	log := filepath.Join(t.TempDir(), "clicks.jsonl")
	var b strings.Builder
	for _, q := range []string{"q1", "q2", "q3"} {
		for d, clicked := range []bool{true, false, false} {
			if q == "q3" {
				clicked = false
			}
			fmt.Fprintf(&b, `{"query_id":%q,"doc_id":"d%d","label":%v,"prod":%d,"cand":%d}`+"\n", q, d, clicked, 3-d, []int{2, 3, 1}[d])
		}
	}
	if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// prod: first_click 1, last_click 1, ctr@1 2/3; cand: 2, 2, 0;
	// abandon 1/3 for both (one log's clicks)
	for _, tc := range []struct {
		format, bold string
	}{
		{"markdown", `**%s**`},
		{"latex", `\textbf{%s}`},
	} {
		t.Run(tc.format, func(t *testing.T) {
			code, out, stderr := cli(t, "--quiet", "-m", "first_click,last_click,ctr@1,abandon", "--score-col", "prod,cand",
				"--format", tc.format, log)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			bold := func(v string) string { return fmt.Sprintf(tc.bold, v) }
			var prod, cand string
			for _, line := range strings.Split(out, "\n") {
				switch {
				case strings.Contains(line, "prod"):
					prod = line
				case strings.Contains(line, "cand"):
					cand = line
				}
			}
			for _, c := range []struct {
				line, cell string
				bold       bool
			}{
				{prod, "1.0000", true}, {cand, "2.0000", false}, // first_click, last_click
				{prod, "0.6667", true}, {cand, "0.0000", false}, // ctr@1
				{prod, "0.3333", true}, {cand, "0.3333", true}, // abandon, tied
			} {
				if got := strings.Contains(c.line, bold(c.cell)); got != c.bold {
					t.Errorf("%q: %s bold %v, want %v", c.line, c.cell, got, c.bold)
				}
			}
			// last_click is never bold: prod's 1.0000 appears bold once
			// (first_click), cand's 2.0000 never
			if n := strings.Count(prod, bold("1.0000")); n != 1 {
				t.Errorf("%q: %d bold 1.0000, want 1 (first_click, not last_click)", prod, n)
			}
		})
	}
}

// TestTableNamesAndRules: a LaTeX table has booktabs rules; its headers
// are the metrics as typed (P_10 stays P_10, trec_eval's names keep their
// case where the list's spelling is not known), or as --table-names names
// them, which names systems too, in LaTeX and Markdown, after a merge as
// well.
func TestTableNamesAndRules(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "log.jsonl")
	var b strings.Builder
	for q := range 6 {
		for d := range 5 {
			fmt.Fprintf(&b, `{"query_id":"q%d","doc_id":"d%d","score":%g,"score_b":%g,"label":%d}`+"\n", q, d, float64(d), float64((d*3+q)%5), (d+q)%3)
		}
	}
	os.WriteFile(in, []byte(b.String()), 0o644)
	args := []string{"--quiet", "--score-col", "score,score_b", "-m", "P_10,ndcg_cut_10,map,nDCG@10,Rprec", "--table-names", "map=MAP,score=BM25,score_b=Dense"}
	code, out, stderr := cli(t, append(append(args, "--format", "latex"), in)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"\\toprule\nsystem & P\\_10 & ndcg\\_cut\\_10 & MAP & nDCG@10 & Rprec \\\\\n\\midrule\nBM25 (baseline) & ",
		"\\bottomrule\n\\end{tabular}\n",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("LaTeX lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "hline") {
		t.Fatalf("LaTeX:\n%s", out)
	}
	code, out, stderr = cli(t, append(append(args, "--format", "markdown"), in)...)
	if code != 0 || !strings.Contains(out, "| system | P\\_10 | ndcg\\_cut\\_10 | MAP | nDCG@10 | Rprec |\n") || !strings.Contains(out, "| BM25 (baseline) | ") {
		t.Fatalf("Markdown: exit %d:\n%s%s", code, out, stderr)
	}
	st := filepath.Join(dir, "a.state")
	if code, _, stderr := cli(t, "--quiet", "--score-col", "score,score_b", "-m", "P_10,rprec", "--state", st, in); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	code, out, stderr = cli(t, "merge", "--format", "latex", "--table-names", "score_b=Dense", st)
	if code != 0 || !strings.Contains(out, "system & P\\_10 & Rprec \\\\\n") || !strings.Contains(out, "\nDense & ") {
		t.Fatalf("merge: exit %d:\n%s%s", code, out, stderr)
	}
	if code, _, stderr := cli(t, "merge", "--table-names", "Score_B=Dense", st); code != 2 || !strings.Contains(stderr, `--table-names "Score_B" names no metric (-m) and no system of the run`) {
		t.Fatalf("merge, a system in another case: exit %d: %s", code, stderr)
	}
	for _, bad := range []string{"map", "=MAP", "map=", "map=A,map=B", "bpref=B", "Score=BM25"} {
		if code, _, stderr := cli(t, "--quiet", "--table-names", bad, in); code != 2 || !strings.Contains(stderr, "--table-names") {
			t.Fatalf("%q: exit %d: %s", bad, code, stderr)
		}
	}
}
