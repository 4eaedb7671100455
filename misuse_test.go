package rankeval_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/rankeval/rankeval"
)

// TestRunOnce: an Evaluation runs once; a second Run is refused
// (ErrRunTwice), not a run over streams already read that returns empty
// figures with no error.
func TestRunOnce(t *testing.T) {
	plain := plainSample(t)
	for _, tc := range []struct {
		name string
		src  rankeval.Source
	}{
		{"stream", rankeval.Stream("sample", bytes.NewReader(plain))},
		{"path", rankeval.File(sample)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := rankeval.Prepare(rankeval.DefaultConfig(), tc.src)
			if err != nil {
				t.Fatal(err)
			}
			first, err := e.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if mean, n, _ := first.Mean("map", ""); n != 300 || mean < 0.71 || mean > 0.72 {
				t.Fatalf("first run: map %v over %d queries, want 0.7128 over 300", mean, n)
			}
			again, err := e.Run(context.Background())
			if !errors.Is(err, rankeval.ErrRunTwice) || again != nil {
				t.Fatalf("second Run = %v, %v; want nil, ErrRunTwice", again, err)
			}
		})
	}
}
