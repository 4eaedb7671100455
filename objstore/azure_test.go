//go:build azure

package objstore_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rankeval/rankeval/internal/objtest"
	"github.com/rankeval/rankeval/objstore"
)

// TestAzureForms: abfss:// names the account that az:// takes from the
// environment, and both read one container; the directories an ADLS Gen2
// account lists as empty blobs are neither listed as data nor opened as
// objects; without an account az:// says what to set.
func TestAzureForms(t *testing.T) {
	f := &objtest.Fake{Scheme: "az", Objects: map[string][]byte{
		"clicks/dt=1/part-0.jsonl": []byte("{}\n"), "clicks/dt=2/part-0.jsonl": []byte("{}\n"),
	}, Folders: []string{"clicks", "clicks/dt=1", "clicks/dt=2"}}
	objtest.StartFake(t, f)
	want := []string{"clicks/dt=1/part-0.jsonl", "clicks/dt=2/part-0.jsonl"}
	for _, root := range []string{"az://lake/", "abfss://lake@devstoreaccount1.dfs.core.windows.net/",
		"az://lake@devstoreaccount1.blob.core.windows.net/", "az://lake@devstoreaccount1.dfs.core.windows.net/"} {
		got, err := objstore.Expand(context.Background(), root+"clicks")
		var keys []string
		for _, g := range got {
			keys = append(keys, strings.TrimPrefix(g, root))
		}
		if err != nil || !slices.Equal(keys, want) {
			t.Fatalf("%sclicks: %q, %v; want %q", root, keys, err, want)
		}
		if _, err := objstore.Open(context.Background(), root+"clicks/dt=1"); !errors.Is(err, objstore.ErrNotFound) {
			t.Fatalf("a directory opened as an object: %v", err)
		}
	}
	t.Setenv("AZURE_STORAGE_CONNECTION_STRING", "")
	t.Setenv("AZURE_STORAGE_ACCOUNT", "")
	objstore.Forget()
	_, err := objstore.Open(context.Background(), "az://lake/clicks/dt=1/part-0.jsonl")
	if !errors.Is(err, objstore.ErrAccess) || !strings.Contains(err.Error(), "set AZURE_STORAGE_ACCOUNT") {
		t.Fatalf("no account: %v", err)
	}
}

// TestAzureAccountOfConnectionString: az:// reads the account
// AZURE_STORAGE_ACCOUNT names; a connection string for another account
// is not used for it.
func TestAzureAccountOfConnectionString(t *testing.T) {
	f := &objtest.Fake{Scheme: "az", Objects: map[string][]byte{"a.jsonl": []byte("{}\n")}}
	objtest.StartFake(t, f)
	t.Setenv("AZURE_STORAGE_ACCOUNT", "otheraccount")
	t.Setenv("AZURE_STORAGE_KEY", "a2V5")
	objstore.Forget()
	// the account's real endpoint is not reached from a test: only that
	// the fake's account is not read
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	o, err := objstore.Open(ctx, "az://lake/a.jsonl")
	if err == nil {
		t.Fatalf("az:// with AZURE_STORAGE_ACCOUNT=otheraccount read %d bytes of the connection string's account", o.Size())
	}
	if errors.Is(err, objstore.ErrNotFound) {
		t.Fatalf("err = %v", err)
	}
}
