package objstore

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// webStore is one web server: an http:// or https:// URL is one object
// (a presigned URL, a public dataset), read with ranged GETs and written
// with one PUT (a presigned upload URL). It lists nothing.
type webStore struct {
	rest
	root string // scheme://host
}

// webTransport is the transport of web stores (tests trust their own
// certificate authority with it).
var webTransport http.RoundTripper = http.DefaultTransport

func openWeb(scheme, host string) store {
	return &webStore{rest: rest{client: &http.Client{Transport: guard{send: webTransport.RoundTrip}}}, root: scheme + "://" + host}
}

func (s *webStore) url(key string) string { return s.root + "/" + key }

// stat asks for the first byte: servers that sign URLs for GET refuse a
// HEAD, and the range's answer gives the size. A strong ETag is the
// version reads ask for (If-Match); a weak one matches no If-Match.
func (s *webStore) stat(ctx context.Context, key string) (version, error) {
	resp, err := s.do(ctx, http.MethodGet, s.url(key), http.Header{"Range": {"bytes=0-0"}}, nil, 0)
	if err != nil {
		if se, ok := err.(*statusError); ok && se.status == http.StatusRequestedRangeNotSatisfiable {
			return version{}, nil // no first byte: an empty object
		}
		return version{}, err
	}
	resp.Body.Close()
	v := version{tag: resp.Header.Get("ETag")}
	if strings.HasPrefix(v.tag, "W/") {
		v.tag = ""
	}
	switch resp.StatusCode {
	case http.StatusPartialContent:
		var from, to int64
		if _, err := fmt.Sscanf(resp.Header.Get("Content-Range"), "bytes %d-%d/%d", &from, &to, &v.size); err == nil && v.size >= 0 {
			return v, nil
		}
		return version{}, fmt.Errorf("the server gives no size (Content-Range %q)", resp.Header.Get("Content-Range"))
	case http.StatusOK:
		if resp.ContentLength >= 0 {
			v.size = resp.ContentLength
			return v, nil
		}
		return version{}, fmt.Errorf("the server gives no size (no Content-Length)")
	}
	return version{}, fmt.Errorf("the server answered %s", resp.Status)
}

func (s *webStore) read(ctx context.Context, key string, v version, off, n int64) (io.ReadCloser, error) {
	var hdr http.Header
	if v.tag != "" {
		hdr = http.Header{"If-Match": {v.tag}}
	}
	return ranged(ctx, s.rest, s.url(key), hdr, v, off, n)
}

func (s *webStore) list(context.Context, string, func(string) error) error {
	return fmt.Errorf("a web server lists nothing: name each object by its URL")
}

// put PUTs the object. x-ms-blob-type is what an Azure SAS URL requires
// of a PUT (other stores ignore a header not theirs), so that a SAS URL
// is written as a presigned S3 or GCS URL is.
func (s *webStore) put(ctx context.Context, key string, r io.ReaderAt, size int64) error {
	hdr := http.Header{"Content-Type": {"application/octet-stream"}, "X-Ms-Blob-Type": {"BlockBlob"}}
	resp, err := s.do(ctx, http.MethodPut, s.url(key), hdr, r, size)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}
