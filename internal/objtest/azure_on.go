//go:build azure

package objtest

import (
	"context"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
)

// azureBuilt: objstore reads az:// in this build (-tags azure).
const azureBuilt = true

// azuritePut creates the container bucket in the Azurite of the connection
// string and returns what stores an object in it.
func azuritePut(t testing.TB, conn, bucket string) func(key string, data []byte) error {
	c, err := container.NewClientFromConnectionString(conn, bucket, nil)
	if err == nil {
		_, err = c.Create(context.Background(), nil)
	}
	if err != nil {
		t.Fatalf("Azurite: creating a container: %v", err)
	}
	return func(key string, data []byte) error {
		_, err := c.NewBlockBlobClient(key).UploadBuffer(context.Background(), data, nil)
		return err
	}
}
