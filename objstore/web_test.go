package objstore_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rankeval/rankeval/internal/objtest"
	"github.com/rankeval/rankeval/objstore"
)

// TestWebURLs: an https:// URL is one object, its query (a presigned
// URL's signature) sent as given and never taken for a glob; ranged reads
// go through a standard library file server over TLS; a server that
// ignores ranges serves streams but refuses ranged reads by name.
func TestWebURLs(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 1000)
	var queries []string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		queries = append(queries, r.URL.RawQuery)
		if r.URL.Path != "/b/log.parquet" || r.URL.Query().Get("X-Amz-Signature") != "a/b+c" {
			http.Error(w, "signature does not match", http.StatusForbidden)
			return
		}
		http.ServeContent(w, r, "log.parquet", time.Time{}, bytes.NewReader(data))
	}))
	defer srv.Close()
	objstore.SetWebTransport(t, srv.Client().Transport)
	name := srv.URL + "/b/log.parquet?X-Amz-Signature=a%2Fb%2Bc&X-Amz-Expires=*"
	got, err := objstore.Expand(context.Background(), name)
	if err != nil || len(got) != 1 || got[0] != name {
		t.Fatalf("Expand: %q, %v", got, err)
	}
	o, err := objstore.Open(context.Background(), name)
	if err != nil || o.Size() != int64(len(data)) {
		t.Fatalf("Open: %v", err)
	}
	p := make([]byte, 25)
	if n, err := o.ReadAt(p, 4995); n != 25 || err != nil || string(p) != string(data[4995:5020]) {
		t.Fatalf("ReadAt: %d %v %q", n, err, p)
	}
	for _, q := range queries {
		if q != "X-Amz-Signature=a%2Fb%2Bc&X-Amz-Expires=*" {
			t.Fatalf("the query was sent as %q", q)
		}
	}
	_, err = objstore.Open(context.Background(), srv.URL+"/b/log.parquet?X-Amz-Signature=wrong")
	if !errors.Is(err, objstore.ErrAccess) || !strings.Contains(err.Error(), "signature does not match") {
		t.Fatalf("a wrong signature: %v", err)
	}
}

// TestWithoutRanges: a server, proxy or cache that ignores Range and sends
// the whole object serves streams, and reads from byte 0, but a read from
// further on is refused by name rather than given the object's first
// bytes; for every scheme.
func TestWithoutRanges(t *testing.T) {
	for _, scheme := range objtest.Schemes {
		t.Run(scheme, func(t *testing.T) { testWithoutRanges(t, scheme) })
	}
}

func testWithoutRanges(t *testing.T, scheme string) {
	f := &objtest.Fake{Scheme: scheme, Objects: map[string][]byte{"log.parquet": bytes.Repeat([]byte("x"), 5000)}, Fault: objtest.NoRanges}
	objtest.StartFake(t, f)
	o, err := objstore.Open(context.Background(), f.Object("log.parquet"))
	if err != nil || o.Size() != 5000 {
		t.Fatalf("Open: %v", err)
	}
	r, err := o.Stream()
	if err != nil {
		t.Fatal(err)
	}
	all, err := io.ReadAll(r)
	if err != nil || len(all) != 5000 {
		t.Fatalf("stream: %d bytes, %v", len(all), err)
	}
	if n, err := o.ReadAt(make([]byte, 10), 0); n != 10 || err != nil {
		t.Fatalf("ReadAt from 0: %d, %v", n, err)
	}
	_, err = o.ReadAt(make([]byte, 10), 100)
	if !errors.Is(err, objstore.ErrRanges) || !strings.HasPrefix(err.Error(), f.Object("log.parquet")+": ") {
		t.Fatalf("ReadAt from 100: %v, want ErrRanges naming the URL", err)
	}
}

// TestUploadRedirect: an upload URL that redirects (a presigned URL
// handing over to storage) gets the whole body at its new place, and a
// PUT answered with a status that is not success (a redirect that cannot
// be followed) is an error, never an upload reported done that stored
// nothing.
func TestUploadRedirect(t *testing.T) {
	stored := map[string][]byte{}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/up":
			http.Redirect(w, r, "/real", http.StatusTemporaryRedirect)
		case "/choices":
			w.WriteHeader(http.StatusMultipleChoices)
		case "/real":
			b, _ := io.ReadAll(r.Body)
			stored[r.URL.Path] = b
			w.WriteHeader(http.StatusCreated)
		}
	}))
	defer srv.Close()
	objstore.SetWebTransport(t, srv.Client().Transport)
	data := bytes.Repeat([]byte("summary\n"), 1000)
	w, err := objstore.Create(context.Background(), srv.URL+"/up")
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	if err := w.Close(); err != nil || !bytes.Equal(stored["/real"], data) {
		t.Fatalf("redirected upload: %v; stored %d of %d bytes", err, len(stored["/real"]), len(data))
	}
	w, err = objstore.Create(context.Background(), srv.URL+"/choices")
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	if err := w.Close(); err == nil {
		t.Fatal("an upload answered 300 Multiple Choices: no error")
	}
}

// TestUploadSASURL: an https:// output that is an Azure SAS URL is written
// with the header Azure requires of a PUT, as a presigned S3 URL is.
func TestUploadSASURL(t *testing.T) {
	var stored []byte
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("x-ms-blob-type") != "BlockBlob" {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `<?xml version="1.0" encoding="utf-8"?><Error><Code>MissingRequiredHeader</Code><Message>An HTTP header that's mandatory for this request is not specified.</Message></Error>`)
			return
		}
		stored, _ = io.ReadAll(r.Body)
		w.WriteHeader(http.StatusCreated)
	}))
	defer srv.Close()
	objstore.SetWebTransport(t, srv.Client().Transport)
	w, err := objstore.Create(context.Background(), srv.URL+"/c/summary.json?sv=2025-11-05&sp=cw&sig=x")
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("{}\n"))
	if err := w.Close(); err != nil || string(stored) != "{}\n" {
		t.Fatalf("Close: %v; stored %q", err, stored)
	}
}

// TestUploadRetry: an upload answered 503 after the server read part of
// its body is sent again whole, from its first byte.
func TestUploadRetry(t *testing.T) {
	var tries int
	var stored []byte
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tries++
		if tries == 1 {
			io.CopyN(io.Discard, r.Body, 3000)
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		stored, _ = io.ReadAll(r.Body)
		w.WriteHeader(http.StatusCreated)
	}))
	defer srv.Close()
	objstore.SetWebTransport(t, srv.Client().Transport)
	data := bytes.Repeat([]byte("0123456789abcdef"), 1<<16)
	w, err := objstore.Create(context.Background(), srv.URL+"/out/per-query.tsv")
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	if err := w.Close(); err != nil || tries != 2 || !bytes.Equal(stored, data) {
		t.Fatalf("Close: %v after %d tries; stored %d of %d bytes (equal: %v)", err, tries, len(stored), len(data), bytes.Equal(stored, data))
	}
}
