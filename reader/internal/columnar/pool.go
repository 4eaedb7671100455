package columnar

import (
	"math/bits"
	"sync"
	"unsafe"
)

// bufPool is the Arrow allocator of the columnar readers. Decoding a 10M-row
// Parquet log allocates some 750 MB of Arrow buffers, each used for one batch:
// recycling them by power-of-two size class spares the collector that work
// and the kernel the page faults. Buffers come back zeroed, as from
// memory.GoAllocator, and 64-byte aligned. At most poolRetain bytes wait for
// reuse; the rest go to the collector as before.
type bufPool struct {
	mu     sync.Mutex
	free   [bufClasses][][]byte
	Held   int // bytes in free
	retain int
}

const (
	minBufClass = 6  // 64 B
	bufClasses  = 31 // up to 1 GiB (maxArrowAlloc)
	PoolRetain  = 32 << 20
)

func NewBufPool(retain int) *bufPool { return &bufPool{retain: retain} }

// class returns the size class of a buffer of n bytes.
func class(n int) int {
	if n <= 1<<minBufClass {
		return minBufClass
	}
	return bits.Len(uint(n - 1))
}

func (p *bufPool) Allocate(n int) []byte {
	c := class(n)
	if c < bufClasses {
		p.mu.Lock()
		if l := len(p.free[c]); l > 0 {
			b := p.free[c][l-1]
			p.free[c][l-1] = nil
			p.free[c] = p.free[c][:l-1]
			p.Held -= cap(b)
			p.mu.Unlock()
			b = b[:n]
			clear(b)
			return b
		}
		p.mu.Unlock()
	}
	size := 1 << c
	raw := make([]byte, size+64)
	shift := int(-uintptr(unsafe.Pointer(&raw[0])) & 63)
	return raw[shift : shift+n : shift+size]
}

func (p *bufPool) Reallocate(n int, b []byte) []byte {
	if n <= cap(b) {
		old := len(b)
		b = b[:n]
		if n > old {
			clear(b[old:])
		}
		return b
	}
	nb := p.Allocate(n)
	copy(nb, b)
	p.Free(b)
	return nb
}

func (p *bufPool) Free(b []byte) {
	c := cap(b)
	if c < 1<<minBufClass || c&(c-1) != 0 || uintptr(unsafe.Pointer(unsafe.SliceData(b)))&63 != 0 {
		return // not one of ours whole: leave it to the collector
	}
	k := bits.Len(uint(c)) - 1
	if k >= bufClasses {
		return
	}
	p.mu.Lock()
	if p.Held+c <= p.retain {
		p.free[k] = append(p.free[k], b[:0])
		p.Held += c
	}
	p.mu.Unlock()
}
