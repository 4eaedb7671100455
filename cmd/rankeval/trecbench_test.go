package main

import (
	"context"
	"io"
	"os"
	"testing"
)

// BenchmarkTrec evaluates $RANKEVAL_TREC_RUN against $RANKEVAL_TREC_QRELS
// under the trec_eval profile (scripts/trec-compare.sh makes such files).
func BenchmarkTrec(b *testing.B) {
	run, qrels := os.Getenv("RANKEVAL_TREC_RUN"), os.Getenv("RANKEVAL_TREC_QRELS")
	if run == "" || qrels == "" {
		b.Skip("set RANKEVAL_TREC_RUN and RANKEVAL_TREC_QRELS")
	}
	for range b.N {
		if err := run2(run, qrels); err != nil {
			b.Fatal(err)
		}
	}
}

func run2(runFile, qrels string) error {
	return run(context.Background(), []string{"--quiet", "--qrels", qrels, "--profile", "trec_eval",
		"-m", "map,P_5,P_10,recall_100,ndcg_cut_10,ndcg,recip_rank,Rprec,success_1", runFile}, io.Discard, io.Discard)
}

// BenchmarkTrecEvalAllTrec is rankeval trec_eval -c -m all_trec on the
// same files: every measure of trec_eval 10.0's all_trec.
func BenchmarkTrecEvalAllTrec(b *testing.B) {
	runFile, qrels := os.Getenv("RANKEVAL_TREC_RUN"), os.Getenv("RANKEVAL_TREC_QRELS")
	if runFile == "" || qrels == "" {
		b.Skip("set RANKEVAL_TREC_RUN and RANKEVAL_TREC_QRELS")
	}
	for range b.N {
		err := run(context.Background(), []string{"trec_eval", "-c", "-m", "all_trec", qrels, runFile}, io.Discard, io.Discard)
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTrecEvalOfficial is rankeval trec_eval -c: trec_eval's
// default measures.
func BenchmarkTrecEvalOfficial(b *testing.B) {
	runFile, qrels := os.Getenv("RANKEVAL_TREC_RUN"), os.Getenv("RANKEVAL_TREC_QRELS")
	if runFile == "" || qrels == "" {
		b.Skip("set RANKEVAL_TREC_RUN and RANKEVAL_TREC_QRELS")
	}
	for range b.N {
		if err := run(context.Background(), []string{"trec_eval", "-c", qrels, runFile}, io.Discard, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
