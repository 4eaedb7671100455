// Package objstore reads inputs from object storage and the web — s3://
// (AWS S3 and S3-compatible servers), gs:// (Google Cloud Storage), az://
// and abfss:// (Azure Blob Storage and ADLS Gen2), and http:// or https://
// objects (presigned URLs, public datasets). It gives the readers what a
// local file gives them: ranged reads for formats that index their content
// (Parquet reads its footer, then only the column chunks asked for), one
// streaming GET for formats read front to back (JSONL), and listing of
// prefixes and globs with the same rules as local directories.
//
// Each store is spoken to by a small client of its own (one file each:
// s3.go, gcs.go, azure.go, web.go) behind one interface, so that every rule
// here — listing order, hidden files, size checks, read timeouts, fault
// bounds, messages naming the object — is the same for all of them.
//
// Credentials and endpoints come from each cloud's standard environment:
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION,
// AWS_PROFILE, AWS_ENDPOINT_URL (or AWS_ENDPOINT_URL_S3) for S3;
// GOOGLE_APPLICATION_CREDENTIALS, gcloud's application-default login or the
// metadata server, and STORAGE_EMULATOR_HOST, for GCS;
// AZURE_STORAGE_CONNECTION_STRING, or AZURE_STORAGE_ACCOUNT with
// AZURE_STORAGE_KEY, AZURE_STORAGE_SAS_TOKEN or Azure's default credential
// chain (AZURE_CLIENT_ID and kin, workload and managed identity, the az
// CLI), for Azure. A web URL carries its own authorization.
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

	"github.com/rankeval/rankeval/internal/printable"
)

// Sentinel errors, matched with errors.Is.
var (
	ErrURL      = errors.New("bad object-store URL")
	ErrNotFound = errors.New("no such object")
	ErrNoInput  = errors.New("no input")
	ErrAccess   = errors.New("object store unreachable or access denied")
	// ErrScheme: a scheme this build does not read (az:// without -tags azure).
	ErrScheme = errors.New("scheme not built in")
	// ErrRanges: a web server that does not serve byte ranges, asked for one.
	ErrRanges = errors.New("no ranged reads")
)

// schemes are the URL schemes objstore reads, each with its form.
var schemes = map[string]string{
	"s3":    "s3://BUCKET/KEY",
	"gs":    "gs://BUCKET/KEY",
	"az":    "az://CONTAINER/PATH or az://CONTAINER@ACCOUNT.blob.core.windows.net/PATH",
	"abfss": "abfss://CONTAINER@ACCOUNT.dfs.core.windows.net/PATH",
	"abfs":  "abfs://CONTAINER@ACCOUNT.dfs.core.windows.net/PATH",
	"https": "https://HOST/PATH",
	"http":  "http://HOST/PATH",
}

// IsURL reports whether name is an object-store or web URL rather than a
// local path.
func IsURL(name string) bool {
	scheme, _, ok := strings.Cut(name, "://")
	_, known := schemes[scheme]
	return ok && known
}

// isWeb reports whether scheme names a web server rather than a store:
// its URLs are objects as given, never prefixes or globs.
func isWeb(scheme string) bool { return scheme == "http" || scheme == "https" }

// azureHost splits the bucket of an Azure URL that names its account,
// CONTAINER@ACCOUNT.ENDPOINT.SUFFIX, with ENDPOINT one of endpoints (".dfs."
// for ADLS Gen2, ".blob.") and SUFFIX core.windows.net or another cloud's,
// into the container, the account and the suffix; ok is false for any
// other form.
func azureHost(bucket string, endpoints ...string) (container, account, suffix string, ok bool) {
	container, host, found := strings.Cut(bucket, "@")
	if !found || container == "" {
		return "", "", "", false
	}
	for _, sep := range endpoints {
		if account, suffix, found = strings.Cut(host, sep); found && account != "" && suffix != "" {
			return container, account, suffix, true
		}
	}
	return "", "", "", false
}

// Split returns the scheme, bucket and key of an object-store URL. The key
// is the text after the bucket as it is, as the clouds' own tools take it:
// a key may hold '%', '?', '#' and control characters, and every key a
// listing gives (Expand) must open again. For abfss:// the bucket is
// CONTAINER@HOST; for a web URL it is the host, and the key the rest of the
// URL (path and query) as it is. abfss:// (and abfs://) names its
// account, CONTAINER@ACCOUNT.dfs.core.windows.net; az:// may, as fsspec's
// adlfs takes it (.blob. or .dfs.).
func Split(name string) (scheme, bucket, key string, err error) {
	scheme, rest, _ := strings.Cut(name, "://")
	bucket, key, _ = strings.Cut(rest, "/")
	form, known := schemes[scheme]
	switch {
	case !known:
		err = fmt.Errorf("%s: want one of s3://, gs://, az://, abfss://, https://: %w", printable.String(name), ErrURL)
	case bucket == "":
		err = fmt.Errorf("%s: want %s: %w", printable.String(name), form, ErrURL)
	case scheme == "abfss" || scheme == "abfs":
		if _, _, _, ok := azureHost(bucket, ".dfs."); !ok {
			err = fmt.Errorf("%s: want %s: %w", printable.String(name), form, ErrURL)
		}
	case scheme == "az" && strings.Contains(bucket, "@"):
		if _, _, _, ok := azureHost(bucket, ".blob.", ".dfs."); !ok {
			err = fmt.Errorf("%s: want %s: %w", printable.String(name), form, ErrURL)
		}
	}
	if err != nil {
		return "", "", "", err
	}
	return scheme, bucket, key, nil
}

// store is one bucket (container, web host) of one service. Its methods
// name keys relative to the bucket; errors say what went wrong without the
// URL, which the caller adds, and wrap ErrNotFound or ErrAccess where the
// service says so.
type store interface {
	// stat returns the size and version of the object key.
	stat(ctx context.Context, key string) (version, error)
	// read returns the n bytes of key from off (n < 0: to its end), of
	// the version v that stat gave: an object replaced since is an error
	// (changedError), never the new object's bytes.
	read(ctx context.Context, key string, v version, off, n int64) (io.ReadCloser, error)
	// list calls add with every key under prefix, page by page, in any
	// order; folder markers are left out.
	list(ctx context.Context, prefix string, add func(key string) error) error
	// put stores the size bytes of r as key in one request, so the object
	// appears whole or not at all; each try reads r from its start.
	put(ctx context.Context, key string, r io.ReaderAt, size int64) error
}

// version is what stat tells of one object: its size, the tag the store
// gives that version of it (an ETag, a GCS generation; "" when the store
// gives none), which reads ask for by condition, and the encoding it is
// stored with where reads must name it (GCS).
type version struct {
	size     int64
	tag      string
	encoding string
}

// changedError is a read of an object that is no longer the version
// Open found: the store refused the read's condition (412), or its
// answer gave another size.
type changedError struct{}

func (e *changedError) Error() string {
	return "the object changed after it was opened (replaced while read?)"
}
func (e *changedError) Is(target error) bool { return target == ErrSize }

// stores caches one open store per scheme and bucket for the life of the
// process: opening one loads credentials, which should happen once per run,
// not once per file.
var stores struct {
	sync.Mutex
	m map[string]store
}

func open(ctx context.Context, scheme, bucket string) (store, error) {
	stores.Lock()
	defer stores.Unlock()
	id := scheme + "://" + bucket
	if s := stores.m[id]; s != nil {
		return s, nil
	}
	var s store
	var err error
	switch scheme {
	case "s3":
		s, err = openS3(ctx, bucket)
	case "gs":
		s, err = openGCS(ctx, bucket)
	case "az", "abfss", "abfs":
		s, err = openAzure(ctx, bucket)
	default:
		s = openWeb(scheme, bucket)
	}
	if errors.Is(err, ErrScheme) {
		return nil, fmt.Errorf("%s: %w", printable.String(id), err)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v: %w", printable.String(id), err, ErrAccess)
	}
	if stores.m == nil {
		stores.m = map[string]store{}
	}
	stores.m[id] = s
	return s, nil
}

// wrap names the URL in err, taking a fault guard's or a size check's
// error out of the SDKs' layers around it.
func wrap(name string, err error) error {
	if f := fault(err); f != nil {
		err = f
	}
	return fmt.Errorf("%s: %w", printable.String(name), err)
}

// Object is one object opened for reading. It is safe for concurrent
// ReadAt calls (Parquet decoders read row groups in parallel).
type Object struct {
	name string
	s    store
	key  string
	v    version
	size int64
	ctx  context.Context
}

// object opens the store of the object name and gives its key; a store
// URL that names a prefix is an error wrapping prefixErr.
func object(ctx context.Context, name string, prefixErr error) (store, string, error) {
	scheme, bucket, key, err := Split(name)
	if err != nil {
		return nil, "", err
	}
	if !isWeb(scheme) && (key == "" || strings.HasSuffix(key, "/")) {
		return nil, "", fmt.Errorf("%s: names a prefix, not an object: %w", printable.String(name), prefixErr)
	}
	s, err := open(ctx, scheme, bucket)
	return s, key, err
}

// Open finds the object name (a URL of a scheme IsURL accepts) and its size.
func Open(ctx context.Context, name string) (*Object, error) {
	s, key, err := object(ctx, name, ErrNotFound)
	if err != nil {
		return nil, err
	}
	v, err := s.stat(ctx, key)
	if err != nil {
		return nil, wrap(name, err)
	}
	return &Object{name: name, s: s, key: key, v: v, size: v.size, ctx: ctx}, nil
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
	if n == 0 {
		return 0, nil
	}
	r, err := o.s.read(o.ctx, o.key, o.v, off, n)
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
	r, err := o.s.read(o.ctx, o.key, o.v, 0, -1)
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

// fault takes a fault guard or a size check detected out of the SDKs'
// layers around it, for messages; nil for other errors.
func fault(err error) error {
	var (
		stall   *stallError
		list    *listError
		size    *sizeError
		changed *changedError
	)
	switch {
	case errors.As(err, &changed):
		return changed
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

// Close releases nothing: stores are shared and kept for the run.
func (o *Object) Close() error { return nil }

// hasMeta reports glob characters, as for local paths.
func hasMeta(p string) bool { return strings.ContainsAny(p, `*?[\`) }

// hidden reports whether a path element is bookkeeping rather than data
// (_SUCCESS, _temporary/, .crc files), as data-lake writers leave them.
func hidden(el string) bool { return strings.HasPrefix(el, ".") || strings.HasPrefix(el, "_") }

// Expand turns one object-store argument into the objects to read, with
// the rules local paths follow:
//
//   - an object is read as given, even when its key holds glob
//     characters (as a local file that exists is);
//   - a prefix (a "directory": the key followed by '/') is read
//     recursively, in the order a local directory walk gives (element by
//     element, lexical), skipping elements that start with '.' or '_';
//   - a key with glob characters that names no object (path.Match
//     syntax, '*' not crossing '/') matches objects and prefixes, each
//     expanded as above.
//
// A web URL names one object, as given: a web server lists nothing, and
// '?' starts its query. An argument that names nothing is an error naming
// it.
func Expand(ctx context.Context, arg string) ([]string, error) {
	scheme, bucket, key, err := Split(arg)
	if err != nil {
		return nil, err
	}
	s, err := open(ctx, scheme, bucket)
	if err != nil {
		return nil, err
	}
	if isWeb(scheme) {
		if _, err := s.stat(ctx, key); err != nil {
			return nil, wrap(arg, err)
		}
		return []string{arg}, nil
	}
	root := scheme + "://" + bucket + "/"
	if key != "" && !strings.HasSuffix(key, "/") {
		// an object is read as named, glob characters and all
		_, err := s.stat(ctx, key)
		if err == nil {
			return []string{arg}, nil
		}
		if !errors.Is(err, ErrNotFound) {
			return nil, wrap(arg, err)
		}
	}
	if !hasMeta(key) {
		if key != "" && !strings.HasSuffix(key, "/") {
			key += "/"
		}
		keys, err := list(ctx, s, key)
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
	keys, err := list(ctx, s, lit[:strings.LastIndex(lit, "/")+1])
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
// when a page token repeats, it is ErrListing; so is a key not under
// prefix, which a store that ignores the prefix gives (read, it would be
// data the argument does not name).
func list(ctx context.Context, s store, prefix string) ([]string, error) {
	ctx, bound := withListing(ctx)
	var keys []string
	err := s.list(ctx, prefix, func(key string) error {
		if err := bound.add(); err != nil {
			return err
		}
		if !strings.HasPrefix(key, prefix) {
			return listErrorf("the listing of %q gave %q, which is not under it: a faulty store or proxy", prefix, key)
		}
		if !strings.HasSuffix(key, "/") { // a "folder" marker object, not data
			keys = append(keys, key)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(keys, func(a, b string) int {
		return slices.Compare(strings.Split(a, "/"), strings.Split(b, "/"))
	})
	return slices.Compact(keys), nil
}

// Writer is an object being written. It spools to a local temporary file
// and uploads it in one request when Close succeeds, so the object appears
// whole or not at all, and a failed run leaves no partial output.
type Writer struct {
	*os.File
	ctx  context.Context
	name string
	s    store
	key  string
	done bool
}

// Create opens name for writing (Writer). The spool file is made in the
// system's temporary directory ($TMPDIR).
func Create(ctx context.Context, name string) (*Writer, error) {
	s, key, err := object(ctx, name, ErrURL)
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp("", ".rankeval-upload-*")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", printable.String(name), err)
	}
	return &Writer{File: f, ctx: ctx, name: name, s: s, key: key}, nil
}

// Close uploads what was written and removes the spool file.
func (w *Writer) Close() error {
	if w.done {
		return nil
	}
	w.done = true
	defer os.Remove(w.File.Name())
	defer w.File.Close()
	st, err := w.File.Stat()
	if err == nil {
		err = w.s.put(w.ctx, w.key, w.File, st.Size())
	}
	if err != nil {
		return wrap(w.name, err)
	}
	return nil
}

// Abort discards what was written: nothing is uploaded.
func (w *Writer) Abort() {
	if !w.done {
		w.done = true
		w.File.Close()
		os.Remove(w.File.Name())
	}
}

// Forget drops the cached stores, so credentials or endpoints changed in
// the environment take effect (tests start a server per test).
func Forget() {
	stores.Lock()
	stores.m = nil
	stores.Unlock()
}
