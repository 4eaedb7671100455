package reader

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/readertest"
)

// formatsSaid checks that msg names the formats the readers know.
func formatsSaid(t *testing.T, msg string) {
	t.Helper()
	for _, s := range []string{"JSON lines", "CSV or TSV with a header row", "gzip", "zstd", "Parquet", "Arrow IPC", "TREC runs with --qrels"} {
		if !strings.Contains(msg, s) {
			t.Errorf("message %q does not name %q", msg, s)
		}
	}
}

// TestOpenUnknownFormat: a file that does not start like any format read
// is ErrFormat naming it, saying how it starts (not the whole line) and
// which formats are read, from Open, compressed or not.
func TestOpenUnknownFormat(t *testing.T) {
	dir := t.TempDir()
	readme := []byte("# About this export\nThe part files hold one day each.\n")
	long := []byte(strings.Repeat("lorem ipsum ", 2000) + "\n")
	cases := []struct {
		name string
		data []byte
		say  []string // besides the file's name
	}{
		{"README.txt", readme, []string{`not a known input format (it starts "# About this export"`}},
		{"notes.md.gz", readertest.GzipBytes(readme), []string{`is gzip-compressed and starts "# About this export"`}},
		{"notes.zst", zstdFrameOf(readme), []string{`is zstd-compressed and starts "# About this export"`}},
		{"blank-first.txt", append([]byte("\n\n  \r\n"), readme...), []string{`starts "# About this export"`}},
		{"prose.txt", []byte("This export, made daily, holds the clicks\n"), []string{`starts "This export, made daily,"...`, "if it is CSV or TSV"}},
		{"long.txt", long, []string{`starts "lorem ipsum lorem ipsum "...`}},
		{"no-newline.txt", []byte("hello"), []string{`starts "hello"`}},
		{"binary.png", []byte("\x89PNG\r\n\x1a\n\x00\x00"), []string{`starts "\x89PNG"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := readertest.WriteFileIn(t, dir, c.name, c.data)
			_, err := Open(p, readertest.TestCols, batch.Options{})
			if !errors.Is(err, batch.ErrFormat) {
				t.Fatalf("err = %v, want ErrFormat", err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, p+": ") {
				t.Errorf("message %q does not start with the file's name", msg)
			}
			for _, s := range c.say {
				if !strings.Contains(msg, s) {
					t.Errorf("message %q does not say %q", msg, s)
				}
			}
			formatsSaid(t, msg)
			if len(msg) > 400 {
				t.Errorf("message of %d bytes: %q", len(msg), msg)
			}
		})
	}
	t.Run("JSON array", func(t *testing.T) {
		p := readertest.WriteFileIn(t, dir, "log.json", []byte(`[{"query_id":"q","score":1,"label":1}]`))
		_, err := Open(p, readertest.TestCols, batch.Options{})
		if !errors.Is(err, batch.ErrFormat) || !strings.HasPrefix(err.Error(), p+": a JSON array, not JSON lines") || !strings.Contains(err.Error(), "one object per line") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("TREC run without qrels", func(t *testing.T) {
		p := readertest.WriteFileIn(t, dir, "run.txt", []byte("q1 Q0 d1 1 0.5 bm25\nq1 Q0 d2 2 0.25 bm25\n"))
		_, err := Open(p, readertest.TestCols, batch.Options{})
		if !errors.Is(err, batch.ErrFormat) || !strings.HasPrefix(err.Error(), p+": looks like a TREC run") || !strings.Contains(err.Error(), "--qrels") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("CSV or TSV", func(t *testing.T) {
		p := readertest.WriteFileIn(t, dir, "mixed.txt", []byte("query_id,doc_id\tscore,label\tx\nq,d\t1,1\t2\n"))
		_, err := Open(p, readertest.TestCols, batch.Options{})
		if !errors.Is(err, batch.ErrFormat) || !strings.Contains(err.Error(), "its first line cannot tell which: name it with --input-format csv or tsv") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("object", func(t *testing.T) {
		_, err := OpenObject("s3://b/README.txt", newMemObject(readme), readertest.TestCols, batch.Options{})
		if !errors.Is(err, batch.ErrFormat) || !strings.HasPrefix(err.Error(), "s3://b/README.txt: not a known input format") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("stdin", func(t *testing.T) {
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer pw.Close()
		old := os.Stdin
		os.Stdin = pr
		defer func() { os.Stdin = old; pr.Close() }()
		// the first line is enough: Open must not wait for the end of the pipe
		pw.Write(readme[:20])
		done := make(chan error, 1)
		go func() {
			_, err := Open(batch.Stdin, readertest.TestCols, batch.Options{})
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, batch.ErrFormat) || !strings.HasPrefix(err.Error(), "<stdin>: not a known input format") {
				t.Fatalf("err = %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Open waits for more than the first line")
		}
	})
	t.Run("JSON lines from a pipe start at once", func(t *testing.T) {
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer pw.Close()
		old := os.Stdin
		os.Stdin = pr
		defer func() { os.Stdin = old; pr.Close() }()
		pw.Write([]byte("\n  {\"query")) // not even a whole line yet
		done := make(chan error, 1)
		go func() {
			r, err := Open(batch.Stdin, readertest.TestCols, batch.Options{})
			if err == nil {
				r.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Open waits for more than the first byte of JSON")
		}
	})
	t.Run("byte order mark", func(t *testing.T) {
		for name, data := range map[string][]byte{
			"bom.jsonl":    []byte("\xef\xbb\xbf{\"query_id\":\"q\",\"doc_id\":\"d\",\"score\":1,\"label\":1}\n"),
			"bom.jsonl.gz": readertest.GzipBytes([]byte("\xef\xbb\xbf\n{\"query_id\":\"q\",\"doc_id\":\"d\",\"score\":1,\"label\":1}\n")),
		} {
			r, err := Open(readertest.WriteFileIn(t, dir, name, data), readertest.TestCols, batch.Options{})
			if err != nil {
				t.Fatal(err)
			}
			rows, err := readertest.ReadAllRows(t, r)
			r.Close()
			if err != nil || len(rows) != 1 || rows[0].Q != "q" {
				t.Fatalf("%s: rows %+v, err %v", name, rows, err)
			}
		}
	})
}

// TestExpandStrayFiles: files of no known format in a directory or glob
// are an error from Expand naming all of them, before anything is read;
// files of every known format, empty ones and TREC runs pass.
func TestExpandStrayFiles(t *testing.T) {
	root := t.TempDir()
	touch(t, root, "lake/dt=2026-11-20/part-00000.jsonl", "lake/dt=2026-11-21/part-00001.jsonl", "lake/_SUCCESS")
	readertest.WriteFileIn(t, filepath.Join(root, "lake"), "README.txt", []byte("About this export\n"))
	readertest.WriteFileIn(t, filepath.Join(root, "lake"), "notes.md", []byte("# Notes\n"))
	readertest.WriteFileIn(t, filepath.Join(root, "lake"), "_ignored.txt", []byte("skipped: hidden\n"))

	good := filepath.Join(root, "good")
	if err := os.MkdirAll(good, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"a.parquet": []byte("PAR1...."), "b.arrow": []byte("ARROW1\x00\x00"), "c.arrows": {0xff, 0xff, 0xff, 0xff, 8, 0, 0, 0},
		"d.gz": readertest.GzipBytes([]byte("anything: Open judges it")), "e.zst": zstdFrameOf([]byte("{}")),
		"f.jsonl": []byte("\n{\"a\":1}\n"), "g.empty": nil, "h.blank": []byte("\n\n"),
		"i.run": []byte("q1 Q0 d1 1 0.5 bm25\n"), "j.bom": []byte("\xef\xbb\xbf{}\n"),
	} {
		readertest.WriteFileIn(t, good, name, data)
	}
	ins, err := Expand([]string{good})
	if err != nil || len(ins) != 10 {
		t.Fatalf("known formats: %d inputs, err %v", len(ins), err)
	}

	p := func(rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }
	for _, c := range []struct {
		name   string
		args   []string
		say    []string
		notSay []string
	}{
		{"directory", []string{p("lake")}, []string{"2 files of no known input format: " + p("lake/README.txt") + ", " + p("lake/notes.md"),
			`(the first starts "About this export")`, "leave them out", "glob"}, []string{"_ignored", "part-0000"}},
		{"glob", []string{p("lake/*")}, []string{"2 files of no known input format", p("lake/README.txt"), p("lake/notes.md")}, nil},
		{"one file in a directory", []string{p("lake/dt=2026-11-20"), p("lake/*.md")}, []string{p("lake/notes.md") + `: not a known input format (it starts "# Notes")`, "leave it out"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Expand(c.args)
			if !errors.Is(err, batch.ErrFormat) {
				t.Fatalf("err = %v, want ErrFormat", err)
			}
			msg := err.Error()
			for _, s := range c.say {
				if !strings.Contains(msg, s) {
					t.Errorf("message %q does not say %q", msg, s)
				}
			}
			for _, s := range c.notSay {
				if strings.Contains(msg, s) {
					t.Errorf("message %q says %q", msg, s)
				}
			}
			formatsSaid(t, msg)
		})
	}
	// A file named as an argument is left to Open, which says what it is
	// (OpenRun, with --qrels, names the line of a run that is wrong).
	t.Run("a file named", func(t *testing.T) {
		ins, err := Expand([]string{p("lake/dt=2026-11-20"), p("lake/notes.md")})
		if err != nil || len(ins) != 2 {
			t.Fatalf("inputs %v, err %v", ins, err)
		}
		_, err = Open(p("lake/notes.md"), readertest.TestCols, batch.Options{})
		if !errors.Is(err, batch.ErrFormat) || !strings.HasPrefix(err.Error(), p("lake/notes.md")+`: not a known input format (it starts "# Notes")`) {
			t.Fatalf("Open: err = %v", err)
		}
	})
}
