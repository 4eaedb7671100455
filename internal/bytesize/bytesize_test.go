package bytesize

import (
	"math"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"256MiB", 256 << 20, true},
		{"2GiB", 2 << 30, true},
		{"1.5KiB", 1536, true},
		{" 100 MB ", 100e6, true},
		{"1500B", 1500, true},
		{"1500", 1500, true},
		{"0", 0, true},
		{"-1MiB", 0, false},
		{"NaNMiB", 0, false},
		{"InfGiB", 0, false},
		{"5EiB", 0, false},
		{"4294967297GiB", 0, false}, // past 2^62
		{"MiB", 0, false},
		{"", 0, false},
		{"12 parsecs", 0, false},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := Parse(tc.in)
			if (err == nil) != tc.ok || got != tc.want {
				t.Fatalf("Parse(%q) = %d, %v; want %d, ok %v", tc.in, got, err, tc.want, tc.ok)
			}
		})
	}
}

// TestFormatRoundTrip: Format writes what Parse reads back to the same
// count, in the largest unit that divides it.
func TestFormatRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{
		{0, "0B"}, {1, "1B"}, {1024, "1KiB"}, {1000, "1KB"}, {16 << 20, "16MiB"}, {2 << 30, "2GiB"},
		{3 << 29, "1536MiB"}, {1500, "1500B"}, {1 << 62, "4294967296GiB"}, {math.MaxInt64, "9223372036854775807B"},
	} {
		got := Format(tc.n)
		if got != tc.want {
			t.Errorf("Format(%d) = %q, want %q", tc.n, got, tc.want)
		}
		if back, err := Parse(got); tc.n <= 1<<62 && (err != nil || back != tc.n) {
			t.Errorf("Parse(Format(%d)) = %d, %v", tc.n, back, err)
		}
	}
}
