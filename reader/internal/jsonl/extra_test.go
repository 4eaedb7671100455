package jsonl_test

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/jsonl"
	"github.com/rankeval/rankeval/reader/internal/readertest"
)

// TestJSONLExtraColumns checks slice columns come back as text and extra
// score columns as numbers, batch after batch.
func TestJSONLExtraColumns(t *testing.T) {
	cols := batch.Columns{Query: "q", Score: "s", Label: "l", Extra: []string{"market", "dev"}, ExtraScore: []string{"s2"}}
	in := `{"q":"a","s":1,"l":0,"market":"de\u00e9","dev":3,"s2":0.25}` + "\n" +
		`{"dev":true,"market":"x\"y","s2":-1e-3,"q":"a","s":2,"l":1,"other":[1]}` + "\n" +
		`{"q":"b","s":1,"l":0,"market":"fr","dev":-1.5e3,"s2":7}` + "\n"
	type out struct {
		market, dev string
		s2          float64
	}
	want := []out{{"deé", "3", 0.25}, {`x"y`, "true", -0.001}, {"fr", "-1.5e3", 7}}
	for _, bs := range []int{1, 2, 10} {
		j := jsonl.New("t.jsonl", strings.NewReader(in), io.NopCloser(nil), cols, batch.Options{BatchSize: bs})
		var got []out
		for j.Next() {
			b := j.Batch()
			if len(b.Extra) != 2 || len(b.ExtraScore) != 1 {
				t.Fatalf("batch has %d extra and %d extra score columns", len(b.Extra), len(b.ExtraScore))
			}
			for i := 0; i < b.N; i++ {
				got = append(got, out{string(b.Extra[0].At(i)), string(b.Extra[1].At(i)), b.ExtraScore[0][i]})
			}
		}
		if err := j.Err(); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("batch %d: %d rows, want %d", bs, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("batch %d row %d: got %+v, want %+v", bs, i, got[i], want[i])
			}
		}
	}
}

func TestJSONLExtraErrors(t *testing.T) {
	cols := batch.Columns{Query: "q", Score: "s", Label: "l", Extra: []string{"market"}, ExtraScore: []string{"s2"}}
	tests := []struct {
		name, in string
		want     error
		msg      string
	}{
		{"null slice value", `{"q":"a","s":1,"l":0,"market":null,"s2":1}`, batch.ErrValue, `t.jsonl:1: "market" (a slice column) is null`},
		{"object slice value", `{"q":"a","s":1,"l":0,"market":{"a":1},"s2":1}`, batch.ErrValue, `"market" (a slice column) must be a string, number or boolean`},
		{"bare word slice value", `{"q":"a","s":1,"l":0,"market":de,"s2":1}`, batch.ErrValue, `must be a string, number or boolean`},
		{"missing slice column", "\n" + `{"q":"a","s":1,"l":0,"s2":1}`, batch.ErrColumn, `t.jsonl:2: no "market" field (a slice column)`},
		{"missing extra score", `{"q":"a","s":1,"l":0,"market":"x"}`, batch.ErrColumn, `no "s2" field (a score column)`},
		{"string extra score", `{"q":"a","s":1,"l":0,"market":"x","s2":"1"}`, batch.ErrValue, `t.jsonl:1: "s2" (a score column) is the string "1"; write numbers without quotes, or convert the column: bad value`},
		{"word extra score", `{"q":"a","s":1,"l":0,"market":"x","s2":"high"}`, batch.ErrValue, `t.jsonl:1: "s2" (a score column) must be a number, found the string "high": bad value`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readertest.ParseString(t, tc.in, cols, 8)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v, want %v containing %q", err, tc.want, tc.msg)
			}
		})
	}
	t.Run("column named twice", func(t *testing.T) {
		c := batch.Columns{Query: "q", Score: "s", Label: "l", Extra: []string{"q"}}
		if err := c.Check(); !errors.Is(err, batch.ErrColumn) || !strings.Contains(err.Error(), `"q" is named for two roles`) {
			t.Fatalf("err = %v", err)
		}
	})
}
