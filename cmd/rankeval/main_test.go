package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/rankeval/rankeval/internal/vectors"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// cli runs the command as main does and returns its exit code and outputs.
func cli(t testing.TB, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), args, &out, &errb)
	code = exitCode(err, &errb)
	return code, out.String(), errb.String()
}

type summaryJSON struct {
	Metrics map[string]struct {
		Mean    *float64  `json:"mean"`
		Queries int64     `json:"queries"`
		CI95    []float64 `json:"ci95"`
	} `json:"metrics"`
	Rows    int64 `json:"rows"`
	Queries struct {
		Total int64 `json:"total"`
		Empty int64 `json:"empty"`
	} `json:"queries"`
	Options map[string]any `json:"options"`
}

// loadVectors loads the vector files of testdata/vectors.
func loadVectors(t *testing.T) []vectors.File {
	t.Helper()
	files, err := vectors.Load(filepath.Join(vectors.TestdataDir(t), "vectors"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func close9(got, want float64) bool { return math.Abs(got-want) <= 1e-9*math.Max(1, math.Abs(want)) }

// TestVectors runs every case of testdata/vectors/*.expected.json through
// the command line, summary and per query.
func TestVectors(t *testing.T) {
	for _, vf := range loadVectors(t) {
		for _, c := range vf.Cases {
			name := vf.Name + "/" + c.Options.Name()
			args := append([]string{"--format", "json", "-m", strings.Join(vf.Metrics, ",")}, c.Options.Args()...)
			t.Run(name, func(t *testing.T) {
				pq := filepath.Join(t.TempDir(), "pq.jsonl")
				args := append(args, "--per-query", pq, vf.Log)
				code, stdout, stderr := cli(t, args...)
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				var s summaryJSON
				if err := json.Unmarshal([]byte(stdout), &s); err != nil {
					t.Fatalf("summary is not JSON: %v\n%s", err, stdout)
				}
				for _, m := range vf.Metrics {
					want, got := c.Summary[m], s.Metrics[m]
					if got.Queries != want.Queries {
						t.Errorf("%s: queries %d, want %d", m, got.Queries, want.Queries)
					}
					switch {
					case want.Mean == nil && got.Mean == nil:
					case want.Mean == nil || got.Mean == nil || !close9(*got.Mean, *want.Mean):
						t.Errorf("%s: mean %v, want %v", m, fmtp(got.Mean), fmtp(want.Mean))
					}
				}
				perQuery := readPerQuery(t, pq)
				if len(perQuery) != len(c.PerQuery) {
					t.Fatalf("%d per-query lines, want %d", len(perQuery), len(c.PerQuery))
				}
				for q, wantVals := range c.PerQuery {
					gotVals, ok := perQuery[q]
					if !ok {
						t.Fatalf("query %s missing from per-query output", q)
					}
					for m, w := range wantVals {
						g := gotVals[m]
						if (w == nil) != (g == nil) || w != nil && !close9(*g, *w) {
							t.Errorf("query %s %s: %v, want %v", q, m, fmtp(g), fmtp(w))
						}
					}
				}
			})
		}
	}
}

func fmtp(p *float64) string {
	if p == nil {
		return "null"
	}
	return strconv.FormatFloat(*p, 'g', -1, 64)
}

func readPerQuery(t testing.TB, path string) map[string]map[string]*float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]map[string]*float64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &raw); err != nil {
			t.Fatalf("per-query line %q: %v", sc.Text(), err)
		}
		var id string
		if err := json.Unmarshal(raw["query_id"], &id); err != nil {
			t.Fatalf("query_id: %v", err)
		}
		vals := map[string]*float64{}
		for k, v := range raw {
			if k == "query_id" {
				continue
			}
			var p *float64
			if err := json.Unmarshal(v, &p); err != nil {
				t.Fatalf("%s: %v", k, err)
			}
			vals[k] = p
		}
		out[id] = vals
	}
	return out
}

// genLog writes a log with varied group sizes, tied scores and empty
// queries: harder for grouping and aggregation than a uniform one.
func genLog(t testing.TB, rows int, seed uint64) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "gen.jsonl.zst")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw, _ := zstd.NewWriter(f, zstd.WithEncoderLevel(zstd.SpeedFastest))
	w := bufio.NewWriterSize(zw, 1<<20)
	r := rand.New(rand.NewPCG(seed, 99))
	q := 0
	for n := 0; n < rows; q++ {
		size := 1 + r.IntN(120)
		empty := r.IntN(20) == 0
		for d := 0; d < size && n < rows; d++ {
			label := 0
			if !empty && r.IntN(3) == 0 {
				label = 1 + r.IntN(4)
			}
			score := math.Round((float64(label)*0.2+r.Float64())*20) / 20 // many ties
			fmt.Fprintf(w, `{"query_id":"q%d","doc_id":"d%d","score":%g,"label":%d}`+"\n", q, d, score, label)
			n++
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	f.Close()
	return p
}

// TestWorkersBitIdentical demands byte-identical JSON summaries for any
// worker count and batch size, on the sample and on a generated 1M-row log.
func TestWorkersBitIdentical(t *testing.T) {
	rows := 1_000_000
	if testing.Short() {
		rows = 50_000
	}
	inputs := map[string]string{
		"sample":    filepath.Join("..", "..", "testdata", "sample.jsonl.zst"),
		"generated": genLog(t, rows, 1),
	}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			var ref string
			for _, w := range []int{1, 2, 3, 8} {
				for _, bs := range []int{8192, 777} {
					code, out, stderr := cli(t, "--format", "json", "--workers", strconv.Itoa(w), "--batch-size", strconv.Itoa(bs),
						"-m", "map,mrr,ndcg@10,err@10,p@10,r@10,ndcg,kendall,f2@5", "--ties", "average", in)
					if code != 0 {
						t.Fatalf("workers %d: exit %d: %s", w, code, stderr)
					}
					if ref == "" {
						ref = out
						continue
					}
					if out != ref {
						t.Fatalf("workers %d batch %d: summary differs:\n%s\nvs\n%s", w, bs, out, ref)
					}
				}
			}
			var s summaryJSON
			if err := json.Unmarshal([]byte(ref), &s); err != nil {
				t.Fatal(err)
			}
			if name == "generated" && s.Rows != int64(rows) {
				t.Fatalf("rows = %d, want %d", s.Rows, rows)
			}
		})
	}
}

// TestPerQueryOrder checks per-query lines come out in input order whatever
// the number of workers.
func TestPerQueryOrder(t *testing.T) {
	in := genLog(t, 30_000, 5)
	var ref []byte
	for _, w := range []string{"1", "4"} {
		pq := filepath.Join(t.TempDir(), "pq.jsonl")
		if code, _, stderr := cli(t, "--workers", w, "--per-query", pq, in); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		data, err := os.ReadFile(pq)
		if err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref = data
			lines := strings.Split(strings.TrimSpace(string(data)), "\n")
			for i, l := range lines {
				if !strings.HasPrefix(l, fmt.Sprintf(`{"query_id":"q%d",`, i)) {
					t.Fatalf("line %d out of order: %s", i, l)
				}
			}
		} else if !bytes.Equal(data, ref) {
			t.Fatal("per-query output differs between worker counts")
		}
	}
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func zs(b []byte) []byte {
	var buf bytes.Buffer
	w, _ := zstd.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// TestBadInput is the catalogue of input errors: each exits 1, names the
// file and line, and leaves no output file behind.
func TestBadInput(t *testing.T) {
	good := `{"query_id":"a","doc_id":"1","score":0.5,"label":1}` + "\n"
	var big strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&big, `{"query_id":"q%d","doc_id":"%d","score":%d,"label":%d}`+"\n", i/10, i, i%7, i%3)
	}
	tests := []struct {
		name  string
		data  []byte
		extra []string
		msg   string // the message must contain this after "FILE:"; a leading N stands for any line number
	}{
		{"malformed line", []byte(good + `{"query_id":"a","score":0.5,"label":1` + "\n"), nil, "2: expected ',' or '}'"},
		{"missing score column", []byte(good + `{"query_id":"a","label":1}` + "\n"), nil, `2: no "score" field`},
		{"missing label column", []byte(good + good + `{"query_id":"a","score":1}` + "\n"), nil, `3: no "label" field`},
		{"NaN score", []byte(good + `{"query_id":"a","score":NaN,"label":1}` + "\n"), nil, `2: "score" (the score column) must be a number, found "NaN" (JSON has no NaN or Infinity)`},
		{"infinite score", []byte(good + `{"query_id":"a","score":1e999,"label":1}` + "\n"), nil, "2: score is +Inf"},
		{"negative label", []byte(good + `{"query_id":"a","score":1,"label":-1}` + "\n"), nil, "2: label is -1"},
		{"label above max grade with ERR", []byte(good + `{"query_id":"a","score":1,"label":5}` + "\n"), []string{"-m", "err@10"}, "2: label 5 is above the maximum grade 4"},
		{"reappearing query id", []byte(good + `{"query_id":"b","score":1,"label":1}` + "\n" + good), nil, `3: query id "a" reappears; its rows began at `},
		{"group too large", []byte(big.String()), []string{"--max-group-rows", "5"}, `1: query "q0" has more than 5 rows`},
		{"empty query under --empty error", []byte(`{"query_id":"z","score":1,"label":0}` + "\n"), []string{"--empty", "error"}, `1: query "z" has no relevant row`},
		{"wrong type: string score", []byte(good + `{"query_id":"a","score":"0.3","label":1}` + "\n"), nil, `2: "score" (the score column) is the string "0.3"; write numbers without quotes, or convert the column`},
		{"null in a required column", []byte(good + `{"query_id":"a","score":1,"label":null}` + "\n"), nil, `2: "label" (the label column) must be a number or a boolean, found "null"`},
		{"NaN label", []byte(good + `{"query_id":"a","score":1,"label":NaN}` + "\n"), nil, `2: "label" (the label column) must be a number or a boolean, found "NaN" (JSON has no NaN or Infinity)`},
		{"duplicate doc id", []byte(good + `{"query_id":"a","doc_id":"1","score":0.4,"label":0}` + "\n"), nil, `2: document "1" appears twice in query "a"`},
		{"truncated gzip", gz([]byte(big.String()))[:2000], nil, "N: input ends in the middle of a compressed stream"},
		{"truncated zstd", zs([]byte(big.String()))[:2000], nil, "N: input ends in the middle of a compressed stream"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, "log.jsonl")
			if err := os.WriteFile(in, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			out, pq := filepath.Join(dir, "summary.json"), filepath.Join(dir, "pq.jsonl")
			args := append([]string{"--output", out, "--per-query", pq}, tc.extra...)
			code, stdout, stderr := cli(t, append(args, in)...)
			if code != 1 {
				t.Fatalf("exit %d, want 1; stderr %s", code, stderr)
			}
			want := regexp.QuoteMeta(in + ":" + tc.msg)
			if strings.HasPrefix(tc.msg, "N") {
				want = regexp.QuoteMeta(in+":") + `\d+` + regexp.QuoteMeta(tc.msg[1:])
			}
			if !regexp.MustCompile(want).MatchString(stderr) {
				t.Fatalf("stderr %q does not match %q", stderr, want)
			}
			if stdout != "" {
				t.Fatalf("stdout not empty: %q", stdout)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 {
				names := []string{}
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Fatalf("files left beside the input: %v", names)
			}
		})
	}
}

// TestReappearPositions: a reappearing query id is confirmed by reading the
// input again, which names where its rows began; standard input cannot be
// read twice, so there the message says so without a position.
func TestReappearPositions(t *testing.T) {
	data := `{"query_id":"a","score":1,"label":1}` + "\n" + `{"query_id":"b","score":1,"label":1}` + "\n" + `{"query_id":"a","score":2,"label":0}` + "\n"
	in := filepath.Join(t.TempDir(), "log.jsonl")
	if err := os.WriteFile(in, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := cli(t, in)
	if want := in + `:3: query id "a" reappears; its rows began at ` + in + `:1 and another query's rows came between`; code != 1 || !strings.Contains(stderr, want) {
		t.Fatalf("exit %d, stderr %q; want %q", code, stderr, want)
	}

	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		pw.Write([]byte(data))
		pw.Close()
	}()
	old := os.Stdin
	os.Stdin = pr
	defer func() { os.Stdin = old; pr.Close() }()
	code, _, stderr = cli(t, "-")
	if want := `<stdin>:3: query id "a" reappears; its rows began earlier and another query's rows came between`; code != 1 || !strings.Contains(stderr, want) {
		t.Fatalf("stdin: exit %d, stderr %q; want %q", code, stderr, want)
	}
}

func TestUsageErrors(t *testing.T) {
	sample := filepath.Join("..", "..", "testdata", "sample.jsonl.zst")
	tests := []struct {
		name string
		args []string
		msg  string
	}{
		{"no input", nil, "no input"},
		{"unknown flag", []string{"--bogus", sample}, "bogus"},
		{"unknown metric", []string{"-m", "ndcg@10,foo", sample}, "foo"},
		{"k zero", []string{"-m", "p@0", sample}, "p@0"},
		{"k not an integer", []string{"-m", "ndcg@2.5", sample}, "ndcg@2.5"},
		{"bad ties", []string{"--ties", "random", sample}, "--ties"},
		{"bad gain", []string{"--gain", "log", sample}, "--gain"},
		{"bad empty", []string{"--empty", "maybe", sample}, "--empty"},
		{"bad threshold", []string{"--rel-threshold", "high", sample}, "--rel-threshold"},
		{"bad format", []string{"--format", "xml", sample}, "--format"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := cli(t, tc.args...)
			if code != 2 || !strings.Contains(stderr, tc.msg) || stdout != "" {
				t.Fatalf("exit %d stderr %q stdout %q; want 2 and %q", code, stderr, stdout, tc.msg)
			}
		})
	}
	t.Run("unreadable input (a directory) is exit 1", func(t *testing.T) {
		d := t.TempDir()
		code, _, stderr := cli(t, d)
		if code != 1 || !strings.Contains(stderr, d+": directory has no data files") {
			t.Fatalf("exit %d stderr %q", code, stderr)
		}
	})
	t.Run("missing file is exit 1", func(t *testing.T) {
		code, _, stderr := cli(t, filepath.Join(t.TempDir(), "nope.jsonl"))
		if code != 1 || !strings.Contains(stderr, "nope.jsonl") {
			t.Fatalf("exit %d stderr %q", code, stderr)
		}
	})
	t.Run("unwritable output directory is exit 1", func(t *testing.T) {
		code, _, stderr := cli(t, "--output", filepath.Join(t.TempDir(), "no", "such", "dir", "s.json"), sample)
		if code != 1 || !strings.Contains(stderr, "s.json") {
			t.Fatalf("exit %d stderr %q", code, stderr)
		}
	})
}

func TestHelpExplainsEveryFlag(t *testing.T) {
	code, stdout, stderr := cli(t, "--help")
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d stdout %q", code, stdout)
	}
	for _, f := range []string{"--metrics", "--ties", "--gain", "--max-grade", "--rel-threshold", "--empty", "--format", "--output",
		"--per-query", "--query-col", "--doc-col", "--score-col", "--label-col", "--rank-col", "--workers", "--max-group-rows", "--batch-size", "--input-format"} {
		if !strings.Contains(stderr, f) {
			t.Errorf("help does not mention %s", f)
		}
	}
	if !strings.Contains(stderr, "(default map,mrr,ndcg@10,err@10,p@10,r@10)") {
		t.Errorf("help does not give the default metrics")
	}
}

// TestGolden pins the sample's outputs; run with -update after a deliberate
// change and review the diff.

func TestRankColumnAndStdin(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "r.jsonl")
	// ranked lists given by rank, no score: rank 1 is relevant in q1, rank 2 in q2
	data := `{"q":"1","rank":2,"rel":0}` + "\n" + `{"q":"1","rank":1,"rel":true}` + "\n" +
		`{"q":"2","rank":1,"rel":false}` + "\n" + `{"q":"2","rank":2,"rel":true}` + "\n"
	os.WriteFile(in, []byte(data), 0o644)
	code, out, stderr := cli(t, "--format", "json", "-m", "mrr,p@1", "--query-col", "q", "--rank-col", "rank", "--label-col", "rel", in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var s summaryJSON
	json.Unmarshal([]byte(out), &s)
	if m := s.Metrics["mrr"].Mean; m == nil || *m != 0.75 {
		t.Fatalf("mrr = %v, want 0.75", fmtp(m))
	}
	if m := s.Metrics["p@1"].Mean; m == nil || *m != 0.5 {
		t.Fatalf("p@1 = %v, want 0.5", fmtp(m))
	}
	keys := make([]string, 0)
	for k := range s.Options {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if s.Options["rank_col"] != "rank" || s.Options["score_col"] != nil {
		t.Fatalf("options %v", s.Options)
	}
}
