package idhash

import (
	"fmt"
	"testing"
)

// TestShortIsHash: Short, where it answers, gives Hash's value, so an id
// hashes the same with room past its end and without; ids that differ in
// a byte, in length, or only past another's length hash apart (with these
// keys: a collision would only cost a probe, but would show a mix that
// ignores bytes).
func TestShortIsHash(t *testing.T) {
	ids := []string{"", "a", "\x00", "D12", "D12\x00", "D1234567", "D12345678", "D123456789abcdef", "D123456789abcdefg",
		"x\x00\x00", "clueweb12-0000tw-05-12114", "12345678\x00", "12345678"}
	h := New()
	seen := map[uint64]string{}
	for _, id := range ids {
		t.Run(fmt.Sprintf("%q", id), func(t *testing.T) {
			want := h.Hash([]byte(id))
			if prev, ok := seen[want]; ok {
				t.Fatalf("same hash as %q", prev)
			}
			seen[want] = id
			room := append([]byte(id), "padding-padding"...)[:len(id)]
			got, ok := h.Short(room)
			if len(id) <= 16 != ok {
				t.Fatalf("Short answers %v for %d bytes", ok, len(id))
			}
			if ok && got != want {
				t.Fatalf("Short %x, Hash %x", got, want)
			}
			if h.Hash(room) != want {
				t.Fatal("Hash depends on the room past the id")
			}
			if _, ok := h.Short([]byte(id)[:len(id):len(id)]); ok && len(id) < 16 {
				t.Fatal("Short read past an id with no room")
			}
		})
	}
}
