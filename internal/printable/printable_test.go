package printable_test

import (
	"encoding/json"
	"strconv"
	"testing"
	"unicode/utf8"

	"github.com/rankeval/rankeval/internal/printable"
	"github.com/rankeval/rankeval/summary"
)

// hostileIDs are ids that must print apart, and never as more than one
// field or line: control characters, escape sequences, bidi overrides,
// bytes that are not UTF-8, quotes, and what their quoted forms look like.
var hostileIDs = []string{
	"a", "a b", "a\nb", `a\nb`, "a\tb", "a\rb", "\x1b[31mred", "\u202eevil", "a\x00b", "a\x7fb", "a\u0085b",
	"\xff", "\xfe", "a\xffb", "a\xfeb", `"\xff"`, `"a"`, `"`, "", "é😀", `\`, "\x80",
}

// TestString checks that String (text, trec and HTML layouts) and
// summary.AppendJSONString (JSON) print every hostile id on one line with no tab
// or control character, as valid JSON, and each differently, and that a
// quoted form reads back to the id.
func TestString(t *testing.T) {
	seenP, seenJ := map[string]string{}, map[string]string{}
	for _, id := range hostileIDs {
		p := printable.String(id)
		if string(printable.Append(nil, id)) != p {
			t.Errorf("%q: Append and String differ", id)
		}
		for _, r := range p {
			if !strconv.IsPrint(r) || !utf8.ValidString(p) {
				t.Errorf("%q prints as %q, with %U", id, p, r)
			}
		}
		if p != id {
			if back, err := strconv.Unquote(p); err != nil || back != id {
				t.Errorf("%q prints as %q, which unquotes to %q (%v)", id, p, back, err)
			}
		}
		if other, ok := seenP[p]; ok {
			t.Errorf("%q and %q both print as %q", id, other, p)
		}
		seenP[p] = id
		j := summary.AppendJSONString(nil, []byte(id))
		var s string
		if err := json.Unmarshal(j, &s); err != nil {
			t.Errorf("%q: JSON %s: %v", id, j, err)
		}
		if other, ok := seenJ[s]; ok {
			t.Errorf("%q and %q both print in JSON as %s", id, other, j)
		}
		seenJ[s] = id
	}
	for _, id := range []string{"q1", "a b", "é😀", "x-y_z.1/2"} {
		if printable.String(id) != id {
			t.Errorf("a printable id %q is printed as %q", id, printable.String(id))
		}
	}
}
