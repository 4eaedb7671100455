package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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
	t.Skip("chromium not found: install it (apt-get install chromium) to check the HTML report in a browser")
	return ""
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
	for _, tip := range []string{"score nDCG@10 = ", "queries</title></rect>", "Holm p = "} {
		if !strings.Contains(dom, tip) {
			t.Errorf("no hover text like %q", tip)
		}
	}

	shot := filepath.Join(dir, "report.png")
	browse(page, "--hide-scrollbars", "--window-size=1400,2000", "--screenshot="+shot)
	st, err := os.Stat(shot)
	if err != nil || st.Size() < 50_000 {
		t.Fatalf("screenshot %s: %v (size %v)", shot, err, st)
	}
	t.Logf("screenshot: %s (%d bytes)", shot, st.Size())

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
