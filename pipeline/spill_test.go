package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/reader"
)

// interleave returns the rows with queries out of order but each query's
// rows in their original relative order: blocks of queries are dealt out
// round-robin, one row at a time.
func interleave(rows []memRow) []memRow {
	var groups [][]memRow
	for i := 0; i < len(rows); {
		j := i
		for j < len(rows) && rows[j].q == rows[i].q {
			j++
		}
		groups = append(groups, rows[i:j])
		i = j
	}
	var out []memRow
	for len(out) < len(rows) {
		for g := range groups {
			if len(groups[g]) > 0 {
				out = append(out, groups[g][0])
				groups[g] = groups[g][1:]
			}
		}
	}
	return out
}

func TestUnsortedMatchesSorted(t *testing.T) {
	rows := manyRows(3000, 12)
	// ties within queries make input order matter
	for i := range rows {
		rows[i].score = float64(int(rows[i].score) % 3)
	}
	ms := mustMetrics(t, "map,ndcg@5,err@10,p@3,kendall")
	sorted, err := Run(context.Background(), Config{Rules: Rules{Metrics: ms, Options: metrics.DefaultOptions()}, Workers: 2},
		sources(100, map[string][]memRow{"a": rows}, "a"))
	if err != nil {
		t.Fatal(err)
	}
	shuffled := interleave(rows)
	for _, limit := range []int64{1 << 14, 1 << 20, DefaultMemLimit} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			tmp := t.TempDir()
			var made []string
			cfg := Config{Rules: Rules{Metrics: ms, Options: metrics.DefaultOptions()}, Workers: 3, Unsorted: Unsorted{On: true, TmpDir: tmp, MemLimit: limit, OnSpillDir: func(dir string, m bool) {
				if m {
					made = append(made, dir)
				}
			}}}
			got, err := Run(context.Background(), cfg, sources(77, map[string][]memRow{"a": shuffled[:len(shuffled)/2], "b": shuffled[len(shuffled)/2:]}, "a", "b"))
			if err != nil {
				t.Fatal(err)
			}
			if got.Rows != sorted.Rows || got.Queries != sorted.Queries {
				t.Fatalf("rows %d queries %d, want %d %d", got.Rows, got.Queries, sorted.Rows, sorted.Queries)
			}
			for i := range ms {
				if g, w := got.Stats[i].Summary(), sorted.Stats[i].Summary(); g != w {
					t.Fatalf("%s: %+v, sorted %+v", ms[i].Name, g, w)
				}
			}
			if len(made) != 1 {
				t.Fatalf("spill dirs %v", made)
			}
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Fatalf("left in the temp dir: %v", left)
			}
		})
	}
}

func TestUnsortedErrorCleansUp(t *testing.T) {
	rows := manyRows(500, 4)
	rows[1500].label = -1
	tmp := t.TempDir()
	_, err := Run(context.Background(), Config{Rules: Rules{Metrics: mustMetrics(t, "map")}, Unsorted: Unsorted{On: true, TmpDir: tmp, MemLimit: 1 << 14}},
		sources(64, map[string][]memRow{"a": interleave(rows)}, "a"))
	if !errors.Is(err, reader.ErrValue) {
		t.Fatalf("err = %v", err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("left in the temp dir: %v", left)
	}
}

// TestUnsortedErrorsAsSorted: with --unsorted, a query over
// --max-group-rows is named at its first row, and a bad value anywhere in
// a batch is reported before it, as on the sorted path.
func TestUnsortedErrorsAsSorted(t *testing.T) {
	rows := []memRow{{"q1", 1, 1}, {"q2", 1, 1}, {"q1", 2, 0}, {"q1", 3, 0}, {"q1", 4, 1}, {"q1", 5, 0}}
	cfg := Config{Rules: Rules{Metrics: mustMetrics(t, "map"), MaxGroupRows: 3}, Unsorted: Unsorted{On: true, TmpDir: t.TempDir()}}
	_, err := Run(context.Background(), cfg, sources(64, map[string][]memRow{"a": rows}, "a"))
	if !errors.Is(err, ErrGroupTooLarge) || !strings.HasPrefix(err.Error(), `a:1: query "q1" has more than 3 rows`) {
		t.Fatalf("err = %v, want the query named at its first row, a:1", err)
	}
	rows = append(rows, memRow{"q3", 1, -1})
	_, err = Run(context.Background(), cfg, sources(64, map[string][]memRow{"a": rows}, "a"))
	if !errors.Is(err, reader.ErrValue) || !strings.HasPrefix(err.Error(), "a:7: label is -1") {
		t.Fatalf("err = %v, want the bad label at a:7 first", err)
	}
}

// TestSpillCollide: a spill file still too large to load after the last
// split, holding more queries than are read one at a time, is an error
// rather than a load past --mem-limit. Ids that collide at every level of
// the spill hash are what reach it; here the depth is lowered to 0, so
// that the first files do. With a budget that holds them, the run
// succeeds.
func TestSpillCollide(t *testing.T) {
	defer func(d int) { maxSplitDepth = d }(maxSplitDepth)
	maxSplitDepth = 0
	ms := mustMetrics(t, "map")
	run := func(rows []memRow, limit int64) error {
		cfg := Config{Rules: Rules{Metrics: ms}, Unsorted: Unsorted{On: true, TmpDir: t.TempDir(), MemLimit: limit}}
		_, err := Run(context.Background(), cfg, sources(64, map[string][]memRow{"a": interleave(rows)}, "a"))
		return err
	}
	many := manyRows(400, 50) // 400 queries in 16 files: 25 a file
	if err := run(many, 1<<14); !errors.Is(err, ErrSpillCollide) || !strings.Contains(err.Error(), "after 0 splits") {
		t.Fatalf("400 queries in a 16 KiB budget without splits: %v", err)
	}
	if err := run(many, DefaultMemLimit); err != nil {
		t.Fatalf("the budget holds them: %v", err)
	}
}

// TestUnsortedSystemsMatchLockstep: two systems' logs, one interleaved and
// one with its queries reversed, joined by the spill files give the
// analysis of the same logs read in lockstep, whatever the budget (a small
// one splits the spill files again); a query absent from one log is the
// lockstep's error.
func TestUnsortedSystemsMatchLockstep(t *testing.T) {
	a := manyRows(2000, 10)
	b := slices.Clone(a)
	for i := range b {
		b[i].score = float64((i * 5) % 7)
	}
	ms := mustMetrics(t, "map,ndcg@5,p@3")
	rules := Rules{Metrics: ms, Options: metrics.DefaultOptions(), Systems: []string{"a", "b"}}
	lock, err := Analyze(context.Background(), Config{Rules: rules, Workers: 2},
		[][]Source{sources(64, map[string][]memRow{"a": a}, "a"), sources(64, map[string][]memRow{"b": b}, "b")})
	if err != nil {
		t.Fatal(err)
	}
	var rb []memRow // b's queries last to first
	for i := len(b); i > 0; i -= 10 {
		rb = append(rb, b[i-10:i]...)
	}
	for _, limit := range []int64{1 << 14, DefaultMemLimit} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			cfg := Config{Rules: rules, Workers: 3, Unsorted: Unsorted{On: true, TmpDir: t.TempDir(), MemLimit: limit}}
			got, err := Analyze(context.Background(), cfg,
				[][]Source{sources(77, map[string][]memRow{"a": interleave(a)}, "a"), sources(50, map[string][]memRow{"b": rb}, "b")})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Analysis, lock.Analysis) {
				t.Errorf("spill join differs from the lockstep")
			}
		})
	}
	t.Run("absent query", func(t *testing.T) {
		cfg := Config{Rules: rules, Unsorted: Unsorted{On: true, TmpDir: t.TempDir()}}
		_, err := Analyze(context.Background(), cfg,
			[][]Source{sources(77, map[string][]memRow{"a": a}, "a"), sources(50, map[string][]memRow{"b": rb[10:]}, "b")})
		if !errors.Is(err, ErrLockstep) || !strings.Contains(err.Error(), `query "q1999" is in a's log but not in b's`) {
			t.Errorf("err = %v", err)
		}
	})
}
