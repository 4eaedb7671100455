// Package bytesize reads and writes the byte counts of rankeval's memory
// flags (--mem-limit, --max-group-bytes, --max-slice-bytes) and of the
// messages that name them, so a limit reads in a message as it is typed.
package bytesize

import (
	"fmt"
	"strconv"
	"strings"
)

var units = []struct {
	suffix string
	mult   int64
}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"B", 1}}

// Parse reads a byte count with an optional unit: B, KB/KiB, MB/MiB,
// GB/GiB (KB, MB, GB are decimal; KiB, MiB, GiB binary).
func Parse(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v >= 0) || v*float64(mult) > 1<<62 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return int64(v * float64(mult)), nil
}

// Format writes n exactly, in the largest unit that divides it (binary
// first), as Parse reads it back: 256MiB, 100MB, 1500B.
func Format(n int64) string {
	for _, u := range units {
		if n != 0 && n%u.mult == 0 {
			return strconv.FormatInt(n/u.mult, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}
