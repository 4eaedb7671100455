package state

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/config"
	"github.com/rankeval/rankeval/reader"
	"github.com/rankeval/rankeval/stats"
	"github.com/rankeval/rankeval/summary"
)

// testState is the state of rankeval -m map,ndcg@10,kendall --score-col
// a,b --by market --max-slices 100 --bootstrap 40 --state, its run
// resolved as the CLI resolves it: two systems, three slices.
func testState(t testing.TB) *State {
	v := config.Config{Metrics: "map,ndcg@10,kendall", Ties: "input", Gain: "exp", MaxGrade: 4, Empty: "skip", Dedup: "error",
		Format: "json", InputFormat: "auto", MaxGroupRows: 1000, Columns: reader.Columns{Query: "q", Doc: "d", Score: "a,b", Label: "l"},
		By: "market", MaxSlices: 100, Bootstrap: 40}
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
		q := aggregate.Query{Slice: i % 3, Hash: stats.QueryHash([]byte{byte(i)}), Rows: []int{10, 10},
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
		{"a metric spelt otherwise", `"map"`, `"Map"`, `metrics is ["Map","ndcg@10","kendall"] where rankeval writes ["map","ndcg@10","kendall"]`},
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
		{"a bootstrap too large", `"bootstrap":40`, `"bootstrap":100001`, `--bootstrap 100001: want 0 (none) to 100000 replicates`},
		{"a negative bootstrap", `"bootstrap":40`, `"bootstrap":-1`, `--bootstrap -1`},
		{"TREC runs sliced", `"qrels":""`, `"qrels":"q.txt"`, `--by cannot slice TREC runs`},
		{"unknown labels", `"labels":""`, `"labels":"mixed"`, `labels is "mixed" where rankeval writes ""`},
		{"labels noted without ERR", `"labels":""`, `"labels":"binary"`, `labels is "binary" where rankeval writes ""`},
		{"an unknown field", `"inputs"`, `"extra":1,"inputs"`, `unknown field "extra"`},
		{"a field twice", `"inputs"`, `"bootstrap":40,"inputs"`, `a field repeated or spelt otherwise`},
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
	// a bootstrap too small for its interval (an older rankeval took
	// one): refused, as the run is, but not called damaged
	_, err := Decode(craft([]byte(strings.Replace(h, `"bootstrap":40`, `"bootstrap":39`, 1)), rest))
	if want := "made with --bootstrap 39: a 95% percentile interval needs each 2.5% tail to hold a replicate (40 × 2.5% = 1); make it again with --bootstrap 40 or more (or 0)"; !errors.Is(err, stats.ErrFewReplicates) || errors.Is(err, ErrDamaged) || err.Error() != want {
		t.Fatalf("a bootstrap of 39: %v\nwant %s", err, want)
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
			r.Compare = aggregate.Compare{Test: stats.TestRandom, Permutations: 1000}
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
	v := config.Config{Metrics: "ips_dcg@10,snips_dcg@10,abandon", Ties: "input", Gain: "exp", MaxGrade: 4, Empty: "skip", Dedup: "error",
		Format: "json", InputFormat: "auto", MaxGroupRows: 1000, Columns: reader.Columns{Query: "q", Doc: "d", Score: "a,b", Label: "l"},
		By: "market", MaxSlices: 100, Bootstrap: 40,
		Clicks: config.Clicks{PositionCol: "pos", PositionBias: "table:1,0.5,0.25", PropensityClip: clip}}
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
		q := aggregate.Query{Slice: i % 3, Hash: stats.QueryHash([]byte{byte(i)}), Rows: []int{10, 10},
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
	for _, c := range []stats.Correction{stats.CorrBH, stats.CorrNone} {
		o := testState(t)
		o.Run.Correction = c
		if got := Mismatch(testState(t), o); got != "" {
			t.Errorf("--correction %s: Mismatch = %q, want none", c, got)
		}
	}
}

// digested is testState made from the inputs named, each with a digest of
// its own (the digest of a query named after it).
func digested(t testing.TB, inputs ...string) *State {
	s := testState(t)
	d := aggregate.NewInputDigests(s.Agg.L)
	query := func() *aggregate.Query {
		m := s.Agg.L.Metrics
		return &aggregate.Query{Rows: []int{1, 1}, Vals: [][]float64{make([]float64, m), make([]float64, m)}, Empty: []bool{false, false},
			Missing: []bool{false, false}}
	}
	for i, name := range inputs {
		d.Add(i, []byte(name), query())
	}
	d.Add(len(inputs)+1, []byte("x"), query())
	d.D[len(inputs)+1] = aggregate.Digest{} // an input without a query
	s.Digests = SourcesOf(append(slices.Clone(inputs), "nothing.jsonl", "empty.jsonl"), d)
	s.Run.Inputs = inputs
	return s
}

// TestStateDigests: a state records the inputs it was made from with
// their digests, in one order, and decodes to the same bytes; an input
// without a query is left out. A merged state holds its parts' inputs, in
// any order of merging the same bytes, and a state sharing one of them is
// refused (ErrSharedInput), changing nothing: a week merged again with one
// of its days, the same day under another name.
func TestStateDigests(t *testing.T) {
	day1, day2, day3 := digested(t, "day1.jsonl"), digested(t, "day2.jsonl"), digested(t, "day3.jsonl")
	if len(day1.Digests) != 1 || day1.Digests[0].Input != "day1.jsonl" {
		t.Fatalf("digests %v, want day1.jsonl's alone", day1.Digests)
	}
	b := encode(t, day1)
	header, _ := split(t, b)
	if want := `"digests":[{"input":"day1.jsonl","digest":"` + day1.Digests[0].Digest.String() + `"}]}`; !bytes.HasSuffix(header, []byte(want)) {
		t.Fatalf("header %s does not end in %s", header, want)
	}
	d, err := Decode(b)
	if err != nil || !slices.Equal(d.Digests, day1.Digests) || d.Undigested {
		t.Fatalf("decoded digests %v, undigested %v, %v", d.Digests, d.Undigested, err)
	}
	week := digested(t, "day1.jsonl")
	if err := week.Merge(digested(t, "day2.jsonl")); err != nil {
		t.Fatal(err)
	}
	if err := week.Merge(day3); err != nil {
		t.Fatal(err)
	}
	other := digested(t, "day3.jsonl")
	if err := other.Merge(digested(t, "day2.jsonl")); err != nil {
		t.Fatal(err)
	}
	if err := other.Merge(digested(t, "day1.jsonl")); err != nil {
		t.Fatal(err)
	}
	slices.Sort(week.Run.Inputs) // as rankeval merge lists them
	slices.Sort(other.Run.Inputs)
	if !bytes.Equal(encode(t, week), encode(t, other)) {
		t.Fatal("merged in another order: other bytes")
	}
	oneRun := digested(t, "day1.jsonl", "day2.jsonl", "day3.jsonl")
	if !slices.Equal(oneRun.Digests, week.Digests) {
		t.Fatalf("one run over three days: digests %v, merged days %v", oneRun.Digests, week.Digests)
	}
	renamed := digested(t, "day2.jsonl")
	renamed.Digests[0].Input = "copy/day2.parquet"
	for _, tc := range []struct {
		name string
		a, b *State
		want string
	}{
		{"a week and one of its days", week, day2, `"day2.jsonl" and "day2.jsonl"`},
		{"a day and a week holding it", digested(t, "day2.jsonl"), week, `"day2.jsonl" and "day2.jsonl"`},
		{"a day under another name", digested(t, "day2.jsonl"), renamed, `"day2.jsonl" and "copy/day2.parquet"`},
		{"one run over days and one of them", oneRun, day3, `"day3.jsonl" and "day3.jsonl"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := encode(t, tc.a)
			err := tc.a.Merge(tc.b)
			if !errors.Is(err, ErrSharedInput) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrSharedInput naming %s", err, tc.want)
			}
			if !bytes.Equal(encode(t, tc.a), before) {
				t.Fatal("a refused merge changed the state")
			}
		})
	}
}

// TestVersion1State: a state written before states recorded digests
// (version 1: no digests field) still decodes and merges, marked
// Undigested, as is any state merged with it; its header may not carry
// digests. Version 2 refuses a header whose digests are not as rankeval
// writes them.
func TestVersion1State(t *testing.T) {
	s := testState(t)
	b := encode(t, s)
	header, rest := split(t, b)
	v1 := craft(header, rest)
	v1[len(Magic)] = 1
	v1 = binary.LittleEndian.AppendUint32(v1[:len(v1)-4], crc32.Checksum(v1[:len(v1)-4], castagnoli))
	old, err := Decode(v1)
	if err != nil {
		t.Fatalf("a version-1 state: %v", err)
	}
	if !old.Undigested || old.Digests != nil {
		t.Fatalf("a version-1 state: undigested %v, digests %v", old.Undigested, old.Digests)
	}
	day := digested(t, "day2.jsonl")
	if err := old.Merge(day); err != nil {
		t.Fatal(err)
	}
	again, err := Decode(encode(t, old))
	if err != nil || !again.Undigested || !slices.Equal(again.Digests, day.Digests) {
		t.Fatalf("merged with a version-1 state: undigested %v, digests %v, %v", again.Undigested, again.Digests, err)
	}
	if h, _ := split(t, encode(t, old)); !bytes.HasSuffix(h, []byte(`,"undigested":true}`)) {
		t.Fatalf("header %s", h)
	}
	digests := encode(t, digested(t, "day1.jsonl", "day2.jsonl"))
	dh, drest := split(t, digests)
	d1 := digested(t, "day1.jsonl").Digests[0].Digest.String()
	for _, tc := range []struct {
		name    string
		version byte
		header  []byte
		want    string
	}{
		{"digests in version 1", 1, dh, "digests in a version-1 state"},
		{"undigested in version 1", 1, bytes.Replace(header, []byte(`]}`), []byte(`],"undigested":true}`), 1), "digests in a version-1 state"},
		{"a zero digest", 2, bytes.Replace(dh, []byte(d1), []byte(strings.Repeat("0", 32)), 1), "the digest of no query"},
		{"an upper-case digest", 2, bytes.Replace(dh, []byte(d1), []byte(strings.ToUpper(d1)), 1), "want lower-case"},
		{"a short digest", 2, bytes.Replace(dh, []byte(d1), []byte(d1[1:]), 1), "want 32 hexadecimal digits"},
		{"undigested false", 2, bytes.Replace(dh, []byte(`]}`), []byte(`],"undigested":false}`), 1), `unknown field "undigested"`},
		{"digests out of order", 2, swapDigests(t, dh), "digests not in order"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := craft(tc.header, drest)
			f[len(Magic)] = tc.version
			f = binary.LittleEndian.AppendUint32(f[:len(f)-4], crc32.Checksum(f[:len(f)-4], castagnoli))
			if _, err := Decode(f); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrDamaged: %s", err, tc.want)
			}
		})
	}
}

// swapDigests is header with its two inputs' digests swapped.
func swapDigests(t *testing.T, header []byte) []byte {
	i := bytes.Index(header, []byte(`"digests":[`))
	var ds []struct {
		Input  string `json:"input"`
		Digest string `json:"digest"`
	}
	if err := json.Unmarshal(header[i+len(`"digests":`):len(header)-1], &ds); err != nil || len(ds) != 2 {
		t.Fatalf("digests of %s: %v", header, err)
	}
	ds[0], ds[1] = ds[1], ds[0]
	b, _ := json.Marshal(ds)
	return append(append(bytes.Clone(header[:i+len(`"digests":`)]), b...), '}')
}

// TestDecodeVersion1File reads a state rankeval wrote before states
// recorded digests (version 1, testdata/v1/day1.state: rankeval --by
// market --bootstrap 40 -m map,ndcg@5 --state day1.state day1.jsonl): it
// decodes, with no digests and marked Undigested, and encodes as version
// 2 saying so.
func TestDecodeVersion1File(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "v1", "day1.state"))
	if err != nil {
		t.Fatal(err)
	}
	if b[len(Magic)] != 1 {
		t.Fatalf("version %d, want 1", b[len(Magic)])
	}
	s, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Undigested || s.Digests != nil || !slices.Equal(s.Run.Inputs, []string{"day1.jsonl"}) || s.Agg.Sys[0].Queries != 12 {
		t.Fatalf("undigested %v, digests %v, inputs %v, %d queries", s.Undigested, s.Digests, s.Run.Inputs, s.Agg.Sys[0].Queries)
	}
	again := encode(t, s)
	if h, _ := split(t, again); again[len(Magic)] != Version || !bytes.HasSuffix(h, []byte(`"inputs":["day1.jsonl"],"undigested":true}`)) {
		t.Fatalf("re-encoded as version %d, header %s", again[len(Magic)], h)
	}
}
