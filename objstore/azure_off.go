//go:build !azure

package objstore

import (
	"context"
	"fmt"
)

// openAzure refuses az:// and abfss:// in a build without Azure support:
// the Azure SDK, with the HTTP/2 and text modules its transport imports,
// would add 65 MB to a first build's module cache, so it is built in only
// with -tags azure (the release binaries and wheels have it).
func openAzure(context.Context, string) (store, error) {
	return nil, fmt.Errorf("this rankeval is built without Azure support; the release binaries and wheels have it, or build with: go install -tags azure ./cmd/rankeval: %w", ErrScheme)
}
