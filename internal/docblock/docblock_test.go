package docblock

import (
	"fmt"
	"strings"
	"testing"
)

func TestUpdate(t *testing.T) {
	page := "# t\n<!-- generated: tool --help -->\n```text\nold\n```\ntext\n<!-- generated: other x -->\n```\nkeep\n```\n"
	gen := func(args []string) (string, error) { return "usage of " + strings.Join(args, " "), nil }
	got, changed, err := Update([]byte(page), "tool", gen)
	want := "# t\n<!-- generated: tool --help -->\n```text\nusage of --help\n```\ntext\n<!-- generated: other x -->\n```\nkeep\n```\n"
	if err != nil || string(got) != want || fmt.Sprint(changed) != "[tool --help]" {
		t.Fatalf("got %q, %v, %v", got, changed, err)
	}
	again, changed, err := Update(got, "tool", gen)
	if err != nil || string(again) != want || len(changed) != 0 {
		t.Fatalf("a second update changed %v (%v)", changed, err)
	}
	for name, bad := range map[string]string{
		"no fence":   "<!-- generated: tool -h -->\ntext\n",
		"not closed": "<!-- generated: tool -h -->\n```\nabc\n",
	} {
		if _, _, err := Update([]byte(bad), "tool", gen); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
