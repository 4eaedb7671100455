package state

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/evalflags"
	"github.com/rankeval/rankeval/reader"
	"github.com/rankeval/rankeval/summary"
)

// testState is the state of rankeval -m map,ndcg@10,kendall --score-col
// a,b --by market --max-slices 100 --bootstrap 20 --state, its run
// resolved as the CLI resolves it: two systems, three slices.
func testState(t testing.TB) *State {
	v := evalflags.Values{Metrics: "map,ndcg@10,kendall", Ties: "input", Gain: "exp", MaxGrade: 4, Empty: "skip", Dedup: "error",
		Format: "json", InputFormat: "auto", MaxGroupRows: 1000, Columns: reader.Columns{Query: "q", Doc: "d", Score: "a,b", Label: "l"},
		By: "market", MaxSlices: 100, Bootstrap: 20}
	s, err := v.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	run := s.Summary()
	run.Curves = summary.CurvesFor(run.Metrics)
	run.Inputs = []string{"day1.jsonl"}
	return &State{Run: &run, Agg: testAgg(layout(&run, s)), SliceKeys: [][]string{{"de"}, {"fr"}, {"us"}}}
}

// testAgg is the aggregate of 30 queries in three slices under l.
func testAgg(l *aggregate.Layout) *aggregate.Analysis {
	a := aggregate.NewAnalysis(l)
	for i := range 30 {
		v := float64(i%7) / 7
		vals := [][]float64{make([]float64, a.L.Metrics), make([]float64, a.L.Metrics)}
		for m := range vals[0] {
			vals[0][m], vals[1][m] = v/float64(m+1), 1-v
		}
		vals[0][2], vals[1][2] = math.NaN(), 0.5 // kendall
		q := aggregate.Query{Slice: i % 3, Hash: aggregate.QueryHash([]byte{byte(i)}), Rows: []int{10, 10},
			Vals: vals, Empty: []bool{false, false}, Missing: []bool{false, false}}
		if err := a.Add(&q); err != nil {
			panic(err)
		}
	}
	return a
}

func encode(t testing.TB, s *State) []byte {
	t.Helper()
	b, err := s.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// split cuts a state file into its header's JSON and what follows it (the
// slice keys and the aggregate), the checksum left out.
func split(t testing.TB, b []byte) (header, rest []byte) {
	t.Helper()
	p := len(Magic) + 1
	n, k := binary.Uvarint(b[p:])
	p += k
	return b[p : p+int(n)], b[p+int(n) : len(b)-4]
}

// craft makes a state file of a header and what follows it, with a valid
// checksum: what a hostile writer can do.
func craft(header, rest []byte) []byte {
	b := append([]byte(Magic), Version)
	b = binary.AppendUvarint(b, uint64(len(header)))
	b = append(append(b, header...), rest...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// sliceCols is a header's slices field naming n slice columns.
func sliceCols(n int) string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf(`"c%d"`, i)
	}
	return `"slices":[` + strings.Join(names, ",") + `]`
}

func TestRoundTrip(t *testing.T) {
	s := testState(t)
	b := encode(t, s)
	d, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if again := encode(t, d); !bytes.Equal(again, b) {
		t.Fatal("decoded state encodes to other bytes")
	}
	if Mismatch(s, d) != "" {
		t.Fatalf("a state mismatches its own copy: %s", Mismatch(s, d))
	}
	o := testState(t)
	o.Run.Options.Ties = 2
	if got, want := Mismatch(s, o), fmt.Sprintf("ties %q against \"input\"", o.Run.Options.Ties); got != want {
		t.Fatalf("Mismatch = %q, want %q", got, want)
	}
}

// TestEncodeCanonical: the slices are written in one order whatever order
// a run met them in, so a merge's bytes do not depend on the order of its
// states; a key twice is refused, not written.
func TestEncodeCanonical(t *testing.T) {
	want := encode(t, testState(t))
	s := testState(t)
	s.SliceKeys = [][]string{s.SliceKeys[2], s.SliceKeys[0], s.SliceKeys[1]}
	s.Agg.Slices = []*aggregate.Slice{s.Agg.Slices[2], s.Agg.Slices[0], s.Agg.Slices[1]}
	if got := encode(t, s); !bytes.Equal(got, want) {
		t.Fatal("the same slices in another order encode to other bytes")
	}
	s.SliceKeys[1] = []string{"us"}
	if _, err := s.AppendBinary(nil); err == nil || !strings.Contains(err.Error(), `slice ["us"] twice`) {
		t.Fatalf("a key twice: %v", err)
	}
}

func TestDecodeRefuses(t *testing.T) {
	b := encode(t, testState(t))
	if _, err := Decode([]byte("{\"query_id\":1}\n")); !errors.Is(err, ErrNotState) {
		t.Fatalf("a log: %v", err)
	}
	for n := len(Magic); n < len(b); n++ {
		if _, err := Decode(b[:n]); !errors.Is(err, ErrDamaged) {
			t.Fatalf("cut to %d bytes: %v", n, err)
		}
	}
	for i := len(Magic); i < len(b); i++ {
		bad := bytes.Clone(b)
		bad[i] ^= 1
		if _, err := Decode(bad); !errors.Is(err, ErrDamaged) {
			t.Fatalf("byte %d flipped: %v", i, err)
		}
	}
}

// TestDecodeRefusesHeader: a header that no rankeval run writes, with a
// valid checksum, is refused by name: every field is read back through the
// checks the command line's flags get, and must then be written as
// rankeval writes it.
func TestDecodeRefusesHeader(t *testing.T) {
	header, rest := split(t, encode(t, testState(t)))
	h := string(header)
	for _, tc := range []struct {
		name, old, new, msg string
	}{
		// p@9200000000000000000 made the report's curves panic
		{"an absurd cutoff", `"ndcg@10"`, `"ndcg@9200000000000000000"`, `metric "ndcg@9200000000000000000": cutoff k must be a whole number from 1`},
		{"a cutoff above the largest", `"ndcg@10"`, `"ndcg@1000000001"`, `cutoff k must be a whole number from 1 to 1000000000`},
		{"a metric twice", `"map"`, `"map","map"`, `"map" given twice`},
		{"an unknown metric", `"map"`, `"mapp"`, `metric "mapp": unknown metric`},
		{"a metric spelt otherwise", `"map"`, `"MAP"`, `metrics is ["MAP","ndcg@10","kendall"] where rankeval writes ["map","ndcg@10","kendall"]`},
		{"two metrics in one name", `"map","ndcg@10"`, `"map,ndcg@10"`, `metrics is ["map,ndcg@10","kendall"] where rankeval writes ["map","ndcg@10","kendall"]`},
		{"no metric", `["map","ndcg@10","kendall"]`, `[]`, `empty item`},
		{"curves left out", `"curves":true`, `"curves":false`, `curves is false where rankeval writes true`},
		{"an unknown tie policy", `"ties":"input"`, `"ties":"random"`, `"random"`},
		{"a max grade of 0", `"max_grade":4`, `"max_grade":0`, `--max-grade 0: want a number in (0, 1000]`},
		{"an unknown dedup policy", `"dedup":"error"`, `"dedup":"last"`, `--dedup "last": want error or first`},
		{"an unknown profile", `"profile":""`, `"profile":"ranx"`, `--profile "ranx": want trec_eval`},
		{"32-bit scores without a profile", `"score_float32":false`, `"score_float32":true`, `score_float32 is true where rankeval writes false`},
		{"a slice column twice", `"slices":["market"]`, `"slices":["market","market"]`, `column "market" is named twice`},
		{"a slice column that is the query column", `"slices":["market"]`, `"slices":["q"]`, `column "q" is named for two roles`},
		{"20,000 slice columns", `"slices":["market"]`, sliceCols(20_000), `20001 extra columns: at most 64`},
		{"an empty slice column", `"slices":["market"]`, `"slices":["market",""]`, `slices is ["market",""] where rankeval writes ["market"]`},
		{"no slice limit", `"max_slices":100`, `"max_slices":0`, `--max-slices must be >= 1`},
		{"a system twice", `"extra_scores":["b"]`, `"extra_scores":["c","c"]`, `column "c" is named twice`},
		{"systems that are not the score columns", `"systems":["a","b"]`, `"systems":["a","c"]`, `systems is ["a","c"] where rankeval writes ["a","b"]`},
		{"a missing policy for score columns", `"missing":""`, `"missing":"zero"`, `--system compares logs: give one --score-col`},
		{"a bootstrap too large", `"bootstrap":20`, `"bootstrap":100001`, `--bootstrap 100001: want 0 (none) to 100000 replicates`},
		{"a negative bootstrap", `"bootstrap":20`, `"bootstrap":-1`, `--bootstrap -1`},
		{"TREC runs sliced", `"qrels":""`, `"qrels":"q.txt"`, `--by cannot slice TREC runs`},
		{"unknown labels", `"labels":""`, `"labels":"mixed"`, `labels is "mixed" where rankeval writes ""`},
		{"labels noted without ERR", `"labels":""`, `"labels":"binary"`, `labels is "binary" where rankeval writes ""`},
		{"an unknown field", `"inputs"`, `"extra":1,"inputs"`, `unknown field "extra"`},
		{"a field twice", `"inputs"`, `"bootstrap":20,"inputs"`, `a field repeated or spelt otherwise`},
		{"a field in capitals", `"bootstrap"`, `"BOOTSTRAP"`, `no field "bootstrap"`},
		{"not JSON", `{`, `[`, `header: invalid character`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(h, tc.old) {
				t.Fatalf("the header has no %s: %s", tc.old, h)
			}
			_, err := Decode(craft([]byte(strings.Replace(h, tc.old, tc.new, 1)), rest))
			if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("got %v, want ErrDamaged and %q", err, tc.msg)
			}
		})
	}
	// a state of --system a=... --system b=... logs, and of TREC runs
	logs := strings.NewReplacer(`"score":"a","extra_scores":["b"]`, `"score":"score","extra_scores":null`, `"missing":""`, `"missing":"error"`).Replace(h)
	if _, err := Decode(craft([]byte(logs), rest)); err != nil {
		t.Fatalf("a state of --system logs: %v", err)
	}
	trec := strings.Replace(h, `"slices":["market"],"max_slices":100`, `"slices":null,"max_slices":0`, 1)
	for _, tc := range []struct {
		name, header, old, new, msg string
	}{
		{"an unknown missing policy", logs, `"missing":"error"`, `"missing":"skip"`, `--missing "skip": want error or zero`},
		{"a system twice", logs, `"systems":["a","b"]`, `"systems":["a","a"]`, `system "a" is named twice`},
		{"one system", logs, `"systems":["a","b"]`, `"systems":["a"]`, `--system: give two or more`},
		{"a system named NAME=", logs, `"systems":["a","b"]`, `"systems":["a","b=c"]`, `systems is ["a","b=c"] where rankeval writes ["a","b"]`},
		{"--complete", trec, `"qrels":"","complete":false`, `"qrels":"q.txt","complete":true`, `--state with --complete`},
		{"--complete without qrels", trec, `"complete":false`, `"complete":true`, `--complete needs --qrels`},
		{"unjudged queries skipped without a profile", trec, `"qrels":"","complete":false,"skip_unjudged":false`, `"qrels":"q.txt","complete":false,"skip_unjudged":true`, `skip_unjudged is true where rankeval writes false`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(tc.header, tc.old) {
				t.Fatalf("the header has no %s: %s", tc.old, tc.header)
			}
			_, err := Decode(craft([]byte(strings.Replace(tc.header, tc.old, tc.new, 1)), rest))
			if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("got %v, want ErrDamaged and %q", err, tc.msg)
			}
		})
	}
}

// TestDecodeRefusesBody: slice keys and an aggregate that do not fit the
// header, with a valid checksum.
func TestDecodeRefusesBody(t *testing.T) {
	s := testState(t)
	header, rest := split(t, encode(t, s))
	keys := func(n int, vals ...string) []byte {
		b := binary.AppendUvarint(nil, uint64(n))
		for _, v := range vals {
			b = binary.AppendUvarint(b, uint64(len(v)))
			b = append(b, v...)
		}
		return b
	}
	agg, _ := s.Agg.MarshalBinary()
	withAgg := func(k, agg []byte) []byte { return append(binary.AppendUvarint(k, uint64(len(agg))), agg...) }
	l := *s.Agg.L
	l.Core = slices.Clone(l.Core)
	l.Core[2] = aggregate.RangeUnit // kendall is signed: its bootstrap and histogram would be scaled wrong
	otherAgg, err := testAgg(&l).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		rest []byte
		msg  string
	}{
		// accepted before: a merge then added the second "de" to either
		// slice, depending on the order of the states
		{"a slice key twice", withAgg(keys(3, "de", "fr", "de"), agg), `slice keys: key 2 ["de"] repeats key 0`},
		{"more keys than bytes", append(keys(len(rest)+1), rest...), `keys of 1 values each: more than the`},
		{"keys longer than the file", withAgg(keys(3, "de", "fr"), agg), `truncated`},
		{"a layout that does not fit the header", withAgg(keys(3, "de", "fr", "us"), otherAgg), `the aggregate's layout`},
		{"fewer slices than keys", withAgg(keys(4, "de", "fr", "us", "uk"), agg), `3 slices for 4 slice keys`},
		{"bytes after the aggregate", append(bytes.Clone(rest), 0), `1 bytes after the aggregate`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(craft(header, tc.rest))
			if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("got %v, want ErrDamaged and %q", err, tc.msg)
			}
		})
	}
}

// TestDecodeAllocatesWhatTheFileHolds: a count in a state sizes nothing
// beyond the bytes present. Before, a header of 20,000 slice columns made
// Decode allocate 20,000 strings for every key the count claimed, present
// or not (a 484 KB file ran rankeval merge out of memory); here it claims
// 300 keys, and 64 columns (the most a header may name) claim keys for
// every byte left.
func TestDecodeAllocatesWhatTheFileHolds(t *testing.T) {
	header, rest := split(t, encode(t, testState(t)))
	h := string(header)
	for _, tc := range []struct {
		name, slices string
		keys         uint64
		pad          int
		factor       int // bytes allocated per byte of the file, at most
	}{
		// refused by the header's checks of its columns, which cost some
		// 60 bytes a byte (a map of the names; before, 96 MB were made)
		{"20,000 columns", sliceCols(20_000), 300, 1000, 100},
		{"64 columns", sliceCols(64), 20_000, 20_000, 2},
		{"one column", `"slices":["market"]`, 1 << 20, 1 << 20, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hdr := strings.Replace(h, `"slices":["market"]`, tc.slices, 1)
			body := append(binary.AppendUvarint(nil, tc.keys), make([]byte, tc.pad)...)
			data := craft([]byte(hdr), append(body, rest...))
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := Decode(data)
			runtime.ReadMemStats(&after)
			if !errors.Is(err, ErrDamaged) {
				t.Fatalf("got %v, want ErrDamaged", err)
			}
			if got, most := after.TotalAlloc-before.TotalAlloc, uint64(tc.factor*len(data)+1<<20); got > most {
				t.Fatalf("Decode of %d bytes allocated %d bytes, more than %d", len(data), got, most)
			}
		})
	}
}

// FuzzDecode: Decode never panics, with or without a valid checksum;
// what it accepts encodes back to bytes it reads as the same state, and
// those bytes are canonical.
func FuzzDecode(f *testing.F) {
	b, _ := testState(f).AppendBinary(nil)
	f.Add(b)
	ips, _ := ipsState(f, 0.01).AppendBinary(nil)
	f.Add(ips)
	f.Add([]byte(Magic))
	header, rest := split(f, b)
	f.Add(craft(bytes.Replace(header, []byte(`"ndcg@10"`), []byte(`"ndcg@9200000000000000000"`), 1), rest))
	f.Fuzz(func(t *testing.T, data []byte) {
		decodeAgain(t, data)
		if len(data) >= 4 {
			sealed := bytes.Clone(data[:len(data)-4])
			decodeAgain(t, binary.LittleEndian.AppendUint32(sealed, crc32.Checksum(sealed, castagnoli)))
		}
	})
}

// FuzzDecodeHeader: any header text, with the slice keys and aggregate of
// testState and a valid checksum. Decode never panics, and a header it
// accepts is the one rankeval writes for the state it reads.
func FuzzDecodeHeader(f *testing.F) {
	header, rest := split(f, encode(f, testState(f)))
	f.Add(string(header))
	f.Add(strings.Replace(string(header), `"ndcg@10"`, `"ndcg@9200000000000000000"`, 1))
	f.Add(strings.Replace(string(header), `"slices":["market"]`, sliceCols(3), 1))
	f.Fuzz(func(t *testing.T, h string) {
		data := craft([]byte(h), rest)
		if s := decodeAgain(t, data); s != nil {
			if got, _ := split(t, encode(t, s)); string(got) != h {
				t.Fatalf("accepted the header %s, which rankeval writes as %s", h, got)
			}
		}
	})
}

// decodeAgain decodes data; what Decode accepts must encode to bytes that
// decode, and encode again to the same bytes.
func decodeAgain(t *testing.T, data []byte) *State {
	s, err := Decode(data)
	if err != nil {
		return nil
	}
	again, err := s.AppendBinary(nil)
	if err != nil {
		t.Fatalf("a decoded state does not encode: %v", err)
	}
	d, err := Decode(again)
	if err != nil {
		t.Fatalf("a decoded state encodes to bytes Decode refuses: %v", err)
	}
	if b, _ := d.AppendBinary(nil); !bytes.Equal(b, again) {
		t.Fatal("a state's encoding is not canonical")
	}
	return s
}

// TestDecodeRefusesImpossibleSums: a state is hostile input (its checksum
// proves only that it is whole), and its sums are read as the figures of
// the summary. A crafted state whose map sum is 100 over 30 queries
// merged into "map 2.0000 [2.0000, 2.0000]" with exit 0; a negative or
// non-finite sum into -Inf, +Inf or a null mean. No run writes such sums
// (a metric bounded to [0, 1] sums to at most its count, a sum of squares
// is never negative, a run stops at a non-finite value), so Decode must
// refuse them as ErrDamaged.
func TestDecodeRefusesImpossibleSums(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(a *aggregate.Analysis)
	}{
		{"map above 1 on average", func(a *aggregate.Analysis) { a.Sys[0].Stats[0].Sum.Add(100) }},
		{"a negative map sum", func(a *aggregate.Analysis) { a.Sys[0].Stats[0].Sum.Add(-1000) }},
		{"a negative sum of squares", func(a *aggregate.Analysis) { a.Sys[0].Stats[1].SumSq.Add(-1000) }},
		{"a non-finite sum", func(a *aggregate.Analysis) { a.Sys[1].Stats[0].Sum.Add(math.Inf(1)) }},
		{"kendall below -1 on average", func(a *aggregate.Analysis) { a.Sys[1].Stats[2].Sum.Add(-1000) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := testState(t)
			tc.edit(s.Agg)
			b, err := s.AppendBinary(nil)
			if err != nil {
				return // refused on the way out: fine too
			}
			d, err := Decode(b)
			if !errors.Is(err, ErrDamaged) {
				st := d.Agg.Sys[0].Stats[0]
				t.Fatalf("err = %v, want ErrDamaged (map sum %v over %d queries read as a figure)", err, st.Sum.Float64(), st.N)
			}
		})
	}
}

// TestMismatchDefault: a comparison option that one state leaves at its
// default (and so out of its header, as states made before the option
// existed do) is named as the default, not as an empty string.
func TestMismatchDefault(t *testing.T) {
	s := testState(t)
	for _, tc := range []struct {
		name string
		set  func(r *summary.Run)
		want string
	}{
		{"test", func(r *summary.Run) {
			r.Compare = aggregate.Compare{Test: aggregate.TestRandom, Permutations: 1000}
		}, `test "randomization" against the default`},
		{"pairs", func(r *summary.Run) { r.Compare.AllPairs = true }, `pairs "all" against the default`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := testState(t)
			tc.set(o.Run)
			if got := Mismatch(s, o); got != tc.want {
				t.Errorf("Mismatch = %q, want %q", got, tc.want)
			}
			rev := strings.Replace(strings.Replace(tc.want, " against the default", "", 1), tc.name+" ", tc.name+" the default against ", 1)
			if got := Mismatch(o, s); got != rev {
				t.Errorf("the other way: Mismatch = %q, want %q", got, rev)
			}
		})
	}
}

// ipsState is a state of IPS estimates: a propensity model recorded in
// the header, click weights and a ratio metric in the aggregate.
func ipsState(t testing.TB, clip float64) *State {
	v := evalflags.Values{Metrics: "ips_dcg@10,snips_dcg@10,abandon", Ties: "input", Gain: "exp", MaxGrade: 4, Empty: "skip", Dedup: "error",
		Format: "json", InputFormat: "auto", MaxGroupRows: 1000, Columns: reader.Columns{Query: "q", Doc: "d", Score: "a,b", Label: "l"},
		By: "market", MaxSlices: 100, Bootstrap: 20,
		Clicks: evalflags.ClickValues{PositionCol: "pos", PositionBias: "table:1,0.5,0.25", PropensityClip: clip}}
	s, err := v.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	run := s.Summary()
	run.Curves = summary.CurvesFor(run.Metrics)
	run.Inputs = []string{"day1.jsonl"}
	a := aggregate.NewAnalysis(layout(&run, s))
	for i := range 30 {
		w := float64(i % 4)
		vals := [][]float64{make([]float64, a.L.Metrics), make([]float64, a.L.Metrics)}
		for m := range vals[0] {
			vals[0][m], vals[1][m] = w*float64(i%3)/4, w/2
		}
		q := aggregate.Query{Slice: i % 3, Hash: aggregate.QueryHash([]byte{byte(i)}), Rows: []int{10, 10},
			Vals: vals, Empty: []bool{w == 0, w == 0}, Missing: []bool{false, false}, Weight: []float64{w, w}, Clipped: []int{i % 2, i % 2}}
		if err := a.Add(&q); err != nil {
			t.Fatal(err)
		}
	}
	return &State{Run: &run, Agg: a, SliceKeys: [][]string{{"de"}, {"fr"}, {"us"}}}
}

// TestIPSRoundTrip: a state of IPS estimates records where the
// propensities came from, decodes to the same bytes, and does not merge
// with one made under another clip.
func TestIPSRoundTrip(t *testing.T) {
	s := ipsState(t, 0.05)
	b := encode(t, s)
	header, _ := split(t, b)
	if want := `"ips":{"propensity_col":"","position_col":"pos","position_bias":"table:1,0.5,0.25","propensity_clip":0.05}`; !strings.Contains(string(header), want) {
		t.Fatalf("header %s lacks %s", header, want)
	}
	d, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if again := encode(t, d); !bytes.Equal(again, b) {
		t.Fatal("decoded state encodes to other bytes")
	}
	if got := Mismatch(s, ipsState(t, 0.01)); !strings.Contains(got, "ips") {
		t.Fatalf("Mismatch = %q, want the ips field named", got)
	}
	// a header without its ips field is one no run writes
	_, rest := split(t, b)
	stripped := bytes.Replace(header, []byte(`"ips":{"propensity_col":"","position_col":"pos","position_bias":"table:1,0.5,0.25","propensity_clip":0.05},`), nil, 1)
	if _, err := Decode(craft(stripped, rest)); err == nil {
		t.Fatal("a state of IPS estimates without its propensities decoded")
	}
}

// TestMismatchIgnoresCorrection: states that differ only in --correction
// merge: the correction adjusts p-values when a summary is printed, from
// sums that do not depend on it.
func TestMismatchIgnoresCorrection(t *testing.T) {
	for _, c := range []aggregate.Correction{aggregate.CorrBH, aggregate.CorrNone} {
		o := testState(t)
		o.Run.Correction = c
		if got := Mismatch(testState(t), o); got != "" {
			t.Errorf("--correction %s: Mismatch = %q, want none", c, got)
		}
	}
}
