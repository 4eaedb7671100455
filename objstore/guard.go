package objstore

// This file bounds what a faulty store, proxy or network can make a run
// do. Every request of every store's client goes through guard, below
// their retries and pagers: a request that receives no byte for the read
// timeout fails (a stalled GET would otherwise hang until a signal), and
// the requests of one listing are counted and their page tokens checked
// (a listing that repeats its token would loop for ever, an endless one
// grow without bound; the SDKs follow tokens in loops of their own,
// which nothing above the transport sees).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// Sentinel errors of a faulty store, matched with errors.Is.
var (
	// ErrStalled: a request received no byte for the read timeout.
	ErrStalled = errors.New("object store stalled")
	// ErrListing: a listing repeated a page token, or passed MaxListed.
	ErrListing = errors.New("object listing does not end")
	// ErrSize: an object's bytes did not come to its size, or the object
	// changed after it was opened.
	ErrSize = errors.New("object read short or long")
)

// DefaultReadTimeout is how long a request may go without receiving or
// sending a byte (evalflags' --read-timeout).
const DefaultReadTimeout = 60 * time.Second

// MaxListed bounds one listing (one s3:// or gs:// prefix or glob): past
// this many objects, or MaxListed/100 pages (stores send up to 1000 keys
// a page), it fails rather than hold an endless listing's keys or follow
// empty pages for ever.
const MaxListed = 1_000_000

var maxListed = MaxListed // tests lower it

// readTimeoutKey is the context key of a read timeout.
type readTimeoutKey struct{}

// WithReadTimeout returns ctx carrying the read timeout d (0 or less:
// DefaultReadTimeout): every request made under it fails when it receives
// no byte (or sends none) for d, naming the object. Open keeps its
// context, so an object's reads keep its timeout.
func WithReadTimeout(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, readTimeoutKey{}, d)
}

// readTimeoutOf is the read timeout ctx carries, or DefaultReadTimeout.
func readTimeoutOf(ctx context.Context) time.Duration {
	if d, ok := ctx.Value(readTimeoutKey{}).(time.Duration); ok && d > 0 {
		return d
	}
	return DefaultReadTimeout
}

// stallError is a request that received no byte for d.
type stallError struct{ d time.Duration }

func (e *stallError) Error() string {
	return fmt.Sprintf("no bytes for %s (--read-timeout)", seconds(e.d))
}
func (e *stallError) Is(target error) bool { return target == ErrStalled }

// RetryableError tells the AWS SDK not to retry: the user set how long to
// wait, and a retry would wait as long again.
func (e *stallError) RetryableError() bool { return false }

// NonRetriable tells the Azure SDK not to retry, for the same reason.
func (e *stallError) NonRetriable() {}

// seconds writes d as people write timeouts: 60s, 1.5s, 250ms.
func seconds(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return d.String()
}

// listError is a listing that will not end.
type listError struct{ msg string }

func (e *listError) Error() string        { return e.msg }
func (e *listError) Is(target error) bool { return target == ErrListing }
func (e *listError) RetryableError() bool { return false }
func (e *listError) NonRetriable()        {}
func listErrorf(f string, a ...any) error { return &listError{fmt.Sprintf(f, a...)} }

// listing counts one listing's pages and objects and remembers the page
// tokens it has read pages of. It travels in the listing's context.
type listing struct {
	mu      sync.Mutex
	objects int
	pages   int
	read    map[string]bool // tokens whose page was read whole
}

type listingKey struct{}

func withListing(ctx context.Context) (context.Context, *listing) {
	l := &listing{read: map[string]bool{}}
	return context.WithValue(ctx, listingKey{}, l), l
}

// add counts an object against MaxListed.
func (l *listing) add() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.objects++; l.objects > maxListed {
		return listErrorf("the listing passed %d objects, the most one prefix or glob may name; name fewer with a narrower prefix or glob, or several", maxListed)
	}
	return nil
}

// pageToken is the page token a listing request asks for: S3's
// ListObjectsV2 (continuation-token), Azure's List Blobs (marker), GCS's
// JSON API (pageToken). "" is the first page.
func pageToken(r *http.Request) string {
	q := r.URL.Query()
	for _, k := range []string{"continuation-token", "marker", "pageToken"} {
		if t := q.Get(k); t != "" {
			return t
		}
	}
	return ""
}

// request checks a page request: a token whose page was already read
// whole means the store sent the listing back to where it had been.
// Retries of a page that failed ask for its token again, and may.
func (l *listing) request(token string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pages++; l.pages > maxListed/100 {
		return listErrorf("the listing passed %d pages (%d objects), the most one prefix or glob may take: the store is faulty, or the prefix names too much; name fewer with a narrower prefix or glob, or several", maxListed/100, l.objects)
	}
	if token != "" && l.read[token] {
		return listErrorf("the listing came back to a page it had read (continuation token %.40q repeated): a faulty store or proxy", token)
	}
	return nil
}

func (l *listing) pageRead(token string) {
	if token == "" {
		return
	}
	l.mu.Lock()
	l.read[token] = true
	l.mu.Unlock()
}

// guard is the HTTP client of every store: the AWS and Azure SDKs call
// Do, net/http's Client (GCS, the web) RoundTrip.
type guard struct {
	send func(*http.Request) (*http.Response, error)
}

func (g guard) Do(r *http.Request) (*http.Response, error)        { return g.do(r) }
func (g guard) RoundTrip(r *http.Request) (*http.Response, error) { return g.do(r) }

func (g guard) do(req *http.Request) (*http.Response, error) {
	l, _ := req.Context().Value(listingKey{}).(*listing)
	token := ""
	if l != nil {
		token = pageToken(req)
		if err := l.request(token); err != nil {
			return nil, err
		}
	}
	d := readTimeoutOf(req.Context())
	ctx, cancel := context.WithCancelCause(req.Context())
	stall := &stallError{d}
	idle := time.AfterFunc(d, func() { cancel(stall) })
	r := req.WithContext(ctx)
	if req.Body != nil && req.Body != http.NoBody {
		// an upload is not idle while it sends
		r.Body = &sendBody{req.Body, idle, d}
	}
	resp, err := g.send(r)
	if err != nil {
		idle.Stop()
		if context.Cause(ctx) == error(stall) {
			err = stall
		}
		cancel(nil)
		return nil, err
	}
	// the body's clock runs only while a read waits (idleBody)
	idle.Stop()
	b := &idleBody{rc: resp.Body, idle: idle, d: d, ctx: ctx, cancel: cancel, stall: stall}
	if l != nil && resp.StatusCode == http.StatusOK {
		b.done = func() { l.pageRead(token) }
	}
	resp.Body = b
	return resp, nil
}

// idleBody is a response body whose reads each wait at most the read
// timeout for bytes: the timer runs only while a read waits, so a reader
// that pauses (a busy pipeline, backpressure) is not taken for a store
// that stalled. A read the timer cut off reports the stall.
type idleBody struct {
	rc     io.ReadCloser
	idle   *time.Timer
	d      time.Duration
	ctx    context.Context
	cancel context.CancelCauseFunc
	stall  *stallError
	failed bool
	done   func() // a listing page read whole
}

func (b *idleBody) Read(p []byte) (int, error) {
	b.idle.Reset(b.d)
	n, err := b.rc.Read(p)
	b.idle.Stop()
	if err != nil && err != io.EOF {
		b.failed = true
		if context.Cause(b.ctx) == error(b.stall) {
			err = b.stall
		}
	}
	return n, err
}

func (b *idleBody) Close() error {
	b.idle.Stop()
	err := b.rc.Close()
	b.cancel(nil)
	if b.done != nil && !b.failed {
		b.done()
	}
	return err
}

// sendBody is a request body whose reads (the transport sending it)
// restart the idle timer.
type sendBody struct {
	io.ReadCloser
	idle *time.Timer
	d    time.Duration
}

func (s *sendBody) Read(p []byte) (int, error) {
	n, err := s.ReadCloser.Read(p)
	if n > 0 {
		s.idle.Reset(s.d)
	}
	return n, err
}
