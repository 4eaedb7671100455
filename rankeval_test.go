package rankeval_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/rankeval/rankeval"
	"github.com/rankeval/rankeval/config"
)

const sample = "testdata/sample.jsonl.zst"

// plainSample is the sample log decompressed.
func plainSample(t *testing.T) []byte {
	t.Helper()
	z, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	d, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	b, err := d.DecodeAll(z, nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestEvaluateSources: the sample log read as a path, as a stream that can
// seek, as one that cannot (a pipe, compressed) gives the bytes the
// command gives (its golden files): the summary, and each query's record
// in order.
func TestEvaluateSources(t *testing.T) {
	plain := plainSample(t)
	z, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	wantText, err := os.ReadFile("testdata/golden/sample.text")
	if err != nil {
		t.Fatal(err)
	}
	wantPQ, err := os.ReadFile("testdata/golden/sample.per-query.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		src  func() rankeval.Source
	}{
		{"path", func() rankeval.Source { return rankeval.File(sample) }},
		{"bytes", func() rankeval.Source { return rankeval.Stream("sample", bytes.NewReader(plain)) }},
		{"pipe of zstd", func() rankeval.Source {
			pr, pw := io.Pipe()
			go func() { pw.CloseWithError(func() error { _, err := pw.Write(z); return err }()) }()
			return rankeval.Stream("sample", pr)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := rankeval.Evaluate(context.Background(), rankeval.DefaultConfig(), tc.src())
			if err != nil {
				t.Fatal(err)
			}
			var text bytes.Buffer
			if err := res.Write(&text, "text"); err != nil {
				t.Fatal(err)
			}
			if text.String() != string(wantText) {
				t.Fatalf("text summary:\n%s\nwant\n%s", text.String(), wantText)
			}

			cfg := rankeval.DefaultConfig()
			cfg.Metrics, cfg.Empty, cfg.Format = "map,ndcg@10,kendall", "zero", "json"
			e, err := rankeval.Prepare(cfg, tc.src())
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			e.PerQuery = &out
			if res, err = e.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			if err := res.Write(&out, cfg.Format); err != nil {
				t.Fatal(err)
			}
			name := sample
			if tc.name != "path" {
				name = "sample"
			}
			want := strings.Replace(string(wantPQ), `"../../testdata/sample.jsonl.zst"`, `"`+name+`"`, 1)
			if out.String() != want {
				t.Fatalf("per-query records and JSON summary differ from the command's (%d bytes, want %d)", out.Len(), len(want))
			}
		})
	}
}

// TestSettingErrors: a setting that cannot be used is a usage error naming
// the setting, found by Prepare before anything is read; what a run did
// not keep is refused by name.
func TestSettingErrors(t *testing.T) {
	for _, tc := range []struct {
		name, setting, msg string
		set                func(c *rankeval.Config)
		sources            []rankeval.Source
	}{
		{"ties", "ties", `--ties "sideways"`, func(c *rankeval.Config) { c.Ties = "sideways" }, nil},
		{"metric", "metrics", `metric "ndgc@10": unknown metric`, func(c *rankeval.Config) { c.Metrics = "ndgc@10" }, nil},
		{"bootstrap", "bootstrap", "--bootstrap 5", func(c *rankeval.Config) { c.Bootstrap = 5 }, nil},
		{"profile not applied", "profile", "--profile trec_eval: its conventions are not set", func(c *rankeval.Config) { c.Profile = "trec_eval" }, nil},
		{"batch size", "batch-size", "--batch-size >= 1", func(c *rankeval.Config) { c.Run.BatchSize = 0 }, nil},
		{"no input", "", "no input", func(c *rankeval.Config) {}, []rankeval.Source{}},
		{"two streams of one name", "", `two streams are named "x"`, func(c *rankeval.Config) {},
			[]rankeval.Source{rankeval.Stream("x", strings.NewReader("")), rankeval.Stream("x", strings.NewReader(""))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := rankeval.DefaultConfig()
			tc.set(&cfg)
			srcs := tc.sources
			if srcs == nil {
				srcs = []rankeval.Source{rankeval.File("no-such-file-is-read")}
			}
			_, err := rankeval.Prepare(cfg, srcs...)
			var se *config.SettingError
			if !errors.Is(err, rankeval.ErrUsage) || !errors.As(err, &se) || se.Setting != tc.setting || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v (setting %q), want a usage error about %q saying %q", err, settingOf(se), tc.setting, tc.msg)
			}
		})
	}
	t.Run("not kept", func(t *testing.T) {
		res, err := rankeval.Evaluate(context.Background(), rankeval.DefaultConfig(), rankeval.File(sample))
		if err != nil {
			t.Fatal(err)
		}
		if err := res.WriteReport(io.Discard); !errors.Is(err, rankeval.ErrNotKept) {
			t.Fatalf("report: %v", err)
		}
		if err := res.WriteState(io.Discard); !errors.Is(err, rankeval.ErrNotKept) {
			t.Fatalf("state: %v", err)
		}
	})
	t.Run("trec run as a stream", func(t *testing.T) {
		cfg := rankeval.DefaultConfig()
		cfg.Sources.Qrels = "testdata/trec_eval/quicktest/qrels.test.zst"
		_, err := rankeval.Evaluate(context.Background(), cfg, rankeval.Stream("run", strings.NewReader("1 Q0 d 1 1 r\n")))
		if !errors.Is(err, rankeval.ErrUsage) || !strings.Contains(err.Error(), "TREC runs (--qrels) are read from files") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("parquet stream without random access", func(t *testing.T) {
		_, err := rankeval.Evaluate(context.Background(), rankeval.DefaultConfig(), rankeval.Stream("p", io.MultiReader(strings.NewReader("PAR1xxxxxxxx"))))
		if err == nil || !strings.Contains(err.Error(), "p: a Parquet or Arrow IPC file must be read with random access") {
			t.Fatalf("err = %v", err)
		}
	})
}

func settingOf(e *config.SettingError) string {
	if e == nil {
		return "<none>"
	}
	return e.Setting
}

// TestSeveralTrecRuns: through the API as on the command line, several
// TREC runs with Sources.Qrels are the systems compared, named by run
// tag, the first the baseline.
func TestSeveralTrecRuns(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cfg := rankeval.DefaultConfig()
	cfg.Metrics = "p@1"
	cfg.Sources.Qrels = write("qrels", "1 0 a 1\n1 0 b 0\n2 0 c 1\n")
	a := write("a.run", "1 Q0 a 1 2 bm25\n1 Q0 b 2 1 bm25\n2 Q0 c 1 1 bm25\n")
	b := write("b.run", "1 Q0 b 1 2 dense\n1 Q0 a 2 1 dense\n2 Q0 c 1 1 dense\n")
	res, err := rankeval.Evaluate(context.Background(), cfg, rankeval.File(a), rankeval.File(b))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Summary().Run.Systems; !slices.Equal(got, []string{"bm25", "dense"}) {
		t.Errorf("systems %q, want [bm25 dense]", got)
	}
	for sys, want := range map[string]float64{"bm25": 1, "dense": 0.5} {
		if m, n, ok := res.Mean("p@1", sys); !ok || n != 2 || m != want {
			t.Errorf("%s: p@1 %v over %d queries (%v), want %v over 2", sys, m, n, ok, want)
		}
	}
}
