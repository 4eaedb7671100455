package s3test

import (
	"encoding/xml"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Faulty is an S3 server that misbehaves as told: just enough of
// HeadObject, GetObject and ListObjectsV2 (path-style, unsigned) to show
// what objstore does when a store, a proxy or the network fails in ways
// a real server seldom shows.
type Faulty struct {
	// Objects are the keys and bodies of the one bucket (any name).
	Objects map[string][]byte
	// PageSize is the most keys a listing page holds (default 1000).
	PageSize int
	// Fault is what goes wrong. GETs of sniffSize bytes or less (a
	// reader's look at the first bytes) are spared, so that the read
	// after them meets it.
	Fault Fault

	URL      string
	requests atomic.Int64 // listing requests
}

// Fault is one misbehaviour of Faulty.
type Fault int

const (
	Healthy Fault = iota
	// RepeatToken: every listing page after the first says more follow,
	// with the token it was asked for.
	RepeatToken
	// CycleTokens: the pages' tokens go a, b, a, b...
	CycleTokens
	// Endless: the listing never ends; each page holds new keys.
	Endless
	// EndlessEmpty: the listing never ends; its pages hold no key.
	EndlessEmpty
	// StallBody: a GET sends half its body, then nothing.
	StallBody
	// StallHeaders: a request gets no response at all.
	StallHeaders
	// CutChunked: a GET sends half its body without a Content-Length and
	// ends it cleanly, as a proxy that lost the upstream may.
	CutChunked
	// CutLength: a GET says the full Content-Length, sends half, and
	// drops the connection.
	CutLength
	// Longer: a GET without a Content-Length sends the body twice.
	Longer
)

const sniffSize = 64

// StartFaulty starts f on loopback and points the environment at it, as
// Start does. The server stops when the test ends.
func StartFaulty(t testing.TB, f *Faulty) {
	t.Helper()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.serve(w, r, release)
	}))
	f.URL = srv.URL
	pointAt(t, srv)
	t.Cleanup(func() { close(release) }) // before pointAt's cleanup stops the server
}

// ListRequests is the number of listing requests served.
func (f *Faulty) ListRequests() int64 { return f.requests.Load() }

func (f *Faulty) serve(w http.ResponseWriter, r *http.Request, release chan struct{}) {
	stall := func() {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}
	_, key, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if f.Fault == StallHeaders {
		stall()
		return
	}
	if key == "" && r.URL.Query().Get("list-type") == "2" {
		f.list(w, r)
		return
	}
	data, ok := f.Objects[key]
	if !ok {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Message>no such key</Message><Key>%s</Key></Error>`, key)
		return
	}
	h := w.Header()
	h.Set("Last-Modified", time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC).Format(http.TimeFormat))
	h.Set("ETag", `"0123456789abcdef0123456789abcdef"`)
	if r.Method == http.MethodHead {
		h.Set("Content-Length", strconv.Itoa(len(data)))
		return
	}
	if rg := r.Header.Get("Range"); rg != "" {
		var from, to int
		if _, err := fmt.Sscanf(rg, "bytes=%d-%d", &from, &to); err != nil || from > to || from >= len(data) {
			w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
			return
		}
		to = min(to, len(data)-1)
		h.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", from, to, len(data)))
		data = data[from : to+1]
		h.Set("Content-Length", strconv.Itoa(len(data)))
		w.WriteHeader(http.StatusPartialContent)
	} else if f.Fault != CutChunked && f.Fault != Longer {
		h.Set("Content-Length", strconv.Itoa(len(data)))
	}
	half := data[:len(data)/2]
	fault := f.Fault
	if len(data) <= sniffSize {
		fault = Healthy
	}
	switch fault {
	case StallBody:
		w.Write(half)
		w.(http.Flusher).Flush()
		stall()
	case CutChunked:
		w.Write(half)
	case CutLength:
		w.Write(half)
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler) // drops the connection
	case Longer:
		w.Write(data)
		w.Write(data)
	default:
		w.Write(data)
	}
}

type listResult struct {
	XMLName     xml.Name `xml:"http://s3.amazonaws.com/doc/2006-03-01/ ListBucketResult"`
	Name        string
	Prefix      string
	KeyCount    int
	MaxKeys     int
	IsTruncated bool
	NextToken   string `xml:"NextContinuationToken,omitempty"`
	Contents    []listEntry
}

type listEntry struct {
	Key          string
	LastModified string
	ETag         string
	Size         int
	StorageClass string
}

func (f *Faulty) list(w http.ResponseWriter, r *http.Request) {
	f.requests.Add(1)
	q := r.URL.Query()
	prefix, token := q.Get("prefix"), q.Get("continuation-token")
	size := f.PageSize
	if size <= 0 {
		size = 1000
	}
	if m, err := strconv.Atoi(q.Get("max-keys")); err == nil && m > 0 {
		size = min(size, m)
	}
	var keys []string
	for k := range f.Objects {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	// the page starts after the key the token names
	start, _ := slices.BinarySearch(keys, token)
	if token != "" && start < len(keys) && keys[start] == token {
		start++
	}
	page := keys[start:min(start+size, len(keys))]
	res := listResult{Name: "bucket", Prefix: prefix, MaxKeys: size}
	if len(page) > 0 && start+len(page) < len(keys) {
		res.IsTruncated, res.NextToken = true, page[len(page)-1]
	}
	n := f.requests.Load()
	switch f.Fault {
	case RepeatToken:
		if token != "" {
			res.IsTruncated, res.NextToken = true, token
		} else if res.NextToken == "" {
			res.IsTruncated, res.NextToken = true, "again"
		}
	case CycleTokens:
		res.IsTruncated, res.NextToken = true, []string{"a", "b"}[n%2]
	case Endless:
		page = nil
		for i := range size {
			page = append(page, fmt.Sprintf("%sendless/%09d-%04d.jsonl", prefix, n, i))
		}
		res.IsTruncated, res.NextToken = true, fmt.Sprintf("t%d", n)
	case EndlessEmpty:
		page = nil
		res.IsTruncated, res.NextToken = true, fmt.Sprintf("t%d", n)
	}
	for _, k := range page {
		res.Contents = append(res.Contents, listEntry{Key: k, LastModified: "2026-11-20T00:00:00.000Z",
			ETag: `"0123456789abcdef0123456789abcdef"`, Size: len(f.Objects[k]), StorageClass: "STANDARD"})
	}
	res.KeyCount = len(res.Contents)
	w.Header().Set("Content-Type", "application/xml")
	w.Write([]byte(xml.Header))
	xml.NewEncoder(w).Encode(res)
}
