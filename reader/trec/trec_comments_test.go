package trec

import (
	"strings"
	"testing"

	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/readertest"
)

// TestTrecComments: with comments on, a line whose first field starts
// with '#' is skipped in qrels (split in pieces or not) and runs (on one
// scanner or on block decoders), but still counted for line numbers; a
// '#' inside a field is data. Without, the same lines are data or errors.
func TestTrecComments(t *testing.T) {
	qrels := "# a comment\n1 0 a 1\n  # indented comment\n1 0 b#x 2\n# and comment here\n2 0 c 1\n"
	run := "#comment\n1 Q0 a 1 2.5 r\n1 Q0 b#x 2 2 r\n   # comment here\n2 Q0 c 1 1 r\n2 Q0 zz 1 oops r\n"
	qp := readertest.WriteFile(t, "qrels", []byte(qrels))
	old := qrelsMinSplit
	qrelsMinSplit = 1 // split even this small file
	defer func() { qrelsMinSplit = old }()
	for _, parts := range []int{1, 3} {
		q, err := readQrels(qp, parts, QrelsFormat{Comments: true})
		if err != nil {
			t.Fatalf("parts %d: %v", parts, err)
		}
		if q.Judgments() != 3 || q.Queries() != 2 {
			t.Fatalf("parts %d: %d judgments of %d queries, want 3 of 2", parts, q.Judgments(), q.Queries())
		}
	}
	if _, err := ReadQrels(qp); err == nil || !strings.Contains(err.Error(), ":1:") {
		t.Fatalf("without comments, line 1 is malformed: %v", err)
	}
	plainQrels := readertest.WriteFile(t, "qrels.plain", []byte("1 0 a 1\n1 0 b#x 2\n2 0 c 1\n"))
	good := readertest.WriteFile(t, "run", []byte(strings.TrimSuffix(run, "2 Q0 zz 1 oops r\n")))
	bad := readertest.WriteFile(t, "run.bad", []byte(run))
	for _, decoders := range []int{1, 4} {
		res := readRun(t, good, plainQrels, RunOptions{Options: batch.Options{Decoders: decoders}, Comments: true})
		var docs []string
		for _, r := range res.rows {
			docs = append(docs, r.Q+"/"+r.D)
		}
		if res.err != "" || strings.Join(docs, " ") != "1/a 1/b#x 2/c" {
			t.Fatalf("decoders %d: rows %v, err %q; want 1/a 1/b#x 2/c", decoders, docs, res.err)
		}
		if res := readRun(t, bad, plainQrels, RunOptions{Options: batch.Options{Decoders: decoders}, Comments: true}); !strings.Contains(res.err, ":6:") {
			t.Fatalf("decoders %d: the bad score is on line 6, comments counted: %q", decoders, res.err)
		}
		if res := readRun(t, good, plainQrels, RunOptions{Options: batch.Options{Decoders: decoders}}); !strings.Contains(res.err, ":1:") {
			t.Fatalf("decoders %d: without comments, line 1 is malformed: %q", decoders, res.err)
		}
	}
}
