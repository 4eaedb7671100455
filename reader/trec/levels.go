package trec

import (
	"fmt"

	"github.com/rankeval/rankeval/reader/internal/batch"
)

// MaxLevel is the highest judgment rankeval trec_eval takes. trec_eval
// counts the documents of each level from 0 up to a query's highest
// (max_rel + 1 longs, per judgment group for -R qrels_jg): past a few
// million levels, whether that allocation succeeds, and so whether
// trec_eval prints numbers, stops or crashes, depends on the machine.
const MaxLevel = 1 << 20

// LevelError refuses a judgment above MaxLevel, at line of file.
func LevelError(file string, line int64, label float64) error {
	const format = "judgment %.0f is above %d: trec_eval allocates a count for every level up to it, which succeeds or not with the machine's memory; rankeval refuses: %w"
	if line > 0 {
		return batch.ParseErrorf(file, line, format, label, MaxLevel, batch.ErrValue)
	}
	return fmt.Errorf("%s: "+format, file, label, MaxLevel, batch.ErrValue)
}
