package batch

import (
	"bytes"
	"fmt"
	"testing"
)

// TestEqualShort: EqualShort agrees with bytes.Equal for every length up
// to 20, with room past the ends and without, bytes differing at each
// place (the last byte of a word, the first past the string).
func TestEqualShort(t *testing.T) {
	for n := range 21 {
		for _, room := range []int{0, 16} {
			a := make([]byte, n, n+room)
			for i := range a {
				a[i] = byte('a' + i)
			}
			// bytes past the end differ between a and b: they must not count
			a = append(a, bytes.Repeat([]byte{'x'}, room)...)[:n]
			for at := -1; at < n; at++ {
				b := append(make([]byte, 0, n+room), a...)
				b = append(b, bytes.Repeat([]byte{'y'}, room)...)[:n]
				if at >= 0 {
					b[at]++
				}
				t.Run(fmt.Sprintf("len %d room %d differ at %d", n, room, at), func(t *testing.T) {
					if got, want := EqualShort(a, b), bytes.Equal(a, b); got != want {
						t.Fatalf("equalShort %v, bytes.Equal %v", got, want)
					}
					if got := EqualShort(a, b[:max(n-1, 0)]); n > 0 && got {
						t.Fatal("equal to a shorter string")
					}
				})
			}
		}
	}
}
