package reader

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/internal/synth"
	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/readertest"
)

// teamCol is a Texts column as the interleaving outcome names it.
var teamCol = batch.Named{Name: "team", Role: "the team column", Flag: "--team-col"}

// TestTextsEveryFormat: a Texts column is read row by row, as text, the
// same in every format, beside a slice column and a Numbers column.
func TestTextsEveryFormat(t *testing.T) {
	dir := t.TempDir()
	var rows []synth.Row
	for i := range 50 {
		rows = append(rows, synth.Row{Query: fmt.Sprintf("q%d", i/5), Doc: fmt.Sprintf("d%d", i), Label: float64(i % 2), NoScore: true,
			Market: "m" + fmt.Sprint(i/10), Position: int64(i%5 + 1), Propensity: 1, HasClicks: true, Team: []string{"A", "B", "a,b"}[i%3]})
	}
	cols := batch.Columns{Query: "query_id", Doc: "doc_id", Label: "label", Rank: "position", Extra: []string{"market"},
		Numbers: []batch.Named{{Name: "propensity", Role: "the propensity column", Flag: "--propensity-col"}}, Texts: []batch.Named{teamCol}}
	for _, name := range []string{"log.jsonl", "log.csv", "log.tsv.gz", "log.parquet", "log.arrows"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			readertest.WriteLog(t, path, rows, synth.Options{RowGroup: 7, Batch: 7})
			r, err := Open(path, cols, batch.Options{BatchSize: 6})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			i := 0
			for r.Next() {
				b := r.Batch()
				for k := range b.N {
					w := rows[i]
					if got := string(b.Texts[0].At(k)); got != w.Team || string(b.Extra[0].At(k)) != w.Market || b.Numbers[0][k] != 1 {
						t.Fatalf("row %d: team %q market %q, want %q %q", i, got, b.Extra[0].At(k), w.Team, w.Market)
					}
					i++
				}
			}
			if err := r.Err(); err != nil || i != len(rows) {
				t.Fatalf("%d rows, %v", i, err)
			}
		})
	}
}

// TestTextsMessages: a Texts column missing, null or not a value is
// named by its role and its flag.
func TestTextsMessages(t *testing.T) {
	cols := batch.Columns{Query: "query_id", Score: "score", Label: "label", Texts: []batch.Named{teamCol}}
	for _, tc := range []struct{ name, data, want string }{
		{"log.jsonl", `{"query_id":"q","score":1,"label":1}`, `log.jsonl:1: no "team" field (the team column); the line has fields "query_id", "score", "label"; name the team column with --team-col`},
		{"log.jsonl", `{"query_id":"q","score":1,"label":1,"team":null}`, `log.jsonl:1: "team" (the team column) is null; every row needs a value`},
		{"log.jsonl", `{"query_id":"q","score":1,"label":1,"team":["A"]}`, `log.jsonl:1: "team" (the team column) must be a string, number or boolean`},
		{"log.csv", "query_id,score,label\nq,1,1\n", `log.csv:1: no column "team" (the team column); the header has "query_id", "score", "label"; name the team column with --team-col`},
	} {
		t.Run(tc.want[:20], func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tc.name)
			if err := os.WriteFile(path, []byte(tc.data+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := readAll(t, path, cols, batch.Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, batch.ErrColumn) && !errors.Is(err, batch.ErrValue) {
				t.Fatalf("err = %v\nwant %s", err, tc.want)
			}
		})
	}
	// a column named for the team and another role
	if err := (batch.Columns{Query: "query_id", Score: "score", Label: "label", Extra: []string{"team"}, Texts: []batch.Named{teamCol}}).Check(); err == nil ||
		!strings.Contains(err.Error(), `column "team" is named for two roles: a slice column and the team column`) {
		t.Errorf("Check: %v", err)
	}
}
