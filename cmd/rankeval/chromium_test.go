package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// findChromium returns a headless-capable browser, or skips: locally the
// test is optional, but CI (CI set) must run it, so there it fails.
func findChromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no chromium on PATH: .ci/run installs it (apt-get install chromium); the report test must run in CI")
	}
	const why = "chromium not found: install it (apt-get install chromium) to check the HTML report in a browser"
	sayOnTerminal("rankeval: " + t.Name() + " skipped: " + why)
	t.Skip(why)
	return ""
}

// sayOnTerminal writes a line to the terminal the tests run from, if any:
// go test shows a passing package's output only under -v, and a check
// that did not run must not pass unnoticed.
func sayOnTerminal(line string) {
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		fmt.Fprintln(tty, line)
		tty.Close()
	}
}

// TestReportInChromium opens the golden report in headless Chromium and
// checks that it runs without a console message or script error, draws
// the expected charts and shows the summary's numbers; it leaves a
// screenshot in the test's temp dir (printed with -v).
func TestReportInChromium(t *testing.T) {
	bin := findChromium(t)
	_, goldenSummary, goldenReport := comparePaths()
	page, err := filepath.Abs(goldenReport)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	browse := func(page string, args ...string) (stdout, stderr string) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
			"--disable-background-networking", "--disable-component-update", "--disable-sync",
			"--user-data-dir=" + filepath.Join(dir, "profile"), "--enable-logging=stderr", "--v=0"}
		cmd := exec.CommandContext(ctx, bin, append(append(base, args...), "file://"+page)...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("chromium %v: %v\n%s", args, err, errb.String())
		}
		// Chromium logs every console message as INFO:CONSOLE; the report
		// writes none, so any is an error or a warning to look at.
		for _, l := range strings.Split(errb.String(), "\n") {
			if strings.Contains(l, ":CONSOLE") {
				t.Errorf("console message: %s", l)
			}
		}
		return out.String(), errb.String()
	}

	dom, _ := browse(page, "--dump-dom")
	if !strings.Contains(dom, `data-ready="1"`) {
		t.Fatalf("the page script did not finish (no data-ready on <html>)")
	}
	if m := regexp.MustCompile(`<div id="script-error"[^>]*>([^<]*)</div>`).FindStringSubmatch(dom); m == nil || m[1] != "" || !strings.Contains(m[0], "hidden") {
		t.Fatalf("script error shown: %v", m)
	}
	var sum analysisJSON
	data, err := os.ReadFile(goldenSummary)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	wantCharts := []string{
		"score_b − score: difference per metric with 95% intervals",
		"nDCG@k for k = 1 to 10", "precision@k for k = 1 to 10", "recall@k for k = 1 to 10", "ERR@k for k = 1 to 10",
	}
	for _, m := range strings.Split(compareArgs[2], ",") {
		wantCharts = append(wantCharts, "histogram of per-query "+m)
	}
	for _, c := range wantCharts {
		if !strings.Contains(dom, `aria-label="`+c+`"`) {
			t.Errorf("chart %q missing", c)
		}
	}
	if n := strings.Count(dom, `<svg class="chart"`); n != len(wantCharts) {
		t.Errorf("%d charts, want %d", n, len(wantCharts))
	}
	// the summary's figures, as the report rounds them
	for name, m := range sum.Metrics {
		if want := fmt.Sprintf("<td>%.4f</td>", *m.Mean); !strings.Contains(dom, want) {
			t.Errorf("%s: mean %s not in the summary table", name, want)
		}
	}
	for name, d := range sum.Comparison[0].Metrics {
		if want := fmt.Sprintf("%+.4f", *d.Diff); !strings.Contains(dom, want) {
			t.Errorf("%s: difference %s not shown", name, want)
		}
	}
	rows := regexp.MustCompile(`(?s)<table class="num sortable" id="slice-table">.*?</table>`).FindString(dom)
	if n := strings.Count(rows, "<tr>") - 1; n != len(sum.Slices) {
		t.Errorf("slice table has %d rows, want %d", n, len(sum.Slices))
	}
	// hover text: native SVG titles on points, bars and forest rows
	for _, tip := range []string{"score nDCG@10 = ", "queries</title></rect>", "p (Holm) = "} {
		if !strings.Contains(dom, tip) {
			t.Errorf("no hover text like %q", tip)
		}
	}
	// the version that made it; p-values too small for four decimals as a
	// bound, as the text summary prints them, not as 1.4e-05 or 0.0e+00
	if !strings.Contains(dom, "rankeval (devel)") {
		t.Error("the report does not name the rankeval version")
	}
	if !strings.Contains(dom, "<td>&lt; 0.0001</td>") || !strings.Contains(dom, "p (t) &lt; 0.0001") {
		t.Error("no p-value printed as < 0.0001")
	}
	if m := regexp.MustCompile(`\b\d\.\de[-+]\d\d\b`).FindString(dom); m != "" {
		t.Errorf("a figure in scientific notation: %s", m)
	}

	shot := filepath.Join(dir, "report.png")
	browse(page, "--hide-scrollbars", "--window-size=1400,2000", "--screenshot="+shot)
	st, err := os.Stat(shot)
	if err != nil || st.Size() < 50_000 {
		t.Fatalf("screenshot %s: %v (size %v)", shot, err, st)
	}
	t.Logf("screenshot: %s (%d bytes)", shot, st.Size())

	t.Run("wide, many inputs", func(t *testing.T) {
		// 300 part files, two long system names and twelve metrics: a
		// slice table far wider than a laptop's window, and 300 names
		// for the header
		lake := filepath.Join(dir, "lake")
		if err := os.MkdirAll(lake, 0o755); err != nil {
			t.Fatal(err)
		}
		for q := range 300 {
			var b strings.Builder
			for d := range 10 {
				fmt.Fprintf(&b, `{"query_id":"q%04d","doc_id":"d%d","label":%d,"market":"m%d","baseline_ranker_2026_11_production":%.3f,"candidate_ranker_with_new_features_v2":%.3f}`+"\n",
					q, d, (q*7+d*3)%4, q%6, float64((q*13+d*29)%101)/100, float64((q*17+d*31+(q*7+d*3)%4*20)%101)/100)
			}
			if err := os.WriteFile(filepath.Join(lake, fmt.Sprintf("part-%05d.jsonl", q)), []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		wide := filepath.Join(dir, "wide.html")
		if code, _, stderr := cli(t, "--quiet", "-m", "ndcg@5,ndcg@10,ndcg@20,map,mrr,p@5,p@10,r@10,r@20,err@10,kendall,spearman",
			"--score-col", "baseline_ranker_2026_11_production,candidate_ranker_with_new_features_v2", "--by", "market",
			"--report", wide, lake); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		// Measure the laid-out page in a 1280 px window: a copy of the
		// report with a script at its end that writes the figures onto
		// <html>, read back from the dumped DOM.
		src, err := os.ReadFile(wide)
		if err != nil {
			t.Fatal(err)
		}
		const probe = `<script>(function(){var h=document.documentElement,box=document.querySelector("#slices .scroll"),t=document.getElementById("slice-table"),d=document.querySelector(".inputs details");` +
			`h.setAttribute("data-layout",JSON.stringify({inner:innerWidth,scroll:h.scrollWidth,client:h.clientWidth,` +
			`box:box?box.clientWidth:-1,boxScroll:box?box.scrollWidth:-1,table:t.offsetWidth,nav:document.querySelector("nav").getBoundingClientRect().top+scrollY,details:d?(d.open?1:0):-1}));})();</script>`
		measured := filepath.Join(dir, "wide-measured.html")
		if err := os.WriteFile(measured, bytes.Replace(src, []byte("</body>"), []byte(probe+"</body>"), 1), 0o644); err != nil {
			t.Fatal(err)
		}
		dom, _ := browse(measured, "--window-size=1280,900", "--dump-dom")
		m := regexp.MustCompile(`data-layout="([^"]*)"`).FindStringSubmatch(dom)
		if m == nil {
			t.Fatal("the probe wrote no measurements")
		}
		var l struct {
			Inner, Scroll, Client, Box, BoxScroll, Table int
			Details                                      int // -1 none, 0 closed, 1 open
			Nav                                          float64
		}
		if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &l); err != nil {
			t.Fatalf("%v: %s", err, m[1])
		}
		t.Logf("layout at 1280 px: %+v", l)
		if l.Inner != 1280 {
			t.Fatalf("window %d px wide, want 1280: the measurements mean nothing", l.Inner)
		}
		// the table is wider than the page can show, so it must scroll
		// in its box, and the page must not get wider than the window
		if l.Table <= 1280 {
			t.Errorf("slice table %d px wide: the test needs one wider than the window", l.Table)
		}
		if l.Scroll > 1280 || l.Scroll > l.Client {
			t.Errorf("page scrolls sideways: scrollWidth %d, clientWidth %d, window 1280", l.Scroll, l.Client)
		}
		if l.Box < 0 || l.BoxScroll <= l.Box {
			t.Errorf("slice table box: clientWidth %d, scrollWidth %d: the table does not scroll in its own box", l.Box, l.BoxScroll)
		}
		// 300 input names would take some fifty lines: the header shows
		// three, the rest closed behind a disclosure
		if l.Nav > 300 {
			t.Errorf("the navigation starts %.0f px down: the header is too long", l.Nav)
		}
		if l.Details != 0 {
			t.Errorf("inputs' disclosure %d (-1 none, 1 open), want one, closed", l.Details)
		}
		if !strings.Contains(dom, "300 inputs: ") {
			t.Error("no count of the inputs")
		}
	})

	t.Run("three systems, all pairs", func(t *testing.T) {
		// a third score column whose name is markup, every pair compared
		// by the randomization test: a forest chart per metric with a row
		// per pair, and the matrix of every pair
		var b strings.Builder
		for q := range 60 {
			for d := range 8 {
				fmt.Fprintf(&b, `{"query_id":"q%03d","doc_id":"d%d","label":%d,"market":"m%d","score":%.2f,"score_b":%.2f,"new<&>":%.2f}`+"\n",
					q, d, (q*7+d*3)%4, q%3, float64((q*13+d*29)%101)/100, float64((q*17+d*31+(q*7+d*3)%4*20)%101)/100, float64((q*5+d*11+(q*7+d*3)%4*40)%101)/100)
			}
		}
		log := filepath.Join(dir, "three.jsonl")
		if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		three := filepath.Join(dir, "three.html")
		if code, _, stderr := cli(t, "--quiet", "-m", "ndcg@10,map", "--score-col", "score,score_b,new<&>", "--pairs", "all",
			"--test", "randomization", "--permutations", "200", "--correction", "bh", "--by", "market", "--report", three, log); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		dom, _ := browse(three, "--dump-dom")
		if !strings.Contains(dom, `data-ready="1"`) {
			t.Fatal("the page script did not finish")
		}
		if m := regexp.MustCompile(`<div id="script-error"[^>]*>([^<]*)</div>`).FindStringSubmatch(dom); m == nil || m[1] != "" {
			t.Fatalf("script error shown: %v", m)
		}
		for _, c := range []string{"ndcg@10: difference per pair with 95% intervals", "map: difference per pair with 95% intervals"} {
			if !strings.Contains(dom, `aria-label="`+c+`"`) {
				t.Errorf("chart %q missing", c)
			}
		}
		for _, want := range []string{">new&lt;&amp;&gt; − score_b</text>", "<th>p (rand.)</th><th>p (BH)</th>", "<a href=\"#all-pairs\">All pairs</a>",
			"Comparisons: paired randomization test, 200 permutations (seed "} {
			if !strings.Contains(dom, want) {
				t.Errorf("page lacks %q", want)
			}
		}
		tables := regexp.MustCompile(`(?s)<table class="num matrix">.*?</table>`).FindAllString(dom, -1)
		if len(tables) != 2 {
			t.Fatalf("%d matrix tables, want 2", len(tables))
		}
		for _, tb := range tables {
			// three rows of three cells, the diagonal empty, no pair left out
			if n, d := strings.Count(tb, "<td"), strings.Count(tb, `<td class="diag">`); n != 9 || d != 3 || strings.Contains(tb, "–") {
				t.Errorf("matrix: %d cells, %d diagonal:\n%s", n, d, tb)
			}
		}
		if strings.Contains(dom, "new<&>") {
			t.Error("a system name unescaped")
		}
	})

	t.Run("one system, no slices", func(t *testing.T) {
		single := filepath.Join(dir, "single.html")
		sample := filepath.Join("..", "..", "testdata", "sample.jsonl.zst")
		if code, _, stderr := cli(t, "--quiet", "-m", "ndcg@5,p@10,cg@5,spearman", "--report", single, sample); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		dom, _ := browse(single, "--dump-dom")
		if !strings.Contains(dom, `data-ready="1"`) {
			t.Fatal("the page script did not finish")
		}
		for _, c := range []string{"nDCG@k for k = 1 to 10", "precision@k for k = 1 to 10", "histogram of per-query cg@5", "histogram of per-query spearman"} {
			if !strings.Contains(dom, `aria-label="`+c+`"`) {
				t.Errorf("chart %q missing", c)
			}
		}
		if strings.Contains(dom, `id="comparison"`) || strings.Contains(dom, `id="slices"`) {
			t.Error("comparison or slices section without systems or slices")
		}
	})
}
