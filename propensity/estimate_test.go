package propensity

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/internal/synth"
	"github.com/rankeval/rankeval/pipeline"
)

func nan() float64 { return math.NaN() }

// repeat gives, for each of 50 queries q0, q1, ..., n rows of doc d at
// position k by ranker r, c of them clicked: enough queries that every
// resample keeps some.
func repeat(q, d, r string, k, n, c int) []row {
	var rows []row
	for j := range 50 {
		for i := range n {
			rows = append(rows, row{q + strconv.Itoa(j), d, r, k, i < c})
		}
	}
	return rows
}

// TestEstimateExact checks both methods on logs whose maximum-likelihood
// answer is known: one document shown at positions 1 and 2 with click
// rates 0.5 and 0.25 gives p(2)/p(1) = 0.5; two documents with rates
// (0.6, 0.3) and (0.2, 0.1) give 0.5 too.
func TestEstimateExact(t *testing.T) {
	for _, tc := range []struct {
		name string
		rows [][]row
	}{
		{"one document", [][]row{repeat("q", "a", "A", 1, 100, 50), repeat("q", "a", "B", 2, 100, 25)}},
		{"two queries", [][]row{repeat("q", "a", "A", 1, 100, 60), repeat("q", "a", "B", 2, 100, 30),
			repeat("r", "b", "A", 1, 200, 40), repeat("r", "b", "B", 2, 200, 20)}},
	} {
		for _, m := range []Method{Harvest, EM} {
			t.Run(tc.name+" "+string(m), func(t *testing.T) {
				var rows []row
				for _, r := range tc.rows {
					rows = append(rows, r...)
				}
				e, err := tableOf(5, rows).Estimate(Options{Method: m, Replicates: 40, MinClicks: 1})
				if err != nil {
					t.Fatal(err)
				}
				p := e.Positions
				if p[0].Propensity != 1 || math.Abs(p[1].Propensity-0.5) > 1e-6 || p[1].Pairs != int64(50*len(tc.rows)/2) {
					t.Fatalf("positions %+v, want 1 and 0.5", p[:2])
				}
				if p[2].Refused != "no row at this position" || e.Estimated() != 2 {
					t.Errorf("position 3: %+v", p[2])
				}
			})
		}
	}
}

// TestEstimateRefuses checks that positions the data cannot tie to
// position 1 get no estimate, and say why.
func TestEstimateRefuses(t *testing.T) {
	var rows []row
	rows = append(rows, repeat("q", "a", "A", 1, 100, 50)...)
	rows = append(rows, repeat("q", "a", "B", 2, 100, 25)...)
	rows = append(rows, repeat("q", "b", "A", 3, 100, 20)...) // b only at 3
	rows = append(rows, repeat("r", "c", "A", 4, 100, 20)...) // c at 4 and 5: an island
	rows = append(rows, repeat("r", "c", "B", 5, 100, 10)...)
	rows = append(rows, repeat("s", "d", "A", 6, 100, 0)...) // d at 6 and 2, never clicked at 6
	rows = append(rows, repeat("s", "d", "B", 2, 100, 5)...)
	e, err := tableOf(7, rows).Estimate(Options{Method: Harvest, Replicates: 40, MinClicks: 1})
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range []string{"", "", "no document of a query shown here was shown at another position",
		"no chain of documents clicked here and at another position leads to position 1",
		"no chain of documents clicked here and at another position leads to position 1",
		"no chain of documents clicked here and at another position leads to position 1", "no row at this position"} {
		if got := e.Positions[k].Refused; got != want {
			t.Errorf("position %d: %q, want %q", k+1, got, want)
		}
	}
	notes := strings.Join(e.Notes(), "\n")
	if !strings.Contains(notes, "position 3: no estimate") || !strings.Contains(notes, "the file gives positions 1 to 2; a log evaluated with it must show no row past position 2") {
		t.Errorf("notes %q", notes)
	}
	e, _ = tableOf(7, rows).Estimate(Options{Method: Harvest, Replicates: 40, MinClicks: 10000})
	if r := e.Positions[1].Refused; r != "1500 clicks on documents also shown elsewhere, fewer than --min-clicks 10000" {
		t.Errorf("position 2 under --min-clicks 10000: %q", r)
	}
	if err := e.Check(); !errors.Is(err, ErrNoEstimate) || !strings.Contains(err.Error(), "position 2: 1500 clicks") {
		t.Errorf("Check: %v", err)
	}
	one := tableOf(7, repeat("q", "a", "A", 1, 10, 5))
	if e, _ := one.Estimate(Options{Method: EM, Replicates: 40}); e.Check() == nil {
		t.Errorf("a log with no document at two positions: no error")
	}
	if _, err := one.Estimate(Options{Method: EM, Replicates: 39}); err == nil {
		t.Errorf("39 replicates: no error")
	}
}

// simTable counts a PropSim log.
func simTable(seed uint64, cfg synth.PropConfig, maxPos int, reverse bool) (*Table, *synth.PropSim) {
	s := synth.NewPropSim(seed, cfg)
	var rows []synth.Row
	var r synth.Row
	for s.Next(&r) {
		rows = append(rows, r)
	}
	t := NewTable(maxPos)
	for i := range rows {
		if reverse {
			i = len(rows) - 1 - i
		}
		r := rows[i]
		t.Add([]byte(r.Query), []byte(r.Doc), []byte(r.Ranker), int(r.Position), r.Label == 1)
	}
	return t, s
}

// TestEstimateSimulation checks both methods on a simulated log of three
// rankers (examination 1/k): every estimate near the truth, the
// intervals covering it at most positions, the two methods agreeing; and
// the same bits for any worker count and any row order.
func TestEstimateSimulation(t *testing.T) {
	cfg := synth.PropConfig{Impressions: 30000, Queries: 300, Docs: 20, Positions: 6, Noise: synth.DefaultNoise[:3], Eta: 1}
	tab, sim := simTable(3, cfg, 20, false)
	rev, _ := simTable(3, cfg, 20, true)
	est := map[Method]*Estimate{}
	for _, m := range []Method{Harvest, EM} {
		e, err := tab.Estimate(Options{Method: m, Replicates: 60, MinClicks: 20, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if e.Estimated() != cfg.Positions {
			t.Fatalf("%s: %d positions estimated: %+v", m, e.Estimated(), e.Positions)
		}
		covered := 0
		for _, p := range e.Positions[:cfg.Positions] {
			truth := sim.Prop(p.Position)
			if math.Abs(p.Propensity-truth) > 0.06*truth {
				t.Errorf("%s position %d: %.4f, truth %.4f", m, p.Position, p.Propensity, truth)
			}
			if p.Lower <= truth && truth <= p.Upper {
				covered++
			}
		}
		if covered < cfg.Positions-2 {
			t.Errorf("%s: the intervals cover the truth at %d of %d positions", m, covered, cfg.Positions)
		}
		e3, _ := rev.Estimate(Options{Method: m, Replicates: 60, MinClicks: 20, Workers: 3})
		if !reflect.DeepEqual(bitsOf(e), bitsOf(e3)) {
			t.Errorf("%s: 1 worker in row order and 3 in reverse differ:\n%v\n%v", m, bitsOf(e), bitsOf(e3))
		}
		est[m] = e
	}
	for k := 1; k < cfg.Positions; k++ {
		h, m := est[Harvest].Positions[k], est[EM].Positions[k]
		if math.Abs(h.Propensity-m.Propensity) > 0.05*h.Propensity {
			t.Errorf("position %d: harvest %.4f, em %.4f", k+1, h.Propensity, m.Propensity)
		}
	}
	// the file reads back as --position-bias reads it
	var buf bytes.Buffer
	if err := est[Harvest].WriteFile(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), FileHeader+"\n1,1,1,1,") {
		t.Errorf("file %q", buf.String())
	}
	b, err := pipeline.ReadPositionBias("est.csv", &buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Table) != cfg.Positions || b.Table[0] != 1 || math.Abs(b.Table[1]-est[Harvest].Positions[1].Propensity) > 1e-5 {
		t.Errorf("read back %v", b.Table)
	}
}

func bitsOf(e *Estimate) []uint64 {
	var b []uint64
	for _, p := range e.Positions {
		b = append(b, math.Float64bits(p.Propensity), math.Float64bits(p.Lower), math.Float64bits(p.Upper))
	}
	return b
}

// TestOneRankerNote checks that an estimate over the log of one ranker,
// by either method, says that its pairs are no intervention, and that
// one over two rankers does not.
func TestOneRankerNote(t *testing.T) {
	one := append(repeat("q", "a", "A", 1, 100, 50), repeat("q", "a", "A", 2, 100, 25)...)
	two := append(repeat("q", "a", "A", 1, 100, 50), repeat("q", "a", "B", 2, 100, 25)...)
	for _, tc := range []struct {
		name string
		rows []row
		m    Method
		note bool
	}{
		{"harvest, one ranker", one, Harvest, true},
		{"em, one ranker", one, EM, true},
		{"harvest, two rankers", two, Harvest, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := tableOf(3, tc.rows).Estimate(Options{Method: tc.m, Replicates: 40, MinClicks: 1})
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(e.Positions[1].Propensity-0.5) > 1e-6 {
				t.Fatalf("position 2: %+v", e.Positions[1])
			}
			notes := strings.Join(e.Notes(), "\n")
			if got := strings.Contains(notes, "one ranker: its documents shown at two positions"); got != tc.note {
				t.Errorf("notes %q: the one-ranker note %v, want %v", notes, got, tc.note)
			}
		})
	}
}
