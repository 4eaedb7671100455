package rankbeam

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/rankeval/rankeval/pipeline"
	"github.com/rankeval/rankeval/reader"
)

// File is one input file: its place in rankeval's order of the inputs
// (the file index of every row's position) and its path.
type File struct {
	Index int
	Path  string
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
func expandInputs(s beam.Scope, args []string) beam.PCollection {
	return beam.ParDo(s.Scope("expand"), &expandFn{}, beam.Create(s.Scope("inputs"), args))
}

// expandFn expands the inputs with the CLI's rules and order
// (reader.Expand), so that ties across files break as rankeval breaks them.
type expandFn struct{}

func (f *expandFn) ProcessElement(args []string, emit func(File)) (err error) {
	defer mark(&err)
	ins, err := reader.Expand(args)
	if err != nil {
		return err
	}
	if len(ins) >= pipeline.MaxInputs {
		return fmt.Errorf("%d input files; at most %d: %w", len(ins), pipeline.MaxInputs-1, ErrConfig)
	}
	for i, in := range ins {
		emit(File{Index: i, Path: in.Path})
	}
	return nil
}

// fileList reads the expanded inputs (a side input) into a list by index.
func fileList(files func() func(*File) bool) []string {
	var list []string
	it := files()
	var f File
	for it(&f) {
		if f.Index >= len(list) {
			list = append(list, make([]string, f.Index+1-len(list))...)
		}
		list[f.Index] = f.Path
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
