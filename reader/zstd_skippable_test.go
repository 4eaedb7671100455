package reader

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/readertest"
)

// TestZstdSkippableFrames: a zstd file that starts with skippable frames
// (seekable-zstd and pzstd write them first) is zstd, as the zstd tool
// has it, on every path that reads compressed input: logs by Open (local
// file, object) and Expand's check of a directory (TestZstdSkippableRun
// checks TREC runs and qrels). What
// follows the frames is the decoder's to judge: garbage or a frame cut
// short is ErrCompression naming the file.
func TestZstdSkippableFrames(t *testing.T) {
	plain := readertest.BenchLog(3000)
	want, err := readertest.ParseString(t, string(plain), readertest.TestCols, 4096)
	if err != nil {
		t.Fatal(err)
	}
	frame := readertest.ZstdBytes(plain)
	meta := []byte(`{"query_id":"not a row","label":9}` + "\n\x1f\x8bPAR1") // payload that looks like data
	cases := []struct {
		name string
		data []byte
		rows int // -1: ErrCompression
	}{
		{"one skippable frame", readertest.Concat(readertest.SkippableFrame(0, meta), frame), len(want)},
		{"empty skippable frame", readertest.Concat(readertest.SkippableFrame(0, nil), frame), len(want)},
		{"highest magic", readertest.Concat(readertest.SkippableFrame(0xf, meta), frame), len(want)},
		{"several", readertest.Concat(readertest.SkippableFrame(3, meta), readertest.SkippableFrame(0xe, nil), readertest.SkippableFrame(7, []byte("x")), frame), len(want)},
		{"between frames too", readertest.Concat(readertest.SkippableFrame(1, meta), readertest.ZstdBytes(plain[:len(plain)/2]), readertest.SkippableFrame(2, meta), readertest.ZstdBytes(plain[len(plain)/2:])), len(want)},
		{"only a skippable frame", readertest.SkippableFrame(0, meta), 0},
		{"garbage after it", readertest.Concat(readertest.SkippableFrame(0, meta), []byte("not zstd at all\n")), -1},
		{"size past the end", readertest.Concat(readertest.SkippableFrame(0, meta), frame)[:20], -1},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := readertest.WriteFileIn(t, dir, strings.ReplaceAll(c.name, " ", "-")+".bin", c.data)
			if c.rows >= 0 {
				text := plain
				if c.rows == 0 {
					text = nil
				}
				zstdToolAgrees(t, p, text)
			}
			check := func(t *testing.T, r batch.Reader, err error) {
				t.Helper()
				var got []readertest.RowOut
				if err == nil { // the decoder may judge what follows the frames at Open or later
					defer r.Close()
					got, err = readertest.ReadAllRows(t, r)
				}
				if c.rows < 0 {
					if !errors.Is(err, batch.ErrCompression) || !strings.HasPrefix(err.Error(), p+":") {
						t.Fatalf("err = %v after %d rows, want ErrCompression naming %s", err, len(got), p)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != c.rows || c.rows > 0 && (got[0] != want[0] || got[len(got)-1] != want[len(want)-1]) {
					t.Fatalf("%d rows, want %d", len(got), c.rows)
				}
			}
			t.Run("file", func(t *testing.T) {
				r, err := Open(p, readertest.TestCols, batch.Options{BatchSize: 777})
				check(t, r, err)
			})
			t.Run("object", func(t *testing.T) {
				r, err := OpenObject(p, newMemObject(c.data), readertest.TestCols, batch.Options{BatchSize: 777})
				check(t, r, err)
			})
			t.Run("directory", func(t *testing.T) {
				sub := t.TempDir()
				readertest.WriteFileIn(t, sub, "part-0", c.data)
				if ins, err := Expand([]string{sub}); err != nil || len(ins) != 1 {
					t.Fatalf("Expand: %d inputs, err %v", len(ins), err)
				}
			})
		})
	}
}

// zstdToolAgrees checks, where the zstd command is installed, that it
// decodes the file p to text, as the reader is expected to.
func zstdToolAgrees(t *testing.T, p string, text []byte) {
	t.Helper()
	if _, err := exec.LookPath("zstd"); err != nil {
		return
	}
	out, err := exec.Command("zstd", "-dcq", p).Output()
	if err != nil {
		t.Fatalf("zstd -dc %s: %v", filepath.Base(p), err)
	}
	if !bytes.Equal(out, text) {
		t.Fatalf("zstd -dc gives %d bytes, want %d", len(out), len(text))
	}
}
