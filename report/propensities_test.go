package report

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/internal/pmath"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// propPage is a page of 7 positions near k^−0.9: position 5 refused
// for too few clicks (so the file ends at 4), 6 and 7 estimated past
// it; its figures are made up, what the page draws of them is checked.
func propPage() *Propensities {
	d := &Propensities{Title: "rankeval propensities", Version: "v1.5.0", Inputs: []string{"ab/week.jsonl"},
		Lines:   []string{"Propensities by harvest from 48000 rows (5100 clicks) of 300 queries, 2 rankers (A, B<script>); positions 1 to 4 estimated."},
		Closest: "closest power law over 5 positions from 2 to 7: k^−η with η = 0.885 ± 0.021, 0.62 standard errors RMS from the estimate",
		InFile:  4, Notes: []string{"position 5: no estimate: 14 clicks on documents also shown elsewhere, fewer than --min-clicks 20"}}
	for i, eta := range []float64{0.885, 0.5, 1, 2} {
		l := PowLaw{Name: "pow:" + fmt.Sprint(eta), Eta: eta, SE: math.NaN(), RMS: float64(i) * 3.3, MaxRel: 0.05 * float64(i+1), Inside: 5 - i, Of: 5}
		if i == 0 {
			l.Name, l.SE, l.EtaText = l.Name+" (fitted)", 0.021, "0.885 ± 0.021"
		}
		for j := 0; j <= 60; j++ {
			l.Curve = append(l.Curve, pmath.Pow(1+float64(j)/10, -eta))
		}
		d.Laws = append(d.Laws, l)
	}
	props := []float64{1, 0.55, 0.36, 0.30, 0, 0.21, 0.17}
	for k := 1; k <= 7; k++ {
		p := PropPosition{Position: k, Rows: int64(9000 - 1000*k), Pairs: 120, Clicks: int64(900 / k)}
		if k == 5 {
			p.Propensity, p.CI = math.NaN(), Interval{math.NaN(), math.NaN()}
			p.Refused = "14 clicks on documents also shown elsewhere, fewer than --min-clicks 20"
		} else {
			p.Propensity = props[k-1]
			p.CI = Interval{p.Propensity * (1 - 0.04*float64(k-1)), p.Propensity * (1 + 0.05*float64(k-1))}
		}
		for _, l := range d.Laws {
			p.Laws = append(p.Laws, pmath.Pow(float64(k), -l.Eta))
		}
		d.Positions = append(d.Positions, p)
	}
	return d
}

func writeProp(t *testing.T, d *Propensities) string {
	t.Helper()
	var buf bytes.Buffer
	if err := WritePropensities(&buf, d); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestPropensitiesGolden: the page of an estimate is the golden file
// (go test ./report -run TestPropensitiesGolden -update rewrites it);
// it has no script and fetches nothing; the refused position is shown
// as refused, with its reason, and not drawn as an estimate; the
// sentence names the closest law.
func TestPropensitiesGolden(t *testing.T) {
	out := writeProp(t, propPage())
	golden := filepath.Join("testdata", "propensities.html")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test ./report -run TestPropensitiesGolden -update)", err)
	}
	if out != string(want) {
		t.Errorf("page differs from %s (go test ./report -run TestPropensitiesGolden -update, then read the diff)", golden)
	}
	for _, bad := range []string{"<script", "src=", "href=\"http", "@import", "url("} {
		if strings.Contains(out, bad) {
			t.Errorf("page has %q", bad)
		}
	}
	if strings.Contains(out, "B<script>") || !strings.Contains(out, "B&lt;script&gt;") {
		t.Error("a ranker's name is not escaped")
	}
	for _, want := range []string{
		"<title>position 5: no estimate: 14 clicks on documents also shown elsewhere, fewer than --min-clicks 20</title>",
		"<tr><td>5</td><td class=\"name\" colspan=\"2\">no estimate: 14 clicks on documents also shown elsewhere",
		"<title>position 6: 0.2100, 95% CI [0.1680, 0.2625], 120 pairs, 150 clicks (not in the file, which ends at position 4)</title>",
		"<p><b>Closest power law over 5 positions from 2 to 7: k^−η with η = 0.885 ± 0.021, 0.62 standard errors RMS from the estimate.</b></p>",
		"<td>0.885 ± 0.021</td>", "<td>0.5</td>",
		"position 5: no estimate: 14 clicks",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if regexp.MustCompile(`<title>position [58]: [0-9]`).MatchString(out) || strings.Contains(out, "<td>8</td>") {
		t.Error("a position without an estimate is drawn or listed as one")
	}
}

// TestPropensitiesNoFit: a page without laws draws none and says why.
func TestPropensitiesNoFit(t *testing.T) {
	d := propPage()
	d.Laws, d.Closest = nil, "no position past 1 has an estimate: no power law is fitted"
	for i := range d.Positions {
		d.Positions[i].Laws = nil
	}
	out := writeProp(t, d)
	if !strings.Contains(out, "<p>No position past 1 has an estimate: no power law is fitted.</p>") || strings.Contains(out, "pow:") {
		t.Errorf("page of no fit:\n%s", out)
	}
}

// TestPropFigures: propensities keep their digits at the far positions.
func TestPropFigures(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{{1, "1.0000"}, {0.5, "0.5000"}, {0.0123456, "0.0123"}, {0.00251234, "0.00251"}, {math.NaN(), "–"}} {
		if got := prop(tc.v); got != tc.want {
			t.Errorf("prop(%v) = %s, want %s", tc.v, got, tc.want)
		}
	}
}

// TestPropensitiesGap: a position without a row, before the last with
// one, is a cross like any position without an estimate, and the page's
// note does not say that every cross has rows.
func TestPropensitiesGap(t *testing.T) {
	d := propPage()
	d.Positions[4].Rows, d.Positions[4].Pairs, d.Positions[4].Clicks, d.Positions[4].Refused = 0, 0, 0, "no row at this position"
	out := writeProp(t, d)
	if !strings.Contains(out, "<title>position 5: no estimate: no row at this position</title>") {
		t.Error("the position without a row is not a cross")
	}
	if strings.Contains(out, "has rows but no estimate") {
		t.Error("the note says a cross has rows")
	}
}
