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

	"github.com/rankeval/rankeval/internal/s3test"
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
func TestListingFaults(t *testing.T) {
	objstore.SetMaxListed(t, 5000)
	tests := []struct {
		name  string
		fault s3test.Fault
		page  int
		want  string // "" for success
	}{
		{"healthy, small pages", s3test.Healthy, 2, ""},
		{"repeated token", s3test.RepeatToken, 2, "repeated"},
		{"repeated token, one key a page", s3test.RepeatToken, 1, "repeated"},
		{"tokens in a cycle", s3test.CycleTokens, 2, "repeated"},
		{"endless", s3test.Endless, 1000, "passed 5000 objects"},
		{"endless empty pages", s3test.EndlessEmpty, 100, "passed 50 pages (0 objects)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &s3test.Faulty{Objects: faultyObjects(), PageSize: tc.page, Fault: tc.fault}
			s3test.StartFaulty(t, f)
			for _, arg := range []string{"s3://lake/logs/", "s3://lake/logs/part-*.jsonl"} {
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
				if strings.Contains(err.Error(), "operation error") {
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
	s3test.StartFaulty(t, &s3test.Faulty{Fault: s3test.Endless})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := expandWithin(t, "s3://lake/x/")
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
// object, not fewer rows. Streams and ranged reads alike.
func TestReadFaults(t *testing.T) {
	const name = "s3://lake/big.jsonl"
	tests := []struct {
		name  string
		fault s3test.Fault
		want  string
		is    error
	}{
		{"stalled body", s3test.StallBody, name + ": no bytes for 300ms (--read-timeout)", objstore.ErrStalled},
		{"cut short, chunked", s3test.CutChunked, name + ": the object ended after 54000 of its 108000 bytes (cut short in transit?)", objstore.ErrSize},
		{"cut short, with Content-Length", s3test.CutLength, name + ": the object ended after 54000 of its 108000 bytes (cut short in transit?)", objstore.ErrSize},
		{"longer than its size", s3test.Longer, name + ": the object gave more than its 108000 bytes (replaced while read?)", objstore.ErrSize},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &s3test.Faulty{Objects: faultyObjects(), Fault: tc.fault}
			s3test.StartFaulty(t, f)
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
			if tc.fault == s3test.StallBody && time.Since(start) > 20*time.Second {
				t.Fatalf("the stall was noticed after %v", time.Since(start))
			}
			if tc.fault == s3test.Longer {
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
	s3test.StartFaulty(t, &s3test.Faulty{Objects: faultyObjects(), Fault: s3test.StallHeaders})
	for _, arg := range []string{"s3://lake/big.jsonl", "s3://lake/logs/"} {
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
}

// TestControlCharactersInKeys: a key may hold control characters (an
// escape sequence, a newline); messages print its URL quoted, so a
// terminal shows it rather than obeys it.
func TestControlCharactersInKeys(t *testing.T) {
	data := faultyObjects()["big.jsonl"]
	// gocloud stores a control character c in a key as __0xNN__
	f := &s3test.Faulty{Objects: map[string][]byte{"logs/a__0x1b__[2Jb__0xa__.jsonl": data}, Fault: s3test.CutChunked}
	s3test.StartFaulty(t, f)
	names, err := objstore.Expand(context.Background(), "s3://lake/logs/")
	const name = "s3://lake/logs/a\x1b[2Jb\n.jsonl"
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
	want := `read "s3://lake/logs/a\x1b[2Jb\n.jsonl": the object ended after 54000 of its 108000 bytes (cut short in transit?)`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	_, err = objstore.Open(context.Background(), name+"\x07")
	if !errors.Is(err, objstore.ErrNotFound) || err.Error() != `"s3://lake/logs/a\x1b[2Jb\n.jsonl\a": no such object` {
		t.Fatalf("missing: %v", err)
	}
}
