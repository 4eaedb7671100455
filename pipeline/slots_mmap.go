//go:build linux || darwin || freebsd

package pipeline

import (
	"syscall"
	"unsafe"
)

// allocSlots maps n zeroed uint64s outside the Go heap (see seenSet).
// Pages are only resident once written.
func allocSlots(n int) []uint64 {
	b, err := syscall.Mmap(-1, 0, n*8, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]uint64, n) // the heap still works, at its cost
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), n)
}

// freeSlots unmaps what allocSlots mapped; a heap fallback is left to the
// collector (munmap of a heap address fails, harmlessly, with EINVAL).
func freeSlots(s []uint64) {
	if len(s) == 0 {
		return
	}
	syscall.Munmap(unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*8))
}
