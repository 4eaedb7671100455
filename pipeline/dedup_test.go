package pipeline

import (
	"fmt"
	"testing"
)

// TestDocSetShortIDs: an id's hash does not depend on the room past its
// end, so the same short id at a buffer's end (no room to load a word)
// and inside it is the same id, for duplicates and for find; ids that
// differ only in a byte past another's length, or in length, differ.
func TestDocSetShortIDs(t *testing.T) {
	ids := []string{"", "a", "D12", "D12\x00", "D1234567", "D12345678", "D123456789abcdefg", "x\x00\x00"}
	for _, id := range ids {
		for _, other := range ids {
			t.Run(fmt.Sprintf("%q then %q", id, other), func(t *testing.T) {
				// id inside a buffer, with room past it, and at a buffer's end
				inner := []byte(other + id + "padding-padding")[len(other) : len(other)+len(id)]
				tail := append([]byte(id), "padding-padding"...)[:len(id)]
				last := []byte(id)[:len(id):len(id)]
				s := newDocSet()
				docs := [][]byte{tail, []byte(other), last}
				dup, first := s.firstDuplicate(docs)
				switch {
				case id == "":
					// rows without a doc id are never duplicates
				case id == other:
					if dup != 1 || first != 0 {
						t.Fatalf("duplicate %d of %d, want 1 of 0", dup, first)
					}
				case dup != 2 || first != 0:
					t.Fatalf("duplicate %d of %d, want 2 of 0", dup, first)
				}
				s.reset(docs[:2])
				s.seen(0, 0)
				s.seen(1, 1)
				if id != "" && id != other {
					if got := s.find(inner); got != 0 {
						t.Fatalf("find %q: %d, want 0", inner, got)
					}
					if got := s.find(last); got != 0 {
						t.Fatalf("find %q (no room): %d, want 0", last, got)
					}
				}
			})
		}
	}
}
