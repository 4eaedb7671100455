package rankeval_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rankeval/rankeval"
)

// Evaluate a JSONL log (zstd-compressed) with the command's defaults and
// read one mean.
func ExampleEvaluate() {
	cfg := rankeval.DefaultConfig()
	cfg.Metrics = "ndcg@10,map"
	res, err := rankeval.Evaluate(context.Background(), cfg, rankeval.File("testdata/sample.jsonl.zst"))
	if err != nil {
		log.Fatal(err)
	}
	mean, n, _ := res.Mean("ndcg@10", "")
	fmt.Printf("ndcg@10 %.4f over %d queries\n", mean, n)
	// Output: ndcg@10 0.5724 over 300 queries
}

// Evaluate rows that are already in memory, as Arrow record batches, under
// trec_eval's conventions, and print the summary as JSON would carry it.
func ExampleRecords() {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "query_id", Type: arrow.BinaryTypes.String},
		{Name: "doc_id", Type: arrow.BinaryTypes.String},
		{Name: "score", Type: arrow.PrimitiveTypes.Float64},
		{Name: "label", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).AppendValues([]string{"q1", "q1", "q1", "q2", "q2"}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"a", "b", "c", "a", "b"}, nil)
	b.Field(2).(*array.Float64Builder).AppendValues([]float64{0.9, 0.5, 0.1, 0.3, 0.7}, nil)
	b.Field(3).(*array.Int64Builder).AppendValues([]int64{0, 2, 1, 1, 0}, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()
	rr, err := array.NewRecordReader(schema, []arrow.RecordBatch{rec})
	if err != nil {
		log.Fatal(err)
	}
	defer rr.Release()

	cfg := rankeval.DefaultConfig()
	cfg.Metrics, cfg.Profile = "map,p@2", "trec_eval"
	if err := cfg.ApplyProfile(nil); err != nil { // ties trec, gain linear, ...
		log.Fatal(err)
	}
	res, err := rankeval.Evaluate(context.Background(), cfg, rankeval.Records("in-memory", rr))
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range []string{"map", "p@2"} {
		mean, n, _ := res.Mean(m, "")
		fmt.Printf("%s %.4f (%d queries)\n", m, mean, n)
	}
	// Output:
	// map 0.5417 (2 queries)
	// p@2 0.5000 (2 queries)
}

// Compare two rankers (two score columns of one log) and gate the
// candidate: it must not be worse than the baseline by more than 0.05 in
// nDCG@10, at the 95% level.
func ExampleEvaluate_gate() {
	cfg := rankeval.DefaultConfig()
	cfg.Metrics = "ndcg@10"
	cfg.Columns.Score = "score,score_b" // the baseline first
	cfg.Gates.FailIfWorse = "ndcg@10=0.05"
	res, err := rankeval.Evaluate(context.Background(), cfg, rankeval.File("testdata/compare.jsonl.zst"))
	if err != nil {
		log.Fatal(err)
	}
	base, _, _ := res.Mean("ndcg@10", "score")
	cand, _, _ := res.Mean("ndcg@10", "score_b")
	fmt.Printf("baseline %.4f, candidate %.4f\n", base, cand)
	fmt.Println("gate failed:", errors.Is(res.Err(), rankeval.ErrGateFailed))
	// Output:
	// baseline 0.6389, candidate 0.6948
	// gate failed: false
}

// Save two days' states, as nightly runs with --state do, and merge them
// into the week's summary without reading the logs again.
func ExampleMerge() {
	ctx := context.Background()
	day := func(name, log string) rankeval.Source {
		cfg := rankeval.DefaultConfig()
		cfg.Metrics = "ndcg@10"
		cfg.Outputs.State = name // keep what a state needs
		res, err := rankeval.Evaluate(ctx, cfg, rankeval.File(log))
		if err != nil {
			panic(err)
		}
		var b bytes.Buffer
		if err := res.WriteState(&b); err != nil {
			panic(err)
		}
		return rankeval.Stream(name, &b)
	}
	week, err := rankeval.Merge(ctx, rankeval.MergeConfig{},
		day("monday.state", "testdata/sample.jsonl.zst"), day("tuesday.state", "testdata/compare.jsonl.zst"))
	if err != nil {
		log.Fatal(err)
	}
	mean, n, _ := week.Mean("ndcg@10", "")
	fmt.Printf("ndcg@10 %.4f over %d queries\n", mean, n)
	week.Write(os.Stdout, "markdown")
	// Output:
	// ndcg@10 0.6057 over 600 queries
	// | system | ndcg@10 |
	// | :-- | --: |
	// | score | **0.6057** |
}
