//go:build azure

package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
)

// azureStore is one Azure Blob Storage container (ADLS Gen2 file systems
// are read through the same Blob endpoint), through the Azure SDK's azblob.
type azureStore struct {
	c *container.Client
}

// openAzure opens the container of az://CONTAINER (the account from the
// environment) or of a URL that names the account (azureHost):
// abfss://CONTAINER@ACCOUNT.dfs.core.windows.net, or az:// so.
//
// Credentials, first found first used: AZURE_STORAGE_CONNECTION_STRING
// (Azurite's too) when it is for the URL's account (az://: the one
// AZURE_STORAGE_ACCOUNT names, if it names one); AZURE_STORAGE_KEY
// (a shared key); AZURE_STORAGE_SAS_TOKEN; else Azure's default chain
// (environment, workload identity, managed identity, az CLI).
func openAzure(ctx context.Context, bucket string) (store, error) {
	opts := &container.ClientOptions{ClientOptions: azcore.ClientOptions{
		Transport: guard{send: http.DefaultClient.Do},
		Retry:     policy.RetryOptions{MaxRetries: retries - 1},
	}}
	name, account, endpoint := bucket, os.Getenv("AZURE_STORAGE_ACCOUNT"), ""
	if c, acct, suffix, ok := azureHost(bucket, ".dfs.", ".blob."); ok { // Split checked the form
		name, account, endpoint = c, acct, "https://"+acct+".blob."+suffix+"/"
	}
	// a connection string serves the URL's account; az:// that names none,
	// without AZURE_STORAGE_ACCOUNT, takes the string's
	if cs := os.Getenv("AZURE_STORAGE_CONNECTION_STRING"); cs != "" && (account == "" || connAccount(cs) == account) {
		c, err := container.NewClientFromConnectionString(cs, name, opts)
		if err != nil {
			return nil, fmt.Errorf("AZURE_STORAGE_CONNECTION_STRING: %v", err)
		}
		return &azureStore{c}, nil
	}
	if account == "" {
		return nil, errors.New("no account: set AZURE_STORAGE_ACCOUNT (or AZURE_STORAGE_CONNECTION_STRING), or name it: abfss://CONTAINER@ACCOUNT.dfs.core.windows.net/PATH")
	}
	if endpoint == "" {
		endpoint = "https://" + account + ".blob.core.windows.net/"
	}
	u := endpoint + name
	var c *container.Client
	var err error
	switch key, sas := os.Getenv("AZURE_STORAGE_KEY"), os.Getenv("AZURE_STORAGE_SAS_TOKEN"); {
	case key != "":
		var cred *container.SharedKeyCredential
		if cred, err = container.NewSharedKeyCredential(account, key); err == nil {
			c, err = container.NewClientWithSharedKeyCredential(u, cred, opts)
		}
	case sas != "":
		c, err = container.NewClientWithNoCredential(u+"?"+strings.TrimPrefix(sas, "?"), opts)
	default:
		var cred *azidentity.DefaultAzureCredential
		cred, err = azidentity.NewDefaultAzureCredential(&azidentity.DefaultAzureCredentialOptions{
			ClientOptions: opts.ClientOptions,
		})
		if err != nil {
			return nil, fmt.Errorf("no Azure credentials (set AZURE_STORAGE_KEY, AZURE_STORAGE_SAS_TOKEN or AZURE_STORAGE_CONNECTION_STRING, or sign in with az login): %v", err)
		}
		c, err = container.NewClient(u, cred, opts)
	}
	if err != nil {
		return nil, err
	}
	return &azureStore{c}, nil
}

// connAccount is the AccountName of a connection string.
func connAccount(cs string) string {
	for _, kv := range strings.Split(cs, ";") {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.EqualFold(strings.TrimSpace(k), "AccountName") {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// azureError classifies an SDK error by the response's status.
func azureError(err error) error {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		switch re.StatusCode {
		case http.StatusNotFound:
			return fmt.Errorf("%s: %w", re.ErrorCode, ErrNotFound)
		case http.StatusPreconditionFailed:
			return &changedError{}
		case http.StatusForbidden, http.StatusUnauthorized:
			return fmt.Errorf("%s: %w", re.ErrorCode, ErrAccess)
		}
		return fmt.Errorf("%s (%d)", re.ErrorCode, re.StatusCode)
	}
	return err
}

func (s *azureStore) stat(ctx context.Context, key string) (version, error) {
	p, err := s.c.NewBlobClient(key).GetProperties(ctx, nil)
	if err != nil {
		return version{}, azureError(err)
	}
	if isFolder(p.Metadata) {
		return version{}, fmt.Errorf("a directory: %w", ErrNotFound)
	}
	if p.ContentLength == nil {
		return version{}, errors.New("the store gives no size")
	}
	v := version{size: *p.ContentLength}
	if p.ETag != nil {
		v.tag = string(*p.ETag)
	}
	return v, nil
}

// read asks for the ETag stat found (If-Match): Azure answers 412 once
// the blob is replaced.
func (s *azureStore) read(ctx context.Context, key string, v version, off, n int64) (io.ReadCloser, error) {
	var o blob.DownloadStreamOptions
	if v.tag != "" {
		tag := azcore.ETag(v.tag)
		o.AccessConditions = &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: &tag}}
	}
	if n >= 0 {
		o.Range = blob.HTTPRange{Offset: off, Count: n}
	}
	// x-ms-range is not Range to net/http, which would otherwise decompress
	// a blob stored gzip-encoded, ranges too
	ctx = policy.WithHTTPHeader(ctx, http.Header{"Accept-Encoding": storedBytes})
	r, err := s.c.NewBlobClient(key).DownloadStream(ctx, &o)
	if err != nil {
		return nil, azureError(err)
	}
	if n >= 0 {
		cr, length := "", int64(-1)
		if r.ContentRange != nil {
			cr = *r.ContentRange
		}
		if r.ContentLength != nil {
			length = *r.ContentLength
		}
		if err := checkRange(off, n, v, cr, length); err != nil {
			r.Body.Close()
			return nil, err
		}
	}
	return r.Body, nil
}

// isFolder reports the metadata an ADLS Gen2 account gives its
// directories, which a flat listing of the Blob endpoint shows as empty
// blobs.
func isFolder(meta map[string]*string) bool {
	for k, v := range meta {
		if strings.EqualFold(k, "hdi_isfolder") && v != nil && strings.EqualFold(*v, "true") {
			return true
		}
	}
	return false
}

func (s *azureStore) list(ctx context.Context, prefix string, add func(string) error) error {
	pager := s.c.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{
		Prefix:  &prefix,
		Include: container.ListBlobsInclude{Metadata: true},
	})
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return azureError(err)
		}
		for _, it := range page.Segment.BlobItems {
			if it.Name == nil || isFolder(it.Metadata) {
				continue
			}
			if err := add(*it.Name); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *azureStore) put(ctx context.Context, key string, r io.ReaderAt, size int64) error {
	_, err := s.c.NewBlockBlobClient(key).Upload(ctx, streaming.NopCloser(io.NewSectionReader(r, 0, size)), nil)
	return azureError(err)
}
