package evalflags

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
// glob that matches a file named too); objects by URL; - at most once.
func CheckDistinctInputs(what string, names []string) error {
	seen := map[string]string{} // URLs, and -
	var files []string
	var stats []os.FileInfo
	for _, n := range names {
		if n == reader.Stdin || objstore.IsURL(n) {
			if first, dup := seen[n]; dup {
				return Usagef("%s %q is given twice; each is read once", what, first)
			}
			seen[n] = n
			continue
		}
		st, err := os.Stat(n)
		if err != nil || !st.Mode().IsRegular() {
			continue // a pipe is a stream of its own; a missing file fails when opened
		}
		for i, s := range stats {
			if os.SameFile(s, st) {
				return Usagef("%s %q and %q are one file, given twice; each is read once", what, files[i], n)
			}
		}
		files, stats = append(files, n), append(stats, st)
	}
	return nil
}
