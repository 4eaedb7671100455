package objstore

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
)

// gcsStore is one Google Cloud Storage bucket, through the JSON API:
// an object's metadata, its media with a Range header, and paged listings.
type gcsStore struct {
	rest
	base   string // https://storage.googleapis.com, or the emulator's
	bucket string
}

// gcsScope lets the credentials read inputs and write outputs.
const gcsScope = "https://www.googleapis.com/auth/devstorage.read_write"

func openGCS(ctx context.Context, bucket string) (store, error) {
	s := &gcsStore{base: "https://storage.googleapis.com", bucket: bucket}
	s.client = &http.Client{Transport: guard{send: http.DefaultTransport.RoundTrip}}
	if host := os.Getenv("STORAGE_EMULATOR_HOST"); host != "" {
		// an emulator takes no credentials, as Google's clients have it
		if !strings.Contains(host, "://") {
			host = "http://" + host
		}
		s.base = strings.TrimSuffix(host, "/")
		return s, nil
	}
	// Tokens are fetched through the guard too, so a stalled metadata
	// server is a stall, not a hang; the credentials outlive ctx, as the
	// store is kept for the run.
	tctx := context.WithValue(context.WithoutCancel(ctx), oauth2.HTTPClient, s.client)
	creds, err := google.FindDefaultCredentials(tctx, gcsScope)
	if err != nil {
		return nil, fmt.Errorf("no Google Cloud credentials (set GOOGLE_APPLICATION_CREDENTIALS or run gcloud auth application-default login): %v", err)
	}
	ts := creds.TokenSource
	s.header = func(r *http.Request) error {
		tok, err := ts.Token()
		if err != nil {
			return fmt.Errorf("Google Cloud credentials: %w", err)
		}
		tok.SetAuthHeader(r)
		return nil
	}
	return s, nil
}

func (s *gcsStore) object(key string) string {
	return s.base + "/storage/v1/b/" + url.PathEscape(s.bucket) + "/o/" + url.PathEscape(key)
}

func (s *gcsStore) stat(ctx context.Context, key string) (version, error) {
	resp, err := s.do(ctx, http.MethodGet, s.object(key)+"?fields=size,generation,contentEncoding", nil, nil, 0)
	if err != nil {
		return version{}, err
	}
	defer resp.Body.Close()
	var meta struct {
		Size            string `json:"size"`
		Generation      string `json:"generation"`
		ContentEncoding string `json:"contentEncoding"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&meta); err != nil {
		return version{}, fmt.Errorf("the object's metadata: %w", err)
	}
	size, err := strconv.ParseInt(meta.Size, 10, 64)
	if err != nil || size < 0 {
		return version{}, fmt.Errorf("the object's metadata gives no size (%q)", meta.Size)
	}
	return version{size: size, tag: meta.Generation, encoding: meta.ContentEncoding}, nil
}

// read asks for the generation stat found (ifGenerationMatch): GCS
// answers 412 once the object is replaced. An object stored gzip-encoded
// (gsutil cp -Z) is asked for with Accept-Encoding: gzip, so that it comes
// as its stored bytes and ranges, not transcoded (decompressed, whole) to
// bytes that are not its size.
func (s *gcsStore) read(ctx context.Context, key string, v version, off, n int64) (io.ReadCloser, error) {
	u := s.object(key) + "?alt=media"
	if v.tag != "" {
		u += "&ifGenerationMatch=" + url.QueryEscape(v.tag)
	}
	var hdr http.Header
	if v.encoding == "gzip" {
		hdr = http.Header{"Accept-Encoding": {"gzip"}}
	}
	return ranged(ctx, s.rest, u, hdr, v, off, n)
}

func (s *gcsStore) list(ctx context.Context, prefix string, add func(string) error) error {
	q := url.Values{"prefix": {prefix}}
	for {
		u := s.base + "/storage/v1/b/" + url.PathEscape(s.bucket) + "/o?" + q.Encode()
		resp, err := s.do(ctx, http.MethodGet, u, nil, nil, 0)
		if err != nil {
			return err
		}
		var page struct {
			Items []struct {
				Name string `json:"name"`
			} `json:"items"`
			NextPageToken string `json:"nextPageToken"`
		}
		err = json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(&page)
		resp.Body.Close()
		if err != nil {
			if f := fault(err); f != nil {
				return f
			}
			return fmt.Errorf("a listing page: %w", err)
		}
		for _, it := range page.Items {
			if err := add(it.Name); err != nil {
				return err
			}
		}
		if page.NextPageToken == "" {
			return nil
		}
		q.Set("pageToken", page.NextPageToken)
	}
}

func (s *gcsStore) put(ctx context.Context, key string, r io.ReaderAt, size int64) error {
	u := s.base + "/upload/storage/v1/b/" + url.PathEscape(s.bucket) + "/o?" +
		url.Values{"uploadType": {"media"}, "name": {key}}.Encode()
	hdr := http.Header{"Content-Type": {"application/octet-stream"}}
	resp, err := s.do(ctx, http.MethodPost, u, hdr, r, size)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}

// ranged GETs url's bytes [off, off+n) (n < 0: the whole object) of the
// version v, with hdr (its conditions), and checks that the server sent
// that range (checkRange). A 412 is the condition failing: the object
// changed. The bytes are the object's as stored (storedBytes).
func ranged(ctx context.Context, c rest, url string, hdr http.Header, v version, off, n int64) (io.ReadCloser, error) {
	h := http.Header{"Accept-Encoding": storedBytes}
	for k, vs := range hdr {
		h[k] = vs
	}
	if n >= 0 {
		h.Set("Range", fmt.Sprintf("bytes=%d-%d", off, off+n-1))
	}
	resp, err := c.do(ctx, http.MethodGet, url, h, nil, 0)
	if se, ok := err.(*statusError); ok && se.status == http.StatusPreconditionFailed {
		return nil, &changedError{}
	}
	if err != nil {
		return nil, err
	}
	cr := resp.Header.Get("Content-Range")
	if n < 0 && resp.StatusCode == http.StatusOK {
		cr = ""
	}
	if err := checkRange(off, n, v, cr, resp.ContentLength); err != nil {
		resp.Body.Close()
		return nil, err
	}
	return resp.Body, nil
}

// checkRange checks that a response to a read of the n bytes from off
// (n < 0: to the end) of the version v is that range: its Content-Range
// starts at off, reaches off+n-1, and gives v's size (another size is
// another object), or, from 0, it is the whole object (of v's size, when
// its length is known: length < 0 is unknown). A server, a proxy or a
// cache that ignores Range sends the whole object, whose first bytes are
// the range asked for only from 0.
func checkRange(off, n int64, v version, contentRange string, length int64) error {
	var from, to, size int64
	if got, _ := fmt.Sscanf(contentRange, "bytes %d-%d/%d", &from, &to, &size); got >= 2 && from == off {
		if got == 3 && size != v.size {
			return &changedError{}
		}
		if n >= 0 && to < off+n-1 {
			return fmt.Errorf("the server answered a read of bytes %d-%d with the range %q", off, off+n-1, contentRange)
		}
		return nil
	}
	if contentRange == "" {
		if off == 0 && length >= 0 && length != v.size {
			return &changedError{}
		}
		if off == 0 {
			return nil
		}
		return fmt.Errorf("the server sent the whole object for a byte range: it serves no ranges, which Parquet and Arrow files need (download the file, or give a server that does): %w", ErrRanges)
	}
	return fmt.Errorf("the server answered a read from byte %d with the range %q", off, contentRange)
}
