package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/rankeval/rankeval/internal/vectors"
)

// readLines returns the lines of a plain or zstd-compressed text file.
func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".zst") {
		d, err := zstd.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		r = d
	}
	data, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimRight(string(data), "\n"), "\n")
}

// interleave deals the queries' rows out one row of each query in turn, so
// no query's rows are contiguous while each query keeps its own order;
// key gives a line's query id.
func interleave(t *testing.T, lines []string, key func(string) string, name string) string {
	t.Helper()
	var groups [][]string
	last := "\x00"
	for _, l := range lines {
		if k := key(l); k != last || len(groups) == 0 {
			groups = append(groups, nil)
			last = k
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], l)
	}
	var out strings.Builder
	for left := true; left; {
		left = false
		for g := range groups {
			if len(groups[g]) > 0 {
				out.WriteString(groups[g][0] + "\n")
				groups[g] = groups[g][1:]
				left = true
			}
		}
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// body is a summary without its provenance (vectors.SummaryBody).
func body(summary string) string { return vectors.SummaryBody(summary) }

func jsonQuery(col string) func(string) string {
	return func(l string) string {
		var row map[string]any
		json.Unmarshal([]byte(l), &row)
		return fmt.Sprint(row[col])
	}
}

func trecQuery(l string) string { return strings.Fields(l)[0] }

// sameBothWays runs args on the sorted input and, with --unsorted, on the
// interleaved one, and wants the same summary bytes.
func sameBothWays(t *testing.T, args []string, sorted, shuffled string) string {
	t.Helper()
	code, want, stderr := cli(t, append(args, sorted)...)
	if code != 0 {
		t.Fatalf("sorted: exit %d: %s", code, stderr)
	}
	tmp := t.TempDir()
	code, got, stderr := cli(t, append(args, "--unsorted", "--mem-limit", "16MiB", "--tmp-dir", tmp, shuffled)...)
	if code != 0 {
		t.Fatalf("--unsorted: exit %d: %s", code, stderr)
	}
	if body(got) != body(want) {
		t.Fatalf("--unsorted on the interleaved log differs from the sorted log:\n%s\nvs\n%s", got, want)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("left in --tmp-dir: %v", left)
	}
	return got
}

// TestUnsortedParity checks that every per-row and per-query rule is the
// same on the sorted path and the --unsorted spill path: the summary of a
// log whose queries are interleaved equals the sorted log's under every
// option set of the vectors and under both peer profiles.
func TestUnsortedParity(t *testing.T) {
	for _, vf := range loadVectors(t) {
		shuffled := interleave(t, readLines(t, vf.Log), jsonQuery("query_id"), "shuffled.jsonl")
		sets := [][]string{{"--profile", "trec_eval"}, {"--profile", "gdeval"}}
		for _, c := range vf.Cases {
			sets = append(sets, c.Options.Args())
		}
		for _, set := range sets {
			t.Run(vf.Name+"/"+strings.Join(set, " "), func(t *testing.T) {
				args := append([]string{"--quiet", "--format", "json", "-m", strings.Join(vf.Metrics, ",")}, set...)
				sameBothWays(t, args, vf.Log, shuffled)
			})
		}
	}
}

// TestUnsortedFloat32 is the case that once drifted: under trec_eval
// 9.0.8's profile scores are rounded to float32 as rows are taken, on
// every path, so 0.300000000001 and 0.3 tie and the tie goes by doc id;
// 10.0 keeps doubles, and the higher score leads.
func TestUnsortedFloat32(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f32.jsonl")
	os.WriteFile(p, []byte(`{"query_id":"a","doc_id":"d1","score":0.300000000001,"label":0}
{"query_id":"a","doc_id":"d2","score":0.3,"label":1}
`), 0o644)
	for _, tc := range []struct{ profile, mrr, p1 string }{
		{"trec_eval:9.0.8", `"mrr": {"mean": 1,`, `"p@1": {"mean": 1,`},
		{"trec_eval", `"mrr": {"mean": 0.5,`, `"p@1": {"mean": 0,`},
	} {
		got := sameBothWays(t, []string{"--quiet", "--format", "json", "--profile", tc.profile, "-m", "mrr,p@1"}, p, p)
		for _, want := range []string{tc.mrr, tc.p1} {
			if !strings.Contains(got, want) {
				t.Fatalf("%s: want %q in\n%s", tc.profile, want, got)
			}
		}
	}
}

// TestUnsortedAnalysis: slices, two score columns and a bootstrap read
// through --unsorted give the pinned comparison summary.
func TestUnsortedAnalysis(t *testing.T) {
	log, golden, _ := comparePaths()
	shuffled := interleave(t, readLines(t, log), jsonQuery("query_id"), "shuffled.jsonl")
	got := sameBothWays(t, append(compareArgs, "--format", "json"), log, shuffled)
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if body(got) != body(string(want)) {
		t.Fatalf("summary differs from %s", golden)
	}
}

// TestUnsortedTrec: a TREC run interleaved by query, joined with its qrels
// in the workers, gives trec_eval's numbers with and without --complete.
func TestUnsortedTrec(t *testing.T) {
	ref := filepath.Join(vectors.TestdataDir(t), "reference")
	for _, folder := range []string{"trec_a", "trec_b"} {
		run := filepath.Join(ref, folder, "run.txt")
		shuffled := interleave(t, readLines(t, run), trecQuery, "run.txt")
		for _, set := range [][]string{
			{"--profile", "trec_eval"}, {"--profile", "trec_eval", "--complete"}, {"--profile", "gdeval", "-m", "ndcg@10,err@10"},
		} {
			t.Run(folder+"/"+strings.Join(set, " "), func(t *testing.T) {
				args := append([]string{"--quiet", "--format", "trec", "--qrels", filepath.Join(ref, folder, "qrels.txt")}, set...)
				sameBothWays(t, args, run, shuffled)
			})
		}
	}
}

// TestProvenance: --version names the build, and the JSON summary says
// which version made it from which inputs (sorted).
func TestProvenance(t *testing.T) {
	code, out, _ := cli(t, "--version")
	if code != 0 || !regexp.MustCompile(`^rankeval \S.*\n$`).MatchString(out) {
		t.Fatalf("--version: exit %d, %q", code, out)
	}
	dir := t.TempDir()
	var ins []string
	for _, name := range []string{"b.jsonl", "a.jsonl"} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(`{"query_id":"`+name+`","score":1,"label":1}`+"\n"), 0o644)
		ins = append(ins, p)
	}
	code, out, stderr := cli(t, "--quiet", "--format", "json", ins[0], ins[1])
	if code != 0 {
		t.Fatal(stderr)
	}
	var s struct {
		Rankeval struct {
			Version string   `json:"version"`
			Inputs  []string `json:"inputs"`
		} `json:"rankeval"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	slices.Sort(ins) // listed sorted, as merged states list them
	if s.Rankeval.Version == "" || !slices.Equal(s.Rankeval.Inputs, ins) {
		t.Fatalf("provenance %+v, want inputs %v", s.Rankeval, ins)
	}
}
