package rankeval_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/rankeval/rankeval"
	"github.com/rankeval/rankeval/reader"
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

// TestStreamNotClosed: a Stream of an *os.File is read and left open, as
// Stream promises ("r is not closed"), whatever its format: a Parquet or
// Arrow IPC file was closed with the run.
func TestStreamNotClosed(t *testing.T) {
	dir := t.TempDir()
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "query_id", Type: arrow.BinaryTypes.String},
		{Name: "score", Type: arrow.PrimitiveTypes.Float64},
		{Name: "label", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).AppendValues([]string{"q1", "q1", "q2", "q2"}, nil)
	b.Field(1).(*array.Float64Builder).AppendValues([]float64{0.9, 0.1, 0.2, 0.8}, nil)
	b.Field(2).(*array.Int64Builder).AppendValues([]int64{0, 1, 1, 0}, nil)
	rec := b.NewRecord()
	defer rec.Release()

	write := func(name string, w func(f *os.File) error) string {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := w(f); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
			t.Fatal(err)
		}
		return path
	}
	files := map[string]string{
		"parquet": write("log.parquet", func(f *os.File) error {
			fw, err := pqarrow.NewFileWriter(sc, f, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps())
			if err != nil {
				return err
			}
			if err := fw.Write(rec); err != nil {
				return err
			}
			return fw.Close()
		}),
		"arrow": write("log.arrow", func(f *os.File) error {
			w, err := ipc.NewFileWriter(f, ipc.WithSchema(sc))
			if err != nil {
				return err
			}
			if err := w.Write(rec); err != nil {
				return err
			}
			return w.Close()
		}),
		"jsonl": write("log.jsonl", func(f *os.File) error {
			_, err := f.WriteString(`{"query_id":"q1","score":0.9,"label":0}` + "\n" + `{"query_id":"q1","score":0.1,"label":1}` + "\n" +
				`{"query_id":"q2","score":0.2,"label":1}` + "\n" + `{"query_id":"q2","score":0.8,"label":0}` + "\n")
			return err
		}),
	}
	for _, format := range []string{"parquet", "arrow", "jsonl"} {
		t.Run(format, func(t *testing.T) {
			f, err := os.Open(files[format])
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			cfg := rankeval.DefaultConfig()
			cfg.Metrics = "mrr"
			res, err := rankeval.Evaluate(context.Background(), cfg, rankeval.Stream(format, f))
			if err != nil {
				t.Fatal(err)
			}
			if mean, n, _ := res.Mean("mrr", ""); mean != 0.5 || n != 2 {
				t.Fatalf("mrr %v over %d queries, want 0.5 over 2", mean, n)
			}
			if _, err := f.Stat(); err != nil {
				t.Fatalf("the stream's file after the run: %v", err)
			}
		})
	}
}

// TestStreamMisuse: a Stream or Records without a name or of a nil reader
// is a usage error naming it, from Prepare and Merge, where the run went
// on to mislabel every message (":76: ...") or to panic in a reading
// goroutine, which no caller can recover.
func TestStreamMisuse(t *testing.T) {
	for _, tc := range []struct {
		name, msg string
		src       rankeval.Source
	}{
		{"stream without a name", "a stream has no name", rankeval.Stream("", strings.NewReader("{}\n"))},
		{"records without a name", "a stream has no name", rankeval.Records("", nil)},
		{"nil reader", `"log": the reader is nil`, rankeval.Stream("log", nil)},
		{"nil record reader", `"log": the reader is nil`, rankeval.Records("log", nil)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := rankeval.Prepare(rankeval.DefaultConfig(), tc.src)
			if !errors.Is(err, rankeval.ErrUsage) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("Prepare: %v; want a usage error saying %q", err, tc.msg)
			}
			_, err = rankeval.Merge(context.Background(), rankeval.MergeConfig{}, tc.src)
			if !errors.Is(err, rankeval.ErrUsage) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("Merge: %v; want a usage error saying %q", err, tc.msg)
			}
		})
	}
}

// failingReader gives its bytes, then fails.
type failingReader struct {
	r   *bytes.Reader
	err error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if f.r.Len() == 0 {
		return 0, f.err
	}
	return f.r.Read(p)
}

// TestStreamReadError: a stream whose Read fails midway stops the run with
// its error, named by the stream and line, not as a corrupt compressed
// stream (the log is plain JSONL).
func TestStreamReadError(t *testing.T) {
	plain := plainSample(t)
	fire := errors.New("disk on fire")
	src := &failingReader{r: bytes.NewReader(plain[:len(plain)/2]), err: fire}
	_, err := rankeval.Evaluate(context.Background(), rankeval.DefaultConfig(), rankeval.Stream("bad", src))
	if !errors.Is(err, fire) || errors.Is(err, reader.ErrCompression) || !strings.HasPrefix(err.Error(), "bad:") || strings.Contains(err.Error(), "compressed") {
		t.Fatalf("err = %v, want the stream's error named by the stream and line", err)
	}
}
