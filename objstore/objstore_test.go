package objstore_test

import (
	"context"
	"errors"
	"io"
	"slices"
	"testing"

	"github.com/rankeval/rankeval/internal/s3test"
	"github.com/rankeval/rankeval/objstore"
)

func TestExpand(t *testing.T) {
	s := s3test.Start(t, "lake")
	for _, k := range []string{
		"logs/dt=1/part-0.jsonl", "logs/dt=1/part-1.jsonl", "logs/dt=1/_SUCCESS",
		"logs/dt=2/part-0.jsonl", "logs/.hidden/x.jsonl", "logs/_temporary/y.jsonl",
		"logs/a.txt", "logs/a/b.jsonl", "single.jsonl", "other/x.jsonl",
	} {
		s.Put(t, "lake", k, []byte(k))
	}
	tests := []struct {
		arg  string
		want []string
		err  error
	}{
		{arg: "s3://lake/single.jsonl", want: []string{"s3://lake/single.jsonl"}},
		// a prefix walks like a directory: a/ before a.txt, hidden skipped
		{arg: "s3://lake/logs", want: []string{"s3://lake/logs/a/b.jsonl", "s3://lake/logs/a.txt",
			"s3://lake/logs/dt=1/part-0.jsonl", "s3://lake/logs/dt=1/part-1.jsonl", "s3://lake/logs/dt=2/part-0.jsonl"}},
		{arg: "s3://lake/logs/dt=1/", want: []string{"s3://lake/logs/dt=1/part-0.jsonl", "s3://lake/logs/dt=1/part-1.jsonl"}},
		{arg: "s3://lake/logs/dt=*/part-0.jsonl", want: []string{"s3://lake/logs/dt=1/part-0.jsonl", "s3://lake/logs/dt=2/part-0.jsonl"}},
		{arg: "s3://lake/logs/dt=*", want: []string{"s3://lake/logs/dt=1/part-0.jsonl", "s3://lake/logs/dt=1/part-1.jsonl", "s3://lake/logs/dt=2/part-0.jsonl"}},
		{arg: "s3://lake/logs/_*/*.jsonl", want: []string{"s3://lake/logs/_temporary/y.jsonl"}},
		{arg: "s3://lake/nothing", err: objstore.ErrNoInput},
		{arg: "s3://lake/logs/zz*", err: objstore.ErrNoInput},
		{arg: "s3:///nobucket", err: objstore.ErrURL},
	}
	for _, tc := range tests {
		t.Run(tc.arg, func(t *testing.T) {
			got, err := objstore.Expand(context.Background(), tc.arg)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err = %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestObjectReads(t *testing.T) {
	s := s3test.Start(t, "b")
	data := make([]byte, 100000)
	for i := range data {
		data[i] = byte(i * 7)
	}
	s.Put(t, "b", "dir/blob.bin", data)
	o, err := objstore.Open(context.Background(), "s3://b/dir/blob.bin")
	if err != nil {
		t.Fatal(err)
	}
	if o.Size() != int64(len(data)) {
		t.Fatalf("size %d, want %d", o.Size(), len(data))
	}
	tests := []struct {
		name    string
		off, n  int
		wantN   int
		wantEOF bool
	}{
		{"head", 0, 8, 8, false},
		{"middle", 5000, 1234, 1234, false},
		{"tail exact", len(data) - 10, 10, 10, false},
		{"past the end", len(data) - 10, 20, 10, true},
		{"at the end", len(data), 5, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s.Reset()
			p := make([]byte, tc.n)
			n, err := o.ReadAt(p, int64(tc.off))
			if n != tc.wantN || (err == io.EOF) != tc.wantEOF || (err != nil && err != io.EOF) {
				t.Fatalf("n=%d err=%v, want n=%d eof=%v", n, err, tc.wantN, tc.wantEOF)
			}
			if string(p[:n]) != string(data[tc.off:tc.off+n]) {
				t.Fatal("wrong bytes")
			}
			// a ranged read fetches only its range
			if got, _ := s.Served(); got != int64(tc.wantN) {
				t.Fatalf("server sent %d bytes for a %d-byte read", got, tc.wantN)
			}
		})
	}
	r, err := o.Stream()
	if err != nil {
		t.Fatal(err)
	}
	all, err := io.ReadAll(r)
	r.Close()
	if err != nil || string(all) != string(data) {
		t.Fatalf("stream: %d bytes, err %v", len(all), err)
	}
	if _, err := objstore.Open(context.Background(), "s3://b/dir/missing"); !errors.Is(err, objstore.ErrNotFound) {
		t.Fatalf("missing object: err = %v, want ErrNotFound", err)
	}
}

// TestCredentialsFromEnvironment: the server refuses requests not signed
// with its key, so a read that succeeds used AWS_ACCESS_KEY_ID, and one
// with another key fails with an error that says so.
func TestCredentialsFromEnvironment(t *testing.T) {
	s := s3test.Start(t, "b")
	s.Put(t, "b", "k", []byte("hello"))
	if _, err := objstore.Open(context.Background(), "s3://b/k"); err != nil {
		t.Fatalf("with the right key: %v", err)
	}
	t.Setenv("AWS_ACCESS_KEY_ID", "SOMEONEELSE")
	objstore.Forget()
	_, err := objstore.Open(context.Background(), "s3://b/k")
	if err == nil {
		t.Fatal("a request signed with another key was accepted")
	}
	if !errors.Is(err, objstore.ErrAccess) {
		t.Fatalf("err = %v, want ErrAccess", err)
	}
}

func TestCreate(t *testing.T) {
	s := s3test.Start(t, "out")
	w, err := objstore.Create(context.Background(), "s3://out/summary.json")
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte(`{"ok": true}`))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	o, err := objstore.Open(context.Background(), "s3://out/summary.json")
	if err != nil {
		t.Fatal(err)
	}
	p := make([]byte, o.Size())
	if _, err := o.ReadAt(p, 0); err != nil || string(p) != `{"ok": true}` {
		t.Fatalf("read back %q, %v", p, err)
	}
	_ = s
}

func TestSplit(t *testing.T) {
	tests := []struct {
		in                  string
		scheme, bucket, key string
		err                 bool
	}{
		{in: "s3://b/k", scheme: "s3", bucket: "b", key: "k"},
		{in: "gs://b/dir/", scheme: "gs", bucket: "b", key: "dir/"},
		{in: "s3://b", scheme: "s3", bucket: "b"},
		{in: "s3://b/a%41b", scheme: "s3", bucket: "b", key: "a%41b"}, // not decoded
		{in: "s3://b/q?x=1#f", scheme: "s3", bucket: "b", key: "q?x=1#f"},
		{in: "s3://b/a\x1b[2J\n", scheme: "s3", bucket: "b", key: "a\x1b[2J\n"},
		{in: "s3:///k", err: true},
		{in: "http://b/k", err: true},
		{in: "s3:/b/k", err: true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			s, b, k, err := objstore.Split(tc.in)
			if tc.err {
				if !errors.Is(err, objstore.ErrURL) {
					t.Fatalf("err = %v, want ErrURL", err)
				}
				return
			}
			if err != nil || s != tc.scheme || b != tc.bucket || k != tc.key {
				t.Fatalf("got %q %q %q %v", s, b, k, err)
			}
		})
	}
}

// TestUnusualKeys: every key a listing gives opens again and reads its
// own bytes, whatever characters it holds ('%' is not an escape).
func TestUnusualKeys(t *testing.T) {
	s := s3test.Start(t, "lake")
	keys := []string{"odd/a%41b.jsonl", "odd/a%2Fb.jsonl", "odd/q?x=1#f.jsonl", "odd/sp ace.jsonl", "odd/aAb.jsonl"}
	for _, k := range keys {
		s.Put(t, "lake", k, []byte(k))
	}
	names, err := objstore.Expand(context.Background(), "s3://lake/odd/")
	if err != nil || len(names) != len(keys) {
		t.Fatalf("Expand: %q, %v", names, err)
	}
	for _, name := range names {
		o, err := objstore.Open(context.Background(), name)
		if err != nil {
			t.Fatal(err)
		}
		p := make([]byte, o.Size())
		if _, err := o.ReadAt(p, 0); err != nil || "s3://lake/"+string(p) != name {
			t.Fatalf("%s: read %q, %v", name, p, err)
		}
	}
}
