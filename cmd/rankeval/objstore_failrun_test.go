package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/internal/objtest"
	"github.com/rankeval/rankeval/objstore"
)

// TestObjectStoreFailedRunOutputs: a run that fails leaves no output in
// the store, for every scheme and every output.
func TestObjectStoreFailedRunOutputs(t *testing.T) {
	for _, scheme := range objtest.Schemes {
		t.Run(scheme, func(t *testing.T) {
			f := &objtest.Fake{Scheme: scheme, Objects: map[string][]byte{
				"good.jsonl": []byte(`{"query_id":"q1","doc_id":"d1","score":2.5,"label":1}` + "\n"),
				"bad.jsonl":  []byte(`{"query_id":"q2","doc_id":"d1","score":2.5,"label":1}` + "\n{not json\n"),
			}}
			objtest.StartFake(t, f)
			outs := []string{"summary.json", "day.state", "per-query.tsv", "report.html"}
			code, _, stderr := cli(t, "--output", f.Object("out/summary.json"), "--state", f.Object("out/day.state"),
				"--per-query", f.Object("out/per-query.tsv"), "--report", f.Object("out/report.html"),
				f.Object("good.jsonl"), f.Object("bad.jsonl"))
			if code != 1 || !strings.Contains(stderr, "bad.jsonl") {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			for _, n := range outs {
				if _, err := objstore.Open(context.Background(), f.Object("out/"+n)); !errors.Is(err, objstore.ErrNotFound) {
					t.Errorf("%s after a failed run: %v", n, err)
				}
			}
		})
	}
}
