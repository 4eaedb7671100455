package summary

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/rankeval/rankeval/internal/printable"
	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/report"
)

// The table of a paper or a pull request: systems as rows, metrics as
// columns, each column's best mean in bold, and marks of significance
// from the run's comparisons (corrected p < 0.05), explained in a note
// that names the test and the correction. Under --pairs baseline a dagger
// marks a system that differs from the baseline; under --pairs all each
// system is given a letter, and a mean carries the letters of the systems
// it is significantly above (as ranx prints). The whole run's figures
// only: slices are in the JSON and text summaries.

// tableDialect is what LaTeX and Markdown spell differently.
type tableDialect struct {
	esc               func(string) string
	head, foot        func(w *bytes.Buffer, ncol int)
	row               func(w *bytes.Buffer, cells []string)
	bold, sup         func(string) string
	dagger, noteStart string
	lt                string // "<" in running text
}

var latexTable = tableDialect{
	esc: latexEscape,
	head: func(w *bytes.Buffer, ncol int) {
		fmt.Fprintf(w, "\\begin{table}\n\\centering\n\\begin{tabular}{l%s}\n\\toprule\n", strings.Repeat("r", ncol))
	},
	row: func(w *bytes.Buffer, cells []string) { fmt.Fprintf(w, "%s \\\\\n", strings.Join(cells, " & ")) },
	foot: func(w *bytes.Buffer, _ int) {
		w.WriteString("\\bottomrule\n\\end{tabular}\n")
	},
	bold:      func(s string) string { return "\\textbf{" + s + "}" },
	sup:       func(s string) string { return "$^{" + s + "}$" },
	dagger:    "\\dagger",
	noteStart: "\\caption{",
	lt:        "$<$",
}

var markdownTable = tableDialect{
	esc:  markdownEscape,
	head: func(w *bytes.Buffer, ncol int) {},
	row: func(w *bytes.Buffer, cells []string) {
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	},
	foot:      func(w *bytes.Buffer, _ int) {},
	bold:      func(s string) string { return "**" + s + "**" },
	sup:       func(s string) string { return "<sup>" + s + "</sup>" },
	dagger:    "†",
	noteStart: "",
	lt:        "<",
}

// LaTeX writes the summary table as a LaTeX table.
func (r *Results) LaTeX() []byte { return r.table(&latexTable) }

// Markdown writes the summary table in GitHub-flavoured Markdown.
func (r *Results) Markdown() []byte { return r.table(&markdownTable) }

func (r *Results) table(d *tableDialect) []byte {
	c := r.Run
	var w bytes.Buffer
	if d == &latexTable {
		fmt.Fprintf(&w, "%% %s\n", strings.ReplaceAll(printable.String("rankeval "+c.Version), "\n", " "))
	}
	d.head(&w, len(c.Metrics))
	cells := []string{"system"}
	for i := range c.Metrics {
		cells = append(cells, d.esc(c.ColumnName(i)))
	}
	d.row(&w, cells)
	if d == &markdownTable {
		sep := []string{":--"}
		for range c.Metrics {
			sep = append(sep, "--:")
		}
		d.row(&w, sep)
	} else {
		w.WriteString("\\midrule\n")
	}
	letters := c.Compare.AllPairs && r.nsys > 1
	// best per column: the greatest mean, the least where lower is better
	// (counts are totals, not ranked, nor is a metric with no better side)
	best := make([]float64, len(c.Metrics))
	for m, mt := range c.Metrics {
		best[m] = math.NaN()
		dir := float64(mt.Better())
		if mt.Count() || dir == 0 {
			continue
		}
		for s := range r.nsys {
			if v := r.sys[s][m].Mean; !math.IsNaN(v) && (math.IsNaN(best[m]) || dir*v > dir*best[m]) {
				best[m] = v
			}
		}
	}
	for s := range r.nsys {
		name := r.systemName(s)
		if n, ok := c.TableNames[name]; ok {
			name = n
		}
		if letters {
			name = fmt.Sprintf("(%s) %s", report.Letter(s), name)
		}
		if s == 0 && r.nsys > 1 {
			name += " (baseline)"
		}
		cells = []string{d.esc(name)}
		for m, mt := range c.Metrics {
			v := r.sys[s][m].Mean
			cell := meanText(mt, v)
			if cell == "-" {
				cell = "–"
			}
			if v == best[m] {
				cell = d.bold(cell)
			}
			if mark := r.marks(s, m, letters, d); mark != "" {
				cell += d.sup(mark)
			}
			cells = append(cells, cell)
		}
		d.row(&w, cells)
	}
	d.foot(&w, len(c.Metrics))
	if note := r.tableNote(letters, d); note != "" {
		if d == &latexTable {
			fmt.Fprintf(&w, "%s%s}\n", d.noteStart, note)
		} else {
			fmt.Fprintf(&w, "\n%s\n", note)
		}
	}
	if d == &latexTable {
		w.WriteString("\\end{table}\n")
	}
	return w.Bytes()
}

// ColumnName is the header of metric i's column in a table: its name in
// TableNames, else as the user spelled it when it has capitals (Spelled),
// else its name with trec_eval's case for trec_eval's measures (P_10,
// Rprec; a state keeps names lower-cased, so a merge shows these too).
func (c *Run) ColumnName(i int) string {
	name := c.Metrics[i].Name
	for _, k := range slices.Sorted(maps.Keys(c.TableNames)) {
		if metrics.Index(c.Metrics, k) == i {
			return c.TableNames[k]
		}
	}
	if i < len(c.Spelled) && c.Spelled[i] != name && strings.EqualFold(c.Spelled[i], name) {
		return c.Spelled[i] // typed with capitals: nDCG@10
	}
	return metrics.TrecCase(name)
}

// ParseTableNames reads --table-names: NAME=SHOWN pairs, comma-separated
// (a comma or '=' inside a measure's parentheses is the measure's:
// SetF(rel=2,beta=0.5)=F), each NAME a metric (metrics.Index: in any
// case but for ir_measures' spellings) or a system, once.
func ParseTableNames(v string) (map[string]string, error) {
	if v == "" {
		return nil, nil
	}
	out := map[string]string{}
	for _, p := range metrics.SplitMetrics(v) {
		k, n, ok := metrics.CutValue(p)
		k, n = strings.TrimSpace(k), strings.TrimSpace(n)
		if !ok || k == "" || n == "" {
			return nil, fmt.Errorf("%q: want NAME=SHOWN pairs, comma-separated, such as ndcg@10=nDCG@10,map=MAP", p)
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("%q is named twice", k)
		}
		out[k] = n
	}
	return out, nil
}

// CheckTableNames refuses a --table-names key that names no metric of
// the run (metrics.Index) and no system (exactly: a --system name or a
// score column; the score or rank column of a single system).
func (c *Run) CheckTableNames() error {
	for _, k := range slices.Sorted(maps.Keys(c.TableNames)) {
		if metrics.Index(c.Metrics, k) >= 0 ||
			slices.Contains(c.Systems, k) || len(c.Systems) <= 1 && (k == c.Columns.Score || k == c.Columns.Rank) && k != "" {
			continue
		}
		return fmt.Errorf("%q names no metric (-m) and no system of the run", k)
	}
	return nil
}

// systemName is system s's name as a table shows it: the score or rank
// column for a single unnamed system.
func (r *Results) systemName(s int) string {
	if n := r.systems[s]; n != "" {
		return n
	}
	if r.Run.Columns.Score != "" {
		return r.Run.Columns.Score
	}
	return r.Run.Columns.Rank
}

// marks are the significance marks of system s's mean of metric m.
func (r *Results) marks(s, m int, letters bool, d *tableDialect) string {
	var out []string
	for _, ps := range r.pairs {
		p := &ps[m]
		if !p.Significant() {
			continue
		}
		switch {
		case letters && p.J == s && p.Mean > 0:
			out = append(out, report.Letter(p.I))
		case letters && p.I == s && p.Mean < 0:
			out = append(out, report.Letter(p.J))
		case !letters && p.I == 0 && p.J == s:
			out = append(out, d.dagger)
		}
	}
	if r.nsys > 26 { // letters of two characters: ab is not a, b
		return strings.Join(out, ",")
	}
	return strings.Join(out, "")
}

// tableNote explains the marks: the test and the correction.
//
// It ends with what a --missing-score or --missing-label policy did to how
// many rows, so a table whose denominators changed says so.
func (r *Results) tableNote(letters bool, d *tableDialect) string {
	var note []string
	if len(r.pairs) > 0 {
		how := d.esc(r.Run.TestNote())
		if letters {
			note = append(note, "Bold: the best mean of each column. A letter marks a mean significantly above that system's (corrected p "+d.lt+" 0.05; "+how+").")
		} else {
			note = append(note, "Bold: the best mean of each column. "+d.sup(d.dagger)+": significantly different from the baseline (corrected p "+d.lt+" 0.05; "+how+").")
		}
	}
	if r.Agg != nil {
		for _, l := range r.Run.missingLines(r.Agg) {
			note = append(note, d.esc(strings.ToUpper(l[:1])+l[1:])+".")
		}
	}
	return strings.Join(note, " ")
}

// latexEscape makes s safe as LaTeX text.
func latexEscape(s string) string {
	s = printable.String(s)
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\':
			b.WriteString(`\textbackslash{}`)
		case '~':
			b.WriteString(`\textasciitilde{}`)
		case '^':
			b.WriteString(`\textasciicircum{}`)
		case '&', '%', '$', '#', '_', '{', '}':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '<', '>', '|': // not in the default font encoding's text
			b.WriteString("$" + string(r) + "$")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// markdownEscape makes s safe as the text of a Markdown table cell: the
// marks that would end the cell or start emphasis, code, a link, HTML, an
// entity (&amp;) or GitHub's math ($x$) are escaped (CommonMark allows a
// backslash before any punctuation).
func markdownEscape(s string) string {
	s = printable.String(s)
	var b strings.Builder
	for _, r := range s {
		if r < 0x80 && strings.ContainsRune("\\`*_[]<>|~&$", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
