package propensity

import (
	"errors"
	"reflect"
	"testing"
)

func TestCheckRow(t *testing.T) {
	for _, tc := range []struct {
		name            string
		query, doc      string
		position, click float64
		ok              bool
	}{
		{"top, clicked", "q", "d", 1, 1, true},
		{"empty query id", "", "d", 1, 1, false},
		{"empty doc id", "q", "", 1, 1, false},
		{"deep, skipped", "q", "d", 20000, 0, true},
		{"position 0", "q", "d", 0, 0, false},
		{"fractional position", "q", "d", 2.5, 0, false},
		{"negative position", "q", "d", -1, 0, false},
		{"huge position", "q", "d", 1e12, 0, false},
		{"NaN position", "q", "d", nan(), 0, false},
		{"graded label", "q", "d", 3, 2, false},
		{"half a click", "q", "d", 3, 0.5, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckRow([]byte(tc.query), []byte(tc.doc), tc.position, tc.click)
			if (err == nil) != tc.ok || err != nil && !errors.Is(err, ErrRow) {
				t.Fatalf("CheckRow(%q, %q, %v, %v) = %v, want ok %v", tc.query, tc.doc, tc.position, tc.click, err, tc.ok)
			}
		})
	}
}

type row struct {
	q, d, r string
	k       int
	click   bool
}

func tableOf(maxPos int, rows []row) *Table {
	t := NewTable(maxPos)
	for _, r := range rows {
		t.Add([]byte(r.q), []byte(r.d), []byte(r.r), r.k, r.click)
	}
	return t
}

// TestTableAddsUp checks that the table holds exact counts, in one order
// whatever order the rows came in, that tables of the parts of a log
// merge into the table of the whole, and that ids with separators or
// empty parts do not run into each other.
func TestTableAddsUp(t *testing.T) {
	rows := []row{
		{"q1", "a", "A", 1, true}, {"q1", "b", "A", 2, false}, {"q1", "a", "B", 2, false},
		{"q1", "a", "A", 1, false}, {"q2", "a", "A", 1, true}, {"q1", "a", "B", 2, true},
		{"q1\x01a", "", "A", 1, false}, {"q1", "\x01a", "A", 1, false}, {"q3", "z", "A", 25, true},
	}
	whole := tableOf(20, rows)
	want := []Cell{
		{Query: "q1", Doc: "\x01a", Ranker: "A", Position: 1, Count: Count{0, 1}},
		{Query: "q1", Doc: "a", Ranker: "A", Position: 1, Count: Count{1, 2}},
		{Query: "q1", Doc: "a", Ranker: "B", Position: 2, Count: Count{1, 2}},
		{Query: "q1", Doc: "b", Ranker: "A", Position: 2, Count: Count{0, 1}},
		{Query: "q1\x01a", Doc: "", Ranker: "A", Position: 1, Count: Count{0, 1}},
		{Query: "q2", Doc: "a", Ranker: "A", Position: 1, Count: Count{1, 1}},
	}
	if got, _ := whole.Cells(); !reflect.DeepEqual(got, want) || whole.Beyond != 1 {
		t.Fatalf("cells %+v beyond %d, want %+v and 1", got, whole.Beyond, want)
	}
	reversed := make([]row, len(rows))
	for i, r := range rows {
		reversed[len(rows)-1-i] = r
	}
	a, b := tableOf(20, rows[:4]), tableOf(20, rows[4:])
	if err := b.Merge(a); err != nil {
		t.Fatal(err)
	}
	for name, u := range map[string]*Table{"reversed": tableOf(20, reversed), "merged": b} {
		if got, _ := u.Cells(); !reflect.DeepEqual(got, want) || u.Beyond != 1 {
			t.Errorf("%s: cells %+v beyond %d", name, got, u.Beyond)
		}
	}
	tot, _ := whole.Totals()
	if tot.Impressions != 8 || tot.Clicks != 3 || tot.Queries != 3 || !reflect.DeepEqual(tot.Rankers, []string{"A", "B"}) {
		t.Errorf("totals %+v", tot)
	}
	if err := NewTable(10).Merge(whole); !errors.Is(err, ErrMaxPosition) {
		t.Errorf("merging --max-position 10 and 20: %v", err)
	}
}
