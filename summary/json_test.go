package summary

import "testing"

func TestAppendJSONString(t *testing.T) {
	tests := map[string]string{
		"plain":     `"plain"`,
		"a\"b\\c":   `"a\"b\\c"`,
		"\x01\n":    `"\u0001\u000a"`,
		"é😀":        `"é😀"`,
		"\xff":      `"\"\\xff\""`,     // not UTF-8: its Go-quoted form
		"a\xffb":    `"\"a\\xffb\""`,   // never U+FFFD, which "a\xfeb" would print as too
		`"x"`:       `"\"\\\"x\\\"\""`, // a leading quote is quoted, so no id reads as the quoted form of another
		"\"\\xff\"": `"\"\\\"\\\\xff\\\"\""`,
	}
	for in, want := range tests {
		if got := string(AppendJSONString(nil, []byte(in))); got != want {
			t.Errorf("%q: got %s want %s", in, got, want)
		}
	}
}
