package objstore

import (
	"net/http"
	"testing"
)

// SetMaxListed lowers MaxListed for one test.
func SetMaxListed(t testing.TB, n int) {
	old := maxListed
	maxListed = n
	t.Cleanup(func() { maxListed = old })
}

// SetWebTransport has web stores use rt for one test (a TLS test server's
// client trusts its certificate).
func SetWebTransport(t testing.TB, rt http.RoundTripper) {
	old := webTransport
	webTransport = rt
	Forget()
	t.Cleanup(func() { webTransport = old; Forget() })
}
