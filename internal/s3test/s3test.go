// Package s3test starts an S3-protocol server on loopback for tests: an
// in-process gofakes3, so tests need nothing installed. It counts the bytes
// it serves (to show what ranged reads save), refuses requests not signed
// with the test access key (to show credentials come from the standard
// environment variables), and points those variables at itself.
package s3test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/rankeval/rankeval/objstore"
)

// AccessKey is the access key id requests must be signed with.
const AccessKey = "RANKEVALTESTKEY"

// Server is a running fake S3.
type Server struct {
	URL     string
	backend *s3mem.Backend
	served  atomic.Int64
	gets    atomic.Int64
}

// Start starts a server holding the named (empty) buckets and sets
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION and
// AWS_ENDPOINT_URL for the test, with the shared config files pointed away
// from the user's own. It stops when the test ends.
func Start(t testing.TB, buckets ...string) *Server {
	t.Helper()
	s := &Server{backend: s3mem.New()}
	faker := gofakes3.New(s.backend, gofakes3.WithLogger(gofakes3.DiscardLog()))
	h := faker.Server()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Authorization"), "Credential="+AccessKey+"/") {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusForbidden)
			w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>InvalidAccessKeyId</Code><Message>unknown access key</Message></Error>`))
			return
		}
		if r.Method == http.MethodGet {
			s.gets.Add(1)
			w = &counter{ResponseWriter: w, n: &s.served}
		}
		h.ServeHTTP(w, r)
	}))
	s.URL = srv.URL
	for _, b := range buckets {
		if err := s.backend.CreateBucket(b); err != nil {
			t.Fatal(err)
		}
	}
	pointAt(t, srv)
	return s
}

// pointAt sets the environment for the test so that objstore's S3 client
// talks to srv, and stops srv when the test ends.
func pointAt(t testing.TB, srv *httptest.Server) {
	t.Helper()
	dir := t.TempDir()
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID":           AccessKey,
		"AWS_SECRET_ACCESS_KEY":       "rankeval-test-secret",
		"AWS_SESSION_TOKEN":           "",
		"AWS_PROFILE":                 "",
		"AWS_REGION":                  "us-east-1",
		"AWS_ENDPOINT_URL":            srv.URL,
		"AWS_ENDPOINT_URL_S3":         "",
		"AWS_CONFIG_FILE":             filepath.Join(dir, "config"),
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "credentials"),
		"AWS_EC2_METADATA_DISABLED":   "true",
	} {
		t.Setenv(k, v)
	}
	objstore.Forget()
	t.Cleanup(func() {
		srv.Close()
		objstore.Forget()
	})
}

// Put stores one object.
func (s *Server) Put(t testing.TB, bucket, key string, data []byte) {
	t.Helper()
	if _, err := s.backend.PutObject(bucket, key, map[string]string{}, bytes.NewReader(data), int64(len(data)), nil); err != nil {
		t.Fatal(err)
	}
}

// PutDir stores every file under dir as prefix/relative/path and returns
// their total size.
func (s *Server) PutDir(t testing.TB, bucket, prefix, dir string) int64 {
	t.Helper()
	var total int64
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		s.Put(t, bucket, strings.TrimSuffix(prefix, "/")+"/"+filepath.ToSlash(rel), data)
		total += int64(len(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return total
}

// Served is the number of response body bytes sent for GET requests
// since the last Reset, and the number of those requests.
func (s *Server) Served() (bytes, gets int64) { return s.served.Load(), s.gets.Load() }

// Reset zeroes the counters.
func (s *Server) Reset() { s.served.Store(0); s.gets.Store(0) }

type counter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (c *counter) Write(p []byte) (int, error) {
	n, err := c.ResponseWriter.Write(p)
	c.n.Add(int64(n))
	return n, err
}
