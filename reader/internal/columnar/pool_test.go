package columnar

import (
	"testing"
	"unsafe"
)

func aligned(b []byte) bool { return uintptr(unsafe.Pointer(unsafe.SliceData(b)))&63 == 0 }

func zero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

// TestBufPool: buffers are aligned, sized, zeroed even when recycled, and
// the pool keeps no more than it may.
func TestBufPool(t *testing.T) {
	p := NewBufPool(1 << 16)
	for _, n := range []int{0, 1, 63, 64, 65, 1000, 4096, 5000} {
		t.Run("", func(t *testing.T) {
			b := p.Allocate(n)
			if len(b) != n || cap(b) < n || !aligned(b) || !zero(b) {
				t.Fatalf("Allocate(%d): len %d cap %d aligned %v zero %v", n, len(b), cap(b), aligned(b), zero(b))
			}
			for i := range b {
				b[i] = 0xff
			}
			p.Free(b)
			c := p.Allocate(n)
			if len(c) != n || !aligned(c) || !zero(c) {
				t.Fatalf("recycled Allocate(%d): len %d aligned %v zero %v", n, len(c), aligned(c), zero(c))
			}
			if n > 0 && n <= 4096 && &c[0] != &b[0] {
				t.Errorf("Allocate(%d) after Free did not reuse the buffer", n)
			}
			p.Free(c)
		})
	}
	t.Run("reallocate", func(t *testing.T) {
		b := p.Allocate(10)
		for i := range b {
			b[i] = byte(i + 1)
		}
		b = p.Reallocate(5, b)
		b = p.Reallocate(40, b) // within the 64-byte class: the tail is zeroed
		if len(b) != 40 || b[4] != 5 || !zero(b[5:]) {
			t.Fatalf("grown in place: %v", b)
		}
		c := p.Reallocate(300, b)
		if len(c) != 300 || c[0] != 1 || c[4] != 5 || !zero(c[5:]) || !aligned(c) {
			t.Fatalf("grown by copy: %v", c[:10])
		}
		p.Free(c)
	})
	t.Run("retain", func(t *testing.T) {
		q := NewBufPool(1 << 12)
		bs := [][]byte{q.Allocate(4096), q.Allocate(4096), q.Allocate(100)}
		for _, b := range bs {
			q.Free(b)
		}
		if q.Held != 4096 {
			t.Fatalf("held %d bytes, want the first 4096 only", q.Held)
		}
		q.Free(make([]byte, 100)) // not the pool's: ignored
		q.Free(make([]byte, 64, 64)[1:])
		if q.Held != 4096 {
			t.Fatalf("held %d bytes after foreign frees", q.Held)
		}
	})
}
