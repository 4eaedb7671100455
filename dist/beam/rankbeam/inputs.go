package rankbeam

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/rankeval/rankeval/objstore"
	"github.com/rankeval/rankeval/pipeline"
	"github.com/rankeval/rankeval/reader"
)

// File is one input file: its place in rankeval's order of the inputs
// (the file index of every row's position), the path a worker reads and
// the name rankeval gives it (relative when the input was).
type File struct {
	Index      int
	Path, Name string
}

func init() {
	beam.RegisterType(reflect.TypeOf(File{}))
	register.DoFn2x1[[]string, func(File), error](&expandFn{})
	register.Emitter1[File]()
	register.Iter1[File]() // the side input, a re-iterable of these iterators
}

// expandInputs adds the expansion of the inputs as given (files,
// directories, globs, object-store prefixes) to s: one File per file,
// numbered in rankeval's order. The job graph holds the arguments once,
// not the file list: a data lake of 50,000 files given as one prefix
// makes a graph as small as one file does, and a runner such as Dataflow
// refuses large graphs. The arguments are one element, so one worker
// expands them all, in order, as the CLI does.
func expandInputs(s beam.Scope, args []string, dir string) beam.PCollection {
	return beam.ParDo(s.Scope("expand"), &expandFn{Dir: dir}, beam.Create(s.Scope("inputs"), args))
}

// expandFn expands the inputs with the CLI's rules and order
// (reader.Expand), so that ties across files break as rankeval breaks them.
// A relative input is read from Dir, the launcher's working directory (a
// worker of a cluster runs elsewhere), and named as rankeval names it.
type expandFn struct{ Dir string }

func (f *expandFn) ProcessElement(args []string, emit func(File)) (err error) {
	defer mark(&err)
	var files []File
	for _, a := range args {
		rel := f.Dir != "" && !objstore.IsURL(a) && !filepath.IsAbs(a)
		abs := a
		if rel {
			abs = filepath.Join(f.Dir, a)
		}
		ins, err := reader.Expand([]string{abs})
		if err != nil {
			return err
		}
		for _, in := range ins {
			name := in.Path
			if rel {
				name = relName(a, f.Dir, in.Path)
			}
			files = append(files, File{Index: len(files), Path: in.Path, Name: name})
		}
	}
	if len(files) >= pipeline.MaxInputs {
		return fmt.Errorf("%d input files; at most %d: %w", len(files), pipeline.MaxInputs-1, ErrConfig)
	}
	for _, file := range files {
		emit(file)
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

// fileList reads the expanded inputs' names (a side input) into a list by
// index.
func fileList(files func() func(*File) bool) []string {
	var list []string
	it := files()
	var f File
	for it(&f) {
		if f.Index >= len(list) {
			list = append(list, make([]string, f.Index+1-len(list))...)
		}
		list[f.Index] = f.Name
	}
	return list
}

// sortedInputs is the summary's list of inputs: sorted, as rankeval lists
// them (so that merged states list the same inputs in any merge order).
func sortedInputs(files func() func(*File) bool) []string {
	list := fileList(files)
	slices.Sort(list)
	return list
}

// fileNames names positions in messages. It reads the file list (a side
// input) only when a message needs a name, so a step pays nothing for it
// on good input.
type fileNames struct {
	files func() func(*File) bool
	list  []string
}

// at sets the side input of the element being processed.
func (n *fileNames) at(files func() func(*File) bool) { n.files = files }

func (n *fileNames) where(v uint64) string {
	file, pos := pipeline.Unpack(v)
	if n.list == nil && n.files != nil {
		n.list = fileList(n.files) // the global window's: the same for every element
	}
	if file >= len(n.list) {
		return fmt.Sprintf("input #%d:%d", file, pos) // damaged data, named all the same
	}
	return fmt.Sprintf("%s:%d", n.list[file], pos)
}
