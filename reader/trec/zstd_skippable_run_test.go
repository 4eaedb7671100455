package trec

import (
	"testing"

	"github.com/rankeval/rankeval/reader/internal/readertest"
)

// TestZstdSkippableRun: a TREC run and its qrels that start with zstd
// skippable frames are zstd, as logs are (TestZstdSkippableFrames), for
// OpenRun, the qrels and RunTag.
func TestZstdSkippableRun(t *testing.T) {
	dir := t.TempDir()
	meta := []byte(`{"query_id":"not a row","label":9}` + "\n\x1f\x8bPAR1") // payload that looks like data
	run := []byte("q1 Q0 d1 1 0.5 sys\nq1 Q0 d2 2 0.25 sys\nq2 Q0 d1 1 3 sys\n")
	qrels := []byte("q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 2\n")
	plainRun := readRun(t, readertest.WriteFileIn(t, dir, "run", run), readertest.WriteFileIn(t, dir, "qrels", qrels), RunOptions{})
	if plainRun.err != "" || len(plainRun.rows) != 3 {
		t.Fatalf("plain run: %+v", plainRun)
	}
	rp := readertest.WriteFileIn(t, dir, "run.zst", readertest.Concat(readertest.SkippableFrame(0, meta), readertest.ZstdBytes(run)))
	qp := readertest.WriteFileIn(t, dir, "qrels.zst", readertest.Concat(readertest.SkippableFrame(5, meta), readertest.ZstdBytes(qrels)))
	got := readRun(t, rp, qp, RunOptions{})
	if d := sameRun(got, plainRun); d != "" {
		t.Fatal(d)
	}
	if tag, err := RunTag(rp); err != nil || tag != "sys" {
		t.Fatalf("RunTag = %q, %v", tag, err)
	}
}
