// Package outfile writes output files whole or not at all: a file is
// written under a temporary name beside its target and renamed over it
// only when complete, so a failed or interrupted run never leaves a
// half-written output. An object-store URL (objstore.IsURL) is spooled
// and uploaded in one request on Commit, so it too appears whole or not at
// all. Both commands write their outputs through it.
package outfile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rankeval/rankeval/objstore"
)

// File is an output being written. Write to it, then Commit, or Abort.
type File struct {
	*os.File
	target    string
	committed bool
	inPlace   bool             // a device or pipe, written directly
	object    *objstore.Writer // an object, uploaded on Commit
}

// Create starts writing target. The file gets the permissions any file the
// user creates gets (0666 less the umask), not the 0600 of a temporary
// file: a dashboard or the next task of a pipeline reads it.
//
// A descriptor named by path (/dev/stdout, /dev/fd/3) is written through
// that descriptor, as the shell opened it (appending, say). A target that
// exists and is not a regular file (/dev/null, a named pipe) is written in
// place: it cannot be replaced, and there is
// nothing to leave half-written. A symbolic link is followed, so the file
// it names is replaced, not the link.
func Create(target string) (*File, error) { return CreateContext(context.Background(), target) }

// Target is the path or URL the file is written to, on Commit.
func (f *File) Target() string { return f.target }

// CreateContext is Create with an object's requests made under ctx
// (objstore.WithReadTimeout).
func CreateContext(ctx context.Context, target string) (*File, error) {
	if objstore.IsURL(target) {
		w, err := objstore.Create(ctx, target)
		if err != nil {
			return nil, fmt.Errorf("cannot write %w", err)
		}
		return &File{File: w.File, target: target, object: w}, nil
	}
	if f, ok, err := openFD(target); ok {
		if err != nil {
			return nil, fmt.Errorf("cannot write %s: %w", target, err)
		}
		return &File{File: f, target: target, inPlace: true}, nil
	}
	if real, err := filepath.EvalSymlinks(target); err == nil {
		target = real
	}
	if st, err := os.Stat(target); err == nil {
		if st.IsDir() {
			return nil, fmt.Errorf("cannot write %s: is a directory", target)
		}
		if !st.Mode().IsRegular() {
			f, err := os.OpenFile(target, os.O_WRONLY, 0)
			if err != nil {
				return nil, fmt.Errorf("cannot write %s: %w", target, err)
			}
			return &File{File: f, target: target, inPlace: true}, nil
		}
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	for range 100 {
		name := filepath.Join(dir, tempPrefix(base)+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("cannot write %s: %w", target, err)
		}
		return &File{File: f, target: target}, nil
	}
	return nil, fmt.Errorf("cannot write %s: no free temporary name in %s", target, dir)
}

// Commit closes the file and renames it over its target.
func (f *File) Commit() error {
	if f.object != nil {
		if err := f.object.Close(); err != nil {
			return fmt.Errorf("writing %w", err)
		}
		f.committed = true
		return nil
	}
	if f.inPlace {
		f.committed = true
		return f.File.Close()
	}
	if err := f.File.Close(); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("writing %s: %w", f.target, err)
	}
	if err := os.Rename(f.Name(), f.target); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("writing %s: %w", f.target, err)
	}
	f.committed = true
	return nil
}

// Abort removes the temporary file unless Commit succeeded.
func (f *File) Abort() {
	if f.object != nil {
		f.object.Abort()
		return
	}
	if f.inPlace {
		f.File.Close()
		return
	}
	if !f.committed {
		f.File.Close()
		os.Remove(f.Name())
	}
}

// Write writes b to target whole.
func Write(target string, b []byte) error {
	f, err := Create(target)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.File.Write(b); err != nil {
		return fmt.Errorf("writing %s: %w", target, err)
	}
	return f.Commit()
}

// tempPrefix begins the temporary names of a target whose base name is
// base: hidden, so that readers of the directory skip them.
func tempPrefix(base string) string { return "." + base + ".tmp-" }

// RemoveTemps removes the temporary files of writes to target that were
// cut short: a process killed while writing cannot remove its own (a
// distributed job's launcher removes its workers').
func RemoveTemps(target string) {
	if real, err := filepath.EvalSymlinks(target); err == nil {
		target = real
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), tempPrefix(base)) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
