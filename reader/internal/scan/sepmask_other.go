//go:build !amd64

package scan

// SepMasks sets dst[i] to the separator mask of src[64i:64i+64]
// (len(src) >= 64*len(dst)).
func SepMasks(dst []uint64, src []byte) { SepMasksGo(dst, src) }
