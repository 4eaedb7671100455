// Package objstore reads inputs from object storage — s3:// (AWS S3 and
// S3-compatible servers) and gs:// (Google Cloud Storage) — through
// gocloud.dev/blob. It gives the readers what a local file gives them:
// ranged reads for formats that index their content (Parquet reads its
// footer, then only the column chunks asked for), one streaming GET for
// formats read front to back (JSONL), and listing of prefixes and globs with
// the same rules as local directories.
//
// Credentials and endpoints come from each cloud's standard environment:
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION,
// AWS_PROFILE, AWS_ENDPOINT_URL (or AWS_ENDPOINT_URL_S3) for S3;
// GOOGLE_APPLICATION_CREDENTIALS or the metadata server, and
// STORAGE_EMULATOR_HOST, for GCS.
package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/rankeval/rankeval/internal/printable"
	"gocloud.dev/blob"
	"gocloud.dev/blob/gcsblob"
	"gocloud.dev/blob/s3blob"
	"gocloud.dev/gcerrors"
	"gocloud.dev/gcp"
)

// Sentinel errors, matched with errors.Is.
var (
	ErrURL      = errors.New("bad object-store URL")
	ErrNotFound = errors.New("no such object")
	ErrNoInput  = errors.New("no input")
	ErrAccess   = errors.New("object store unreachable or access denied")
)

// IsURL reports whether name is an object-store URL rather than a local path.
func IsURL(name string) bool {
	return strings.HasPrefix(name, "s3://") || strings.HasPrefix(name, "gs://")
}

// Split returns the scheme, bucket and key of an object-store URL. The key
// is the text after the bucket as it is, as the clouds' own tools take it:
// a key may hold '%', '?', '#' and control characters, and every key a
// listing gives (Expand) must open again.
func Split(name string) (scheme, bucket, key string, err error) {
	scheme, rest, _ := strings.Cut(name, "://")
	bucket, key, _ = strings.Cut(rest, "/")
	if scheme != "s3" && scheme != "gs" || bucket == "" {
		return "", "", "", fmt.Errorf("%s: want s3://BUCKET/KEY or gs://BUCKET/KEY: %w", printable.String(name), ErrURL)
	}
	return scheme, bucket, key, nil
}

// buckets caches one open bucket per scheme and name for the life of the
// process: opening one loads credentials, which should happen once per run,
// not once per file.
var buckets struct {
	sync.Mutex
	m map[string]*blob.Bucket
}

func bucket(ctx context.Context, scheme, name string) (*blob.Bucket, error) {
	buckets.Lock()
	defer buckets.Unlock()
	id := scheme + "://" + name
	if b := buckets.m[id]; b != nil {
		return b, nil
	}
	var b *blob.Bucket
	var err error
	switch scheme {
	case "s3":
		b, err = openS3(ctx, name)
	default:
		b, err = openGCS(ctx, name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v: %w", printable.String(id), err, ErrAccess)
	}
	if buckets.m == nil {
		buckets.m = map[string]*blob.Bucket{}
	}
	buckets.m[id] = b
	return b, nil
}

func openS3(ctx context.Context, name string) (*blob.Bucket, error) {
	cfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, err
	}
	if cfg.Region == "" {
		// The SDK wants a region even for a custom endpoint; S3 redirects
		// a wrong one for real buckets only with path errors, so say it.
		cfg.Region = "us-east-1"
	}
	// Checksums only where the API requires them: S3-compatible servers
	// do not all send them, and the SDK would warn on every ranged read.
	cfg.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
	cfg.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
	custom := cfg.BaseEndpoint != nil || os.Getenv("AWS_ENDPOINT_URL_S3") != ""
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = awshttp.NewBuildableClient()
	}
	cfg.HTTPClient = guard{send: cfg.HTTPClient.Do}
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		// Custom endpoints (MinIO, Ceph, moto, a VPC endpoint by IP) rarely
		// resolve bucket subdomains; the bucket goes in the path there.
		o.UsePathStyle = custom && os.Getenv("RANKEVAL_S3_VIRTUAL_HOST") == ""
	})
	return s3blob.OpenBucket(ctx, client, name, &s3blob.Options{
		RequestChecksumCalculation: cfg.RequestChecksumCalculation,
	})
}

func openGCS(ctx context.Context, name string) (*blob.Bucket, error) {
	var client *gcp.HTTPClient
	transport := guard{send: gcp.DefaultTransport().RoundTrip}
	if os.Getenv("STORAGE_EMULATOR_HOST") != "" {
		// an emulator takes no credentials; gcsblob points the client at it
		client = gcp.NewAnonymousHTTPClient(transport)
	} else {
		creds, err := gcp.DefaultCredentials(ctx)
		if err != nil {
			return nil, fmt.Errorf("no Google Cloud credentials (set GOOGLE_APPLICATION_CREDENTIALS or run gcloud auth application-default login): %v", err)
		}
		if client, err = gcp.NewHTTPClient(transport, gcp.CredentialsTokenSource(creds)); err != nil {
			return nil, err
		}
	}
	return gcsblob.OpenBucket(ctx, client, name, nil)
}

// wrap turns a blob error into one that names the URL and wraps a
// sentinel.
func wrap(name string, err error) error {
	if f := fault(err); f != nil {
		return fmt.Errorf("%s: %w", printable.String(name), f)
	}
	switch gcerrors.Code(err) {
	case gcerrors.NotFound:
		return fmt.Errorf("%s: %w", printable.String(name), ErrNotFound)
	case gcerrors.PermissionDenied:
		return fmt.Errorf("%s: %v: %w", printable.String(name), err, ErrAccess)
	}
	return fmt.Errorf("%s: %w", printable.String(name), err)
}

// Object is one object opened for reading. It is safe for concurrent
// ReadAt calls (Parquet decoders read row groups in parallel).
type Object struct {
	name string
	b    *blob.Bucket
	key  string
	size int64
	ctx  context.Context
}

// Open finds the object name (s3://bucket/key or gs://bucket/key) and its size.
func Open(ctx context.Context, name string) (*Object, error) {
	scheme, bn, key, err := Split(name)
	if err != nil {
		return nil, err
	}
	if key == "" || strings.HasSuffix(key, "/") {
		return nil, fmt.Errorf("%s: names a prefix, not an object: %w", printable.String(name), ErrNotFound)
	}
	b, err := bucket(ctx, scheme, bn)
	if err != nil {
		return nil, err
	}
	attrs, err := b.Attributes(ctx, key)
	if err != nil {
		return nil, wrap(name, err)
	}
	return &Object{name: name, b: b, key: key, size: attrs.Size, ctx: ctx}, nil
}

// Name is the object's URL.
func (o *Object) Name() string { return o.name }

// Size is the object's length in bytes.
func (o *Object) Size() int64 { return o.size }

// ReadAt reads len(p) bytes at off with one ranged GET.
func (o *Object) ReadAt(p []byte, off int64) (int, error) {
	if off >= o.size {
		return 0, io.EOF
	}
	n := min(int64(len(p)), o.size-off)
	r, err := o.b.NewRangeReader(o.ctx, o.key, off, n, nil)
	if err != nil {
		return 0, wrap(o.name, err)
	}
	defer r.Close()
	got, err := io.ReadFull(r, p[:n])
	if errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF {
		err = &sizeError{off + int64(got), off + n, o.size}
	}
	if err != nil {
		return got, wrap(o.name, err)
	}
	if got < len(p) {
		return got, io.EOF
	}
	return got, nil
}

// Stream reads the whole object front to back with one GET, so a
// compressed log is decoded as it arrives instead of being downloaded first.
// Its bytes are counted against the object's size: a body cut short
// (without Content-Length, the end of the connection looks like the end
// of the object) or longer than the object is an error, not fewer rows.
// Read errors are *fs.PathError naming the object, as a local file's are.
func (o *Object) Stream() (io.ReadCloser, error) {
	r, err := o.b.NewReader(o.ctx, o.key, nil)
	if err != nil {
		return nil, wrap(o.name, err)
	}
	return &sized{r: r, o: o}, nil
}

// sized checks that a stream gives its object's size.
type sized struct {
	r io.ReadCloser
	o *Object
	n int64
}

func (s *sized) Read(p []byte) (int, error) {
	if s.n+int64(len(p)) > s.o.size {
		p = p[:max(s.o.size-s.n+1, 0)] // one byte past the size tells a longer object
	}
	n, err := s.r.Read(p)
	s.n += int64(n)
	switch {
	case s.n > s.o.size:
		err = &sizeError{s.n, s.o.size, s.o.size}
	case err == io.EOF && s.n < s.o.size, errors.Is(err, io.ErrUnexpectedEOF):
		err = &sizeError{s.n, s.o.size, s.o.size}
	case err == nil || err == io.EOF:
		return n, err
	}
	if f := fault(err); f != nil {
		err = f
	}
	return n, &fs.PathError{Op: "read", Path: printable.String(s.o.name), Err: err}
}

func (s *sized) Close() error { return s.r.Close() }

// fault takes a fault guard or a size check detected out of the SDK's and
// gocloud's layers around it, for messages; nil for other errors.
func fault(err error) error {
	var (
		stall *stallError
		list  *listError
		size  *sizeError
	)
	switch {
	case errors.As(err, &stall):
		return stall
	case errors.As(err, &list):
		return list
	case errors.As(err, &size):
		return size
	}
	return nil
}

// sizeError is a read that got bytes up to got where it wanted bytes up
// to want, of an object of size bytes.
type sizeError struct{ got, want, size int64 }

func (e *sizeError) Error() string {
	if e.got > e.size {
		return fmt.Sprintf("the object gave more than its %d bytes (replaced while read?)", e.size)
	}
	return fmt.Sprintf("the object ended after %d of its %d bytes (cut short in transit?)", e.got, e.size)
}
func (e *sizeError) Is(target error) bool { return target == ErrSize }

// Close releases nothing: buckets are shared and kept for the run.
func (o *Object) Close() error { return nil }

// Create opens name for writing; the object appears only when Close
// succeeds, so a failed run leaves no partial output.
func Create(ctx context.Context, name string) (io.WriteCloser, error) {
	scheme, bn, key, err := Split(name)
	if err != nil {
		return nil, err
	}
	b, err := bucket(ctx, scheme, bn)
	if err != nil {
		return nil, err
	}
	w, err := b.NewWriter(ctx, key, nil)
	if err != nil {
		return nil, wrap(name, err)
	}
	return w, nil
}

// hasMeta reports glob characters, as for local paths.
func hasMeta(p string) bool { return strings.ContainsAny(p, `*?[\`) }

// hidden reports whether a path element is bookkeeping rather than data
// (_SUCCESS, _temporary/, .crc files), as data-lake writers leave them.
func hidden(el string) bool { return strings.HasPrefix(el, ".") || strings.HasPrefix(el, "_") }

// Expand turns one object-store argument into the objects to read, with
// the rules local paths follow:
//
//   - an object is read as given;
//   - a prefix (a "directory": the key followed by '/') is read
//     recursively, in the order a local directory walk gives (element by
//     element, lexical), skipping elements that start with '.' or '_';
//   - a key with glob characters (path.Match syntax, '*' not crossing '/')
//     matches objects and prefixes, each expanded as above.
//
// An argument that names nothing is an error naming it.
func Expand(ctx context.Context, arg string) ([]string, error) {
	scheme, bn, key, err := Split(arg)
	if err != nil {
		return nil, err
	}
	b, err := bucket(ctx, scheme, bn)
	if err != nil {
		return nil, err
	}
	root := scheme + "://" + bn + "/"
	if !hasMeta(key) {
		if key != "" && !strings.HasSuffix(key, "/") {
			ok, err := b.Exists(ctx, key)
			if err != nil {
				return nil, wrap(arg, err)
			}
			if ok {
				return []string{arg}, nil
			}
			key += "/"
		}
		keys, err := list(ctx, b, key)
		if err != nil {
			return nil, wrap(arg, err)
		}
		var out []string
		for _, k := range keys {
			if !anyHidden(strings.TrimPrefix(k, key)) {
				out = append(out, root+k)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("%s: no such object, and no data files under it as a prefix: %w", printable.String(arg), ErrNoInput)
		}
		return out, nil
	}
	if _, err := path.Match(key, ""); err != nil {
		return nil, fmt.Errorf("%s: bad pattern: %v: %w", printable.String(arg), err, ErrNoInput)
	}
	// list everything under the pattern's literal prefix, then match
	lit := key[:strings.IndexAny(key, `*?[\`)]
	keys, err := list(ctx, b, lit[:strings.LastIndex(lit, "/")+1])
	if err != nil {
		return nil, wrap(arg, err)
	}
	pat := strings.Split(key, "/")
	keepHidden := hidden(pat[len(pat)-1])
	var out []string
	for _, k := range keys {
		els := strings.Split(k, "/")
		if len(els) < len(pat) {
			continue
		}
		head := strings.Join(els[:len(pat)], "/")
		if ok, _ := path.Match(key, head); !ok {
			continue
		}
		if hidden(els[len(pat)-1]) && !keepHidden {
			continue
		}
		if anyHidden(strings.Join(els[len(pat):], "/")) {
			continue
		}
		out = append(out, root+k)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no object matches: %w", printable.String(arg), ErrNoInput)
	}
	return out, nil
}

func anyHidden(rel string) bool {
	if rel == "" {
		return false
	}
	return slices.ContainsFunc(strings.Split(rel, "/"), hidden)
}

// list returns every key under prefix, in walk order: element-wise
// lexical, so "a/b" comes before "a.txt" as a local directory walk has it
// ('/' sorts after '.' in a flat listing).
//
// The listing is bounded (guard.go): past MaxListed objects and pages, or
// when a page token repeats, it is ErrListing.
func list(ctx context.Context, b *blob.Bucket, prefix string) ([]string, error) {
	ctx, bound := withListing(ctx)
	it := b.List(&blob.ListOptions{Prefix: prefix})
	var keys []string
	for {
		obj, err := it.Next(ctx)
		if err == io.EOF {
			break
		}
		if err == nil {
			err = bound.add()
		}
		if err != nil {
			return nil, err
		}
		if obj.IsDir || strings.HasSuffix(obj.Key, "/") {
			continue // a "folder" marker object, not data
		}
		keys = append(keys, obj.Key)
	}
	slices.SortFunc(keys, func(a, b string) int {
		return slices.Compare(strings.Split(a, "/"), strings.Split(b, "/"))
	})
	return keys, nil
}

// Forget drops the cached buckets, so credentials or endpoints changed in
// the environment take effect (tests start a server per test).
func Forget() {
	buckets.Lock()
	for _, b := range buckets.m {
		b.Close()
	}
	buckets.m = nil
	buckets.Unlock()
}
