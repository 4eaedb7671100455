package reader

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/jsonl"
)

var testCols = batch.Columns{Query: "query_id", Doc: "doc_id", Score: "score", Label: "label"}

type rowOut struct {
	q, d         string
	score, label float64
	rank         int64
	pos          int64
}

func readAllRows(t testing.TB, r batch.Reader) ([]rowOut, error) {
	t.Helper()
	var out []rowOut
	for r.Next() {
		b := r.Batch()
		for i := 0; i < b.N; i++ {
			ro := rowOut{q: string(b.Query.At(i)), label: b.Label[i], pos: b.Pos[i]}
			if len(b.Doc.Off) > 1 {
				ro.d = string(b.Doc.At(i))
			}
			if len(b.Score) > 0 {
				ro.score = b.Score[i]
			}
			if b.Rank != nil {
				ro.rank = b.Rank[i]
			}
			out = append(out, ro)
		}
	}
	return out, r.Err()
}

func parseString(t testing.TB, s string, cols batch.Columns, bs int) ([]rowOut, error) {
	t.Helper()
	j := jsonl.New("t.jsonl", strings.NewReader(s), io.NopCloser(nil), cols, batch.Options{BatchSize: bs})
	defer j.Close()
	return readAllRows(t, j)
}

func TestJSONLValues(t *testing.T) {
	tests := []struct {
		name string
		in   string
		cols batch.Columns
		want []rowOut
	}{
		{"basic", `{"query_id":"q1","doc_id":"d1","score":0.5,"label":2}` + "\n",
			testCols, []rowOut{{"q1", "d1", 0.5, 2, 0, 1}}},
		{"integer ids, bool labels, spaces, CRLF, blank lines, extra fields",
			"\n { \"label\" : true , \"x\": {\"a\":[1,\"}\"]}, \"query_id\": 17, \"doc_id\": -3, \"score\": -1e-3 }\r\n\n" +
				`{"query_id":17,"doc_id":4,"score":3,"label":false,"y":null}`,
			testCols, []rowOut{{"17", "-3", -0.001, 1, 0, 2}, {"17", "4", 3, 0, 0, 4}}},
		{"escapes", `{"query_id":"a\"b\\c\u00e9\ud83d\ude00","doc_id":"\n","score":1,"label":0.25}`,
			testCols, []rowOut{{"a\"b\\cé😀", "\n", 1, 0.25, 0, 1}}},
		{"escaped key matches", `{"query\u005fid":"q","doc_id":"d","score":1,"label":1}`,
			testCols, []rowOut{{"q", "d", 1, 1, 0, 1}}},
		{"rank instead of score", `{"qid":"q","rank":3,"rel":1}`,
			batch.Columns{Query: "qid", Rank: "rank", Label: "rel"}, []rowOut{{"q", "", 0, 1, 3, 1}}},
		{"a key not read may repeat", `{"query_id":"q","x":1,"score":2,"x":[],"label":1}`,
			batch.Columns{Query: "query_id", Score: "score", Label: "label"}, []rowOut{{"q", "", 2, 1, 0, 1}}},
		{"out of range reaches validation as Inf", `{"query_id":"q","score":-1e999,"label":1}`,
			batch.Columns{Query: "query_id", Score: "score", Label: "label"}, []rowOut{{"q", "", math.Inf(-1), 1, 0, 1}}},
		{"every JSON number form, literal and escape", "{\"query_id\":-0,\"score\":-0.5E+2,\"label\":1e0,\"a\":[0,-0.0,1E-2,2e+0,true,false,null,{}]," +
			"\"t\":\"\\ud800\\udc00 \\ud83d\\ude00\\/\\b\\f\\n\\r\\t caf\u00e9 \U0001F600\",\"e\":{ \"k\" :\t[ ] }}",
			batch.Columns{Query: "query_id", Score: "score", Label: "label"}, []rowOut{{"-0", "", -50, 1, 0, 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, bs := range []int{1, 2, 100} {
				got, err := parseString(t, tc.in, tc.cols, bs)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(tc.want) {
					t.Fatalf("batch %d: got %d rows %+v, want %+v", bs, len(got), got, tc.want)
				}
				for i := range got {
					g, w := got[i], tc.want[i]
					sameScore := g.score == w.score || math.IsNaN(g.score) && math.IsNaN(w.score)
					if g.q != w.q || g.d != w.d || !sameScore || g.label != w.label || g.rank != w.rank || g.pos != w.pos {
						t.Fatalf("batch %d row %d: got %+v, want %+v", bs, i, g, w)
					}
				}
			}
		})
	}
}

func TestJSONLErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want error
		msg  string
	}{
		{"not an object", "[1,2]\n", batch.ErrSyntax, "t.jsonl:1: expected a JSON object"},
		{"truncated object", `{"query_id":"q","score":1,"label":1` + "\n", batch.ErrSyntax, "t.jsonl:1:"},
		{"unterminated string", `{"query_id":"q` + "\n", batch.ErrSyntax, "t.jsonl:1: unterminated string"},
		{"missing score", `{"query_id":"q","label":1}`, batch.ErrColumn, `t.jsonl:1: no "score" field`},
		{"missing label on line 3", "{\"query_id\":\"q\",\"score\":1,\"label\":1}\n\n{\"query_id\":\"q\",\"score\":1}\n", batch.ErrColumn, `t.jsonl:3: no "label" field`},
		{"string score", `{"query_id":"q","score":"0.5","label":1}`, batch.ErrValue, `t.jsonl:1: "score" (the score column) is the string "0.5"; write numbers without quotes, or convert the column: bad value`},
		{"null label", `{"query_id":"q","score":1,"label":null}`, batch.ErrValue, `must be a number or a boolean, found "null`},
		{"float query id", `{"query_id":1.5,"score":1,"label":1}`, batch.ErrValue, "must be a string or an integer"},
		{"object query id", `{"query_id":{},"score":1,"label":1}`, batch.ErrValue, "must be a string or an integer"},
		{"trailing garbage", `{"query_id":"q","score":1,"label":1} x`, batch.ErrSyntax, "after the object"},
		{"bad escape", `{"query_id":"\x","score":1,"label":1}`, batch.ErrSyntax, "bad escape"},
		{"hex float", `{"query_id":"q","score":0x10,"label":1}`, batch.ErrValue, "must be a number"},
	}
	cols := batch.Columns{Query: "query_id", Score: "score", Label: "label"}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseString(t, tc.in, cols, 8)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %q, want it to contain %q", err, tc.msg)
			}
		})
	}
}

func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	return writeFileIn(t, t.TempDir(), name, data)
}

func writeFileIn(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func gzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func zstdBytes(b []byte) []byte {
	var buf bytes.Buffer
	w, _ := zstd.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// TestOpenDetectsCompression checks the format comes from the bytes: every
// file is named .txt.
func TestOpenDetectsCompression(t *testing.T) {
	plain := benchLog(20_000)
	want, err := parseString(t, string(plain), testCols, 4096)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"plain": plain, "gzip": gzipBytes(plain), "zstd": zstdBytes(plain)} {
		t.Run(name, func(t *testing.T) {
			r, err := Open(writeFile(t, "log.txt", data), testCols, batch.Options{BatchSize: 999})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			got, err := readAllRows(t, r)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) || got[len(got)-1] != want[len(want)-1] || got[0] != want[0] {
				t.Fatalf("got %d rows, want %d", len(got), len(want))
			}
		})
	}
}

func TestOpenTruncated(t *testing.T) {
	plain := benchLog(20_000)
	for name, data := range map[string][]byte{"gzip": gzipBytes(plain), "zstd": zstdBytes(plain)} {
		t.Run(name, func(t *testing.T) {
			path := writeFile(t, "log.jsonl", data[:len(data)*2/3])
			r, err := Open(path, testCols, batch.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			rows, err := readAllRows(t, r)
			if !errors.Is(err, batch.ErrCompression) {
				t.Fatalf("err = %v after %d rows, want ErrCompression", err, len(rows))
			}
			if !strings.HasPrefix(err.Error(), path+":") {
				t.Fatalf("message %q does not name the file and line", err)
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	t.Run("missing file", func(t *testing.T) {
		_, err := Open(filepath.Join(t.TempDir(), "nope.jsonl"), testCols, batch.Options{})
		if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "nope.jsonl") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("directory", func(t *testing.T) {
		_, err := Open(t.TempDir(), testCols, batch.Options{})
		if !errors.Is(err, batch.ErrFormat) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("no score and no rank", func(t *testing.T) {
		_, err := Open("x", batch.Columns{Query: "q", Label: "l"}, batch.Options{})
		if !errors.Is(err, batch.ErrColumn) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("empty file has no rows", func(t *testing.T) {
		r, err := Open(writeFile(t, "e.jsonl", nil), testCols, batch.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if rows, err := readAllRows(t, r); err != nil || len(rows) != 0 {
			t.Fatalf("rows %d err %v", len(rows), err)
		}
	})
	t.Run("blank lines only have no rows", func(t *testing.T) {
		r, err := Open(writeFile(t, "e.jsonl", []byte("\n \n")), testCols, batch.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if rows, err := readAllRows(t, r); err != nil || len(rows) != 0 {
			t.Fatalf("rows %d err %v", len(rows), err)
		}
	})
}

func TestJSONLLongLine(t *testing.T) {
	long := `{"query_id":"q","pad":"` + strings.Repeat("x", 3<<20) + `","score":1,"label":1}` + "\n"
	got, err := parseString(t, long+long, batch.Columns{Query: "query_id", Score: "score", Label: "label"}, 10)
	if err != nil || len(got) != 2 {
		t.Fatalf("rows %d err %v", len(got), err)
	}
}

// FuzzJSONL feeds arbitrary bytes through the reader: it must never panic,
// and every row it accepts must carry the configured fields.
func FuzzJSONL(f *testing.F) {
	f.Add([]byte(`{"query_id":"q1","doc_id":"d1","score":0.5,"label":2}` + "\n"))
	f.Add([]byte(`{"query_id":17,"doc_id":"\u00e9","score":-1e300,"label":true,"x":[{"y":"}"}]}`))
	f.Add([]byte("{}\n\n{\"query_id\":\"\\ud800\",\"score\":NaN,\"label\":1}"))
	// a byte order mark; numbers and booleans as strings; ranks as floats,
	// 0-based, fractional, huge; lines lacking fields, whose keys a message
	// lists
	f.Add([]byte("\xef\xbb\xbf{\"query_id\":\"q\",\"doc_id\":\"d\",\"score\":1,\"label\":1,\"rank\":0,\"m\":\"x\",\"s2\":1}\n"))
	f.Add([]byte(`{"query_id":"q","score":" 0.5 ","label":"true","rank":"3","s2":"\u0031"}`))
	f.Add([]byte(`{"query_id":"q","label":1,"rank":1.0,"m":1,"s2":2}` + "\n" + `{"query_id":"q","label":1,"rank":2e0,"m":true,"s2":2}` + "\n" + `{"query_id":"q","label":1,"rank":1.5}`))
	f.Add([]byte(`{"query_id":"q","label":1,"rank":1e300,"m":"x","s2":0}` + "\n" + `{"query_id":"q","label":1,"rank":-0.0,"m":"x","s2":0}`))
	f.Add([]byte(`{"a\u00e9":{"in":[1,{"x":"}"}]},"b":[],"a\u00e9":3,"c":"x"}`))
	f.Add([]byte(`{"query_id":"q","score":"","label":"relevant"}`))
	rankCols := batch.Columns{Query: "query_id", Rank: "rank", Label: "label", Extra: []string{"m"}, ExtraScore: []string{"s2"}}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, cols := range []batch.Columns{testCols, rankCols} {
			for _, bs := range []int{1, 3} {
				j := jsonl.New("fuzz", bytes.NewReader(data), io.NopCloser(nil), cols, batch.Options{BatchSize: bs})
				for j.Next() {
					b := j.Batch()
					if len(b.Label) != b.N || len(b.Pos) != b.N || len(b.Query.Off) != b.N+1 || len(b.Doc.Off) != b.N+1 && cols.Doc != "" {
						t.Fatalf("inconsistent batch: %+v", b)
					}
					if cols.Score != "" && len(b.Score) != b.N || cols.Rank != "" && len(b.Rank) != b.N {
						t.Fatalf("inconsistent batch: %+v", b)
					}
					if len(b.Extra) != len(cols.Extra) || len(b.ExtraScore) != len(cols.ExtraScore) {
						t.Fatalf("inconsistent batch: %+v", b)
					}
				}
				if err := j.Err(); err != nil && !strings.HasPrefix(err.Error(), "fuzz:") {
					t.Fatalf("error without position: %v", err)
				}
			}
		}
	})
}

// FuzzDetect opens arbitrary bytes as a file: magic-byte detection and the
// decompressors must fail cleanly, never panic.
func FuzzDetect(f *testing.F) {
	f.Add([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0})
	f.Add(zstdBytes([]byte(`{"query_id":"q","doc_id":"d","score":1,"label":1}`)))
	f.Add(gzipBytes([]byte(`{"query_id":"q","doc_id":"d","score":1,"label":1}`)))
	// inputs with no rows, and text of no format read (which Expand's
	// check and Open must agree on)
	f.Add([]byte{})
	f.Add(gzipBytes(nil))
	f.Add(zstdFrameOf(nil))
	f.Add([]byte("\n \r\n"))
	f.Add([]byte("# README\nabout the data\n"))
	f.Add(gzipBytes([]byte("# README\n")))
	f.Add([]byte("\n\n[{\"query_id\":\"q\"}]"))
	f.Add([]byte("q1 Q0 d1 1 0.5 run\n"))
	f.Add([]byte("\xef\xbb\xbf{\"query_id\":\"q\",\"doc_id\":\"d\",\"score\":1,\"label\":1}"))
	f.Add([]byte("\xef\xbb\xbfq,d,s\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "in")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		stray, serr := sniffFile(p)
		if serr != nil {
			t.Fatal(serr)
		}
		r, err := Open(p, testCols, batch.Options{BatchSize: 2})
		if stray != nil && !errors.Is(err, batch.ErrFormat) {
			t.Fatalf("Expand finds no known format in a directory, Open says %v", err)
		}
		if err != nil {
			if !strings.Contains(err.Error(), p) {
				t.Fatalf("error without file name: %v", err)
			}
			return
		}
		defer r.Close()
		for r.Next() {
		}
		if err := r.Err(); err != nil && !strings.Contains(err.Error(), p) {
			t.Fatalf("error without file name: %v", err)
		}
	})
}
