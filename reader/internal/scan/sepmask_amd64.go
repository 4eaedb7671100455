package scan

// SepMasks sets dst[i] to the separator mask of src[64i:64i+64]
// (len(src) >= 64*len(dst)): with SSE2, 16 bytes an instruction, about a
// third of the portable word-at-a-time pass's time (BenchmarkSepMasks).
func SepMasks(dst []uint64, src []byte) {
	if len(dst) == 0 {
		return
	}
	_ = src[64*len(dst)-1] // the assembly reads this far
	sepMasksSSE2(&dst[0], &src[0], len(dst))
}

//go:noescape
func sepMasksSSE2(dst *uint64, src *byte, n int)
