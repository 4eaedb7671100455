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

	"github.com/rankeval/rankeval/internal/synth"
	"github.com/rankeval/rankeval/internal/vectors"
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
		{"--by", "market", "--score-col", "score,score_b", "--bootstrap", "40", log},
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
			case code == 2 && strings.Contains(stderr, "--format json: propensity states merge into"):
				continue // a propensity state: FuzzMergePropensities
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

// TestMergeRefusesSharedInput: states made from one input do not merge,
// whatever made them: a week merged again with one of its days (the
// rolling window's mistake: every query of that day counted twice), one
// run over several days and one of those days, a copy of a state, the
// same day read from another path and format. The error names both
// states and the input, exit 1, and no output is written. A week and the
// next day merge, and so do merges of merges; and a week merged from its
// days is the state one run over its days writes, byte for byte.
func TestMergeRefusesSharedInput(t *testing.T) {
	dir := t.TempDir()
	days := weekOfLogs(t, dir)
	save := func(name string, args ...string) string {
		t.Helper()
		st := filepath.Join(dir, name)
		if code, _, stderr := cli(t, append([]string{"--quiet", "--by", "market", "--bootstrap", "40", "--state", st, "--output", st + ".json"}, args...)...); code != 0 {
			t.Fatal(stderr)
		}
		return st
	}
	merge := func(out string, states ...string) (int, string) {
		t.Helper()
		code, _, stderr := cli(t, append([]string{"merge", "--format", "json", "--state", out, "--output", out + ".json"}, states...)...)
		return code, stderr
	}
	var st []string
	for d, day := range days {
		st = append(st, save(fmt.Sprintf("day%d.state", d), day))
	}
	week := filepath.Join(dir, "week.state")
	if code, stderr := merge(week, st[:5]...); code != 0 {
		t.Fatal(stderr)
	}
	oneRun := save("onerun.state", days[:5]...)
	if a, b := readFile(t, week), readFile(t, oneRun); a != b {
		t.Error("the week merged from its days is not the state of one run over them")
	}
	for i, args := range [][]string{{"--workers", "1", "--batch-size", "5"}, {"--workers", "3", "--unsorted"}} {
		if a, b := readFile(t, oneRun), readFile(t, save(fmt.Sprintf("onerun%d.state", i), append(args, days[:5]...)...)); a != b {
			t.Errorf("%v: another state", args)
		}
	}
	// day 1 again, from another path and format (its rows as JSON lines)
	moved := filepath.Join(dir, "moved", "day1.jsonl")
	os.Mkdir(filepath.Dir(moved), 0o755)
	if err := synth.Write(moved, &synth.Rows{R: weekOfRows()[1]}, -1, synth.Options{}); err != nil {
		t.Fatal(err)
	}
	movedState := save("moved.state", moved)
	copied := filepath.Join(dir, "copy.state")
	os.WriteFile(copied, []byte(readFile(t, st[3])), 0o644)
	for _, tc := range []struct {
		name   string
		states []string
		a, b   string // the states named
		input  string
	}{
		{"a week and one of its days", []string{week, st[2], st[5]}, week, st[2], days[2]},
		{"a day and a week holding it", []string{st[4], week}, st[4], week, days[4]},
		{"one run over days and one of them", []string{st[6], oneRun, st[0]}, oneRun, st[0], days[0]},
		{"a copy of a state", []string{st[3], copied}, st[3], copied, days[3]},
		{"a day from another path and format", []string{st[1], movedState}, st[1], movedState, moved},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "merged.state")
			code, stderr := merge(out, tc.states...)
			want := fmt.Sprintf("rankeval: %s and %s were made from one input (", tc.a, tc.b)
			if code != 1 || !strings.HasPrefix(stderr, want) || !strings.Contains(stderr, tc.input) || !strings.Contains(stderr, state.ErrSharedInput.Error()) {
				t.Fatalf("exit %d, stderr %q; want 1 and %q... naming %s", code, stderr, want, tc.input)
			}
			if left, _ := os.ReadDir(filepath.Dir(out)); len(left) != 0 {
				t.Fatalf("left: %v", left)
			}
		})
	}
	// --system logs: each file of a log is an input, named NAME=PATH
	sys := func(name string, d int) string {
		return save(name, "--system", "a="+days[d], "--system", "b="+days[d], "--missing", "zero")
	}
	sys0, sys1 := sys("sys0.state", 0), sys("sys1.state", 1)
	if _, header, _ := stateParts(t, []byte(readFile(t, sys0))); !strings.Contains(string(header), `"digests":[{"input":"a=`+days[0]+`","digest":"`) {
		t.Errorf("--system state's header %s", header)
	}
	if code, stderr := merge(filepath.Join(dir, "sys.state"), sys0, sys1); code != 0 {
		t.Fatalf("--system states of two days: %s", stderr)
	}
	if code, stderr := merge(filepath.Join(dir, "sys.state"), sys1, sys("sys1again.state", 1)); code != 1 || !strings.Contains(stderr, "a="+days[1]) {
		t.Fatalf("--system states of one day: exit %d, %s", code, stderr)
	}
	// the next day, and merges of merges
	next := filepath.Join(dir, "next.state")
	if code, stderr := merge(next, week, st[5]); code != 0 {
		t.Fatalf("a week and the next day: %s", stderr)
	}
	pair := filepath.Join(dir, "pair.state")
	if code, stderr := merge(pair, st[5], st[6]); code != 0 {
		t.Fatal(stderr)
	}
	all := filepath.Join(dir, "all.state")
	if code, stderr := merge(all, week, pair); code != 0 {
		t.Fatalf("merged states: %s", stderr)
	}
	if code, stderr := merge(filepath.Join(dir, "again.state"), all, st[6]); code != 1 || !strings.Contains(stderr, days[6]) {
		t.Fatalf("a merge of merges and a day it holds: exit %d, %s", code, stderr)
	}
	if a, b := readFile(t, all), readFile(t, save("all-one-run.state", days...)); a != b {
		t.Error("a merge of merges is not the state of one run over the week")
	}
}

// TestMergeVersion1State: a state written before states recorded what
// they were made from (version 1, state/testdata/v1/day1.state) still
// merges, into the summary one run over both days prints, with a warning
// naming it: whether it shares an input with another state cannot be
// checked. The merged state says so, and warns again when merged.
func TestMergeVersion1State(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join("..", "..", "state", "testdata", "v1")
	for _, f := range []string{"day1.state", "day1.jsonl", "day2.jsonl"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, f), b, 0o644)
	}
	old, day1, day2 := filepath.Join(dir, "day1.state"), filepath.Join(dir, "day1.jsonl"), filepath.Join(dir, "day2.jsonl")
	flags := []string{"--by", "market", "--bootstrap", "40", "-m", "map,ndcg@5"}
	st2 := filepath.Join(dir, "day2.state")
	if code, _, stderr := cli(t, append(append([]string{"--quiet", "--state", st2, "--output", st2 + ".json"}, flags...), day2)...); code != 0 {
		t.Fatal(stderr)
	}
	_, want, _ := cli(t, append(append([]string{"--quiet", "--format", "json"}, flags...), day1, day2)...)
	merged := filepath.Join(dir, "merged.state")
	code, got, stderr := cli(t, "merge", "--format", "json", "--state", merged, old, st2)
	warning := "rankeval: warning: " + old + " holds a state written before rankeval recorded what states are made from (state version 1)"
	if code != 0 || !strings.HasPrefix(stderr, warning) {
		t.Fatalf("exit %d, stderr %q; want 0 and %q", code, stderr, warning)
	}
	if vectors.SummaryBody(got) != vectors.SummaryBody(want) {
		t.Fatalf("merged:\n%s\none run:\n%s", got, want)
	}
	if _, header, _ := stateParts(t, []byte(readFile(t, merged))); !strings.HasSuffix(string(header), `"undigested":true}`) {
		t.Fatalf("merged state's header %s", header)
	}
	st3 := filepath.Join(dir, "day3.state")
	if code, _, stderr := cli(t, append(append([]string{"--quiet", "--state", st3, "--output", st3 + ".json"}, flags...), day2)...); code != 0 {
		t.Fatal(stderr)
	}
	// the merged state still holds day 2's digest, and warns of its part
	// that has none
	code, _, stderr = cli(t, "merge", "--format", "json", "--output", filepath.Join(dir, "x.json"), merged, st3)
	if code != 1 || !strings.Contains(stderr, "rankeval: warning: "+merged+" holds a state written before") || !strings.Contains(stderr, "made from one input") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}
