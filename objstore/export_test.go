package objstore

import "testing"

// SetMaxListed lowers MaxListed for one test.
func SetMaxListed(t testing.TB, n int) {
	old := maxListed
	maxListed = n
	t.Cleanup(func() { maxListed = old })
}
