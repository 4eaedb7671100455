package config

import (
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/rankeval/rankeval/objstore"
	"github.com/rankeval/rankeval/reader"
)

// CheckOutputs refuses, as a usage error, two outputs (flag name to path;
// "" names none, "-" standard output) that are one file,
// and an output that is one of the inputs (logs, qrels, states): written
// to a temporary name and renamed, it would replace the input. Files are
// compared by what they are (os.SameFile: another spelling, a link), and,
// while an output does not exist yet, by absolute path. Only --output and
// --per-query may be "-"; a state or report is written to a file, and to
// standard output (/dev/stdout) only when the summary is not (--output
// FILE): sharing one stream would make neither readable.
func CheckOutputs(outs map[string]string, inputs ...string) error {
	summaryOut := outs["--output"] == "" || outs["--output"] == reader.Stdin
	for _, f := range slices.Sorted(maps.Keys(outs)) {
		if f == "--output" || f == "--per-query" {
			continue
		}
		switch p := outs[f]; {
		case p == reader.Stdin:
			return Usagef("%s -: name a file (standard output carries the summary; with --output FILE, %s /dev/stdout writes it there)", f, f)
		case p != "" && summaryOut && isStdout(p):
			return Usagef("%s %q and the summary would both go to standard output; write the summary to a file with --output", f, p)
		}
	}
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

// isStdout reports whether path names this process's standard output.
func isStdout(path string) bool {
	switch path {
	case "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1":
		return true
	}
	sp, err1 := os.Stat(path)
	so, err2 := os.Stdout.Stat()
	return err1 == nil && err2 == nil && os.SameFile(sp, so)
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
