package summary

import "testing"

func TestAppendJSONString(t *testing.T) {
	tests := map[string]string{
		"plain":   `"plain"`,
		"a\"b\\c": `"a\"b\\c"`,
		"\x01\n":  `"\u0001\u000a"`,
		"é😀":      `"é😀"`,
		"\xff":    `"\ufffd"`,
	}
	for in, want := range tests {
		if got := string(AppendJSONString(nil, []byte(in))); got != want {
			t.Errorf("%q: got %s want %s", in, got, want)
		}
	}
}
