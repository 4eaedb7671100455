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
