package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// TestDocLinks: every relative link of the README and docs/ lands on a file
// that exists and, with a #fragment, on a heading of that file (GitHub's
// anchors), so moving a section cannot leave a link that opens the page at
// its top or nowhere.
func TestDocLinks(t *testing.T) {
	root := filepath.Join("..", "..")
	pages, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	pages = append(pages, filepath.Join(root, "README.md"))
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	anchors := map[string]map[string]bool{}
	anchorsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		anchors[path] = headingAnchors(string(b))
		return anchors[path]
	}
	checked := 0
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(stripCode(string(b)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				path = filepath.Join(filepath.Dir(page), file)
			}
			rel, _ := filepath.Rel(root, page)
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s: link %s: no such file", rel, target)
				continue
			}
			checked++
			if frag != "" && strings.HasSuffix(path, ".md") && !anchorsOf(path)[frag] {
				t.Errorf("%s: link %s: no heading with that anchor", rel, target)
			}
		}
	}
	if checked < 50 {
		t.Fatalf("only %d links checked: the pattern no longer finds them", checked)
	}
}

// stripCode drops fenced code blocks, whose brackets are not links.
func stripCode(s string) string {
	var b strings.Builder
	in := false
	for _, line := range strings.SplitAfter(s, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			in = !in
			continue
		}
		if !in {
			b.WriteString(line)
		}
	}
	return b.String()
}

// headingAnchors are GitHub's anchors of a page's headings: lower case,
// spaces to hyphens, punctuation other than - and _ dropped, a repeated
// anchor suffixed -1, -2...
func headingAnchors(page string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, line := range strings.Split(stripCode(page), "\n") {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var a strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case r == ' ':
				a.WriteByte('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				a.WriteRune(r)
			}
		}
		s := a.String()
		if n := seen[s]; n > 0 {
			out[s+"-"+strconv.Itoa(n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}
