package metrics

import (
	"bytes"
	"cmp"
	"encoding/binary"
)

// compareDocs is bytes.Compare for the doc ids that break trec_eval's
// ties: ids of up to 16 bytes with 16 bytes of room from their start (a
// group's ids share one buffer, so all but the last few have it) are
// compared as two big-endian words, inline, where bytes.Compare calls the
// runtime (a TREC run's tied groups compare about 500 pairs a query). The
// bytes past an id's end are masked off; two ids equal on their common
// length order by length, as bytes.Compare orders a prefix first.
func compareDocs(a, b []byte) int {
	na, nb := uint(len(a)), uint(len(b))
	if na <= 16 && nb <= 16 && cap(a) >= 16 && cap(b) >= 16 {
		if c := cmp.Compare(wordOf(a[:8], na), wordOf(b[:8], nb)); c != 0 {
			return c
		}
		if c := cmp.Compare(wordOf(a[8:16], max(na, 8)-8), wordOf(b[8:16], max(nb, 8)-8)); c != 0 {
			return c
		}
		return cmp.Compare(na, nb)
	}
	return bytes.Compare(a, b)
}

// wordOf reads w's first min(n, 8) bytes as a big-endian word, the rest
// zero (a shift of 64 or more gives 0 in Go).
func wordOf(w []byte, n uint) uint64 {
	return binary.BigEndian.Uint64(w) & (^uint64(0) << (8 * (8 - min(n, 8))))
}
