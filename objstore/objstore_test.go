package objstore_test

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/internal/objtest"
	"github.com/rankeval/rankeval/objstore"
)

// TestExpand: prefixes and globs expand as local directories do, for
// every store that lists (a web server lists nothing: TestWebURLs).
func TestExpand(t *testing.T) {
	for _, scheme := range objtest.Listing {
		t.Run(scheme, func(t *testing.T) { testExpand(t, scheme) })
	}
}

func testExpand(t *testing.T, scheme string) {
	s := objtest.Start(t, scheme)
	for _, k := range []string{
		"logs/dt=1/part-0.jsonl", "logs/dt=1/part-1.jsonl", "logs/dt=1/_SUCCESS",
		"logs/dt=2/part-0.jsonl", "logs/.hidden/x.jsonl", "logs/_temporary/y.jsonl",
		"logs/a.txt", "logs/a/b.jsonl", "single.jsonl", "other/x.jsonl",
	} {
		s.Put(t, k, []byte(k))
	}
	u := s.Object
	tests := []struct {
		arg  string
		want []string
		err  error
	}{
		{arg: u("single.jsonl"), want: []string{u("single.jsonl")}},
		// a prefix walks like a directory: a/ before a.txt, hidden skipped
		{arg: u("logs"), want: []string{u("logs/a/b.jsonl"), u("logs/a.txt"),
			u("logs/dt=1/part-0.jsonl"), u("logs/dt=1/part-1.jsonl"), u("logs/dt=2/part-0.jsonl")}},
		{arg: u("logs/dt=1/"), want: []string{u("logs/dt=1/part-0.jsonl"), u("logs/dt=1/part-1.jsonl")}},
		{arg: u("logs/dt=*/part-0.jsonl"), want: []string{u("logs/dt=1/part-0.jsonl"), u("logs/dt=2/part-0.jsonl")}},
		{arg: u("logs/dt=*"), want: []string{u("logs/dt=1/part-0.jsonl"), u("logs/dt=1/part-1.jsonl"), u("logs/dt=2/part-0.jsonl")}},
		{arg: u("logs/_*/*.jsonl"), want: []string{u("logs/_temporary/y.jsonl")}},
		{arg: u("nothing"), err: objstore.ErrNoInput},
		{arg: u("logs/zz*"), err: objstore.ErrNoInput},
		{arg: scheme + ":///nobucket", err: objstore.ErrURL},
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

// TestObjectReads: ranged reads fetch only their range, a stream reads
// the whole object, a missing object is ErrNotFound; for every scheme.
func TestObjectReads(t *testing.T) {
	for _, scheme := range objtest.Schemes {
		t.Run(scheme, func(t *testing.T) { testObjectReads(t, scheme) })
	}
}

func testObjectReads(t *testing.T, scheme string) {
	s := objtest.Start(t, scheme)
	data := make([]byte, 100000)
	for i := range data {
		data[i] = byte(i * 7)
	}
	s.Put(t, "dir/blob.bin", data)
	o, err := objstore.Open(context.Background(), s.Object("dir/blob.bin"))
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
	missing := s.Object("dir/missing")
	if _, err := objstore.Open(context.Background(), missing); !errors.Is(err, objstore.ErrNotFound) || !strings.HasPrefix(err.Error(), missing+": ") {
		t.Fatalf("missing object: err = %v, want ErrNotFound naming it", err)
	}
	s.Put(t, "empty", nil)
	if o, err := objstore.Open(context.Background(), s.Object("empty")); err != nil || o.Size() != 0 {
		t.Fatalf("empty object: %v", err)
	}
}

// TestCredentialsFromEnvironment: the server refuses requests not signed
// with its key, so a read that succeeds used AWS_ACCESS_KEY_ID, and one
// with another key fails with an error that says so.
func TestCredentialsFromEnvironment(t *testing.T) {
	s := objtest.Start(t, "s3")
	s.Put(t, "k", []byte("hello"))
	if _, err := objstore.Open(context.Background(), s.Object("k")); err != nil {
		t.Fatalf("with the right key: %v", err)
	}
	t.Setenv("AWS_ACCESS_KEY_ID", "SOMEONEELSE")
	objstore.Forget()
	_, err := objstore.Open(context.Background(), s.Object("k"))
	if err == nil {
		t.Fatal("a request signed with another key was accepted")
	}
	if !errors.Is(err, objstore.ErrAccess) {
		t.Fatalf("err = %v, want ErrAccess", err)
	}
}

// TestCreate: an object written appears whole when the writer closes, and
// not at all when it is aborted; for every scheme.
func TestCreate(t *testing.T) {
	for _, scheme := range objtest.Schemes {
		t.Run(scheme, func(t *testing.T) {
			s := objtest.Start(t, scheme)
			w, err := objstore.Create(context.Background(), s.Object("out/summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			w.Write([]byte(`{"ok": true}`))
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			o, err := objstore.Open(context.Background(), s.Object("out/summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			p := make([]byte, o.Size())
			if _, err := o.ReadAt(p, 0); err != nil || string(p) != `{"ok": true}` {
				t.Fatalf("read back %q, %v", p, err)
			}
			w, err = objstore.Create(context.Background(), s.Object("out/aborted.json"))
			if err != nil {
				t.Fatal(err)
			}
			w.Write([]byte("half"))
			w.Abort()
			if _, err := objstore.Open(context.Background(), s.Object("out/aborted.json")); !errors.Is(err, objstore.ErrNotFound) {
				t.Fatalf("an aborted object: %v, want ErrNotFound", err)
			}
		})
	}
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
		{in: "az://c/p/q.parquet", scheme: "az", bucket: "c", key: "p/q.parquet"},
		{in: "abfss://c@acct.dfs.core.windows.net/p/q", scheme: "abfss", bucket: "c@acct.dfs.core.windows.net", key: "p/q"},
		{in: "https://h.example:8443/b/k.parquet?X-Amz-Signature=ab%2Fc", scheme: "https", bucket: "h.example:8443", key: "b/k.parquet?X-Amz-Signature=ab%2Fc"},
		{in: "http://b/k", scheme: "http", bucket: "b", key: "k"},
		{in: "s3:///k", err: true},
		{in: "ftp://b/k", err: true},
		{in: "abfss://acct.dfs.core.windows.net/p", err: true},
		{in: "abfss://c@acct.blob.core.windows.net/p", err: true},
		{in: "abfss://c@.dfs.core.windows.net/p", err: true},
		{in: "az://c@acct.blob.core.windows.net/p", scheme: "az", bucket: "c@acct.blob.core.windows.net", key: "p"},
		{in: "az://c@acct.dfs.core.chinacloudapi.cn/p", scheme: "az", bucket: "c@acct.dfs.core.chinacloudapi.cn", key: "p"},
		{in: "az://c@acct/p", err: true},
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
	for _, scheme := range objtest.Listing {
		t.Run(scheme, func(t *testing.T) {
			s := objtest.Start(t, scheme)
			keys := []string{"odd/a%41b.jsonl", "odd/a%2Fb.jsonl", "odd/q?x=1#f.jsonl", "odd/sp ace.jsonl", "odd/aAb.jsonl", "odd/plus+sign.jsonl"}
			for _, k := range keys {
				s.Put(t, k, []byte(k))
			}
			names, err := objstore.Expand(context.Background(), s.Object("odd/"))
			if err != nil || len(names) != len(keys) {
				t.Fatalf("Expand: %q, %v", names, err)
			}
			for _, name := range names {
				o, err := objstore.Open(context.Background(), name)
				if err != nil {
					t.Fatal(err)
				}
				p := make([]byte, o.Size())
				if _, err := o.ReadAt(p, 0); err != nil || s.Object(string(p)) != name {
					t.Fatalf("%s: read %q, %v", name, p, err)
				}
			}
		})
	}
}

// TestGlobCharactersInKeys: an object whose key holds glob characters is
// read as named, as a local file that exists is: never with the other
// objects its name matches as a pattern, nor refused as matching nothing;
// a pattern that names no object is still a glob.
func TestGlobCharactersInKeys(t *testing.T) {
	for _, scheme := range objtest.Listing {
		t.Run(scheme, func(t *testing.T) {
			s := objtest.Start(t, scheme)
			for _, k := range []string{"odd/q?x=1.jsonl", "odd/qax=1.jsonl", "odd/part[1].jsonl", "odd/part1.jsonl", "odd/a*b.jsonl", "odd/aXb.jsonl"} {
				s.Put(t, k, []byte(k))
			}
			for _, tc := range []struct {
				arg  string
				want []string
			}{
				{"odd/q?x=1.jsonl", []string{"odd/q?x=1.jsonl"}},
				{"odd/part[1].jsonl", []string{"odd/part[1].jsonl"}},
				{"odd/a*b.jsonl", []string{"odd/a*b.jsonl"}},
				{"odd/q?x=*.jsonl", []string{"odd/q?x=1.jsonl", "odd/qax=1.jsonl"}},
			} {
				got, err := objstore.Expand(context.Background(), s.Object(tc.arg))
				var want []string
				for _, k := range tc.want {
					want = append(want, s.Object(k))
				}
				if err != nil || !slices.Equal(got, want) {
					t.Errorf("Expand(%s) = %q, %v; want %q", tc.arg, got, err, want)
				}
			}
		})
	}
}
