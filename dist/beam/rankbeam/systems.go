package rankbeam

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/config"
	"github.com/rankeval/rankeval/pipeline"
	"github.com/rankeval/rankeval/reader/trec"
	"github.com/rankeval/rankeval/summary"
)

// Several logs compared as systems (--system NAME=PATH): every log's files
// are inputs of the one job, log after log, and the shuffle that groups a
// query's rows groups them from every log at once. A query is joined by
// its id, so the logs need not hold their queries in the same order, as
// rankeval's lockstep needs; the rules of a query over the systems are
// pipeline's (EvalSystems, SliceSource, AbsentError), as rankeval's are.

// sources are the source flags; a Config made in code may leave
// --missing unset, which means its default.
func (c *Config) sources() *config.Sources {
	src := c.Sources
	if src.Missing == "" {
		src.Missing = "error"
	}
	return &src
}

// applySources completes s with the source flags, as the launcher did,
// and returns the arguments of each log, in order: every --system log's
// path, or the INPUT arguments as the one log. The files are numbered log
// after log when a worker expands them (expandInputs), so a file's index
// says its log (File.Log) and the order of the files is rankeval's.
func (c *Config) applySources(s *config.Settings) ([][]string, error) {
	logs, err := c.sources().Apply(s, c.Inputs)
	if err != nil {
		return nil, err
	}
	if err := c.Sources.CheckState(c.Outputs.State); err != nil {
		return nil, err
	}
	if err := s.CheckState(c.Outputs.State); err != nil {
		return nil, err
	}
	if logs == nil {
		logs = [][]string{c.Inputs}
	}
	return logs, nil
}

// describe names what the run read, as rankeval names it: the expanded
// files (a side input), and with --system each as NAME=PATH.
func (c *Config) describe(run *summary.Run, files []File) {
	inputs, logs := c.inputsOf(files)
	c.sources().Describe(run, inputs, logs)
}

// inputNames names each file, by its index, as rankeval names the input
// in its state: files are numbered log after log, the order in which
// rankeval reads them.
func (c *Config) inputNames(run *summary.Run, files []File) []string {
	inputs, logs := c.inputsOf(files)
	return config.InputNames(run, inputs, logs)
}

// inputsOf is the files as rankeval's inputs: their names, or with
// --system each log's.
func (c *Config) inputsOf(files []File) (inputs []string, logs [][]string) {
	if len(c.Sources.System) == 0 {
		inputs = make([]string, len(files))
		for i, f := range files {
			inputs[i] = f.Name
		}
		return inputs, nil
	}
	logs = make([][]string, len(c.Sources.System))
	for _, f := range files {
		logs[f.Log] = append(logs[f.Log], f.Name)
	}
	return nil, logs
}

// byID says per-query records come in query-id order: the order rankeval
// writes them in for --system logs sorted by query id, which is the one
// order every arrangement of the logs has in common.
func (c *Config) byID() bool { return len(c.Sources.System) > 1 }

// collect gathers a query's encoded chunks.
func collect(chunks func(*[]byte) bool) [][]byte {
	var all [][]byte
	var c []byte
	for chunks(&c) {
		all = append(all, c)
		c = nil
	}
	return all
}

// evaluator makes one query's Result from its chunks: the query's groups,
// one a log, evaluated by the run's query unit.
type evaluator struct {
	cfg     *Config
	files   fileNames // the expanded inputs, set by the step for each query
	set     *config.Settings
	take    *pipeline.Taker
	unit    *pipeline.Unit
	groups  []pipeline.Group
	present []*pipeline.Group // groups, nil where the query is absent
	res     aggregate.Query
	dropped []int64
	// judged holds the judgments of the query being evaluated (--qrels)
	judged *trec.Qrels
}

func (e *evaluator) setup(cfg *Config) error {
	s, _, err := cfg.run()
	if err != nil {
		return err
	}
	e.cfg, e.set = cfg, s
	if cfg.Sources.Qrels != "" {
		e.judged = new(trec.Qrels)
		s.Rules.Qrels = e.judged
	}
	e.take, e.unit = s.Rules.NewTaker(e.files.where), s.Rules.NewUnit(e.files.where)
	logs, systems := max(1, len(cfg.Sources.System)), max(1, len(s.Rules.Systems))
	e.groups, e.present = make([]pipeline.Group, logs), make([]*pipeline.Group, logs)
	e.res = aggregate.Query{Rows: make([]int, systems), Vals: make([][]float64, systems), Empty: make([]bool, systems), Missing: make([]bool, systems)}
	for i := range e.res.Vals {
		e.res.Vals[i] = make([]float64, len(s.Rules.Metrics))
	}
	s.Rules.ClickWeights(&e.res)
	e.dropped = make([]int64, systems)
	return nil
}

// eval evaluates query id from its chunks, from every log.
func (e *evaluator) eval(id string, chunks [][]byte, emit func(Result)) error {
	// The shuffle delivers a query's chunks in any order. Each holds rows
	// in input order and no two overlap, so ordering the chunks by their
	// first row restores the input order that the "input" tie policy,
	// Kendall's and Spearman's cut and the duplicate check mean; inputs
	// are numbered log after log, so it also sorts them by log.
	type chunk struct {
		first uint64
		data  []byte
	}
	cs := make([]chunk, 0, len(chunks))
	for _, c := range chunks {
		_, first, err := pipeline.PeekGroup(c)
		if err != nil {
			return fmt.Errorf("query %q: %w", id, err)
		}
		cs = append(cs, chunk{first, c})
	}
	slices.SortFunc(cs, func(a, b chunk) int { return cmp.Compare(a.first, b.first) })
	clear(e.present)
	for _, c := range cs {
		l := 0
		if len(e.groups) > 1 { // with one log, the file list is not read
			file, _ := pipeline.Unpack(c.first)
			l = e.files.logOf(file)
		}
		if e.present[l] == nil {
			e.groups[l].Reset()
			e.present[l] = &e.groups[l]
		}
		if err := e.take.Decode(e.present[l], c.data); err != nil {
			if errors.Is(err, pipeline.ErrEncoding) {
				err = fmt.Errorf("query %q: %w", id, err)
			}
			return err
		}
	}
	key, err := e.set.Rules.SliceSource(e.present, e.files.where)
	if err != nil {
		return err
	}
	if e.cfg.Sources.Missing != "zero" {
		for l, g := range e.present {
			if g == nil {
				return e.set.Rules.AbsentError(e.files.where(key.First), []byte(id), slices.Index(e.present, key), l)
			}
		}
	}
	clear(e.dropped)
	if err := e.unit.EvalSystems(e.present, &e.res, e.dropped); err != nil {
		return err
	}
	r := e.result(id)
	r.First = key.First
	for c := 0; c+1 < len(key.Key.Off); c++ {
		r.Slice = append(r.Slice, string(key.Key.At(c)))
	}
	emit(r)
	return nil
}

// result copies e.res into a Result of its own: the runner may keep what
// is emitted.
func (e *evaluator) result(id string) Result {
	q := &e.res
	r := Result{Query: id, Dropped: slices.Clone(e.dropped), Empty: slices.Clone(q.Empty), Missing: slices.Clone(q.Missing)}
	r.NoScore, r.NoLabel = make([]int64, len(e.dropped)), make([]int64, len(e.dropped))
	e.unit.TakeMissing(r.NoScore, r.NoLabel)
	r.Labels, r.NonBinary = e.unit.Labels()
	for s := range q.Vals {
		r.Rows = append(r.Rows, int64(q.Rows[s]))
		r.Vals = append(r.Vals, slices.Clone(q.Vals[s]))
	}
	r.Weight = slices.Clone(q.Weight)
	for _, n := range q.Clipped {
		r.Clipped = append(r.Clipped, int64(n))
	}
	return r
}

// A per-query line travels to its shard behind its sort key, the key's
// length first: the query's first position (8 bytes, big-endian: input
// order), or with --system logs its id (byID).
func appendLineKey(b []byte, r *Result, byID bool) []byte {
	if byID {
		b = binary.AppendUvarint(b, uint64(len(r.Query)))
		return append(b, r.Query...)
	}
	b = binary.AppendUvarint(b, 8)
	return binary.BigEndian.AppendUint64(b, r.First)
}

// splitLine splits a line made by appendLineKey into its key and record.
func splitLine(l []byte) (key, line []byte) {
	n, k := binary.Uvarint(l)
	return l[k : k+int(n)], l[k+int(n):]
}

// compareLines orders lines by their keys.
func compareLines(byID bool) func(a, b []byte) int {
	return func(a, b []byte) int {
		ka, _ := splitLine(a)
		kb, _ := splitLine(b)
		if !byID {
			return bytes.Compare(ka, kb)
		}
		switch {
		case pipeline.IDLess(ka, kb):
			return -1
		case pipeline.IDLess(kb, ka):
			return 1
		}
		return 0
	}
}
