package state

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/config"
	"github.com/rankeval/rankeval/propensity"
)

// propState is a propensity state of two queries, two rankers and a row
// past --max-position 5, made from the input name.
func propState(t testing.TB, name string, day int) *Propensities {
	t.Helper()
	v := config.DefaultPropensities()
	v.MaxPosition, v.RankerCol = 5, "bucket"
	tab := propensity.NewTable(5)
	var d aggregate.Digest
	add := func(q, doc, r string, pos int, click bool) {
		tab.Add([]byte(q), []byte(doc), []byte(r), pos, click)
		d.Add(propensity.RowDigest([]byte(q), []byte(doc), []byte(r), pos, click))
	}
	for i := range 3 + day {
		add("q1", "a", "A", 1, i%2 == 0)
		add("q1", "a", "B", 2, i%3 == 0)
		add("q2", "b", "B", 1+i%5, true)
		add("q2", "c", "A", 9, false)
	}
	return &Propensities{Settings: v, Table: tab, Digests: []InputDigest{{Input: name, Digest: d}},
		Columns: PropensityColumns{Query: "qid", Doc: "doc", Click: "click", Position: "pos"}}
}

func encodeProp(t testing.TB, p *Propensities) []byte {
	t.Helper()
	b, err := p.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// craftProp makes a propensity state file of a header and a table, with
// a valid checksum.
func craftProp(header, table []byte) []byte {
	b := append([]byte(Magic), PropensityVersion)
	b = binary.AppendUvarint(b, uint64(len(header)))
	b = append(append(b, header...), table...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// cellBytes encodes cells as the table section does.
func cellBytes(beyond uint64, cells ...propensity.Cell) []byte {
	b := binary.AppendUvarint(nil, beyond)
	b = binary.AppendUvarint(b, uint64(len(cells)))
	for _, c := range cells {
		b = propensity.AppendCell(b, c)
	}
	return b
}

func cell(q, d, r string, pos int, clicks, imps int64) propensity.Cell {
	return propensity.Cell{Query: q, Doc: d, Ranker: r, Position: pos, Count: propensity.Count{Clicks: clicks, Impressions: imps}}
}

// TestPropensityStateRoundTrip: a state decodes to its table, settings
// and digests, and encodes again to the same bytes; the table's cells
// are written in one order whatever order the rows came in.
func TestPropensityStateRoundTrip(t *testing.T) {
	p := propState(t, "day1.jsonl", 0)
	b := encodeProp(t, p)
	if k, err := KindOf(b); err != nil || k != KindPropensities {
		t.Fatalf("KindOf: %q, %v", k, err)
	}
	got, err := DecodePropensities(b)
	if err != nil {
		t.Fatal(err)
	}
	if got.Settings != p.Settings || got.Columns != p.Columns || len(got.Digests) != 1 || got.Digests[0] != p.Digests[0] {
		t.Errorf("decoded %+v %+v %v", got.Settings, got.Columns, got.Digests)
	}
	g, _ := got.Table.Cells()
	w, _ := p.Table.Cells()
	if len(g) != len(w) || got.Table.Beyond != 3 || got.Table.Rows() != p.Table.Rows() {
		t.Errorf("cells %v, want %v; beyond %d", g, w, got.Table.Beyond)
	}
	if again := encodeProp(t, got); !bytes.Equal(again, b) {
		t.Errorf("encodes again to other bytes")
	}
	// the same rows in reverse order make the same file
	rev := propensity.NewTable(5)
	cells, _ := p.Table.Cells()
	for i := len(cells) - 1; i >= 0; i-- {
		c := cells[i]
		rev.AddCount([]byte(c.Query), []byte(c.Doc), []byte(c.Ranker), c.Position, c.Count)
	}
	rev.Beyond = p.Table.Beyond
	q := *p
	q.Table = rev
	if !bytes.Equal(encodeProp(t, &q), b) {
		t.Errorf("rows in another order encode to other bytes")
	}
	// a run's state is a run's
	if k, err := KindOf(encode(t, testState(t))); err != nil || k != KindRun {
		t.Errorf("KindOf a run's state: %q, %v", k, err)
	}
}

// TestPropensityStateKinds: each decoder refuses the other kind of
// state, by name.
func TestPropensityStateKinds(t *testing.T) {
	_, err := Decode(encodeProp(t, propState(t, "d", 0)))
	if !errors.Is(err, ErrKind) || !strings.Contains(err.Error(), "a propensity state (rankeval propensities --state), not a run's") {
		t.Errorf("Decode of a propensity state: %v", err)
	}
	_, err = DecodePropensities(encode(t, testState(t)))
	if !errors.Is(err, ErrKind) || !strings.Contains(err.Error(), "a run's state (rankeval --state), not a propensity state") {
		t.Errorf("DecodePropensities of a run's state: %v", err)
	}
}

// TestDecodePropensitiesRefuses: what no rankeval writes, each with a
// valid checksum, is refused as damaged, saying what is wrong.
func TestDecodePropensitiesRefuses(t *testing.T) {
	good := encodeProp(t, propState(t, "d", 0))
	header, _ := split(t, good)
	h := string(header)
	ok := cellBytes(0, cell("q", "a", "A", 1, 1, 2), cell("q", "a", "A", 2, 0, 1))
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"truncated", good[:len(good)-1], "checksum mismatch"},
		{"a flipped bit", append(append([]byte{}, good[:40]...), append([]byte{good[40] ^ 1}, good[41:]...)...), "checksum mismatch"},
		{"unknown kind", craftProp([]byte(strings.Replace(h, `"propensities"`, `"spam"`, 1)), ok), `kind "spam"`},
		{"header not JSON", craftProp([]byte("{"), ok), "header"},
		{"unknown field", craftProp([]byte(strings.Replace(h, `"kind":"propensities",`, `"kind":"propensities","x":1,`, 1)), ok), `unknown field "x"`},
		{"max_position 1", craftProp([]byte(strings.Replace(h, `"max_position":5`, `"max_position":1`, 1)), ok), "--max-position 1"},
		{"max_position huge", craftProp([]byte(strings.Replace(h, `"max_position":5`, `"max_position":9000000000`, 1)), ok), "--max-position"},
		{"bad method", craftProp([]byte(strings.Replace(h, `"harvest"`, `"guess"`, 1)), ok), "--method"},
		{"few replicates", craftProp([]byte(strings.Replace(h, `"replicates":200`, `"replicates":3`, 1)), ok), "--replicates 3"},
		{"no query column", craftProp([]byte(strings.Replace(h, `"query":"qid"`, `"query":""`, 1)), ok), "no query column"},
		{"digest of no row", craftProp([]byte(h[:strings.Index(h, `"digest":"`)+10]+strings.Repeat("0", 32)+`"}]}`), ok), "the digest of no row"},
		{"no table", craftProp(header, nil), "truncated"},
		{"cells past the bytes", craftProp(header, cellBytes(0)[:1]), "truncated"},
		{"a huge cell count", craftProp(header, binary.AppendUvarint([]byte{0}, 1<<40)), "more than the"},
		{"cells out of order", craftProp(header, cellBytes(0, cell("q", "b", "A", 1, 1, 2), cell("q", "a", "A", 1, 0, 1))), "out of order"},
		{"a cell twice", craftProp(header, cellBytes(0, cell("q", "a", "A", 1, 1, 2), cell("q", "a", "A", 1, 0, 1))), "out of order or twice"},
		{"position 0", craftProp(header, cellBytes(0, cell("q", "a", "A", 0, 0, 1))), "not from 1 to max_position 5"},
		{"position past max", craftProp(header, cellBytes(0, cell("q", "a", "A", 6, 0, 1))), "not from 1 to max_position 5"},
		{"no impression", craftProp(header, cellBytes(0, cell("q", "a", "A", 1, 0, 0))), "no impression"},
		{"more clicks than impressions", craftProp(header, cellBytes(0, cell("q", "a", "A", 1, 3, 2))), "3 clicks of 2 impressions"},
		{"empty doc", craftProp(header, cellBytes(0, cell("q", "", "A", 1, 0, 1))), "an empty query or doc id"},
		{"too many rows", craftProp(header, cellBytes(propensity.MaxCount, cell("q", "a", "A", 1, 0, 1))), "more than"},
		{"too many rows past max", craftProp(header, cellBytes(propensity.MaxCount+1)), "rows past --max-position"},
		{"bytes after the table", craftProp(header, append(ok, 0)), "1 bytes after the last cell"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := DecodePropensities(c.data)
			if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want ErrDamaged saying %q", err, c.want)
			}
		})
	}
	if _, err := DecodePropensities(craftProp(header, ok)); err != nil {
		t.Errorf("the crafted table that is good: %v", err)
	}
}

// TestPropensityStateMerge: states merge into the table of both logs
// (whatever their order: the same bytes), the merged state holding both
// inputs; a state made from an input the other was made from too, or
// under another setting, is refused and changes nothing.
func TestPropensityStateMerge(t *testing.T) {
	a, b := propState(t, "day1", 0), propState(t, "day2", 1)
	if m := PropensityMismatch(a, b); m != "" {
		t.Fatalf("mismatch %s", m)
	}
	ab, ba := propState(t, "day1", 0), propState(t, "day2", 1)
	if err := ab.Merge(b); err != nil {
		t.Fatal(err)
	}
	if err := ba.Merge(a); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(encodeProp(t, ab), encodeProp(t, ba)) {
		t.Errorf("a merge's bytes depend on the order of its states")
	}
	if len(ab.Digests) != 2 || ab.Table.Rows() != a.Table.Rows()+b.Table.Rows() || ab.Table.Beyond != 3+4 {
		t.Errorf("merged: %v, %d rows", ab.Digests, ab.Table.Rows())
	}
	before := encodeProp(t, ab)
	if err := ab.Merge(propState(t, "day1 again", 0)); !errors.Is(err, ErrSharedInput) || !strings.Contains(err.Error(), `"day1" and "day1 again"`) {
		t.Errorf("a day twice: %v", err)
	}
	if !bytes.Equal(encodeProp(t, ab), before) {
		t.Errorf("a refused merge changed the state")
	}
	for name, edit := range map[string]func(*Propensities){
		"max_position 6":  func(p *Propensities) { p.Settings.MaxPosition = 6; p.Table.MaxPosition = 6 },
		"ranker_col":      func(p *Propensities) { p.Settings.RankerCol = "" },
		"columns":         func(p *Propensities) { p.Columns.Click = "clicked" },
		"method":          func(p *Propensities) { p.Settings.Method = "em" },
		"replicates":      func(p *Propensities) { p.Settings.Replicates = 100 },
		"min_clicks":      func(p *Propensities) { p.Settings.MinClicks = 1 },
		"digests (merge)": nil,
	} {
		c := propState(t, "day3", 2)
		if edit == nil {
			if m := PropensityMismatch(a, c); m != "" {
				t.Errorf("%s: mismatch %s", name, m)
			}
			continue
		}
		edit(c)
		if m := PropensityMismatch(a, c); !strings.HasPrefix(m, strings.Fields(name)[0]) {
			t.Errorf("%s: mismatch %q", name, m)
		}
	}
}

// FuzzDecodePropensities: any bytes, and any bytes sealed with a valid
// checksum. DecodePropensities never panics, and what it accepts encodes
// to the very bytes it read.
func FuzzDecodePropensities(f *testing.F) {
	good := encodeProp(f, propState(f, "d", 0))
	f.Add(good)
	f.Add([]byte(Magic))
	header, _ := split(f, good)
	f.Add(craftProp(header, cellBytes(0, cell("q", "a", "A", 1, 1, 2))))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, d := range [][]byte{data, reseal(data)} {
			p, err := DecodePropensities(d)
			if err != nil {
				continue
			}
			if again := encodeProp(t, p); !bytes.Equal(again, d) {
				t.Fatalf("accepted bytes that encode otherwise")
			}
		}
	})
}

// reseal gives data a valid checksum.
func reseal(data []byte) []byte {
	if len(data) < 4 {
		return data
	}
	sealed := bytes.Clone(data[:len(data)-4])
	return binary.LittleEndian.AppendUint32(sealed, crc32.Checksum(sealed, castagnoli))
}

// TestStateNonUTF8Input: a state made from an input whose path is not
// UTF-8 reads back (the header names it with U+FFFD for the bytes JSON
// cannot carry), a propensity state's and a run's; rankeval wrote it, so
// it must not refuse it as damaged.
func TestStateNonUTF8Input(t *testing.T) {
	const name, shown = "logs/bad\xffname.jsonl", "logs/bad\uFFFDname.jsonl"
	t.Run("propensities", func(t *testing.T) {
		p := propState(t, "x", 0)
		p.Digests = SourcesOf([]string{name}, &aggregate.InputDigests{D: []aggregate.Digest{p.Digests[0].Digest}})
		d, err := DecodePropensities(encodeProp(t, p))
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Digests) != 1 || d.Digests[0].Input != shown {
			t.Errorf("digests %+v, want the input %q", d.Digests, shown)
		}
	})
	t.Run("run", func(t *testing.T) {
		s := testState(t)
		s.Run.Inputs = []string{name}
		s.Digests = SourcesOf([]string{name}, &aggregate.InputDigests{D: []aggregate.Digest{{Hi: 1, Lo: 2}}})
		d, err := Decode(encode(t, s))
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Run.Inputs) != 1 || d.Run.Inputs[0] != shown || d.Digests[0].Input != shown {
			t.Errorf("inputs %q, digests %+v, want %q", d.Run.Inputs, d.Digests, shown)
		}
	})
}
