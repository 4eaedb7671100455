package objstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rankeval/rankeval/internal/objtest"
	"github.com/rankeval/rankeval/objstore"
)

// faultyObjects is a small lake: a prefix of parts and one big object.
func faultyObjects() map[string][]byte {
	objs := map[string][]byte{}
	for i := range 5 {
		objs[fmt.Sprintf("logs/part-%d.jsonl", i)] = []byte(fmt.Sprintf("{\"query_id\":\"q%d\"}\n", i))
	}
	var big bytes.Buffer
	for i := range 2000 {
		fmt.Fprintf(&big, "{\"query_id\":\"q%04d\",\"doc_id\":\"d\",\"score\":1,\"label\":0}\n", i)
	}
	objs["big.jsonl"] = big.Bytes()
	return objs
}

// TestListingFaults: a listing that repeats its page token, cycles
// between tokens or never ends is an error naming the argument, after a
// bounded number of requests, instead of a loop for ever or memory
// growing without bound. A healthy listing of many small pages passes.
// For every store that lists.
func TestListingFaults(t *testing.T) {
	for _, scheme := range objtest.Listing {
		t.Run(scheme, func(t *testing.T) { testListingFaults(t, scheme) })
	}
}

func testListingFaults(t *testing.T, scheme string) {
	objstore.SetMaxListed(t, 5000)
	tests := []struct {
		name  string
		fault objtest.Fault
		page  int
		want  string // "" for success
	}{
		{"healthy, small pages", objtest.Healthy, 2, ""},
		{"repeated token", objtest.RepeatToken, 2, "repeated"},
		{"repeated token, one key a page", objtest.RepeatToken, 1, "repeated"},
		{"tokens in a cycle", objtest.CycleTokens, 2, "repeated"},
		{"endless", objtest.Endless, 1000, "passed 5000 objects"},
		{"endless empty pages", objtest.EndlessEmpty, 100, "passed 50 pages (0 objects)"},
		{"prefix ignored", objtest.IgnorePrefix, 2, `gave "big.jsonl", which is not under it`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &objtest.Fake{Scheme: scheme, Objects: faultyObjects(), PageSize: tc.page, Fault: tc.fault}
			objtest.StartFake(t, f)
			for _, arg := range []string{f.Object("logs/"), f.Object("logs/part-*.jsonl")} {
				got, err := expandWithin(t, arg)
				if tc.want == "" {
					if err != nil || len(got) != 5 {
						t.Fatalf("%s: %d objects, err %v", arg, len(got), err)
					}
					continue
				}
				if !errors.Is(err, objstore.ErrListing) || !strings.HasPrefix(err.Error(), arg+": ") || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("%s: err = %v, want ErrListing naming it and saying %q", arg, err, tc.want)
				}
				if strings.Contains(err.Error(), "operation error") || strings.Contains(err.Error(), "RESPONSE") {
					t.Errorf("the SDK's layers show: %v", err)
				}
			}
			if n := f.ListRequests(); n > 2*50+10 {
				t.Fatalf("%d listing requests", n)
			}
		})
	}
}

// expandWithin runs Expand within a minute (today's code loops for ever
// on a repeated token).
func expandWithin(t *testing.T, arg string) ([]string, error) {
	t.Helper()
	return within(t, arg, func(ctx context.Context) ([]string, error) { return objstore.Expand(ctx, arg) })
}

// within runs f, failing the test if it has not returned in a minute: a
// fault that hangs is a failure, not a test that waits for the suite's
// timeout.
func within[T any](t *testing.T, what string, f func(context.Context) (T, error)) (T, error) {
	t.Helper()
	type result struct {
		v   T
		err error
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan result, 1)
	go func() {
		v, err := f(ctx)
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-time.After(time.Minute):
		cancel()
		t.Fatalf("%s: no answer in a minute", what)
		panic("unreachable")
	}
}

// TestEndlessListingMemory: an endless listing holds at most MaxListed
// keys, however long it would run.
func TestEndlessListingMemory(t *testing.T) {
	objstore.SetMaxListed(t, 20000)
	f := &objtest.Fake{Scheme: "s3", Fault: objtest.Endless}
	objtest.StartFake(t, f)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := expandWithin(t, f.Object("x/"))
	runtime.ReadMemStats(&after)
	if !errors.Is(err, objstore.ErrListing) {
		t.Fatalf("err = %v, want ErrListing", err)
	}
	// 20000 keys of 30 bytes, and their page's transient objects
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 64<<20 {
		t.Fatalf("heap grew %d MiB", grew>>20)
	}
}

// TestReadFaults: a GET that stalls is an error after the read timeout,
// naming the object and the flag; a body cut short, with or without a
// Content-Length, or longer than the object, is an error naming the
// object, not fewer rows. Streams and ranged reads alike, for every
// scheme.
func TestReadFaults(t *testing.T) {
	for _, scheme := range objtest.Schemes {
		t.Run(scheme, func(t *testing.T) { testReadFaults(t, scheme) })
	}
}

func testReadFaults(t *testing.T, scheme string) {
	name := (&objtest.Fake{Scheme: scheme}).Object("big.jsonl")
	tests := []struct {
		name  string
		fault objtest.Fault
		want  string
		is    error
	}{
		{"stalled body", objtest.StallBody, name + ": no bytes for 300ms (--read-timeout)", objstore.ErrStalled},
		{"cut short, chunked", objtest.CutChunked, name + ": the object ended after 54000 of its 108000 bytes (cut short in transit?)", objstore.ErrSize},
		{"cut short, with Content-Length", objtest.CutLength, name + ": the object ended after 54000 of its 108000 bytes (cut short in transit?)", objstore.ErrSize},
		{"longer than its size", objtest.Longer, name + ": the object gave more than its 108000 bytes (replaced while read?)", objstore.ErrSize},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &objtest.Fake{Scheme: scheme, Objects: faultyObjects(), Fault: tc.fault}
			objtest.StartFake(t, f)
			name := f.Object("big.jsonl")
			tc.want = strings.Replace(tc.want, (&objtest.Fake{Scheme: scheme}).Object("big.jsonl"), name, 1)
			o, err := objstore.Open(objstore.WithReadTimeout(context.Background(), 300*time.Millisecond), name)
			if err != nil {
				t.Fatal(err)
			}
			if o.Size() != 108000 {
				t.Fatalf("size %d", o.Size())
			}
			start := time.Now()
			data, err := within(t, "stream", func(context.Context) ([]byte, error) {
				r, err := o.Stream()
				if err != nil {
					t.Error(err)
					return nil, nil
				}
				defer r.Close()
				return io.ReadAll(r)
			})
			var pe *fs.PathError
			if !errors.Is(err, tc.is) || !errors.As(err, &pe) {
				t.Fatalf("stream: %d bytes, err %v, want a *fs.PathError wrapping %v", len(data), err, tc.is)
			}
			if got := pe.Path + ": " + pe.Err.Error(); got != tc.want {
				t.Fatalf("stream: %q\nwant %q", got, tc.want)
			}
			if tc.fault == objtest.StallBody && time.Since(start) > 20*time.Second {
				t.Fatalf("the stall was noticed after %v", time.Since(start))
			}
			if tc.fault == objtest.Longer {
				return // a ranged read reads its range and no further
			}
			_, err = within(t, "ReadAt", func(context.Context) (int, error) { return o.ReadAt(make([]byte, 10000), 1000) })
			if !errors.Is(err, tc.is) || !strings.HasPrefix(err.Error(), name+": ") || strings.Contains(err.Error(), "operation error") {
				t.Fatalf("ReadAt: err %v, want %v naming the object alone", err, tc.is)
			}
		})
	}
}

// TestStalledRequest: a request that gets no response at all (listing,
// attributes) fails after the read timeout too, without retries that
// would multiply the wait.
func TestStalledRequest(t *testing.T) {
	for _, scheme := range objtest.Schemes {
		t.Run(scheme, func(t *testing.T) { testStalledRequest(t, scheme) })
	}
}

func testStalledRequest(t *testing.T, scheme string) {
	f := &objtest.Fake{Scheme: scheme, Objects: faultyObjects(), Fault: objtest.StallHeaders}
	objtest.StartFake(t, f)
	args := []string{f.Object("big.jsonl"), f.Object("logs/")}
	if scheme == "https" {
		args = args[:1]
	}
	for _, arg := range args {
		start := time.Now()
		_, err := within(t, arg, func(ctx context.Context) (any, error) {
			ctx = objstore.WithReadTimeout(ctx, 200*time.Millisecond)
			if strings.HasSuffix(arg, "/") {
				return objstore.Expand(ctx, arg)
			}
			return objstore.Open(ctx, arg)
		})
		if !errors.Is(err, objstore.ErrStalled) || err.Error() != arg+": no bytes for 200ms (--read-timeout)" {
			t.Fatalf("%s: err = %v", arg, err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("%s: failed after %v: retried?", arg, d)
		}
	}
	// an upload that gets no answer
	out := f.Object("out/summary.json")
	start := time.Now()
	_, err := within(t, out, func(ctx context.Context) (any, error) {
		w, err := objstore.Create(objstore.WithReadTimeout(ctx, 200*time.Millisecond), out)
		if err != nil {
			return nil, err
		}
		w.Write(bytes.Repeat([]byte("{}\n"), 1000))
		return nil, w.Close()
	})
	if !errors.Is(err, objstore.ErrStalled) || err.Error() != out+": no bytes for 200ms (--read-timeout)" {
		t.Fatalf("upload: err = %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("upload: failed after %v: retried?", d)
	}
}

// TestControlCharactersInKeys: a key may hold control characters (an
// escape sequence, a newline); messages print its URL quoted, so a
// terminal shows it rather than obeys it.
func TestControlCharactersInKeys(t *testing.T) {
	for _, scheme := range objtest.Listing {
		t.Run(scheme, func(t *testing.T) { testControlCharactersInKeys(t, scheme) })
	}
}

func testControlCharactersInKeys(t *testing.T, scheme string) {
	data := faultyObjects()["big.jsonl"]
	f := &objtest.Fake{Scheme: scheme, Objects: map[string][]byte{"logs/a\x1b[2Jb\n.jsonl": data}, Fault: objtest.CutChunked}
	objtest.StartFake(t, f)
	names, err := objstore.Expand(context.Background(), f.Object("logs/"))
	name := f.Object("logs/a\x1b[2Jb\n.jsonl")
	if err != nil || len(names) != 1 || names[0] != name {
		t.Fatalf("Expand: %q, %v", names, err)
	}
	o, err := objstore.Open(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	r, err := o.Stream()
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(r)
	r.Close()
	want := `read "` + scheme + `://lake/logs/a\x1b[2Jb\n.jsonl": the object ended after 54000 of its 108000 bytes (cut short in transit?)`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	_, err = objstore.Open(context.Background(), name+"\x07")
	if !errors.Is(err, objstore.ErrNotFound) || !strings.HasPrefix(err.Error(), `"`+scheme+`://lake/logs/a\x1b[2Jb\n.jsonl\a": `) {
		t.Fatalf("missing: %v", err)
	}
}

// TestShortRanges: a server that answers a ranged read with less of the
// range than asked for (and says so in its Content-Range) is an error
// saying what it sent, for every scheme, not an object "cut short".
func TestShortRanges(t *testing.T) {
	for _, scheme := range objtest.Schemes {
		t.Run(scheme, func(t *testing.T) {
			f := &objtest.Fake{Scheme: scheme, Objects: faultyObjects(), Fault: objtest.ShortRanges}
			objtest.StartFake(t, f)
			name := f.Object("big.jsonl")
			o, err := objstore.Open(context.Background(), name)
			if err != nil {
				t.Fatal(err)
			}
			n, err := o.ReadAt(make([]byte, 10000), 1000)
			want := name + `: the server answered a read of bytes 1000-10999 with the range "bytes 1000-5999/108000"`
			if err == nil || err.Error() != want {
				t.Fatalf("ReadAt: %d bytes, %v\nwant %s", n, err, want)
			}
		})
	}
}

// TestSlowReader: the read timeout counts the store's silence, not the
// reader's pauses: a healthy stream read with pauses longer than the
// timeout (a busy pipeline) reads whole, for every scheme.
func TestSlowReader(t *testing.T) {
	for _, scheme := range objtest.Schemes {
		t.Run(scheme, func(t *testing.T) {
			f := &objtest.Fake{Scheme: scheme, Objects: faultyObjects()}
			objtest.StartFake(t, f)
			ctx := objstore.WithReadTimeout(context.Background(), 100*time.Millisecond)
			o, err := objstore.Open(ctx, f.Object("big.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			r, err := o.Stream()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			time.Sleep(300 * time.Millisecond) // before the first read
			p := make([]byte, 1000)
			var n int
			for {
				m, err := r.Read(p)
				n += m
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("after %d bytes: %v", n, err)
				}
				if n < 3000 {
					time.Sleep(300 * time.Millisecond)
				}
			}
			if n != 108000 {
				t.Fatalf("%d bytes", n)
			}
		})
	}
}
