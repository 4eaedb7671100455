//go:build unix

package outfile

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// openFD returns a duplicate of the process's descriptor that target
// names (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N), or false.
// Such a name must be written through the descriptor the shell gave: it
// resolves to whatever the descriptor holds, which may be a regular file
// (rankeval --output /dev/stdout >> all.txt), and renaming a temporary
// file over that would replace the file the shell opened, losing what it
// held and what it was appending to.
func openFD(target string) (*os.File, bool, error) {
	var fd int
	switch p := filepath.Clean(target); p {
	case "/dev/stdout":
		fd = 1
	case "/dev/stderr":
		fd = 2
	default:
		rest, ok := strings.CutPrefix(p, "/dev/fd/")
		if !ok {
			rest, ok = strings.CutPrefix(p, "/proc/self/fd/")
		}
		n, err := strconv.Atoi(rest)
		if !ok || err != nil || n < 0 {
			return nil, false, nil
		}
		fd = n
	}
	d, err := syscall.Dup(fd)
	if err != nil {
		return nil, true, err
	}
	return os.NewFile(uintptr(d), target), true, nil
}
