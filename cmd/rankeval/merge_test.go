package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/state"
)

// reseal gives a state file a valid checksum, as a crafted one has: the
// checksum catches damage, not a hostile writer.
func reseal(data []byte) []byte {
	if len(data) < 4 {
		return data
	}
	b := bytes.Clone(data[:len(data)-4])
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
}

// stateParts cuts a state file into the bytes before its header's length,
// the header, and what follows it up to the checksum.
func stateParts(t testing.TB, data []byte) (head, header, rest []byte) {
	t.Helper()
	p := len(state.Magic) + 1
	n, k := binary.Uvarint(data[p:])
	if k <= 0 || p+k+int(n) > len(data)-4 {
		t.Fatal("not a state file")
	}
	return data[:p], data[p+k : p+k+int(n)], data[p+k+int(n) : len(data)-4]
}

// craftState is a state file of head, header and rest, resealed.
func craftState(head, header, rest []byte) []byte {
	b := binary.AppendUvarint(bytes.Clone(head), uint64(len(header)))
	b = append(append(b, header...), rest...)
	return reseal(append(b, 0, 0, 0, 0))
}

// withHeader is data with its header edited.
func withHeader(t testing.TB, data []byte, edit func(string) string) []byte {
	t.Helper()
	head, header, rest := stateParts(t, data)
	return craftState(head, []byte(edit(string(header))), rest)
}

// withKey0Twice is a state of one slice column whose second slice key is
// its first (the values must be of one length, so the aggregate stays
// whole).
func withKey0Twice(t testing.TB, data []byte) []byte {
	t.Helper()
	head, header, rest := stateParts(t, data)
	rest = bytes.Clone(rest)
	_, k := binary.Uvarint(rest)
	n0, k0 := binary.Uvarint(rest[k:])
	first := rest[k : k+k0+int(n0)]
	second := rest[k+len(first) : k+2*len(first)]
	if !bytes.Equal(first[:k0], second[:k0]) {
		t.Fatal("the first two slice keys differ in length")
	}
	copy(second, first)
	return craftState(head, header, rest)
}

// TestMergeAnyOrder: three states merged in every order, and two then
// the third, print the same summary and report and write the same merged
// state, byte for byte. The merged state's slices were in the order the
// merge met them.
func TestMergeAnyOrder(t *testing.T) {
	dir := t.TempDir()
	var states []string
	for i, day := range weekOfLogs(t, dir)[:3] {
		st := filepath.Join(dir, fmt.Sprintf("day%d.state", i))
		if code, _, stderr := cli(t, "--quiet", "--by", "market", "--score-col", "score,score_b", "--bootstrap", "50",
			"--state", st, "--output", st+".json", day); code != 0 {
			t.Fatal(stderr)
		}
		states = append(states, st)
	}
	type result struct{ summary, state, report string }
	merge := func(name string, in ...string) result {
		t.Helper()
		out, rep := filepath.Join(dir, name+".state"), filepath.Join(dir, name+".html")
		code, summary, stderr := cli(t, append([]string{"merge", "--format", "json", "--state", out, "--report", rep}, in...)...)
		if code != 0 {
			t.Fatalf("merge %v: exit %d: %s", in, code, stderr)
		}
		st, _ := os.ReadFile(out)
		report, _ := os.ReadFile(rep)
		return result{summary, string(st), string(report)}
	}
	want := merge("abc", states...)
	a, b, c := states[0], states[1], states[2]
	for _, order := range [][]string{{a, c, b}, {b, a, c}, {b, c, a}, {c, a, b}, {c, b, a}} {
		got := merge("other", order...)
		if got.summary != want.summary || got.report != want.report {
			t.Errorf("%v: another summary or report", order)
		}
		if got.state != want.state {
			t.Errorf("%v: another merged state", order)
		}
	}
	merge("ca", c, a)
	if got := merge("grouped", filepath.Join(dir, "ca.state"), b); got != want {
		t.Error("c and a, then b: other bytes")
	}
}

// TestMergeCraftedStateMemory holds issue 23's file: a state of 20,000
// slice columns, 484 KB with a valid checksum, whose key count made merge
// allocate 20,000 strings for each key claimed, present or not. It is
// refused, naming the file, having allocated about what it holds.
func TestMergeCraftedStateMemory(t *testing.T) {
	dir := t.TempDir()
	day := weekOfLogs(t, dir)[0]
	good := filepath.Join(dir, "good.state")
	if code, _, stderr := cli(t, "--quiet", "--by", "market", "--state", good, "--output", good+".json", day); code != 0 {
		t.Fatal(stderr)
	}
	data, _ := os.ReadFile(good)
	head, header, rest := stateParts(t, data)
	cols := make([]string, 20_000)
	for i := range cols {
		cols[i] = fmt.Sprintf(`"c%d"`, i)
	}
	header = bytes.Replace(header, []byte(`"slices":["market"]`), []byte(`"slices":[`+strings.Join(cols, ",")+`]`), 1)
	body := append(binary.AppendUvarint(nil, 300), make([]byte, 484_000-len(header))...)
	crafted := filepath.Join(dir, "crafted.state")
	os.WriteFile(crafted, craftState(head, header, append(body, rest...)), 0o644)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	code, _, stderr := cli(t, "merge", "--output", filepath.Join(dir, "out.json"), crafted)
	runtime.ReadMemStats(&after)
	if want := "crafted.state: damaged rankeval state file: header: 20000 extra columns"; code != 1 || !strings.Contains(stderr, want) {
		t.Fatalf("exit %d, stderr %q; want exit 1 and %q", code, stderr, want)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
		t.Fatalf("merge allocated %d MB for a file of 484 KB", got>>20)
	}
}

// mergeSeeds writes states rankeval --state makes under several options
// (slices, two models and a bootstrap; --system logs; TREC runs with a
// profile; no curve family; other conventions) and returns their paths.
func mergeSeeds(tb testing.TB, dir string) []string {
	tb.Helper()
	var lines [2]strings.Builder
	for q := range 6 {
		for d := range 4 {
			label := (q + d) % 3
			for s := range lines {
				fmt.Fprintf(&lines[s], `{"query_id":"q%d","doc_id":"d%d","score":%g,"score_b":%g,"label":%d,"market":"m%d"}`+"\n",
					q, d, float64((d*7+q+s)%5)/4, float64(d)/4, label, q%3)
			}
		}
	}
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			tb.Fatal(err)
		}
		return p
	}
	log, logB := write("log.jsonl", lines[0].String()), write("log_b.jsonl", lines[1].String())
	qrels := write("qrels.txt", "q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 2\n")
	run := write("run.txt", "q1 Q0 d1 1 0.9 r\nq1 Q0 d2 2 0.5 r\nq2 Q0 d3 1 0.7 r\nq2 Q0 d1 2 0.2 r\n")
	var paths []string
	for i, args := range [][]string{
		{"--by", "market", "--score-col", "score,score_b", "--bootstrap", "20", log},
		{"--score-col", "score,score_b", "--pairs", "all", "--permutations", "20", "--seed", "3", "--correction", "bh", log},
		{"--by", "market", "--score-col", "score,score_b", "--test", "tukey", "--permutations", "10", log},
		{log},
		{"-m", "map,mrr,kendall", "--by", "market", log},
		{"--system", "a=" + log, "--system", "b=" + logB, "--missing", "zero", "-m", "ndcg@3,err@3"},
		{"--qrels", qrels, "--profile", "trec_eval", "-m", "map,p@5", run},
		{"--ties", "trec", "--gain", "linear", "--rel-threshold", "1", "--dedup", "first", "--empty", "zero", "--max-grade", "2", log},
	} {
		p := filepath.Join(dir, fmt.Sprintf("seed%d.state", i))
		if code, _, stderr := cli(tb, append([]string{"--quiet", "--state", p, "--output", p + ".json"}, args...)...); code != 0 {
			tb.Fatalf("%v: %s", args, stderr)
		}
		paths = append(paths, p)
	}
	return paths
}

// FuzzMerge feeds bytes to rankeval merge as a state file, as given and
// with a valid checksum (a crafted file has one), alone and with a real
// state before and after it. Merge never panics, allocates in proportion
// to the file, and either exits 0 or exits 1 naming the file; merged in
// either order, the summary is the same bytes; a merged state it writes
// merges again into the same summary.
func FuzzMerge(f *testing.F) {
	dir := f.TempDir()
	seeds := mergeSeeds(f, dir)
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	first, _ := os.ReadFile(seeds[0])
	f.Add(withKey0Twice(f, first))
	f.Add(withHeader(f, first, func(h string) string {
		return strings.Replace(h, `"ndcg@10"`, `"ndcg@9200000000000000000"`, 1)
	}))
	f.Add([]byte(state.Magic))
	f.Add([]byte("{\"query_id\":\"a\"}\n"))
	good := seeds[0]
	goodData, _ := os.ReadFile(good)
	fuzzed, out := filepath.Join(dir, "fuzzed.state"), filepath.Join(dir, "merged.state")
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, b := range [][]byte{data, reseal(data)} {
			if err := os.WriteFile(fuzzed, b, 0o644); err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			code, alone, stderr := cli(t, "merge", "--format", "json", "--state", out, fuzzed)
			runtime.ReadMemStats(&after)
			if got, most := after.TotalAlloc-before.TotalAlloc, 16<<20+uint64(256*len(b)); got > most {
				t.Fatalf("merge of a %d-byte state allocated %d bytes, more than %d", len(b), got, most)
			}
			switch {
			case code == 1 && strings.Contains(stderr, fuzzed):
				continue
			case code != 0:
				t.Fatalf("exit %d, stderr %q: want 0, or 1 naming %s", code, stderr, fuzzed)
			}
			if code, again, stderr := cli(t, "merge", "--format", "json", out); code != 0 || again != alone {
				t.Fatalf("the merged state merges into another summary (exit %d, %s)", code, stderr)
			}
			if bytes.Equal(b, goodData) {
				continue // the order of two equal states is no test
			}
			code, ab, stderr := cli(t, "merge", "--format", "json", good, fuzzed)
			if code != 0 {
				if code != 1 || !strings.Contains(stderr, fuzzed) {
					t.Fatalf("after a state: exit %d, stderr %q: want 0, or 1 naming %s", code, stderr, fuzzed)
				}
				continue
			}
			if code, ba, stderr := cli(t, "merge", "--format", "json", fuzzed, good); code != 0 || ba != ab {
				t.Fatalf("merged in the other order: exit %d, %s, other bytes: %v", code, stderr, ba != ab)
			}
		}
	})
}

// TestMergeSameStateTwice: one state file given twice to merge (named
// twice, by another spelling, or by a glob and by name) was merged twice:
// every query counted twice, the summary's query counts doubled and its
// intervals narrowed, with exit 0; one run over one log given twice stops
// ("query id reappears"). A state read twice is an error naming it.
func TestMergeSameStateTwice(t *testing.T) {
	dir := t.TempDir()
	days := weekOfLogs(t, dir)[:2]
	var states []string
	for i, day := range days {
		s := filepath.Join(dir, fmt.Sprintf("day%d.state", i))
		if code, _, stderr := cli(t, "--quiet", "--state", s, "--output", s+".json", day); code != 0 {
			t.Fatalf("writing a state: exit %d, %s", code, stderr)
		}
		states = append(states, s)
	}
	a, b := states[0], states[1]
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"one name twice", []string{a, a}},
		{"another spelling", []string{a, b, filepath.Join(dir, ".", "day0.state")}},
		{"a glob and a name", []string{filepath.Join(dir, "day*.state"), b}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "week.json")
			code, _, stderr := cli(t, append([]string{"merge", "--format", "json", "--output", out}, tc.args...)...)
			if code == 0 || !strings.Contains(stderr, "day") {
				b, _ := os.ReadFile(out)
				t.Fatalf("exit %d, stderr %q; want an error naming the state read twice (summary %.200s)", code, stderr, b)
			}
			if _, err := os.Stat(out); err == nil {
				t.Fatal("a summary was written")
			}
		})
	}
}

// TestMergeQuiet: rankeval merge takes --quiet as a run does (a script
// passes the same flags to both); it prints the same summary.
func TestMergeQuiet(t *testing.T) {
	dir := t.TempDir()
	st := filepath.Join(dir, "day.state")
	if code, _, stderr := cli(t, "--quiet", "--state", st, "--output", st+".json", weekOfLogs(t, dir)[0]); code != 0 {
		t.Fatal(stderr)
	}
	code, want, stderr := cli(t, "merge", "--format", "json", st)
	if code != 0 {
		t.Fatal(stderr)
	}
	for _, args := range [][]string{{"merge", "--quiet", "--format", "json", st}, {"merge", "--format", "json", st, "--quiet"}} {
		if code, got, stderr := cli(t, args...); code != 0 || got != want || stderr != "" {
			t.Errorf("%v: exit %d, stderr %q, same summary %v", args, code, stderr, got == want)
		}
	}
}

// TestMergeCorrection: states that differ only in --correction merge (it
// adjusts p-values when the summary is printed). The summary takes merge's
// --correction when given, else the first state's, and says so on stderr
// when the states disagree; either way it is the summary one run over both
// logs prints with that correction.
func TestMergeCorrection(t *testing.T) {
	dir := t.TempDir()
	days := weekOfLogs(t, dir)[:2]
	model := []string{"--score-col", "score,score_b,score_c", "-m", "map,ndcg@10"}
	save := func(name string, corr ...string) string {
		st := filepath.Join(dir, name)
		args := append(append([]string{"--quiet", "--state", st, "--output", st + ".json"}, model...), corr...)
		if code, _, stderr := cli(t, append(args, days[len(name)%2])...); code != 0 {
			t.Fatal(stderr)
		}
		return st
	}
	holm, bh := save("a.state"), save("bb.state", "--correction", "bh")
	oneRun := func(corr string) string {
		t.Helper()
		code, out, stderr := cli(t, append(append([]string{"--quiet", "--format", "json", "--correction", corr}, model...), days...)...)
		if code != 0 {
			t.Fatal(stderr)
		}
		return out
	}
	for _, tc := range []struct {
		name, corr string
		args       []string
		warn       bool
	}{
		{"the first state's", "holm", []string{holm, bh}, true},
		{"the first state's, other order", "bh", []string{bh, holm}, true},
		{"merge's", "none", []string{"--correction", "none", holm, bh}, false},
		{"merge's, the states'", "holm", []string{bh, holm, "--correction", "holm"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, got, stderr := cli(t, append([]string{"merge", "--format", "json"}, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if want := oneRun(tc.corr); got != want {
				t.Errorf("summary:\n%s\nwant (one run, --correction %s):\n%s", got, tc.corr, want)
			}
			if warned := strings.Contains(stderr, "--correction"); warned != tc.warn {
				t.Errorf("stderr %q: warned %v, want %v", stderr, warned, tc.warn)
			}
		})
	}
	if code, _, stderr := cli(t, "merge", "--correction", "bonferroni", holm); code != 2 || !strings.Contains(stderr, "--correction") {
		t.Errorf("--correction bonferroni: exit %d, %q; want a usage error", code, stderr)
	}
}
