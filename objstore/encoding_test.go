package objstore_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"testing"

	"github.com/rankeval/rankeval/internal/objtest"
	"github.com/rankeval/rankeval/objstore"
)

// TestStoredContentEncoding: an object stored with Content-Encoding: gzip
// (gsutil cp -Z, an upload with that metadata) is read as the bytes it
// holds, whole and in ranges, for every scheme: never decompressed by the
// transport (or transcoded by the store) into bytes that no longer come
// to its size. The readers decompress gzip themselves.
func TestStoredContentEncoding(t *testing.T) {
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write(bytes.Repeat([]byte(`{"query_id":"q1","doc_id":"d1","score":1,"label":1}`+"\n"), 500))
	zw.Close()
	data := zb.Bytes()
	for _, scheme := range objtest.Schemes {
		t.Run(scheme, func(t *testing.T) {
			f := &objtest.Fake{Scheme: scheme, Objects: map[string][]byte{"log.jsonl.gz": data}, Encoding: "gzip"}
			objtest.StartFake(t, f)
			o, err := objstore.Open(context.Background(), f.Object("log.jsonl.gz"))
			if err != nil || o.Size() != int64(len(data)) {
				t.Fatalf("Open: %v", err)
			}
			p := make([]byte, 10)
			if _, err := o.ReadAt(p, 0); err != nil || !bytes.Equal(p, data[:10]) {
				t.Fatalf("ReadAt(0): %q, %v; want %q", p, err, data[:10])
			}
			if _, err := o.ReadAt(p, 20); err != nil || !bytes.Equal(p, data[20:30]) {
				t.Fatalf("ReadAt(20): %q, %v; want %q", p, err, data[20:30])
			}
			r, err := o.Stream()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			all, err := io.ReadAll(r)
			if err != nil || !bytes.Equal(all, data) {
				t.Fatalf("Stream: %d bytes, %v; want the %d stored", len(all), err, len(data))
			}
		})
	}
}
