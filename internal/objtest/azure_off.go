//go:build !azure

package objtest

import "testing"

// azureBuilt: objstore reads az:// only in a build with -tags azure.
const azureBuilt = false

func azuritePut(t testing.TB, _, _ string) func(string, []byte) error {
	t.Fatal("objtest: Azurite needs a build with -tags azure")
	return nil
}
