package rankbeam_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMissingParity: rows without a score or a label (JSON nulls, empty
// CSV fields), a query split between two files, give rankeval's summary
// under every --missing-score and --missing-label policy, with the same
// counts of rows.
func TestMissingParity(t *testing.T) {
	dir := t.TempDir()
	var js, csv strings.Builder
	csv.WriteString("query_id,doc_id,score,label\n")
	for q := range 30 {
		for d := range 8 {
			score, label := fmt.Sprint(float64((d*5+q)%7)/3), fmt.Sprint((d+q)%3)
			jsScore, jsLabel := score, label
			if (d+q)%5 == 0 {
				score, jsScore = "", "null"
			}
			if (d*3+q)%11 == 0 {
				label, jsLabel = "", "null"
			}
			if d%2 == 0 {
				fmt.Fprintf(&js, `{"query_id":"q%02d","doc_id":"d%d","score":%s,"label":%s}`+"\n", q, d, jsScore, jsLabel)
			} else {
				fmt.Fprintf(&csv, "q%02d,d%d,%s,%s\n", q, d, score, label)
			}
		}
	}
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.csv")
	if err := os.WriteFile(a, []byte(js.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ms := "map,ndcg@5,p@3,r@5"
	var jobs []job
	var wants []string
	for _, pol := range [][2]string{{"drop", "zero"}, {"last", "drop"}} {
		out := filepath.Join(dir, pol[0]+pol[1]+".json")
		cfg := beamConfig([]string{a, b}, ms, "input", "exp", "skip", 4, nil, "json")
		cfg.MissingScore, cfg.MissingLabel = pol[0], pol[1]
		jobs = append(jobs, job{name: pol[0] + pol[1], cfg: cfg, out: out})
		// rankeval reads the two files as one log only --unsorted, as
		// the query's rows are in both
		wants = append(wants, local(t, "--format", "json", "-m", ms, "--unsorted", "--missing-score", pol[0], "--missing-label", pol[1], a, b))
	}
	runBeam(t, jobs)
	for i, j := range jobs {
		got := read(t, j.out)
		if got != wants[i] {
			t.Errorf("%s: Beam:\n%s\nrankeval:\n%s", j.name, got, wants[i])
		}
		if !strings.Contains(got, `"missing_score": {"policy": "`+j.cfg.MissingScore+`", "rows": `) || strings.Contains(got, `"rows": 0}`) {
			t.Errorf("%s: no count of missing rows:\n%s", j.name, got)
		}
	}
}
