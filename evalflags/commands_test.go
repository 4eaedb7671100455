package evalflags

import "testing"

func TestSuggest(t *testing.T) {
	commands := []string{"merge", "trec_eval", "metrics", "help", "completion"}
	for _, tc := range []struct{ word, want string }{
		{"trec-eval", "trec_eval"},
		{"treceval", "trec_eval"},
		{"TREC_EVAL", "trec_eval"},
		{"trec_evl", "trec_eval"},
		{"marge", "merge"},
		{"mrege", "merge"}, // a swap is two edits
		{"hlep", "help"},
		{"metric", "metrics"},
		{"completions", "completion"},
		{"merge", "merge"},
		{"logs", ""},
		{"run.jsonl", ""},
		{"mergers", "merge"},
		{"mergerss", ""}, // three edits from merge
		{"data", ""},
		{"", ""},
	} {
		t.Run(tc.word, func(t *testing.T) {
			if got := Suggest(tc.word, commands); got != tc.want {
				t.Fatalf("Suggest(%q) = %q, want %q", tc.word, got, tc.want)
			}
		})
	}
}
