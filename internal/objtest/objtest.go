// Package objtest starts object stores on loopback for tests, one per
// scheme objstore reads: S3 (an in-process gofakes3 that refuses requests
// not signed with the test key, to show credentials come from the standard
// environment), GCS (fake-gcs-server), Azure Blob (Azurite) and a web
// server with byte ranges, and points each store's standard environment at
// it. The emulators are programs, not modules of this project: .ci/run
// builds or installs them and names them in RANKEVAL_FAKE_GCS_SERVER and
// RANKEVAL_AZURITE; without them, gs and az are served by Fake, an
// in-memory server of their protocols. Every server counts the object
// bytes it sends (to show what ranged reads save).
package objtest

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/rankeval/rankeval/objstore"
)

// Schemes are the schemes a test runs for, one server each; az only in a
// build with -tags azure, the one in which objstore reads it.
var Schemes = built("s3", "gs", "az", "https")

// Listing are the Schemes of stores that list prefixes (a web server
// does not).
var Listing = built("s3", "gs", "az")

func built(schemes ...string) []string {
	if azureBuilt {
		return schemes
	}
	return slices.DeleteFunc(schemes, func(s string) bool { return s == "az" })
}

// AccessKey is the access key id S3 requests must be signed with.
const AccessKey = "RANKEVALTESTKEY"

// azAccount and azKey are Azurite's well-known development account.
const (
	azAccount = "devstoreaccount1"
	azKey     = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// Server is a running store of one scheme holding one bucket.
type Server struct {
	Scheme string
	// Emulator names the program serving, or "" for an in-process server.
	Emulator string
	bucket   string
	url      string // the server's (or its counting proxy's) base URL
	put      func(key string, data []byte) error
	fake     *Fake // the in-process server, if one serves
	served   atomic.Int64
	gets     atomic.Int64
}

// Start starts a server of scheme holding one empty bucket and sets the
// scheme's standard environment for the test, with the user's own
// configuration files pointed away. It stops when the test ends.
func Start(t testing.TB, scheme string) *Server {
	t.Helper()
	s := &Server{Scheme: scheme, bucket: Bucket}
	switch scheme {
	case "s3":
		s.startS3(t)
	case "gs", "az":
		if !s.startEmulator(t) {
			s.startFake(t)
		}
	case "https":
		s.startFake(t)
	default:
		t.Fatalf("objtest: no server for %q", scheme)
	}
	return s
}

func (s *Server) startS3(t testing.TB) {
	backend := s3mem.New()
	h := gofakes3.New(backend, gofakes3.WithLogger(gofakes3.DiscardLog())).Server()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Authorization"), "Credential="+AccessKey+"/") {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusForbidden)
			w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>InvalidAccessKeyId</Code><Message>unknown access key</Message></Error>`))
			return
		}
		h.ServeHTTP(s.count(w, r), r)
	}))
	t.Cleanup(srv.Close)
	if err := backend.CreateBucket(s.bucket); err != nil {
		t.Fatal(err)
	}
	s.url = srv.URL
	s.put = func(key string, data []byte) error {
		_, err := backend.PutObject(s.bucket, key, map[string]string{}, bytes.NewReader(data), int64(len(data)), nil)
		return err
	}
	pointAt(t, "s3", srv.URL)
}

// startFake serves the scheme from an in-memory Fake.
func (s *Server) startFake(t testing.TB) {
	f := &Fake{Scheme: s.Scheme}
	StartFake(t, f)
	s.url = f.URL
	s.put = func(key string, data []byte) error { f.Put(key, data); return nil }
	s.fake = f
}

// count counts the body bytes of object GETs (not listings, not
// metadata) through w.
func (s *Server) count(w http.ResponseWriter, r *http.Request) http.ResponseWriter {
	q := r.URL.Query()
	if r.Method != http.MethodGet || q.Has("list-type") || q.Get("comp") == "list" ||
		s.Scheme == "gs" && q.Get("alt") != "media" {
		return w
	}
	s.gets.Add(1)
	return &counter{ResponseWriter: w, n: &s.served}
}

// pointAt sets the environment for the test so that objstore's client of
// scheme talks to the server at base.
func pointAt(t testing.TB, scheme, base string) {
	t.Helper()
	dir := t.TempDir()
	env := map[string]string{}
	switch scheme {
	case "s3":
		env = map[string]string{
			"AWS_ACCESS_KEY_ID":           AccessKey,
			"AWS_SECRET_ACCESS_KEY":       "rankeval-test-secret",
			"AWS_SESSION_TOKEN":           "",
			"AWS_PROFILE":                 "",
			"AWS_REGION":                  "us-east-1",
			"AWS_ENDPOINT_URL":            base,
			"AWS_ENDPOINT_URL_S3":         "",
			"AWS_CONFIG_FILE":             filepath.Join(dir, "config"),
			"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "credentials"),
			"AWS_EC2_METADATA_DISABLED":   "true",
		}
	case "gs":
		env["STORAGE_EMULATOR_HOST"] = base
	case "az":
		env["AZURE_STORAGE_CONNECTION_STRING"] = azConnection(base)
		env["AZURE_STORAGE_ACCOUNT"] = ""
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	objstore.Forget()
	t.Cleanup(objstore.Forget)
}

// azConnection is the connection string of the development account at base.
func azConnection(base string) string {
	return fmt.Sprintf("DefaultEndpointsProtocol=http;AccountName=%s;AccountKey=%s;BlobEndpoint=%s/%s;", azAccount, azKey, base, azAccount)
}

// objectURL is the URL objstore reads key of bucket by.
func objectURL(scheme, base, bucket, key string) string {
	if scheme == "https" {
		return base + "/" + bucket + "/" + key
	}
	return scheme + "://" + bucket + "/" + key
}

// Object is the URL of key (or of a prefix or glob) in the server's bucket.
func (s *Server) Object(key string) string { return objectURL(s.Scheme, s.url, s.bucket, key) }

// Put stores one object.
func (s *Server) Put(t testing.TB, key string, data []byte) {
	t.Helper()
	if err := s.put(key, data); err != nil {
		t.Fatal(err)
	}
}

// PutDir stores every file under dir as prefix/relative/path and returns
// their total size.
func (s *Server) PutDir(t testing.TB, prefix, dir string) int64 {
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
		s.Put(t, strings.TrimSuffix(prefix, "/")+"/"+filepath.ToSlash(rel), data)
		total += int64(len(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return total
}

// Served is the number of object body bytes sent for GETs since the last
// Reset, and the number of those requests.
func (s *Server) Served() (bytes, gets int64) {
	if s.fake != nil {
		return s.fake.Served()
	}
	return s.served.Load(), s.gets.Load()
}

// Reset zeroes the counters.
func (s *Server) Reset() {
	if s.fake != nil {
		s.fake.Reset()
	}
	s.served.Store(0)
	s.gets.Store(0)
}

type counter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (c *counter) Write(p []byte) (int, error) {
	n, err := c.ResponseWriter.Write(p)
	c.n.Add(int64(n))
	return n, err
}

func (c *counter) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
