package objstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// rest sends the requests of the stores spoken to over plain HTTP (GCS's
// JSON API, web servers) through guard, retrying what a store's own SDK
// would retry: a connection that failed before any response, and the
// statuses that mean "try again" (429, 500, 502, 503, 504). A stall or a
// listing fault is never retried: the user set how long to wait.
type rest struct {
	client *http.Client
	header func(*http.Request) error // adds credentials, or nil
}

// storedBytes is the Accept-Encoding of every object read: the object's
// bytes as stored, which its size counts. A request that names no
// encoding gets net/http's transparent gzip, which decompresses an object
// stored gzip-encoded (Content-Encoding metadata) into more bytes than its
// size, and a range of it into other bytes; naming one turns that off.
var storedBytes = []string{"identity"}

// retries is how many times rest sends one request at most.
const retries = 4

// retryable reports statuses worth sending again.
func retryable(status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// do sends method to url, with the size bytes of body (read afresh from
// its start by each try and each redirect followed, never from where an
// earlier one stopped), and returns a response whose status is success
// (2xx); other statuses, a redirect not followed among them, are
// statusError.
func (c rest) do(ctx context.Context, method, url string, hdr http.Header, body io.ReaderAt, size int64) (*http.Response, error) {
	var last error
	for try := range retries {
		if try > 0 {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(time.Duration(100<<try) * time.Millisecond):
			}
		}
		req, err := http.NewRequestWithContext(ctx, method, url, nil)
		if err != nil {
			return nil, err
		}
		for k, v := range hdr {
			req.Header[k] = v
		}
		if body != nil {
			req.ContentLength = size
			req.GetBody = func() (io.ReadCloser, error) {
				if size == 0 {
					return http.NoBody, nil
				}
				return io.NopCloser(io.NewSectionReader(body, 0, size)), nil
			}
			req.Body, _ = req.GetBody()
		}
		if c.header != nil {
			if err := c.header(req); err != nil {
				return nil, err
			}
		}
		resp, err := c.client.Do(req)
		if err != nil {
			if f := fault(err); f != nil || ctx.Err() != nil {
				return nil, errors.Join(f, ctx.Err())
			}
			last = err
			continue
		}
		if resp.StatusCode < 300 {
			return resp, nil
		}
		last = readStatus(resp)
		if !retryable(resp.StatusCode) {
			break
		}
	}
	return nil, last
}

// statusError is a response with an error status; its message is the
// status and what the server said, shortened.
type statusError struct {
	status int
	msg    string
}

func (e *statusError) Error() string {
	if e.status >= 300 && e.status < 400 {
		return fmt.Sprintf("the server answered %d %s, a redirect that cannot be followed, not the object", e.status, http.StatusText(e.status))
	}
	if e.msg == "" {
		return http.StatusText(e.status)
	}
	return fmt.Sprintf("%s: %s", http.StatusText(e.status), e.msg)
}

// Is makes a 404 ErrNotFound and a 401 or 403 ErrAccess.
func (e *statusError) Is(target error) bool {
	switch e.status {
	case http.StatusNotFound:
		return target == ErrNotFound
	case http.StatusUnauthorized, http.StatusForbidden:
		return target == ErrAccess
	}
	return false
}

// readStatus reads an error response: a JSON API's {"error": {"message"}}
// or the first line of a text body.
func readStatus(resp *http.Response) error {
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	var j struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	msg := ""
	if json.Unmarshal(b, &j) == nil && j.Error.Message != "" {
		msg = j.Error.Message
	} else if _, m, ok := strings.Cut(string(b), "<Message>"); ok && strings.Contains(resp.Header.Get("Content-Type"), "xml") {
		msg, _, _ = strings.Cut(m, "</Message>") // S3's and Azure's error documents
	} else if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		msg, _, _ = strings.Cut(strings.TrimSpace(string(b)), "\n")
	}
	if len(msg) > 200 {
		msg = msg[:200] + "..."
	}
	return &statusError{resp.StatusCode, msg}
}
