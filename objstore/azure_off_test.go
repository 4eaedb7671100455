//go:build !azure

package objstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/objstore"
)

// TestAzureNotBuilt: a build without -tags azure refuses az:// and
// abfss:// by saying how to get them, not as a store unreachable.
func TestAzureNotBuilt(t *testing.T) {
	for _, name := range []string{"az://lake/k.jsonl", "abfss://lake@acct.dfs.core.windows.net/k.jsonl"} {
		_, err := objstore.Open(context.Background(), name)
		if !errors.Is(err, objstore.ErrScheme) || errors.Is(err, objstore.ErrAccess) || !strings.Contains(err.Error(), "go install -tags azure") {
			t.Fatalf("%s: %v", name, err)
		}
	}
}
