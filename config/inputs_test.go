package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckDistinctInputs(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	os.WriteFile(a, []byte("same bytes\n"), 0o644)
	os.WriteFile(b, []byte("same bytes\n"), 0o644) // a look-alike: another file
	hard := filepath.Join(t.TempDir(), "hard.jsonl")
	if err := os.Link(a, hard); err != nil {
		t.Skip("no hard links here:", err)
	}
	for _, tc := range []struct {
		name  string
		names []string
		msg   string // "" when distinct
	}{
		{"two files of equal bytes", []string{a, b}, ""},
		{"one file twice", []string{a, b, a}, `"` + a + `" and "` + a + `" are one file`},
		{"another spelling", []string{a, filepath.Join(dir, ".", "a.jsonl")}, "are one file"},
		{"a hard link", []string{hard, a}, "are one file"},
		{"- twice", []string{"-", a, "-"}, `input "-" is given twice`},
		{"one URL twice", []string{"s3://b/k", "s3://b/k"}, `input "s3://b/k" is given twice`},
		{"missing files", []string{filepath.Join(dir, "none"), filepath.Join(dir, "none")}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckDistinctInputs("input", tc.names)
			if tc.msg == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v, want a usage error saying %q", err, tc.msg)
			}
		})
	}
}

// BenchmarkCheckDistinctInputs: a lake export of 20,000 part files.
func BenchmarkCheckDistinctInputs(b *testing.B) {
	dir := b.TempDir()
	var names []string
	for i := range 20_000 {
		p := filepath.Join(dir, fmt.Sprintf("part-%05d.parquet", i))
		if err := os.WriteFile(p, []byte(fmt.Sprint(i)), 0o644); err != nil {
			b.Fatal(err)
		}
		names = append(names, p)
	}
	b.ResetTimer()
	for b.Loop() {
		if err := CheckDistinctInputs("input", names); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(names))*float64(b.N)/b.Elapsed().Seconds(), "files/s")
}
