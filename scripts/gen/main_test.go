package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/internal/vectors"
)

// rankevalBin is the CLI, built once per run: the test checks that what
// gen -from writes is what rankeval reads.
var rankevalBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "rankeval-gen-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	rankevalBin = filepath.Join(dir, "rankeval")
	build := exec.Command("go", "build", "-buildvcs=false", "-o", rankevalBin, "github.com/rankeval/rankeval/cmd/rankeval")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building rankeval:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// summary runs rankeval --format json with args and returns the summary
// without what names the inputs: the "rankeval" member (version and
// input paths) and the options' column names, which differ by design
// between a log and its conversion.
func summary(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(rankevalBin, append([]string{"--quiet", "--format", "json"}, args...)...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("rankeval %s: %v: %s", strings.Join(args, " "), err, errb.String())
	}
	var s map[string]any
	d := json.NewDecoder(&out)
	d.UseNumber() // numbers compared as printed
	if err := d.Decode(&s); err != nil {
		t.Fatalf("summary is not JSON: %v", err)
	}
	delete(s, "rankeval")
	if o, ok := s["options"].(map[string]any); ok {
		for k := range o {
			if strings.HasSuffix(k, "_col") {
				delete(o, k)
			}
		}
	}
	b, err := json.Marshal(s) // keys sorted
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func runGen(t *testing.T, args ...string) {
	t.Helper()
	var errb bytes.Buffer
	if err := gen(args, &errb); err != nil {
		t.Fatalf("gen %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
}

// TestFromRenamedColumns converts logs whose fields rankeval finds only
// through its column flags to Parquet with gen -from and the same flags,
// and demands rankeval's summary of the Parquet file (read with the
// default names) equal its summary of the log (read with the flags): a
// vector log with every field renamed, a log ordered by a rank field with
// no score, and a log with two models' scores.
func TestFromRenamedColumns(t *testing.T) {
	td, err := vectors.Testdata()
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(td, "vectors", "graded_ties.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	renamed := strings.NewReplacer(`"query_id":`, `"qid":`, `"doc_id":`, `"docno":`, `"score":`, `"pred":`, `"label":`, `"rel":`).Replace(string(src))
	if strings.Contains(renamed, `"query_id"`) || !strings.Contains(renamed, `"qid"`) {
		t.Fatal("the vector log's fields are not query_id, doc_id, score, label")
	}
	ranked := `{"qid":"a","docno":"x","pos":2,"rel":1}
{"qid":"a","docno":"y","pos":1,"rel":0}
{"qid":"a","docno":"z","pos":2,"rel":3}
{"qid":"b","docno":"x","pos":1,"rel":2}
{"qid":"b","docno":"w","pos":3,"rel":0}
{"qid":"b","docno":"v","pos":2,"rel":1}
`
	twoModels := `{"qid":1,"docno":"x","pred":0.5,"pred_b":0.1,"rel":1}
{"qid":1,"docno":"y","pred":0.7,"pred_b":0.9,"rel":0}
{"qid":1,"docno":"z","pred":0.2,"pred_b":0.3,"rel":2}
{"qid":2,"docno":"x","pred":0.9,"pred_b":0.8,"rel":1}
{"qid":2,"docno":"y","pred":0.1,"pred_b":0.4,"rel":0}
{"qid":2,"docno":"w","pred":0.3,"pred_b":0.2,"rel":1}
`
	cols := []string{"--query-col", "qid", "--doc-col", "docno", "--label-col", "rel"}
	for _, tc := range []struct {
		name, log string
		cols      []string // the log's column flags, for gen and for rankeval on the log
		read      []string // what rankeval needs on the converted file
		sets      [][]string
		systems   []string // the log's score columns' names and the file's, pairwise, as the summary names the systems
	}{
		{"renamed", renamed, slices.Concat(cols, []string{"--score-col", "pred"}), nil, [][]string{
			{},
			{"--ties", "trec", "-m", "map,ndcg@10,err@10,kendall,spearman,p@5"},
			{"--ties", "average", "--gain", "linear", "-m", "ndcg@5,ap,rr,nerr@10"},
		}, nil},
		{"rank", ranked, slices.Concat(cols, []string{"--rank-col", "pos"}), []string{"--rank-col", "rank"}, [][]string{
			{"-m", "map,ndcg@2,p@1,kendall"},
			{"--ties", "trec", "-m", "map,ndcg@2,p@1"},
		}, nil},
		{"two-models", twoModels, slices.Concat(cols, []string{"--score-col", "pred,pred_b"}), []string{"--score-col", "score,score_b"}, [][]string{
			{"-m", "map,ndcg@3,rr"},
		}, []string{`"pred"`, `"score"`, `"pred_b"`, `"score_b"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			log, pq := filepath.Join(dir, "log.jsonl"), filepath.Join(dir, "log.parquet")
			if err := os.WriteFile(log, []byte(tc.log), 0o644); err != nil {
				t.Fatal(err)
			}
			runGen(t, slices.Concat([]string{"-from", log}, tc.cols, []string{"-o", pq})...)
			for _, set := range tc.sets {
				want := strings.NewReplacer(tc.systems...).Replace(summary(t, slices.Concat(set, tc.cols, []string{log})...))
				got := summary(t, slices.Concat(set, tc.read, []string{pq})...)
				if got != want {
					t.Errorf("%v: the Parquet file's summary differs from the log's\n got: %s\nwant: %s", set, got, want)
				}
			}
		})
	}
}

// TestColumnFlagsNeedFrom: the column flags name the fields of a log to
// convert; without -from they are a usage error, not silently ignored.
func TestColumnFlagsNeedFrom(t *testing.T) {
	var errb bytes.Buffer
	err := gen([]string{"--query-col", "qid", "-rows", "10", "-o", filepath.Join(t.TempDir(), "x.jsonl")}, &errb)
	if err != errUsage || !strings.Contains(errb.String(), "give -from") {
		t.Fatalf("err %v, stderr %q", err, errb.String())
	}
}
