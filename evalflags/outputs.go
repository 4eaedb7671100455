package evalflags

import (
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/rankeval/rankeval/objstore"
	"github.com/rankeval/rankeval/reader"
)

// CheckOutputs refuses, as a usage error, two outputs (flag name to path;
// "" and "-" name none) that are one file,
// and an output that is one of the inputs (logs, qrels, states): written
// to a temporary name and renamed, it would replace the input. Files are
// compared by what they are (os.SameFile: another spelling, a link), and,
// while an output does not exist yet, by absolute path.
func CheckOutputs(outs map[string]string, inputs ...string) error {
	flags := slices.DeleteFunc(slices.Sorted(maps.Keys(outs)), func(f string) bool { return outs[f] == "" || outs[f] == reader.Stdin })
	for i, a := range flags {
		for _, b := range flags[i+1:] {
			if sameFile(outs[a], outs[b]) {
				return Usagef("%s and %s name the same file %q", a, b, outs[a])
			}
		}
		if st, err := os.Stat(outs[a]); err == nil && !st.Mode().IsRegular() {
			continue // a terminal or pipe, which may be the input's too (/dev/stdout, /dev/stdin)
		}
		for _, in := range inputs {
			if in != "" && in != reader.Stdin && sameFile(outs[a], in) {
				return Usagef("%s %q is the input %q, which it would replace; write it elsewhere", a, outs[a], in)
			}
		}
	}
	return nil
}

// sameFile reports whether paths a and b name one file.
func sameFile(a, b string) bool {
	if objstore.IsURL(a) || objstore.IsURL(b) {
		return a == b
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(sa, sb)
	}
	absA, errA := filepath.Abs(a)
	absB, errB := filepath.Abs(b)
	return errA == nil && errB == nil && absA == absB
}
