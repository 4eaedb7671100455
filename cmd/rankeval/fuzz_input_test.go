package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzCommandInput feeds arbitrary bytes to the whole command as an input
// file, not only to a decoder: whatever the bytes, rankeval must not panic
// and must either fail with exit 1 and a message naming the file, or
// succeed with exit 0 and a summary. Never exit 2 (the command line is
// right) or another code. The seeds are each input format and the bad
// inputs of docs/errors.md; go test runs them, and
// go test ./cmd/rankeval -run X -fuzz FuzzCommandInput searches further.
func FuzzCommandInput(f *testing.F) {
	for _, s := range []string{
		twoQueries,
		`{"query_id":"a","doc_id":"d1","score":01,"label":1}` + "\n",
		`{"query_id":"a","doc_id":"d1","score":0.5,"label":1024}` + "\n",
		`{"query_id":"a\nb","doc_id":"d1","score":0.5,"label":1,"x":[1,,2]}` + "\n",
		"query_id,doc_id,score,label\na,d1,0.5,1\na,d2,0.1,0\nb,d1,\"0.3\",1\n",
		"query_id\tdoc_id\tscore\tlabel\na\td1\t0.5\t1\n",
		"\x28\xb5\x2f\xfd\x00\x58\x00\x00",         // a zstd frame cut short
		"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff", // a gzip header alone
		"PAR1\x00\x00PAR1",
		"ARROW1\x00\x00",
		"",
		"\n\n",
	} {
		f.Add([]byte(s))
	}
	if b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "sample.jsonl.zst")); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		in := filepath.Join(dir, "in")
		if err := os.WriteFile(in, data, 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out.json")
		code, _, stderr := cli(t, "--quiet", "-m", "map,ndcg@3,err@3,kendall", "--format", "json", "--output", out, "--mem-limit", "16MiB", in)
		switch code {
		case 0:
			if b, err := os.ReadFile(out); err != nil || !strings.Contains(string(b), `"metrics"`) {
				t.Fatalf("exit 0 without a summary (%v)", err)
			}
		case 1:
			if !strings.Contains(stderr, in) {
				t.Fatalf("exit 1 with a message that does not name the file: %q", stderr)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Fatalf("an output file after a failed run (%v)", err)
			}
		default:
			t.Fatalf("exit %d: %q", code, stderr)
		}
	})
}
