package objtest

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Fake is an in-memory server of one scheme's protocol that misbehaves as
// told: just enough of each store's stat, ranged GET, paged listing and
// upload (S3 path-style, GCS's JSON API, Azure Blob's REST API, a web
// server with ranges) to show what objstore does when a store, a proxy or
// the network fails in ways a real server seldom shows. It checks no
// credentials.
type Fake struct {
	// Scheme is the protocol spoken: s3, gs, az or https (plain HTTP on
	// loopback, the URLs http://).
	Scheme string
	// Objects are the keys and bodies of the one bucket, "lake".
	Objects map[string][]byte
	// Folders are the directories of an ADLS Gen2 account (az only): empty
	// blobs whose metadata says hdi_isfolder=true, listed among the keys.
	Folders []string
	// PageSize is the most keys a listing page holds (default 1000).
	PageSize int
	// Encoding is the Content-Encoding the objects were stored with
	// (gzip: their bytes are gzip, as gsutil cp -Z or an S3 upload with
	// Content-Encoding metadata leave them); GETs declare it, as the
	// stores do, and a GCS GET that does not accept it is transcoded:
	// served decompressed, whole, Range ignored.
	Encoding string
	// Fault is what goes wrong. GETs of sniffSize bytes or less (a
	// reader's look at the first bytes) are spared, so that the read
	// after them meets it.
	Fault Fault

	URL      string
	mu       sync.Mutex
	requests atomic.Int64 // listing requests
	served   atomic.Int64
	gets     atomic.Int64
}

// Fault is one misbehaviour of Fake.
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
	// NoRanges: a server (or a proxy, a cache) that ignores Range and
	// sends every object whole.
	NoRanges
	// IgnoreConditions: a server that honours no If-Match (nor GCS's
	// ifGenerationMatch), as a proxy or an S3-compatible server may.
	IgnoreConditions
	// IgnorePrefix: a listing gives every key of the bucket, whatever
	// prefix it was asked for.
	IgnorePrefix
	// ShortRanges: a ranged GET sends the first half of the range asked
	// for, and says so in its Content-Range.
	ShortRanges
)

const sniffSize = 64

// Bucket is the one bucket (container) of a Fake.
const Bucket = "lake"

// StartFake starts f on loopback and points the environment at it, as
// Start does. The server stops when the test ends.
func StartFake(t testing.TB, f *Fake) {
	t.Helper()
	if f.Objects == nil {
		f.Objects = map[string][]byte{}
	}
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.serve(w, r, release)
	}))
	f.URL = srv.URL
	pointAt(t, f.Scheme, srv.URL)
	t.Cleanup(func() {
		close(release) // before the server stops
		srv.Close()
	})
}

// ListRequests is the number of listing requests served.
func (f *Fake) ListRequests() int64 { return f.requests.Load() }

// Object is the URL of key in the fake's bucket.
func (f *Fake) Object(key string) string { return objectURL(f.Scheme, f.URL, Bucket, key) }

// Put stores one object.
func (f *Fake) Put(key string, data []byte) {
	f.mu.Lock()
	f.Objects[key] = data
	f.mu.Unlock()
}

// route finds what a request asks of the fake: an object's key, or a
// listing (list) with its prefix and page token.
func (f *Fake) route(r *http.Request) (key string, list bool, prefix, token string) {
	q := r.URL.Query()
	p := r.URL.Path
	switch f.Scheme {
	case "s3":
		_, key, _ = strings.Cut(strings.TrimPrefix(p, "/"), "/")
		return key, key == "" && q.Get("list-type") == "2", q.Get("prefix"), q.Get("continuation-token")
	case "gs":
		if rest, ok := strings.CutPrefix(p, "/upload/storage/v1/b/"+Bucket+"/o"); ok && rest == "" {
			return q.Get("name"), false, "", ""
		}
		rest := strings.TrimPrefix(p, "/storage/v1/b/"+Bucket+"/o")
		if rest == "" {
			return "", true, q.Get("prefix"), q.Get("pageToken")
		}
		return strings.TrimPrefix(rest, "/"), false, "", ""
	case "az":
		rest := strings.TrimPrefix(p, "/"+azAccount+"/"+Bucket)
		if rest == "" && q.Get("comp") == "list" {
			return "", true, q.Get("prefix"), q.Get("marker")
		}
		return strings.TrimPrefix(rest, "/"), false, "", ""
	}
	return strings.TrimPrefix(p, "/"+Bucket+"/"), false, "", ""
}

func (f *Fake) serve(w http.ResponseWriter, r *http.Request, release chan struct{}) {
	stall := func() {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}
	if f.Fault == StallHeaders {
		stall()
		return
	}
	key, list, prefix, token := f.route(r)
	if list {
		f.list(w, prefix, token)
		return
	}
	if r.Method == http.MethodPut || r.Method == http.MethodPost {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		f.Put(key, b)
		if f.Scheme == "gs" {
			json.NewEncoder(w).Encode(map[string]string{"name": key, "size": strconv.Itoa(len(b))})
			return
		}
		w.WriteHeader(http.StatusCreated)
		return
	}
	f.mu.Lock()
	data, ok := f.Objects[key]
	f.mu.Unlock()
	if slices.Contains(f.Folders, key) {
		w.Header().Set("x-ms-meta-hdi_isfolder", "true")
		data, ok = nil, true
	}
	if !ok {
		f.notFound(w, key)
		return
	}
	h := w.Header()
	h.Set("Last-Modified", time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC).Format(http.TimeFormat))
	// each version of an object has its own ETag (GCS: generation), and
	// reads conditioned on another are refused, as the stores do
	tag := version(data)
	h.Set("ETag", `"`+tag+`"`)
	if f.Fault != IgnoreConditions && (r.Header.Get("If-Match") != "" && r.Header.Get("If-Match") != `"`+tag+`"` ||
		f.Scheme == "gs" && r.URL.Query().Has("ifGenerationMatch") && r.URL.Query().Get("ifGenerationMatch") != tag) {
		w.WriteHeader(http.StatusPreconditionFailed)
		return
	}
	if f.Scheme == "az" {
		h.Set("x-ms-blob-type", "BlockBlob")
		h.Set("x-ms-version", "2025-11-05")
	}
	if r.Method == http.MethodHead {
		h.Set("Content-Length", strconv.Itoa(len(data)))
		return
	}
	if f.Scheme == "gs" && r.URL.Query().Get("alt") != "media" {
		h.Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"name": key, "bucket": Bucket, "size": strconv.Itoa(len(data)), "generation": tag, "contentEncoding": f.Encoding})
		return
	}
	f.gets.Add(1)
	w = &counter{ResponseWriter: w, n: &f.served}
	if f.Encoding != "" {
		if f.Scheme == "gs" && !strings.Contains(r.Header.Get("Accept-Encoding"), f.Encoding) {
			zr, err := gzip.NewReader(bytes.NewReader(data))
			if err != nil {
				w.WriteHeader(http.StatusInternalServerError)
				return
			}
			plain, _ := io.ReadAll(zr)
			h.Set("Warning", "214 UploadServer gcs-transcoding")
			w.Write(plain)
			return
		}
		h.Set("Content-Encoding", f.Encoding)
	}
	rg := r.Header.Get("x-ms-range")
	if rg == "" {
		rg = r.Header.Get("Range")
	}
	if rg != "" && f.Fault != NoRanges {
		var from, to int
		if _, err := fmt.Sscanf(rg, "bytes=%d-%d", &from, &to); err != nil || from > to || from >= len(data) {
			w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
			return
		}
		to = min(to, len(data)-1)
		if f.Fault == ShortRanges && len(data) > sniffSize {
			to = from + (to-from)/2
		}
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

// version is the tag of an object's content: its ETag, and its GCS
// generation (digits).
func version(data []byte) string {
	h := fnv.New64a()
	h.Write(data)
	return strconv.FormatUint(h.Sum64(), 10)
}

// notFound answers as each store says an object is missing.
func (f *Fake) notFound(w http.ResponseWriter, key string) {
	switch f.Scheme {
	case "s3":
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Message>no such key</Message><Key>%s</Key></Error>`, url.PathEscape(key))
	case "gs":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"error": {"code": 404, "message": "No such object"}}`)
	case "az":
		w.Header().Set("x-ms-error-code", "BlobNotFound")
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `<?xml version="1.0" encoding="utf-8"?><Error><Code>BlobNotFound</Code><Message>The specified blob does not exist.</Message></Error>`)
	default:
		http.NotFound(w, nil)
	}
}

// page is one listing page: its keys and the token of the next, if any.
func (f *Fake) page(prefix, token string) (keys []string, next string) {
	n := f.requests.Add(1)
	size := f.PageSize
	if size <= 0 {
		size = 1000
	}
	var all []string
	f.mu.Lock()
	for k := range f.Objects {
		if strings.HasPrefix(k, prefix) || f.Fault == IgnorePrefix {
			all = append(all, k)
		}
	}
	for _, k := range f.Folders {
		if strings.HasPrefix(k, prefix) {
			all = append(all, k)
		}
	}
	f.mu.Unlock()
	slices.Sort(all)
	// the page starts after the key the token names
	start, _ := slices.BinarySearch(all, token)
	if token != "" && start < len(all) && all[start] == token {
		start++
	}
	keys = all[start:min(start+size, len(all))]
	if len(keys) > 0 && start+len(keys) < len(all) {
		next = keys[len(keys)-1]
	}
	switch f.Fault {
	case RepeatToken:
		if token != "" {
			next = token
		} else if next == "" {
			next = "again"
		}
	case CycleTokens:
		next = []string{"a", "b"}[n%2]
	case Endless:
		keys = nil
		for i := range size {
			keys = append(keys, fmt.Sprintf("%sendless/%09d-%04d.jsonl", prefix, n, i))
		}
		next = fmt.Sprintf("t%d", n)
	case EndlessEmpty:
		keys, next = nil, fmt.Sprintf("t%d", n)
	}
	return keys, next
}

func (f *Fake) list(w http.ResponseWriter, prefix, token string) {
	keys, next := f.page(prefix, token)
	size := func(k string) int {
		f.mu.Lock()
		defer f.mu.Unlock()
		return len(f.Objects[k])
	}
	switch f.Scheme {
	case "gs":
		type item struct {
			Name string `json:"name"`
			Size string `json:"size"`
		}
		res := struct {
			Kind  string `json:"kind"`
			Items []item `json:"items,omitempty"`
			Next  string `json:"nextPageToken,omitempty"`
		}{Kind: "storage#objects", Next: next}
		for _, k := range keys {
			res.Items = append(res.Items, item{k, strconv.Itoa(size(k))})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(res)
	case "az":
		type name struct {
			Encoded string `xml:",attr,omitempty"`
			Text    string `xml:",chardata"`
		}
		type meta struct {
			Folder string `xml:"hdi_isfolder,omitempty"`
		}
		type blob struct {
			Name       name
			Properties struct {
				Length   int    `xml:"Content-Length"`
				BlobType string `xml:"BlobType"`
			}
			Metadata *meta `xml:",omitempty"`
		}
		res := struct {
			XMLName    xml.Name `xml:"EnumerationResults"`
			Prefix     string
			Blobs      []blob `xml:"Blobs>Blob"`
			NextMarker string
		}{Prefix: prefix, NextMarker: next}
		for _, k := range keys {
			// names XML cannot carry come percent-encoded, as Azure sends them
			b := blob{Name: name{Text: k}}
			if strings.ContainsFunc(k, func(r rune) bool { return r < 0x20 && r != '\t' && r != '\n' && r != '\r' }) {
				b.Name = name{Encoded: "true", Text: url.QueryEscape(k)}
			}
			b.Properties.Length, b.Properties.BlobType = size(k), "BlockBlob"
			if slices.Contains(f.Folders, k) {
				b.Metadata = &meta{Folder: "true"}
			}
			res.Blobs = append(res.Blobs, b)
		}
		w.Header().Set("Content-Type", "application/xml")
		w.Write([]byte(xml.Header))
		xml.NewEncoder(w).Encode(res)
	default: // s3
		type entry struct {
			Key          string
			LastModified string
			ETag         string
			Size         int
			StorageClass string
		}
		res := struct {
			XMLName      xml.Name `xml:"http://s3.amazonaws.com/doc/2006-03-01/ ListBucketResult"`
			Name         string
			Prefix       string
			KeyCount     int
			IsTruncated  bool
			EncodingType string
			NextToken    string `xml:"NextContinuationToken,omitempty"`
			Contents     []entry
		}{Name: Bucket, Prefix: url.QueryEscape(prefix), IsTruncated: next != "", EncodingType: "url", NextToken: next}
		for _, k := range keys {
			res.Contents = append(res.Contents, entry{Key: url.QueryEscape(k), LastModified: "2026-11-20T00:00:00.000Z",
				ETag: `"0123456789abcdef0123456789abcdef"`, Size: size(k), StorageClass: "STANDARD"})
		}
		res.KeyCount = len(res.Contents)
		w.Header().Set("Content-Type", "application/xml")
		w.Write([]byte(xml.Header))
		xml.NewEncoder(w).Encode(res)
	}
}

// Served is the number of response body bytes sent for GETs of objects
// since the last Reset, and the number of those requests.
func (f *Fake) Served() (bytes, gets int64) { return f.served.Load(), f.gets.Load() }

// Reset zeroes the counters.
func (f *Fake) Reset() { f.served.Store(0); f.gets.Store(0) }
