package rankbeam

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/rankeval/rankeval/config"
	"github.com/rankeval/rankeval/objstore"
	"github.com/rankeval/rankeval/pipeline"
	"github.com/rankeval/rankeval/reader"
)

// File is one input file: its place in rankeval's order of the inputs
// (the file index of every row's position), the log it belongs to (the
// --system log, in order; 0 without), the path a worker reads and the
// name rankeval gives it (relative when the input was).
type File struct {
	Index, Log int
	Path, Name string
}

func init() {
	beam.RegisterType(reflect.TypeOf(File{}))
	register.DoFn2x1[[]byte, func(File), error](&expandFn{})
	register.Emitter1[File]()
	register.Iter1[File]() // the side input, a re-iterable of these iterators
}

// expandInputs adds the expansion of the inputs as given (files,
// directories, globs, object-store prefixes) to s: one File per file,
// numbered in rankeval's order, each log's files (logs: each --system
// log's arguments, or the INPUT arguments as one log) after the previous
// log's. The job graph holds the arguments once, not the file list: a
// data lake of 50,000 files given as one prefix makes a graph as small as
// one file does, and a runner such as Dataflow refuses large graphs. One
// worker expands them all, in order, as the CLI does.
func expandInputs(s beam.Scope, logs [][]string, dir string, readTimeout time.Duration) beam.PCollection {
	return beam.ParDo(s.Scope("expand"), &expandFn{Logs: logs, Dir: dir, ReadTimeout: readTimeout}, beam.Impulse(s.Scope("inputs")))
}

// expandFn expands the inputs with the CLI's rules and order
// (reader.Expand), so that ties across files break as rankeval breaks them.
// A relative input is read from Dir, the launcher's working directory (a
// worker of a cluster runs elsewhere), and named as rankeval names it.
type expandFn struct {
	Logs [][]string
	Dir  string
	// ReadTimeout is --read-timeout, for the listings of object stores
	// inputs.
	ReadTimeout time.Duration
}

func (f *expandFn) Setup() error { return config.CheckReadTimeout(f.ReadTimeout) }

func (f *expandFn) ProcessElement(_ []byte, emit func(File)) (err error) {
	defer mark(&err)
	var files []File
	for l, args := range f.Logs {
		for _, a := range args {
			rel := f.Dir != "" && !objstore.IsURL(a) && !filepath.IsAbs(a)
			abs := a
			if rel {
				abs = filepath.Join(f.Dir, a)
			}
			ins, err := reader.ExpandContext(objstore.WithReadTimeout(context.Background(), f.ReadTimeout), []string{abs})
			if err != nil {
				return err
			}
			for _, in := range ins {
				name := in.Path
				if rel {
					name = relName(a, f.Dir, in.Path)
				}
				files = append(files, File{Index: len(files), Log: l, Path: in.Path, Name: name})
			}
		}
	}
	if err := CheckFileCount(len(files)); err != nil {
		return err
	}
	for _, file := range files {
		emit(file)
	}
	return nil
}

// CheckFileCount refuses more input files than a packed position (file
// index, row) can tell apart.
func CheckFileCount(n int) error {
	if n >= pipeline.MaxInputs {
		return fmt.Errorf("%d input files; at most %d: %w", n, pipeline.MaxInputs-1, ErrConfig)
	}
	return nil
}

// relName is the name rankeval gives file p, found from the relative
// input arg read from dir: arg itself for a file, arg joined with the path
// below it for a directory, and for a glob the path below its directories
// without wildcards joined with them (as filepath.Glob names matches).
func relName(arg, dir, p string) string {
	abs := filepath.Join(dir, arg)
	if p == abs {
		return arg
	}
	prefix := arg
	if _, err := os.Stat(abs); err != nil { // a glob: Expand matched it
		els := strings.Split(arg, string(filepath.Separator))
		i := slices.IndexFunc(els, func(e string) bool { return strings.ContainsAny(e, `*?[\`) })
		if i < 0 {
			i = len(els)
		}
		prefix = filepath.Join(els[:i]...)
	}
	r, err := filepath.Rel(filepath.Join(dir, prefix), p)
	if err != nil {
		return p
	}
	return filepath.Join(prefix, r)
}

// fileList reads the expanded inputs (a side input) into a list by index.
func fileList(files func() func(*File) bool) []File {
	var list []File
	it := files()
	var f File
	for it(&f) {
		if f.Index >= len(list) {
			list = append(list, make([]File, f.Index+1-len(list))...)
		}
		list[f.Index] = f
	}
	return list
}

// fileNames knows the expanded inputs, to name positions in messages and
// say which log a file is of. It reads the file list (a side input) only
// when first asked, so a step pays nothing for it on good input of one
// log.
type fileNames struct {
	files func() func(*File) bool
	list  []File
}

// at sets the side input of the element being processed.
func (n *fileNames) at(files func() func(*File) bool) { n.files = files }

// load reads the list once: the global window's, the same for every
// element.
func (n *fileNames) load() []File {
	if n.list == nil && n.files != nil {
		n.list = fileList(n.files)
	}
	return n.list
}

func (n *fileNames) where(v uint64) string {
	file, pos := pipeline.Unpack(v)
	list := n.load()
	if file >= len(list) {
		return fmt.Sprintf("input #%d:%d", file, pos) // damaged data, named all the same
	}
	return fmt.Sprintf("%s:%d", list[file].Name, pos)
}

// logOf is the log (--system system) file belongs to.
func (n *fileNames) logOf(file int) int {
	if list := n.load(); file < len(list) {
		return list[file].Log
	}
	return 0 // damaged data, named "input #N" in any message
}

// named is where, a reader's name for a row of part, with the file named
// as rankeval names it (relative when the input was) rather than by the
// path a worker reads.
func named(where string, part Part) string {
	if part.Path != part.Name && strings.HasPrefix(where, part.Path) {
		return part.Name + where[len(part.Path):]
	}
	return where
}

// namedErr is err, the failure of reading part (a reader's, which names
// the path it opened: "path:line: ..."), its message with the file named
// as named names it, and wrapping err (errors.Is and As see through it).
func namedErr(err error, part Part) error {
	if err == nil {
		return nil
	}
	if msg := named(err.Error(), part); msg != err.Error() {
		return renamed{msg, err}
	}
	return err
}

// renamed is an error with another message.
type renamed struct {
	msg string
	err error
}

func (e renamed) Error() string { return e.msg }
func (e renamed) Unwrap() error { return e.err }
