package rankeval_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

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

// TestWriteTrecRefused: Results.Write refuses the trec format for what
// its layout has no place for (slices, comparisons, bootstrap intervals),
// as the command refuses --format trec, rather than writing the
// baseline's overall figures alone.
func TestWriteTrecRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(c *rankeval.Config)
	}{
		{"two systems", func(c *rankeval.Config) { c.Columns.Score = "score,score_b" }},
		{"slices", func(c *rankeval.Config) { c.By = "market" }},
		{"bootstrap", func(c *rankeval.Config) { c.Bootstrap = 100 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := rankeval.DefaultConfig()
			cfg.Metrics = "map"
			tc.set(&cfg)
			res, err := rankeval.Evaluate(context.Background(), cfg, rankeval.File("testdata/compare.jsonl.zst"))
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			err = res.Write(&out, "trec")
			if !errors.Is(err, rankeval.ErrUsage) || !strings.Contains(err.Error(), "--format trec has no place") || out.Len() != 0 {
				t.Fatalf("Write trec = %v, wrote %q; want a usage error and nothing written", err, out.String())
			}
			if err := res.Write(&out, "json"); err != nil {
				t.Fatalf("Write json: %v", err)
			}
		})
	}
}

// TestMergeRefusesRecords: an Arrow record reader given to Merge is
// refused, not taken for a path of its name (which read the file of that
// name and ignored the records).
func TestMergeRefusesRecords(t *testing.T) {
	dir := t.TempDir()
	cfg := rankeval.DefaultConfig()
	cfg.Outputs.State = "day.state"
	res, err := rankeval.Evaluate(context.Background(), cfg, rankeval.File(sample))
	if err != nil {
		t.Fatal(err)
	}
	var st bytes.Buffer
	if err := res.WriteState(&st); err != nil {
		t.Fatal(err)
	}
	path := dir + "/day.state"
	if err := os.WriteFile(path, st.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	sc := arrow.NewSchema([]arrow.Field{{Name: "query_id", Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).Append("q")
	rec := b.NewRecord()
	defer rec.Release()
	rr, err := array.NewRecordReader(sc, []arrow.Record{rec})
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	got, err := rankeval.Merge(context.Background(), rankeval.MergeConfig{}, rankeval.Records(path, rr))
	if !errors.Is(err, rankeval.ErrUsage) || !strings.Contains(err.Error(), "not a state") || got != nil {
		t.Fatalf("Merge(Records) = %v, %v; want a usage error saying records are not a state", got, err)
	}
}
