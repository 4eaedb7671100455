//go:build !amd64

package reader

// sepMasks sets dst[i] to the separator mask of src[64i:64i+64]
// (len(src) >= 64*len(dst)).
func sepMasks(dst []uint64, src []byte) { sepMasksGo(dst, src) }
