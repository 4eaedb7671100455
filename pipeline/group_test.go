package pipeline

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/reader"
)

// testBatch is a batch of n rows of query "q" with every column the
// encoding carries: doc, score, a second score, rank and one slice column.
func testBatch(n int, doc bool) *reader.Batch {
	b := &reader.Batch{Source: "in", N: n, Extra: make([]reader.Strings, 1), ExtraScore: make([][]float64, 1)}
	b.Query.Reset()
	b.Doc.Reset()
	b.Extra[0].Reset()
	for k := range n {
		b.Query.Append([]byte("q"))
		if doc {
			b.Doc.Append([]byte(fmt.Sprintf("d%d", k)))
		}
		b.Extra[0].Append([]byte("m1"))
		b.Score = append(b.Score, 0.1*float64(k)+0.300000000001)
		b.ExtraScore[0] = append(b.ExtraScore[0], float64(n-k))
		b.Label = append(b.Label, float64(k%3))
		b.Rank = append(b.Rank, int64(k+1))
		b.Pos = append(b.Pos, int64(10+k))
	}
	return b
}

func testRules(float32 bool) *Rules {
	ms, _ := metrics.ParseList("map")
	return &Rules{Metrics: ms, Options: metrics.DefaultOptions(), ScoreFloat32: float32, Systems: []string{"a", "b"}, Slices: []string{"market"}}
}

func noWhere(v uint64) string { in, pos := Unpack(v); return fmt.Sprintf("in%d:%d", in, pos) }

// TestGroupRoundTrip: a group encoded and decoded in parts, in order,
// equals the group taken from the batch in one piece; decoding applies no
// row rule twice (scores were rounded when taken).
func TestGroupRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		doc, float32, logged bool
		n, parts             int
	}{{"every column", true, false, false, 7, 3}, {"no doc", false, false, false, 5, 5}, {"float32 scores", true, true, false, 6, 2},
		{"one row", true, false, false, 1, 1}, {"logged positions", true, false, true, 6, 3}} {
		t.Run(tc.name, func(t *testing.T) {
			r := testRules(tc.float32)
			b := testBatch(tc.n, tc.doc)
			if tc.logged { // propensities from a position model of the rows' logged positions
				r.Propensity = Propensity{From: PropModel, Model: PositionBias{Eta: 1}}
				b.Numbers = [][]float64{make([]float64, tc.n)}
				for k := range tc.n {
					b.Numbers[0][k] = float64(tc.n - k)
				}
			}
			var whole Group
			if err := r.NewTaker(noWhere).Append(&whole, b, 0, tc.n, 3); err != nil {
				t.Fatal(err)
			}
			if tc.float32 && whole.Score[0] != float64(float32(0.300000000001)) {
				t.Fatalf("score %v not rounded to float32", whole.Score[0])
			}
			var got Group
			for p := range tc.parts {
				i, j := p*tc.n/tc.parts, (p+1)*tc.n/tc.parts
				var part Group
				if err := r.NewTaker(noWhere).Append(&part, b, i, j, 3); err != nil {
					t.Fatal(err)
				}
				enc := part.AppendBinary(nil)
				id, first, err := PeekGroup(enc)
				if err != nil || string(id) != "q" || first != Pack(3, int64(10+i)) {
					t.Fatalf("peek: %q %d %v", id, first, err)
				}
				if n, err := GroupRows(enc); n != j-i || err != nil {
					t.Fatalf("GroupRows: %d %v, want %d", n, err, j-i)
				}
				if err := r.NewTaker(noWhere).Decode(&got, enc); err != nil {
					t.Fatal(err)
				}
			}
			if !reflect.DeepEqual(got, whole) {
				t.Fatalf("decoded\n%+v\nwant\n%+v", got, whole)
			}
			if tc.logged && (len(got.Logged) != tc.n || got.Logged[0] != float64(tc.n)) {
				t.Fatalf("logged positions %v", got.Logged)
			}
		})
	}
}

// TestGroupDecodeChecks: what spans the parts of a query is checked when
// they are joined, with the messages of the sorted path.
func TestGroupDecodeChecks(t *testing.T) {
	r := testRules(false)
	b := testBatch(4, true)
	var a, c Group
	r.NewTaker(noWhere).Append(&a, b, 0, 2, 0)
	b.Extra[0].Reset()
	for range 4 {
		b.Extra[0].Append([]byte("m2"))
	}
	r.NewTaker(noWhere).Append(&c, b, 2, 4, 0)
	var g Group
	if err := r.NewTaker(noWhere).Decode(&g, a.AppendBinary(nil)); err != nil {
		t.Fatal(err)
	}
	err := r.NewTaker(noWhere).Decode(&g, c.AppendBinary(nil))
	if !errors.Is(err, ErrSliceMismatch) || !strings.Contains(err.Error(), `in0:12: query "q" has market "m2" here but "m1" on its first row at in0:10`) {
		t.Fatalf("err = %v", err)
	}
	r.MaxGroupRows = 3
	g.Reset()
	r.NewTaker(noWhere).Decode(&g, a.AppendBinary(nil))
	if err := r.NewTaker(noWhere).Decode(&g, a.AppendBinary(nil)); !errors.Is(err, ErrGroupTooLarge) || !strings.HasPrefix(err.Error(), `in0:10: query "q" has more than 3 rows`) {
		t.Fatalf("err = %v", err)
	}
}

// TestGroupDecodeDamaged: every truncation and every flipped byte of an
// encoded group is an error or a well-formed group, never a panic.
func TestGroupDecodeDamaged(t *testing.T) {
	r := testRules(false)
	var g Group
	r.NewTaker(noWhere).Append(&g, testBatch(5, true), 0, 5, 1)
	enc := g.AppendBinary(nil)
	for n := range len(enc) {
		var d Group
		if err := r.NewTaker(noWhere).Decode(&d, enc[:n]); err == nil {
			t.Fatalf("truncated to %d of %d bytes: no error", n, len(enc))
		}
	}
	for i := range enc {
		bad := append([]byte(nil), enc...)
		bad[i] ^= 0x5a
		var d Group
		if r.NewTaker(noWhere).Decode(&d, bad) == nil && d.N() != len(d.Where) {
			t.Fatalf("byte %d flipped: columns out of step", i)
		}
	}
}

// FuzzGroupDecode: Decode never panics, and what it accepts has its
// columns in step.
func FuzzGroupDecode(f *testing.F) {
	r := testRules(false)
	for _, doc := range []bool{true, false} {
		var g Group
		r.NewTaker(noWhere).Append(&g, testBatch(3, doc), 0, 3, 2)
		f.Add(g.AppendBinary(nil))
		g.Prop = []float64{1, 0.5, 0.25} // a click log's propensities
		f.Add(g.AppendBinary(nil))
	}
	var g Group // with teams (teams_test.go)
	teamRules().NewTaker(noWhere).Append(&g, teamBatch("cand", "prod"), 0, 2, 2)
	f.Add(g.AppendBinary(nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		var g Group
		if err := r.NewTaker(noWhere).Decode(&g, data); err != nil {
			return
		}
		if n := g.N(); len(g.Where) != n || (len(g.Score) != 0 && len(g.Score) != n) || (len(g.Rank) != 0 && len(g.Rank) != n) ||
			(len(g.Prop) != 0 && len(g.Prop) != n) || (len(g.Team) != 0 && len(g.Team) != n) || (len(g.Logged) != 0 && len(g.Logged) != n) {
			t.Fatalf("columns out of step: %+v", g)
		}
	})
}

// TestGroupDecodeStrict: encoded data the run could not have written is an
// encoding error, never a group that panics later: a wrong number of extra
// score columns, unknown column flags, a position naming no input.
func TestGroupDecodeStrict(t *testing.T) {
	r := testRules(false) // two systems: one extra score column
	var g Group
	if err := r.NewTaker(noWhere).Append(&g, testBatch(2, true), 0, 2, 0); err != nil {
		t.Fatal(err)
	}
	enc := g.AppendBinary(nil)
	// the header: id length, id, first, flags, extra score columns
	idLen := int(enc[0])
	flagsAt := 1 + idLen + 1
	for name, edit := range map[string]func(b []byte){
		"two extra score columns": func(b []byte) { b[flagsAt+1] = 2 },
		"unknown flag":            func(b []byte) { b[flagsAt] |= 0x40 },
	} {
		t.Run(name, func(t *testing.T) {
			bad := append([]byte(nil), enc...)
			edit(bad)
			var d Group
			if err := r.NewTaker(noWhere).Decode(&d, bad); !errors.Is(err, ErrEncoding) {
				t.Fatalf("err = %v, want ErrEncoding", err)
			}
		})
	}
	t.Run("position of no input", func(t *testing.T) {
		var st sourceTable = make([]reader.Batch, 1)
		if got := st.where(Pack(5000, 7)); got != "input #5000:7" {
			t.Fatalf("where = %q", got)
		}
	})
}

// TestFloat32Range: under a profile that stores scores as float32, a score
// beyond its range is an error naming the row, not an infinite score.
func TestFloat32Range(t *testing.T) {
	r := testRules(true)
	b := testBatch(3, true)
	b.Score[1] = 1e300
	var g Group
	err := r.NewTaker(noWhere).Append(&g, b, 0, 3, 0)
	if !errors.Is(err, reader.ErrValue) || !strings.Contains(err.Error(), "in:11: score is 1e+300, beyond the range of the 32-bit floats") {
		t.Fatalf("err = %v", err)
	}
	if err := testRules(false).NewTaker(noWhere).Append(&g, b, 0, 3, 0); err != nil {
		t.Fatalf("float64 scores: %v", err)
	}
}

// TestRepeatedPosition: Unit.Prepare refuses two rows of one query at one
// logged position, naming the later row, the position and the earlier
// row, whether the positions are dense (1..n, a table) or sparse (a map),
// after --dedup first has dropped repeated documents.
func TestRepeatedPosition(t *testing.T) {
	for _, tc := range []struct {
		name  string
		pos   []float64
		first bool // --dedup first, with d1 repeated at row 3
		want  string
	}{
		{"distinct", []float64{3, 1, 2, 4}, false, ""},
		{"one row", []float64{1}, false, ""},
		{"repeated", []float64{1, 2, 3, 2}, false, `in0:13: query "q" has two rows at logged position 2 (the other at in0:11); an impression shows one row at each position`},
		{"the first repeat in input order", []float64{5, 5, 1, 1}, false, `in0:11: query "q" has two rows at logged position 5 (the other at in0:10)`},
		{"sparse", []float64{1e9, 7, 1e9, 2}, false, `in0:12: query "q" has two rows at logged position 1e+09 (the other at in0:10)`},
		{"a repeated document dropped", []float64{1, 2, 3, 2}, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := testRules(false)
			r.Propensity = Propensity{From: PropModel, Model: PositionBias{Eta: 1}}
			r.DedupFirst = tc.first
			n := len(tc.pos)
			b := testBatch(n, true)
			b.Numbers = [][]float64{tc.pos}
			if tc.first {
				b.Doc.Reset()
				for _, d := range []string{"d0", "d1", "d2", "d1"}[:n] {
					b.Doc.Append([]byte(d))
				}
			}
			var g Group
			if err := r.NewTaker(noWhere).Append(&g, b, 0, n, 0); err != nil {
				t.Fatal(err)
			}
			_, err := r.NewUnit(noWhere).Prepare(&g)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrDuplicatePos) || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("err = %v\nwant %s", err, tc.want)
			}
		})
	}
}
