package metrics

import (
	"fmt"
	"strings"
)

// Help lists the metric families for a command's --help, one line each:
// the names (@k: a cutoff is required, [@k]: optional), then what the
// family measures; then trec_eval's names.
func Help() string {
	usages := make([]string, len(families))
	width := 0
	var trec []string
	for k := range families {
		f := &families[k]
		if f.dropIn {
			continue
		}
		usages[k] = f.usage
		if usages[k] == "" {
			at := ""
			switch f.cut {
			case cutRequired:
				at = "@k"
			case cutOptional:
				at = "[@k]"
			}
			usages[k] = strings.Join(f.names, at+", ") + at
		}
		width = max(width, len(usages[k]))
		sp := &trecSpelling[k]
		if sp.trec != "" {
			trec = append(trec, sp.trec)
		}
		switch {
		case sp.trecCut != "" && f.cut == cutLevel:
			trec = append(trec, sp.trecCut+"_x")
		case sp.trecCut != "":
			trec = append(trec, sp.trecCut+"_k")
		}
	}
	var b strings.Builder
	b.WriteString("Metrics (case-insensitive; @k: a cutoff k from 1 to 1000000000 is\n" +
		"required; [@k]: optional, the whole list without it):\n")
	for k := range families {
		if !families[k].dropIn {
			fmt.Fprintf(&b, "  %-*s  %s\n", width, usages[k], families[k].help)
		}
	}
	b.WriteString("trec_eval's names work too:\n")
	line := ""
	for i, t := range trec {
		if i < len(trec)-1 {
			t += ","
		}
		if line != "" && len(line)+1+len(t) > 78 {
			b.WriteString(line + "\n")
			line = ""
		}
		if line == "" {
			line = " "
		}
		line += " " + t
	}
	b.WriteString(line + "\n")
	b.WriteString("ir_measures' measures, spelled as ir_measures spells them (nDCG@10,\n" +
		"P(rel=2)@5, AP(rel=2), R@1000, RR@10, RBP(p=0.8), Judged@10, ERR@20, SetF),\n" +
		"are computed under its providers' conventions, whatever the run's\n" +
		"(docs/metrics.md, \"ir_measures' measures\").\n")
	return b.String()
}
