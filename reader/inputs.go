package reader

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rankeval/rankeval/objstore"
	"github.com/rankeval/rankeval/reader/internal/batch"
)

// ErrNoInput is wrapped by Expand when an argument names nothing to read.
// It is objstore's sentinel, so object-store and local arguments match alike.
var ErrNoInput = objstore.ErrNoInput

// Input is one file to read, as Expand found it.
type Input struct {
	Path string
}

// Expand turns command-line arguments into the files to read, in order:
//
//   - a file is read as given (even a hidden one: it was asked for);
//   - a directory is read recursively, entries in lexical order, skipping
//     names that start with '.' or '_' (_SUCCESS, _temporary/, .crc files),
//     as data-lake writers leave them; a directory with no file is an error;
//   - an argument that does not exist but holds glob characters is matched
//     with filepath.Glob, matches in lexical order, each expanded as above;
//     matches starting with '.' or '_' are skipped unless the pattern's
//     last element starts with that character too;
//   - "-" (standard input) passes through;
//   - object-store URLs name objects, prefixes or globs (a web URL one
//     object), expanded by
//     objstore.Expand with the same rules.
//
// Rows of one query may continue from one file into the next in this
// order. An argument that matches nothing is an error naming it.
//
// The local files a directory or glob gave are then checked from their
// first bytes, so a file of no known format among them (a README.txt or
// notes.md beside the part files) is an error naming it, and all the
// others like it, before anything is read. Files named as arguments are
// left to Open (and OpenRun), whose messages say more about a file the
// user meant; so are compressed files, whose content Open checks, and
// objects of stores.
func Expand(args []string) ([]Input, error) { return ExpandContext(context.Background(), args) }

// ExpandContext is Expand with the requests to object storage made under
// ctx (objstore.WithReadTimeout).
func ExpandContext(ctx context.Context, args []string) ([]Input, error) {
	var out []Input
	var found []int // indices in out of local files a directory or glob gave
	for _, arg := range args {
		if arg == batch.Stdin {
			out = append(out, Input{Path: batch.Stdin})
			continue
		}
		if objstore.IsURL(arg) {
			// prefixes and globs of object stores follow the same rules
			keys, err := objstore.Expand(ctx, arg)
			if err != nil {
				return nil, err
			}
			for _, k := range keys {
				out = append(out, Input{Path: k})
			}
			continue
		}
		n := len(out)
		st, err := os.Stat(arg)
		if err == nil {
			if out, err = expandPath(out, arg, st, 0); err != nil {
				return nil, err
			}
			if st.IsDir() {
				for i := n; i < len(out); i++ {
					found = append(found, i)
				}
			}
			continue
		}
		if !errors.Is(err, fs.ErrNotExist) || !hasMeta(arg) {
			return nil, err // *PathError names the argument
		}
		matches, gerr := filepath.Glob(arg)
		if gerr != nil {
			return nil, fmt.Errorf("%s: bad pattern: %v: %w", arg, gerr, ErrNoInput)
		}
		slices.Sort(matches)
		keepHidden := hidden(filepath.Base(arg))
		for _, m := range matches {
			if hidden(filepath.Base(m)) && !keepHidden {
				continue
			}
			st, err := os.Stat(m)
			if err != nil {
				return nil, err
			}
			if out, err = expandPath(out, m, st, 0); err != nil {
				return nil, err
			}
		}
		if len(out) == n {
			return nil, fmt.Errorf("%s: no file matches: %w", arg, ErrNoInput)
		}
		for i := n; i < len(out); i++ {
			found = append(found, i)
		}
	}
	var stray []strayFile
	for _, i := range found {
		s, err := sniffFile(out[i].Path)
		if err != nil {
			return nil, err
		}
		if s != nil {
			stray = append(stray, *s)
		}
	}
	if len(stray) > 0 {
		return nil, strayError(stray)
	}
	return out, nil
}

func hasMeta(p string) bool { return strings.ContainsAny(p, `*?[\`) }

// hidden reports whether a directory entry is bookkeeping rather than data.
func hidden(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}

// maxLinks bounds how many symbolic links to directories a walk follows
// one inside another, which stops a link loop.
const maxLinks = 16

func expandPath(out []Input, p string, st fs.FileInfo, links int) ([]Input, error) {
	if !st.IsDir() {
		return append(out, Input{Path: p}), nil
	}
	n := len(out)
	// WalkDir visits entries in lexical order.
	err := filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path != p && hidden(d.Name()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			// a link to a directory would be walked as a file; follow it
			st, err := os.Stat(path)
			if err != nil {
				return err
			}
			if st.IsDir() {
				if links >= maxLinks {
					return fmt.Errorf("%s: more than %d nested links to directories (a loop?): %w", path, maxLinks, ErrNoInput)
				}
				out, err = expandPath(out, path, st, links+1)
				return err
			}
		}
		out = append(out, Input{Path: path})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == n {
		return nil, fmt.Errorf("%s: directory has no data files: %w", p, ErrNoInput)
	}
	return out, nil
}
