package splitmix

import "testing"

// TestMix64 pins the finalizer to splitmix64's published outputs: the
// first three of the generator seeded with 1234567, each Mix64 of the
// state after adding the golden gamma.
func TestMix64(t *testing.T) {
	const gamma = 0x9e3779b97f4a7c15
	state := uint64(1234567)
	for i, want := range []uint64{6457827717110365317, 3203168211198807973, 9817491932198370423} {
		state += gamma
		if got := Mix64(state); got != want {
			t.Errorf("output %d: %d, want %d", i, got, want)
		}
	}
	if Mix64(0) != 0 {
		t.Errorf("Mix64(0) = %d, want 0", Mix64(0))
	}
}
