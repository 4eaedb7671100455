package propensity

import (
	"bufio"
	"container/heap"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// A table in bounded memory: past its limit (SpillTo), the cells held
// are written, sorted, to a run file (zstd-compressed cells, as
// AppendCell encodes them) and dropped; Each merges the runs and the
// cells held into one sorted stream, adding the counts of a cell that is
// in several. The cells a table holds are then at most the limit's worth
// whatever the number of distinct cells, and the stream is the one an
// unspilled table gives: the estimate is the same bits either way.

// ErrSpill is wrapped by the failures of a spilled table's run files.
var ErrSpill = errors.New("propensity spill file")

// cellCost is what a held cell costs beyond its key's bytes: the map's
// entry, the key's string header and the count.
const cellCost = 80

// maxRuns is the fan-in of the runs' merges: runs are merged in tiers,
// maxRuns runs of one tier into one of the next (as a counter carries),
// so that each cell is rewritten once a tier, a logarithm of the runs,
// and Each opens fewer than maxRuns files a tier.
const maxRuns = 32

// SpillTo bounds the bytes of the cells t holds (their keys plus
// cellCost each) to limit, past which t writes them as a sorted run to
// a temporary file in dir (removed by Close); limit <= 0 holds every
// cell.
func (t *Table) SpillTo(dir string, limit int64) {
	t.dir, t.limit = dir, limit
}

// Close removes t's run files. A table that spilled is then refused
// (Each, Cells, Totals, Estimate fail with ErrSpill) rather than read
// from the cells it still holds, a part of its rows; one held whole
// still reads.
func (t *Table) Close() error {
	if len(t.runs) > 0 && t.err == nil {
		t.err = fmt.Errorf("%w: the table's runs were removed (Close)", ErrSpill)
	}
	var err error
	for _, r := range t.runs {
		if e := t.remove(r); e != nil && !os.IsNotExist(e) && err == nil {
			err = fmt.Errorf("%w: %v", ErrSpill, e)
		}
	}
	t.runs, t.tiers = nil, nil
	return err
}

// remove removes the run file name, and tells OnRun.
func (t *Table) remove(name string) error {
	err := os.Remove(name)
	if t.OnRun != nil {
		t.OnRun(name, false)
	}
	return err
}

type runHookKey struct{}

// WithRunHook returns a context that carries f, the OnRun of the tables
// counted under it (RunHook): a command that must remove temporary files
// when a signal stops it learns their names so.
func WithRunHook(ctx context.Context, f func(name string, made bool)) context.Context {
	return context.WithValue(ctx, runHookKey{}, f)
}

// RunHook is the OnRun ctx carries (WithRunHook), or nil.
func RunHook(ctx context.Context) func(name string, made bool) {
	f, _ := ctx.Value(runHookKey{}).(func(string, bool))
	return f
}

// Spilled is the number of run files t has written since it was made.
func (t *Table) Spilled() int { return t.spilled }

// Err is the first failure of writing a run, after which t counts no
// more rows.
func (t *Table) Err() error { return t.err }

// spillIfFull writes the cells held as a run when they cost more than the
// limit.
func (t *Table) spillIfFull() {
	if t.limit <= 0 || t.held <= t.limit || t.err != nil {
		return
	}
	if err := t.spill(); err != nil {
		t.err = err
	}
}

// spill writes the cells held, sorted, to a new run of tier 0 and drops
// them; then, while the last maxRuns runs are of one tier, it merges them
// into one of the next.
func (t *Table) spill() error {
	cells := t.heldCells()
	name, err := t.writeRun(func(yield func(Cell) error) error {
		for _, c := range cells {
			if err := yield(c); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	t.runs, t.tiers = append(t.runs, name), append(t.tiers, 0)
	clear(t.cells)
	t.cells = map[string]Count{} // a cleared map keeps its buckets
	t.held = 0
	for {
		n := len(t.runs)
		if n < maxRuns || t.tiers[n-maxRuns] != t.tiers[n-1] {
			return nil // tiers only fall along the runs: the last maxRuns are of one tier
		}
		old := t.runs[n-maxRuns:]
		name, err = t.writeRun(func(yield func(Cell) error) error { return mergeRuns(old, nil, yield) })
		if err != nil {
			return err
		}
		for _, r := range old {
			t.remove(r)
		}
		tier := t.tiers[n-1] + 1
		t.runs, t.tiers = append(t.runs[:n-maxRuns], name), append(t.tiers[:n-maxRuns], tier)
	}
}

// writeRun writes the cells each gives to a new run file.
func (t *Table) writeRun(each func(func(Cell) error) error) (string, error) {
	f, err := os.CreateTemp(t.dir, "rankeval-propensity-*.run")
	if err != nil {
		return "", fmt.Errorf("%w: %v (--tmp-dir)", ErrSpill, err)
	}
	t.spilled++
	if t.OnRun != nil {
		t.OnRun(f.Name(), true)
	}
	fail := func(err error) (string, error) {
		f.Close()
		t.remove(f.Name())
		return "", fmt.Errorf("%w: %s: %v", ErrSpill, f.Name(), err)
	}
	zw, err := zstd.NewWriter(f, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(1<<20))
	if err != nil {
		return fail(err)
	}
	bw := bufio.NewWriterSize(zw, 64<<10)
	var b []byte
	err = each(func(c Cell) error {
		b = AppendCell(b[:0], c)
		_, err := bw.Write(b)
		return err
	})
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		return fail(err)
	}
	return f.Name(), nil
}

// heldCells lists the cells held in memory, sorted (compareCells).
func (t *Table) heldCells() []Cell {
	cs := make([]Cell, 0, len(t.cells))
	for k, c := range t.cells {
		cs = append(cs, decodeKey(k, c))
	}
	slices.SortFunc(cs, compareCells)
	return cs
}

// compareCells orders cells by query, doc and ranker (their bytes), then
// position.
func compareCells(a, b Cell) int {
	if c := strings.Compare(a.Query, b.Query); c != 0 {
		return c
	}
	if c := strings.Compare(a.Doc, b.Doc); c != 0 {
		return c
	}
	if c := strings.Compare(a.Ranker, b.Ranker); c != 0 {
		return c
	}
	return a.Position - b.Position
}

// Each calls f with every cell of t, in the order of compareCells, each
// cell once with its counts summed over the runs; it stops at f's first
// error and returns it.
func (t *Table) Each(f func(Cell) error) error {
	if t.err != nil {
		return t.err
	}
	held := t.heldCells()
	if len(t.runs) == 0 {
		for _, c := range held {
			if err := f(c); err != nil {
				return err
			}
		}
		return nil
	}
	return mergeRuns(t.runs, held, f)
}

// AppendCell appends a cell's encoding: the query, doc and ranker ids
// (each a uvarint length and its bytes), then the position, clicks and
// impressions (uvarints). A propensity state's table and a spilled
// table's runs hold cells so.
func AppendCell(b []byte, c Cell) []byte {
	for _, f := range []string{c.Query, c.Doc, c.Ranker} {
		b = binary.AppendUvarint(b, uint64(len(f)))
		b = append(b, f...)
	}
	b = binary.AppendUvarint(b, uint64(c.Position))
	b = binary.AppendUvarint(b, uint64(c.Clicks))
	return binary.AppendUvarint(b, uint64(c.Impressions))
}

// runReader reads the cells of a run file.
type runReader struct {
	name string
	f    *os.File
	zr   *zstd.Decoder
	r    *bufio.Reader
	cur  Cell
}

func openRun(name string) (*runReader, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSpill, err)
	}
	zr, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: %s: %v", ErrSpill, name, err)
	}
	return &runReader{name: name, f: f, zr: zr, r: bufio.NewReaderSize(zr, 64<<10)}, nil
}

func (r *runReader) close() { r.zr.Close(); r.f.Close() }

// next reads the next cell into r.cur; false at the end of the run.
func (r *runReader) next() (bool, error) {
	c, err := ReadCell(r.r)
	if err == io.EOF {
		return false, nil
	}
	if err != nil {
		return false, r.damaged(err)
	}
	r.cur = c
	return true, nil
}

// CellReader is what ReadCell reads from: a bufio.Reader, a
// bytes.Reader.
type CellReader interface {
	io.Reader
	io.ByteReader
}

// ReadCell reads the next cell AppendCell encoded from r: io.EOF when r
// ends before it, io.ErrUnexpectedEOF when r ends within it, and an
// error for an id longer than 2^31 bytes. The counts are not checked.
func ReadCell(r CellReader) (Cell, error) {
	var f [3]string
	for i := range f {
		n, err := binary.ReadUvarint(r)
		if i == 0 && err == io.EOF {
			return Cell{}, io.EOF
		}
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			return Cell{}, err
		}
		if n > 1<<31 {
			return Cell{}, fmt.Errorf("an id of %d bytes", n)
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(r, b); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return Cell{}, err
		}
		f[i] = string(b)
	}
	var v [3]uint64
	for i := range v {
		x, err := binary.ReadUvarint(r)
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			return Cell{}, err
		}
		v[i] = x
	}
	return Cell{Query: f[0], Doc: f[1], Ranker: f[2], Position: int(v[0]), Count: Count{Clicks: int64(v[1]), Impressions: int64(v[2])}}, nil
}

func (r *runReader) damaged(err error) error {
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("%w: %s: %v (changed while the table was counted?)", ErrSpill, r.name, err)
}

// runHeap orders the runs being merged by their current cell.
type runHeap []*runReader

func (h runHeap) Len() int           { return len(h) }
func (h runHeap) Less(i, j int) bool { return compareCells(h[i].cur, h[j].cur) < 0 }
func (h runHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *runHeap) Push(x any)        { *h = append(*h, x.(*runReader)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// mergeRuns calls f with the cells of the runs and of held (sorted), in
// the order of compareCells, the counts of equal cells summed.
func mergeRuns(runs []string, held []Cell, f func(Cell) error) error {
	var h runHeap
	defer func() {
		for _, r := range h {
			r.close()
		}
	}()
	for _, name := range runs {
		r, err := openRun(name)
		if err != nil {
			return err
		}
		ok, err := r.next()
		if err != nil || !ok {
			r.close()
			if err != nil {
				return err
			}
			continue
		}
		h = append(h, r)
	}
	heap.Init(&h)
	var cur Cell
	have := false
	emit := func(c Cell) error {
		if have && compareCells(cur, c) == 0 {
			cur.Clicks += c.Clicks
			cur.Impressions += c.Impressions
			return nil
		}
		if have {
			if err := f(cur); err != nil {
				return err
			}
		}
		cur, have = c, true
		return nil
	}
	for len(h) > 0 || len(held) > 0 {
		if len(h) == 0 || len(held) > 0 && compareCells(held[0], h[0].cur) <= 0 {
			if err := emit(held[0]); err != nil {
				return err
			}
			held = held[1:]
			continue
		}
		r := h[0]
		if err := emit(r.cur); err != nil {
			return err
		}
		ok, err := r.next()
		if err != nil {
			return err
		}
		if ok {
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
			r.close()
		}
	}
	if have {
		return f(cur)
	}
	return nil
}
