package propensity

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/rankeval/rankeval/internal/synth"
)

// spillTable counts the PropSim log of simTable into a table that spills
// past limit bytes of cells into dir.
func spillTable(t *testing.T, seed uint64, cfg synth.PropConfig, dir string, limit int64) *Table {
	t.Helper()
	s := synth.NewPropSim(seed, cfg)
	tab := NewTable(20)
	tab.SpillTo(dir, limit)
	var r synth.Row
	for s.Next(&r) {
		tab.Add([]byte(r.Query), []byte(r.Doc), []byte(r.Ranker), int(r.Position), r.Label == 1)
	}
	if err := tab.Err(); err != nil {
		t.Fatal(err)
	}
	return tab
}

// TestSpillSameEstimate: a table that spills sorted runs past a tiny
// limit (so many that they are merged into one along the way) gives the
// cells, totals and estimate, to the bit, of one held in memory, and
// holds no more than the limit's worth of cells; Close removes its runs.
func TestSpillSameEstimate(t *testing.T) {
	cfg := synth.PropConfig{Impressions: 3000, Queries: 300, Docs: 20, Positions: 6, Noise: synth.DefaultNoise[:3], Eta: 1}
	whole, _ := simTable(3, cfg, 20, false)
	wantCells, err := whole.Cells()
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Method: Harvest, Replicates: 50, MinClicks: 20}
	want, err := whole.Estimate(opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int64{1 << 10, 8 << 10, 1 << 30} {
		dir := t.TempDir()
		tab := spillTable(t, 3, cfg, dir, limit)
		if limit < 1<<30 && tab.Spilled() <= maxRuns {
			t.Errorf("limit %d: %d runs written, want more than %d", limit, tab.Spilled(), maxRuns)
		}
		if tab.held > limit+200 {
			t.Errorf("limit %d: %d bytes of cells held", limit, tab.held)
		}
		// fewer than maxRuns runs a tier, a tier a power of maxRuns
		bound := maxRuns - 1
		for n := tab.Spilled(); n >= maxRuns; n /= maxRuns {
			bound += maxRuns - 1
		}
		if files, _ := os.ReadDir(dir); len(files) > bound || len(files) != len(tab.runs) {
			t.Errorf("limit %d: %d run files kept (%d runs), want at most %d", limit, len(files), len(tab.runs), bound)
		}
		for i := 1; i < len(tab.tiers); i++ {
			if tab.tiers[i] > tab.tiers[i-1] {
				t.Errorf("limit %d: tiers %v rise", limit, tab.tiers)
			}
		}
		cells, err := tab.Cells()
		if err != nil || !reflect.DeepEqual(cells, wantCells) {
			t.Fatalf("limit %d: %d cells (%v), want %d", limit, len(cells), err, len(wantCells))
		}
		got, err := tab.Estimate(opt)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(bitsOf(got), bitsOf(want)) || !reflect.DeepEqual(got.Totals, want.Totals) {
			t.Errorf("limit %d: estimate %+v, want %+v", limit, got.Positions, want.Positions)
		}
		// a merge of a spilled table into another adds up as well
		both := spillTable(t, 3, cfg, dir, limit)
		if err := both.Merge(tab); err != nil {
			t.Fatal(err)
		}
		if r := both.Rows(); r != 2*whole.Rows() {
			t.Errorf("limit %d: merged %d rows, want %d", limit, r, 2*whole.Rows())
		}
		if err := tab.Close(); err != nil {
			t.Error(err)
		}
		if err := both.Close(); err != nil {
			t.Error(err)
		}
		if files, _ := os.ReadDir(dir); len(files) != 0 {
			t.Errorf("limit %d: %d files left after Close", limit, len(files))
		}
	}
}

// TestSpillErrors: a run that cannot be written stops the counting with
// ErrSpill; a run damaged on disk fails the reading, naming it.
func TestSpillErrors(t *testing.T) {
	cfg := synth.PropConfig{Impressions: 500, Queries: 50, Docs: 10, Positions: 4, Noise: synth.DefaultNoise[:2], Eta: 1}
	s := synth.NewPropSim(1, cfg)
	tab := NewTable(20)
	tab.SpillTo(filepath.Join(t.TempDir(), "missing"), 1<<10)
	var r synth.Row
	for s.Next(&r) {
		tab.Add([]byte(r.Query), []byte(r.Doc), []byte(r.Ranker), int(r.Position), r.Label == 1)
	}
	if err := tab.Err(); !errors.Is(err, ErrSpill) {
		t.Errorf("no such --tmp-dir: %v", err)
	}
	if _, err := tab.Estimate(Options{Method: Harvest, Replicates: 50, MinClicks: 1}); !errors.Is(err, ErrSpill) {
		t.Errorf("the estimate of a table that failed: %v", err)
	}
	dir := t.TempDir()
	tab = spillTable(t, 1, cfg, dir, 1<<10)
	defer tab.Close()
	if err := os.WriteFile(tab.runs[0], []byte("spam"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Cells(); !errors.Is(err, ErrSpill) {
		t.Errorf("a damaged run: %v", err)
	}
}

// TestSpillClosed: once Close has removed a spilled table's runs, its
// cells, totals and estimate are refused (ErrSpill), not given from the
// cells still held; a table that never spilled is whole and still reads.
func TestSpillClosed(t *testing.T) {
	cfg := synth.PropConfig{Impressions: 500, Queries: 50, Docs: 10, Positions: 4, Noise: synth.DefaultNoise[:2], Eta: 1}
	for _, tc := range []struct {
		name  string
		limit int64
		fails bool
	}{{"spilled", 1 << 10, true}, {"held whole", 0, false}} {
		t.Run(tc.name, func(t *testing.T) {
			tab := spillTable(t, 1, cfg, t.TempDir(), tc.limit)
			want, err := tab.Cells()
			if err != nil {
				t.Fatal(err)
			}
			if err := tab.Close(); err != nil {
				t.Fatal(err)
			}
			cells, err := tab.Cells()
			if tc.fails {
				if !errors.Is(err, ErrSpill) {
					t.Errorf("cells of a closed spilled table: %d of %d, err %v; want ErrSpill", len(cells), len(want), err)
				}
				if _, err := tab.Totals(); !errors.Is(err, ErrSpill) {
					t.Errorf("totals of a closed spilled table: %v", err)
				}
				if _, err := tab.Estimate(Options{Method: Harvest, Replicates: 50, MinClicks: 1}); !errors.Is(err, ErrSpill) {
					t.Errorf("estimate of a closed spilled table: %v", err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(cells, want) {
				t.Errorf("cells of a closed table held whole: %d (%v), want %d", len(cells), err, len(want))
			}
		})
	}
}

// TestReadCell: ReadCell reads back what AppendCell wrote, cell after
// cell, then io.EOF; a list cut within a cell is io.ErrUnexpectedEOF.
func TestReadCell(t *testing.T) {
	cells := []Cell{
		{Query: "q1", Doc: "d1", Ranker: "", Position: 1, Count: Count{Clicks: 0, Impressions: 3}},
		{Query: "q1", Doc: "d1", Ranker: "r2", Position: 17, Count: Count{Clicks: 300, Impressions: 1 << 40}},
		{Query: "ü", Doc: "\x00", Ranker: "bucket b", Position: 1000, Count: Count{Clicks: 1, Impressions: 1}},
	}
	var b []byte
	for _, c := range cells {
		b = AppendCell(b, c)
	}
	r := bytes.NewReader(b)
	for i, want := range cells {
		got, err := ReadCell(r)
		if err != nil || got != want {
			t.Fatalf("cell %d: %+v, %v; want %+v", i, got, err, want)
		}
	}
	if _, err := ReadCell(r); err != io.EOF {
		t.Fatalf("after the last cell: %v, want io.EOF", err)
	}
	for cut := 1; cut < len(AppendCell(nil, cells[0])); cut++ {
		if _, err := ReadCell(bytes.NewReader(b[:cut])); err != io.ErrUnexpectedEOF {
			t.Errorf("cut after %d bytes: %v, want io.ErrUnexpectedEOF", cut, err)
		}
	}
}
