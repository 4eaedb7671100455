package config

import (
	"os"

	"github.com/rankeval/rankeval/objstore"
	"github.com/rankeval/rankeval/reader"
)

// CheckDistinctInputs refuses, as a usage error, one file given twice
// among the inputs of one log or the states of one merge (names after the
// expansion of directories and globs): read twice, its rows or sums count
// twice. Under --unsorted, or in a merge, nothing else would notice. Files
// are compared by what they are (os.SameFile: another spelling, a link, a
// glob that matches a file named too, - when standard input is redirected
// from a file named too); objects by URL; - at most once.
func CheckDistinctInputs(what string, names []string) error {
	seen := map[string]string{} // URLs, and -
	// files by size and modification time, so that an input of 50,000
	// files compares each with its few look-alikes, not with all
	type look struct {
		size int64
		mod  int64
	}
	files := map[look][]string{}
	stats := map[string]os.FileInfo{}
	for _, n := range names {
		if n == reader.Stdin || objstore.IsURL(n) {
			if first, dup := seen[n]; dup {
				return Usagef("%s %q is given twice; each is read once", what, first)
			}
			seen[n] = n
			if n != reader.Stdin {
				continue
			}
		}
		st, err := statInput(n)
		if err != nil || !st.Mode().IsRegular() {
			continue // a pipe is a stream of its own; a missing file fails when opened
		}
		k := look{st.Size(), st.ModTime().UnixNano()}
		for _, f := range files[k] {
			if os.SameFile(stats[f], st) {
				return Usagef("%s %q and %q are one file, given twice; each is read once", what, f, n)
			}
		}
		files[k], stats[n] = append(files[k], n), st
	}
	return nil
}

// statInput stats a named input, and for - what standard input is: a file
// redirected there (- < log) is that file, read again if named too.
func statInput(n string) (os.FileInfo, error) {
	if n == reader.Stdin {
		return os.Stdin.Stat()
	}
	return os.Stat(n)
}

// dialect checks --delimiter and --decimal-comma against each other and
// the input format f: the delimiter is one character, "\t" (or a tab)
// for a tab, neither a quote nor a line end; it names a CSV separator,
// so it is refused with --input-format jsonl, and with tsv unless it is
// a tab; a decimal comma cannot be read where the comma separates fields.
func (v Config) dialect(f reader.Format) (byte, bool, error) {
	var sep byte
	switch d := v.Delimiter; {
	case d == "":
	case d == `\t` || d == "\t":
		sep = '\t'
	case len(d) != 1:
		return 0, false, Usagef("--delimiter %q: want one character, such as ';', '|' or '\\t' (tab)", d)
	default:
		sep = d[0]
		if err := reader.CheckDelimiter(sep); err != nil {
			return 0, false, Usagef("--delimiter %w", err)
		}
	}
	switch {
	case sep != 0 && f == reader.FormatJSONL:
		return 0, false, Usagef("--delimiter %q: JSON lines have no delimiter; it is for CSV inputs (--input-format auto or csv)", v.Delimiter)
	case sep != 0 && sep != '\t' && f == reader.FormatTSV:
		return 0, false, Usagef("--delimiter %q with --input-format tsv: TSV is separated by tabs; use --input-format csv", v.Delimiter)
	case v.DecimalComma && sep == ',':
		return 0, false, Usagef("--decimal-comma with --delimiter ',': a number written 0,75 would be two fields; the file's delimiter is another (';' as Excel writes it)")
	case v.DecimalComma && sep == 0 && f == reader.FormatCSV:
		return 0, false, Usagef("--decimal-comma with --input-format csv separated by commas: a number written 0,75 would be two fields; give the file's delimiter, such as --delimiter ';'")
	}
	return sep, v.DecimalComma, nil
}
